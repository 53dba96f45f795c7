//! `fieldPath` of a validation rule (`ValidFieldPath`, reference §2.5): a sequence of `.name` and
//! `['name']` segments, checked against the structural schema of the rule's node.
//!
//! The tokenizer splits on `.`, `[` and `]`, except inside a single-quoted string (a quote
//! preceded by a backslash does not end it). Quoted names accept the escapes `\a \b \f \n \r \t
//! \v \' \\`. A segment names a property when the schema has `properties`, a map key when it has
//! `additionalProperties`; list indexes are not supported.

use std::sync::Arc;

use crate::field::Path;
use crate::structural::Structural;

/// Why a field path was refused, printed with Kubernetes' texts (apiextensions-apiserver
/// `pkg/apiserver/schema/cel/validation.go` `ValidFieldPath`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldPathError {
    /// A segment names no field of the schema.
    #[error("does not refer to a valid field")]
    NoSuchField,
    /// The path ends inside a segment.
    #[error("unexpected end of JSON path")]
    UnexpectedEnd,
    /// `[` not followed by a single-quoted name: the token found instead.
    #[error("expected single quoted string but got {0}")]
    NotQuoted(String),
    /// A quoted name not followed by `]`: the token found instead.
    #[error("expected ] but got {0}")]
    NoClosingBracket(String),
    /// A segment starting with neither `[` nor `.`: the token found.
    #[error("expected [ or . but got: {0}")]
    NoSegmentStart(String),
    /// A backslash escape `UnquoteExtra` does not know: the character after the backslash.
    #[error("invalid string literal: invalid escape char \\{0}")]
    InvalidEscape(char),
}

/// Splits a path into tokens: the delimiters `.`, `[`, `]` alone, quoted strings whole (quotes
/// included), other runs of text up to the next delimiter.
fn tokens(path: &str) -> Vec<&str> {
    let bytes = path.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let rest = &bytes[start..];
        let len = if rest[0] == b'\'' {
            // Up to the first quote not preceded by a backslash, or the end.
            (1..rest.len())
                .find(|&i| rest[i] == b'\'' && rest[i - 1] != b'\\')
                .map_or(rest.len(), |i| i + 1)
        } else if matches!(rest[0], b'.' | b'[' | b']') {
            1
        } else {
            rest.iter()
                .position(|b| matches!(b, b'.' | b'[' | b']'))
                .unwrap_or(rest.len())
        };
        // Token boundaries fall on ASCII bytes, hence on char boundaries.
        out.push(&path[start..start + len]);
        start += len;
    }
    out
}

/// Replaces the escapes of a single-quoted name.
fn unescape_single_quote(s: &str) -> Result<String, FieldPathError> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // A trailing backslash, or one before a newline (Go's `.` does not match `\n`), is
            // kept as is.
            None => out.push('\\'),
            Some('\n') => out.push_str("\\\n"),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('v') => out.push('\u{b}'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some(other) => {
                return Err(FieldPathError::InvalidEscape(other));
            }
        }
    }
    Ok(out)
}

/// Validates `json_path` against `schema`; returns the path it names (rendered as Kubernetes
/// renders it: `.foo` → `foo`, `['a.b']` → `a.b`, `.m['k']` → `m[k]`) and the schema found there
/// (`None` below an `additionalProperties: true` map).
pub fn valid_field_path(
    json_path: &str,
    schema: &Arc<Structural>,
) -> Result<(Path, Option<Arc<Structural>>), FieldPathError> {
    let mut path = Path::root();
    let mut current: Option<Arc<Structural>> = Some(schema.clone());
    let toks = tokens(json_path);
    let mut it = toks.into_iter();
    // Appends one segment: a property of `current`, or a key of its additionalProperties.
    let mut append = |name: &str, path: &mut Path| -> Result<(), FieldPathError> {
        let s = current.clone().ok_or(FieldPathError::NoSuchField)?;
        if !s.properties.is_empty() {
            *path = path.child(name);
            let prop = s.properties.get(name).ok_or(FieldPathError::NoSuchField)?;
            current = Some(prop.clone());
        } else if s.additional_properties.is_some() {
            *path = path.key(name);
            current = s.additional_properties_schema().cloned();
        } else {
            return Err(FieldPathError::NoSuchField);
        }
        Ok(())
    };
    while let Some(tok) = it.next() {
        match tok {
            "[" => {
                let tok = it.next().ok_or(FieldPathError::UnexpectedEnd)?;
                if tok.len() < 2 || !tok.starts_with('\'') || !tok.ends_with('\'') {
                    return Err(FieldPathError::NotQuoted(tok.to_string()));
                }
                let name = unescape_single_quote(&tok[1..tok.len() - 1])?;
                append(&name, &mut path)?;
                let close = it.next().ok_or(FieldPathError::UnexpectedEnd)?;
                if close != "]" {
                    return Err(FieldPathError::NoClosingBracket(close.to_string()));
                }
            }
            "." => {
                let name = it.next().ok_or(FieldPathError::UnexpectedEnd)?;
                append(name, &mut path)?;
            }
            other => return Err(FieldPathError::NoSegmentStart(other.to_string())),
        }
    }
    Ok((path, current))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_props::JsonSchemaProps;
    use serde_json::json;

    fn schema() -> Arc<Structural> {
        let props: JsonSchemaProps = serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "foo": {"type": "string"},
                "a.b": {"type": "integer"},
                "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"x": {"type": "string"}}}},
                "list": {"type": "array", "items": {"type": "string"}}
            }
        }))
        .expect("props");
        Arc::new(Structural::from_props(&props).expect("structural"))
    }

    fn check(p: &str) -> Result<String, String> {
        valid_field_path(p, &schema())
            .map(|(path, _)| path.to_string())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn normalizes_valid_paths() {
        assert_eq!(check(".foo"), Ok("foo".into()));
        assert_eq!(check("['a.b']"), Ok("a.b".into()));
        assert_eq!(check(".m['k.1']"), Ok("m[k.1]".into()));
        assert_eq!(check(".m.k.x"), Ok("m[k].x".into()));
        assert_eq!(check("['foo']"), Ok("foo".into()));
    }

    #[test]
    fn rejects_invalid_paths_with_kubernetes_texts() {
        assert_eq!(check(".bar"), Err("does not refer to a valid field".into()));
        assert_eq!(check("foo"), Err("expected [ or . but got: foo".into()));
        assert_eq!(check("."), Err("unexpected end of JSON path".into()));
        assert_eq!(
            check("[foo]"),
            Err("expected single quoted string but got foo".into())
        );
        assert_eq!(check("['foo'"), Err("unexpected end of JSON path".into()));
        assert_eq!(check("['foo'.x"), Err("expected ] but got .".into()));
        assert_eq!(
            check("['f\\qo']"),
            Err("invalid string literal: invalid escape char \\q".into())
        );
        assert_eq!(
            check(".list[0]"),
            Err("expected single quoted string but got 0".into())
        );
        assert_eq!(
            check(".foo.x"),
            Err("does not refer to a valid field".into())
        );
    }

    #[test]
    fn quoted_names_keep_delimiters_and_escaped_quotes() {
        assert_eq!(tokens("['a.b\\'c'].d"), ["[", "'a.b\\'c'", "]", ".", "d"]);
        assert_eq!(
            unescape_single_quote("a\\'b\\\\c\\t"),
            Ok("a'b\\c\t".into())
        );
    }
}
