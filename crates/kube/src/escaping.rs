//! Property-name escaping between schema property names and CEL field names
//! (Kubernetes `apiserver/pkg/cel/escaping.go`).
//!
//! A property is visible to CEL iff its name matches `[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*`. A name that
//! is a CEL reserved word becomes `__<name>__`; otherwise, left to right, `__` becomes
//! `__underscores__`, `.` `__dot__`, `-` `__dash__` and `/` `__slash__`. Map keys
//! (`additionalProperties`) are never escaped.

use std::borrow::Cow;

/// Whether `name` is a CEL reserved word ([`cel::syntax::RESERVED_WORDS`]): a
/// property with such a name is escaped as `__<name>__`.
pub fn is_reserved(name: &str) -> bool {
    cel::syntax::is_reserved_word(name)
}

/// Whether `name` is an identifier without escape sequences (`[a-zA-Z_][a-zA-Z0-9_]*` without
/// `__`): such a name unescapes to itself, and escapes to itself unless it is a reserved word.
pub fn is_plain_identifier(name: &str) -> bool {
    let bytes = name.as_bytes();
    let Some(first) = bytes.first() else {
        return false;
    };
    if first.is_ascii_digit() {
        return false;
    }
    // Letters, digits and single underscores, in one pass (field names are read per object).
    let mut after_underscore = false;
    for &c in bytes {
        if c == b'_' {
            if after_underscore {
                return false;
            }
            after_underscore = true;
        } else if c.is_ascii_alphanumeric() {
            after_underscore = false;
        } else {
            return false;
        }
    }
    true
}

/// The CEL field name of property `name`, or `None` when the property is not accessible.
pub fn escape(name: &str) -> Option<Cow<'_, str>> {
    let bytes = name.as_bytes();
    let first = *bytes.first()?;
    let allowed = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'/');
    if first.is_ascii_digit() || !bytes.iter().all(|&c| allowed(c)) {
        return None;
    }
    if is_reserved(name) {
        return Some(Cow::Owned(format!("__{name}__")));
    }
    if !bytes.iter().any(|&c| matches!(c, b'.' | b'-' | b'/')) && !name.contains("__") {
        return Some(Cow::Borrowed(name));
    }
    let mut out = String::with_capacity(name.len() + 16);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'_' if bytes.get(i + 1) == Some(&b'_') => {
                out.push_str("__underscores__");
                i += 2;
                continue;
            }
            b'.' => out.push_str("__dot__"),
            b'-' => out.push_str("__dash__"),
            b'/' => out.push_str("__slash__"),
            c => out.push(c as char),
        }
        i += 1;
    }
    Some(Cow::Owned(out))
}

/// The property name a CEL field name stands for, or `None` when the name contains an escape
/// sequence Kubernetes does not know (the lookup then fails).
pub fn unescape(escaped: &str) -> Option<Cow<'_, str>> {
    if let Some(inner) = escaped
        .strip_prefix("__")
        .and_then(|s| s.strip_suffix("__"))
        && is_reserved(inner)
    {
        return Some(Cow::Borrowed(inner));
    }
    if !escaped.contains("__") {
        return Some(Cow::Borrowed(escaped));
    }
    let bytes = escaped.as_bytes();
    let mut out = String::with_capacity(escaped.len());
    let mut i = 0;
    let mut copied = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'_' && bytes[i + 1] == b'_' {
            let mut j = i + 2;
            while j < bytes.len() && bytes[j] != b'_' {
                j += 1;
            }
            if j > i + 2 && bytes.get(j + 1) == Some(&b'_') && bytes.get(j) == Some(&b'_') {
                let replacement = match &escaped[i + 2..j] {
                    "underscores" => "__",
                    "dot" => ".",
                    "dash" => "-",
                    "slash" => "/",
                    _ => return None,
                };
                out.push_str(&escaped[copied..i]);
                out.push_str(replacement);
                i = j + 2;
                copied = i;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&escaped[copied..]);
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_identifiers_are_their_own_escaped_spelling() {
        let names = [
            "a",
            "spec",
            "_x",
            "a_b",
            "if",
            "namespace",
            "x1",
            "A9_z",
            "",
            "1a",
            "a__b",
            "__if__",
            "a.b",
            "a-b",
            "a/b",
            "_",
            "__",
            "a_",
            "_a_",
            "é",
        ];
        for n in names {
            if is_plain_identifier(n) {
                assert_eq!(unescape(n).as_deref(), Some(n), "{n}");
                assert!(escape(n).as_deref() == Some(n) || is_reserved(n), "{n}");
            }
        }
        let plain: Vec<&str> = names
            .into_iter()
            .filter(|n| is_plain_identifier(n))
            .collect();
        assert_eq!(
            plain,
            [
                "a",
                "spec",
                "_x",
                "a_b",
                "if",
                "namespace",
                "x1",
                "A9_z",
                "_",
                "a_",
                "_a_"
            ]
        );
    }

    #[test]
    fn escapes_like_kubernetes() {
        let e = |s: &str| escape(s).map(|c| c.into_owned());
        assert_eq!(e("foo").as_deref(), Some("foo"));
        assert_eq!(e("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(e("var").as_deref(), Some("__var__"));
        assert_eq!(
            e("a.b-c/d").as_deref(),
            Some("a__dot__b__dash__c__slash__d")
        );
        assert_eq!(e("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(e("a___b").as_deref(), Some("a__underscores___b"));
        assert_eq!(e("_x").as_deref(), Some("_x"));
        assert_eq!(e("-x").as_deref(), Some("__dash__x"));
        assert_eq!(e("1a"), None);
        assert_eq!(e(""), None);
        assert_eq!(e("a b"), None);
        assert_eq!(e("é"), None);
        assert_eq!(e("self").as_deref(), Some("self"));
    }

    #[test]
    fn unescape_round_trips() {
        for name in [
            "foo",
            "namespace",
            "a.b-c/d",
            "a__b",
            "a___b",
            "x__dot__y",
            "-x",
            "__",
            "___",
        ] {
            let escaped = escape(name).expect("escapable");
            assert_eq!(unescape(&escaped).as_deref(), Some(name), "{escaped}");
        }
        assert_eq!(unescape("a__foo__b"), None);
        assert_eq!(unescape("__if__").as_deref(), Some("if"));
        assert_eq!(unescape("x__if__"), None);
    }
}
