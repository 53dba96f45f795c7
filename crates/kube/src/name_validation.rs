//! apimachinery's name checks (`pkg/util/validation`, `pkg/api/validation`): DNS-1123 labels
//! and subdomains, DNS-1035 labels, qualified names, label keys and values, and the masking
//! of generated-name prefixes, with Kubernetes' messages.
//!
//! Each check returns the messages of the rules `s` breaks (empty when valid), in
//! apimachinery's order. Object metadata validation, CRD spec validation and the
//! `format` CEL library all use these.

use regex::Regex;

/// `dns1123LabelFmt`.
pub const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
/// `dns1123SubdomainFmt`: labels joined by dots.
pub const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
/// `dns1035LabelFmt`.
pub const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
/// `qualifiedNameFmt`.
pub const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
/// `labelValueFmt`: empty, or a qualified name.
pub const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_EXAMPLES: [&str; 3] = ["MyName", "my.name", "123-abc"];

/// `^(?:pattern)$`, for constant patterns, which compile; should one not, it matches nothing
/// (every value is then reported invalid) rather than panicking.
pub(crate) fn anchored(pattern: &str) -> Regex {
    Regex::new(&format!("^(?:{pattern})$"))
        .or_else(|_| Regex::new("[^\\s\\S]"))
        .unwrap_or_else(|_| unreachable!("the never-matching pattern compiles"))
}

/// A full match of `s` against apimachinery's patterns, as byte loops: every pattern here is
/// ASCII-only, a run of characters from one class whose first and last characters come from a
/// narrower one, so a loop decides exactly what the anchored regular expression decides
/// (`tests::byte_matchers_agree_with_the_patterns` compares both).
mod matches {
    fn lower_alnum(b: u8) -> bool {
        b.is_ascii_lowercase() || b.is_ascii_digit()
    }

    /// `first([-a-z0-9]*last)?`: a first byte from `first`, then a run of `[-a-z0-9]` whose
    /// last byte (when there is more than one) is `[a-z0-9]`.
    fn label(s: &[u8], first: fn(u8) -> bool) -> bool {
        match s {
            [] => false,
            [f, rest @ ..] => {
                first(*f)
                    && rest.iter().all(|&b| b == b'-' || lower_alnum(b))
                    && s.last().is_some_and(|&b| lower_alnum(b))
            }
        }
    }

    /// `DNS1123_LABEL_FMT`.
    pub fn dns1123_label(s: &str) -> bool {
        label(s.as_bytes(), lower_alnum)
    }

    /// `DNS1123_SUBDOMAIN_FMT`: labels joined by single dots.
    pub fn dns1123_subdomain(s: &str) -> bool {
        s.as_bytes()
            .split(|&b| b == b'.')
            .all(|l| label(l, lower_alnum))
    }

    /// `DNS1035_LABEL_FMT`.
    pub fn dns1035_label(s: &str) -> bool {
        label(s.as_bytes(), |b| b.is_ascii_lowercase())
    }

    /// `QUALIFIED_NAME_FMT`.
    pub fn qualified_name(s: &str) -> bool {
        let s = s.as_bytes();
        let inner = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
        s.first().is_some_and(u8::is_ascii_alphanumeric)
            && s.last().is_some_and(u8::is_ascii_alphanumeric)
            && s.iter().all(|&b| inner(b))
    }

    /// `LABEL_VALUE_FMT`: empty, or a qualified name.
    pub fn label_value(s: &str) -> bool {
        s.is_empty() || qualified_name(s)
    }
}

/// `MaxLenError`.
pub fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `RegexError`: the message, the examples (each followed by `', '`, joined by `" or "`, hence
/// Kubernetes' double spaces) and the pattern.
pub fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut out = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push('\'');
        out.push_str(e);
        out.push_str("', ");
    }
    out.push_str("regex used for validation is '");
    out.push_str(fmt);
    out.push_str("')");
    out
}

/// `maskTrailingDash`: a trailing `-` and the character before it become `a`, so that a
/// `generateName` prefix validates as the names generated from it would.
pub fn mask_trailing_dash(s: &str) -> String {
    if s.len() > 1 && s.ends_with('-') {
        let cut = s.len() - 2;
        if s.is_char_boundary(cut) {
            return format!("{}a", &s[..cut]);
        }
        // Go slices bytes; a multi-byte character before the dash is cut
        // mid-way there, which can only make the value invalid here too.
        return format!("{}\u{fffd}a", &s[..s.floor_char_boundary(cut)]);
    }
    s.to_string()
}

