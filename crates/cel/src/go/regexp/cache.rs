//! One process-wide, bounded cache of compiled patterns, keyed by the pattern's text, for the
//! places that compile the same pattern again and again: a CRD's `pattern` keywords (the review's
//! check and the OpenAPI validator's compiled patterns, the same few patterns on hundreds of
//! schema nodes), the literal validators and Kubernetes' `find`/`findAll`. A pattern compiles
//! once per process; a pattern Go rejects is remembered with its error.
//!
//! Bounded whatever the input: patterns longer than [`MAX_CACHED_PATTERN_BYTES`] and compiled
//! automata larger than [`MAX_CACHED_REGEX_BYTES`] are compiled and returned but not kept; the
//! cache holds at most [`MAX_CACHED_PATTERNS`] patterns and [`MAX_CACHED_BYTES`] of patterns,
//! error texts and automata, and is emptied when the next one would exceed either.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use super::{Regex, RegexError};

/// The longest pattern kept, in bytes.
const MAX_CACHED_PATTERN_BYTES: usize = 4 << 10;
/// The largest compiled automaton kept (`meta::Regex::memory_usage`), in bytes.
const MAX_CACHED_REGEX_BYTES: usize = 1 << 20;
/// How many patterns the cache keeps.
const MAX_CACHED_PATTERNS: usize = 1024;
/// How many bytes of patterns, error texts and automata the cache keeps.
const MAX_CACHED_BYTES: usize = 32 << 20;

/// What one pattern compiled to.
type Compiled = Result<Regex, RegexError>;

#[derive(Default)]
struct Cache {
    entries: HashMap<Box<str>, Compiled>,
    /// The bytes `entries` accounts for (see [`weight`]).
    bytes: usize,
}

/// What keeping `pattern` compiled to `compiled` costs, in bytes; `None` when it is not kept.
fn weight(pattern: &str, compiled: &Compiled) -> Option<usize> {
    let held = match compiled {
        Ok(re) => re.re.memory_usage(),
        Err(e) => e.expr.len(),
    };
    (held <= MAX_CACHED_REGEX_BYTES).then_some(pattern.len() + held)
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

impl Regex {
    /// [`Regex::new`] through the process-wide cache: the same result, each pattern compiled
    /// once (within the cache's bounds). The returned [`Regex`] shares the cached one's
    /// automata and matching caches.
    pub fn cached(pattern: &str) -> Result<Regex, RegexError> {
        if pattern.len() > MAX_CACHED_PATTERN_BYTES {
            return Regex::new(pattern);
        }
        // A panic elsewhere while holding the lock leaves a usable map.
        let lock = || cache().lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = lock().entries.get(pattern) {
            return found.clone();
        }
        // Compiled outside the lock: another thread may compile the same pattern meanwhile,
        // and the first one stored is kept.
        let compiled = Regex::new(pattern);
        let Some(w) = weight(pattern, &compiled) else {
            return compiled;
        };
        let mut c = lock();
        if let Some(found) = c.entries.get(pattern) {
            return found.clone();
        }
        if c.entries.len() >= MAX_CACHED_PATTERNS || c.bytes + w > MAX_CACHED_BYTES {
            c.entries.clear();
            c.bytes = 0;
        }
        c.bytes += w;
        c.entries.insert(pattern.into(), compiled.clone());
        compiled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_results_are_those_of_new() {
        for p in ["^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "[a", "a**", "(?i)k"] {
            for _ in 0..2 {
                let cached = Regex::cached(p);
                let fresh = Regex::new(p);
                match (&cached, &fresh) {
                    (Ok(a), Ok(b)) => {
                        for s in ["abc", "a-b", "-a", "K", "\u{212a}", ""] {
                            assert_eq!(a.is_match(s), b.is_match(s), "{p} on {s:?}");
                        }
                    }
                    (Err(a), Err(b)) => assert_eq!(a, b),
                    _ => panic!("{p}: cached {cached:?}, new {fresh:?}"),
                }
            }
        }
    }

    #[test]
    fn long_patterns_are_not_kept() {
        let long = "a".repeat(MAX_CACHED_PATTERN_BYTES + 1);
        assert!(Regex::cached(&long).is_ok_and(|re| re.is_match(&long)));
        let c = cache().lock().unwrap_or_else(PoisonError::into_inner);
        assert!(!c.entries.contains_key(long.as_str()));
    }

    #[test]
    fn the_cache_stays_within_its_bounds() {
        for i in 0..MAX_CACHED_PATTERNS + 10 {
            assert!(Regex::cached(&format!("^x{i}$")).is_ok());
        }
        let c = cache().lock().unwrap_or_else(PoisonError::into_inner);
        assert!(c.entries.len() <= MAX_CACHED_PATTERNS);
        assert!(c.bytes <= MAX_CACHED_BYTES);
    }
}
