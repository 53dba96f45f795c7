//! String functions of the standard library: `contains`, `startsWith`,
//! `endsWith` and `matches` (Go's regular expressions, `crate::go::regexp`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

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

/// Compiles a pattern as Go's `regexp.Compile` ([`crate::go::regexp`]); the
/// error is Go's text (``error parsing regexp: unexpected ): `)` ``).
fn compile_regex(pattern: &str) -> Result<Regex, EvalError> {
    Regex::new(pattern).map_err(|e| EvalError::msg(e.to_string()))
}

/// How many compiled patterns the process keeps (the cache is emptied when
/// full), and the longest pattern kept.
const REGEX_CACHE_ENTRIES: usize = 64;
const REGEX_CACHE_MAX_PATTERN: usize = 1024;

/// [`compile_regex`] through a process-wide cache of compiled patterns:
/// programs compiled again (or with the same constant pattern) and patterns
/// computed at evaluation time compile once. Errors are not cached.
pub(crate) fn cached_regex(pattern: &str) -> Result<Arc<Regex>, EvalError> {
    type Cache = Mutex<HashMap<Box<str>, Arc<Regex>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    if pattern.len() > REGEX_CACHE_MAX_PATTERN {
        return compile_regex(pattern).map(Arc::new);
    }
    let cache = CACHE.get_or_init(Default::default);
    // A panic elsewhere while holding the lock leaves a usable map.
    let lock = || {
        cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    if let Some(re) = lock().get(pattern) {
        return Ok(re.clone());
    }
    let re = Arc::new(compile_regex(pattern)?);
    let mut map = lock();
    if map.len() >= REGEX_CACHE_ENTRIES {
        map.clear();
    }
    map.insert(pattern.into(), re.clone());
    Ok(re)
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
    fn regex_cache_shares_compiled_patterns() {
        let a = cached_regex("^cache-[a-z]+$").unwrap();
        let b = cached_regex("^cache-[a-z]+$").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(a.is_match("cache-hit"));
        // Errors are reported each time, not cached.
        assert!(cached_regex("(").is_err());
        assert!(cached_regex("(").is_err());
        // Past the entry limit the cache starts over; patterns still compile.
        for i in 0..2 * REGEX_CACHE_ENTRIES {
            assert!(
                cached_regex(&format!("^p{i}$"))
                    .unwrap()
                    .is_match(&format!("p{i}"))
            );
        }
        let long = "a".repeat(REGEX_CACHE_MAX_PATTERN + 1);
        assert!(cached_regex(&long).unwrap().is_match(&long));
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