/// `IsDNS1123Label`. A valid subdomain that is not a label has dots: `must not contain dots`.
pub fn is_dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !matches::dns1123_label(s) {
        if matches::dns1123_subdomain(s) {
            errs.push("must not contain dots".into());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(s: &str) -> Vec<String> {
    length_and_pattern(
        s,
        253,
        matches::dns1123_subdomain,
        DNS1123_SUBDOMAIN_MSG,
        DNS1123_SUBDOMAIN_FMT,
        &["example.com"],
    )
}

/// `IsDNS1035Label`.
pub fn is_dns1035_label(s: &str) -> Vec<String> {
    length_and_pattern(
        s,
        63,
        matches::dns1035_label,
        DNS1035_LABEL_MSG,
        DNS1035_LABEL_FMT,
        &["my-name", "abc-123"],
    )
}

/// The common shape of apimachinery's checks: at most `max_len` bytes, and a full match of
/// `full_match` (of the pattern `fmt`), else a [`regex_error`] of `msg` and `examples`.
fn length_and_pattern(
    s: &str,
    max_len: usize,
    full_match: fn(&str) -> bool,
    msg: &str,
    fmt: &str,
    examples: &[&str],
) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > max_len {
        errs.push(max_len_error(max_len));
    }
    if !full_match(s) {
        errs.push(regex_error(msg, fmt, examples));
    }
    errs
}

/// `IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then a name of at most 63
/// characters.
pub fn is_qualified_name(s: &str) -> Vec<String> {
    qualified_name(s, "a qualified name")
}

/// A label key: [`is_qualified_name`], except that a key with several `/` is called
/// `a valid label key`.
pub fn is_label_key(s: &str) -> Vec<String> {
    qualified_name(s, "a valid label key")
}

/// `IsQualifiedName`, `what` naming the value in the message for a value with several `/`.
fn qualified_name(s: &str, what: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let mut parts = s.split('/');
    let (first, second, more) = (parts.next(), parts.next(), parts.next().is_some());
    let name = match (first, second) {
        (Some(name), None) => name,
        (Some(prefix), Some(name)) if !more => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    is_dns1123_subdomain(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            name
        }
        _ => {
            return vec![format!(
                "{what} {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_MSG,
                    QUALIFIED_NAME_FMT,
                    &QUALIFIED_NAME_EXAMPLES
                )
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".into());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !matches::qualified_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_MSG,
                QUALIFIED_NAME_FMT,
                &QUALIFIED_NAME_EXAMPLES
            )
        ));
    }
    errs
}

/// `IsValidLabelValue`.
pub fn is_valid_label_value(s: &str) -> Vec<String> {
    length_and_pattern(
        s,
        63,
        matches::label_value,
        LABEL_VALUE_MSG,
        LABEL_VALUE_FMT,
        &["MyValue", "my_value", "12345"],
    )
}

/// Every string of at most `max_len` characters of `alphabet`, for tests that compare checks
/// exhaustively.
#[cfg(test)]
pub(crate) fn words_up_to(alphabet: &[char], max_len: usize) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..max_len {
        last = last
            .iter()
            .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
            .collect();
        words.extend(last.iter().cloned());
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composed_patterns() {
        assert_eq!(
            DNS1123_SUBDOMAIN_FMT,
            format!("{DNS1123_LABEL_FMT}(\\.{DNS1123_LABEL_FMT})*")
        );
        assert_eq!(LABEL_VALUE_FMT, format!("({QUALIFIED_NAME_FMT})?"));
    }

    /// Every string of up to 5 characters over an alphabet with a member of each class the
    /// patterns tell apart gets the same answer from the byte matchers as from the patterns.
    #[test]
    fn byte_matchers_agree_with_the_patterns() {
        type Matcher = fn(&str) -> bool;
        let checks: [(&str, Matcher); 5] = [
            (DNS1123_LABEL_FMT, matches::dns1123_label),
            (DNS1123_SUBDOMAIN_FMT, matches::dns1123_subdomain),
            (DNS1035_LABEL_FMT, matches::dns1035_label),
            (QUALIFIED_NAME_FMT, matches::qualified_name),
            (LABEL_VALUE_FMT, matches::label_value),
        ];
        let words = words_up_to(&['a', 'Z', '7', '-', '.', '_', '/', '\n', 'é'], 5);
        assert_eq!(words.len(), 66_430);
        for (fmt, matcher) in checks {
            let re = anchored(fmt);
            for w in &words {
                assert_eq!(matcher(w), re.is_match(w), "{fmt} on {w:?}");
            }
        }
    }

    #[test]
    fn apimachinery_messages() {
        assert!(is_dns1123_label("my-name").is_empty());
        assert_eq!(is_dns1123_label("a.b"), ["must not contain dots"]);
        assert_eq!(
            is_dns1123_label("Bad"),
            [
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ]
        );
        assert_eq!(
            is_dns1123_label(&"a".repeat(64)),
            ["must be no more than 63 characters"]
        );
        assert_eq!(is_dns1123_subdomain("Bad_Name").len(), 1);
        assert!(!is_dns1123_subdomain("contains a space-").is_empty());
        assert!(is_dns1035_label("abc-123").is_empty());
        assert!(is_dns1035_label("1abc")[0].starts_with("a DNS-1035 label must consist"));
        assert!(is_qualified_name("example.com/MyName").is_empty());
        assert_eq!(is_qualified_name("/x"), ["prefix part must be non-empty"]);
        assert!(is_qualified_name("a/b/c")[0].starts_with("a qualified name must consist"));
        assert!(is_label_key("a/b/c")[0].starts_with("a valid label key must consist"));
        assert!(is_valid_label_value("").is_empty());
        assert!(
            is_valid_label_value("-bad-")[0]
                .contains("(e.g. 'MyValue',  or 'my_value',  or '12345'")
        );
    }

    #[test]
    fn masking_drops_the_dash_and_the_character_before_it() {
        for (prefix, masked) in [
            ("my-prefix-", "my-prefia"),
            ("a_-", "aa"),
            ("-", "-"),
            ("é-", "\u{fffd}a"),
        ] {
            assert_eq!(mask_trailing_dash(prefix), masked, "{prefix}");
        }
        assert!(is_dns1123_label(&mask_trailing_dash("my-label-prefix-")).is_empty());
    }
}
