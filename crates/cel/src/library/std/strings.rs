//! String functions of the standard library: `contains`, `startsWith`,
//! `endsWith` and `matches` (Go's regular expressions, `crate::go::regexp`).

use crate::error::{EvalError, EvalResult};
use crate::go::regexp::Regex;
use crate::value::Value;

fn strs<'a>(a: &'a Value, b: &'a Value) -> EvalResult<(&'a str, &'a str)> {
    match (a, b) {
        (Value::String(a), Value::String(b)) => Ok((a, b)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `s.contains(sub)`.
pub(crate) fn contains(a: &Value, b: &Value) -> EvalResult {
    let (s, sub) = strs(a, b)?;
    Ok(Value::Bool(s.contains(sub)))
}

/// `s.startsWith(prefix)`.
pub(crate) fn starts_with(a: &Value, b: &Value) -> EvalResult {
    let (s, p) = strs(a, b)?;
    Ok(Value::Bool(s.starts_with(p)))
}

/// `s.endsWith(suffix)`.
pub(crate) fn ends_with(a: &Value, b: &Value) -> EvalResult {
    let (s, p) = strs(a, b)?;
    Ok(Value::Bool(s.ends_with(p)))
}

/// Compiles a pattern as Go's `regexp.Compile` does ([`crate::go::regexp`]),
/// through the process-wide cache of compiled patterns ([`Regex::cached`]):
/// programs compiled again (or with the same constant pattern) and patterns
/// computed at evaluation time compile once. The error is Go's text
/// (``error parsing regexp: unexpected ): `)` ``).
pub(crate) fn cached_regex(pattern: &str) -> Result<Regex, EvalError> {
    Regex::cached(pattern).map_err(|e| EvalError::msg(e.to_string()))
}

/// `s.matches(re)` / `matches(s, re)`: an unanchored search.
pub(crate) fn matches(a: &Value, b: &Value) -> EvalResult {
    let (s, p) = strs(a, b)?;
    Ok(Value::Bool(cached_regex(p)?.is_match(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_compiles_through_the_shared_cache() {
        let v = |s: &str| Value::from(s);
        assert!(matches!(
            matches(&v("cache-hit"), &v("^cache-[a-z]+$")),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            matches(&v("cache-42"), &v("^cache-[a-z]+$")),
            Ok(Value::Bool(false))
        ));
        // Go's error text, each time the pattern is used.
        for _ in 0..2 {
            let e = cached_regex("(").expect_err("invalid");
            assert_eq!(e.message(), "error parsing regexp: missing closing ): `(`");
        }
    }

    #[test]
    fn string_predicates() {
        let v = |s: &str| Value::from(s);
        assert!(matches!(
            contains(&v("hello"), &v("ell")),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            starts_with(&v("hello"), &v("he")),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            ends_with(&v("hello"), &v("he")),
            Ok(Value::Bool(false))
        ));
        assert!(matches!(
            matches(&v("hello"), &v("l+")),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            matches(&v("hello"), &v("^l+")),
            Ok(Value::Bool(false))
        ));
        let e = matches(&v("x"), &v("(")).unwrap_err();
        assert!(
            e.message().starts_with("error parsing regexp: "),
            "{}",
            e.message()
        );
        assert!(contains(&v("x"), &Value::Int(1)).is_err());
    }
}
