//! The cel-go release reproduced, where releases differ in what a program can
//! observe: which overloads exist, what a call returns, which error it raises
//! and with which text, what it costs.
//!
//! The newest release is the default and is what every library implements
//! directly. `library::adapt` turns an environment into an older release's when it is
//! built (declarations and implementations are replaced there, once), so no
//! evaluation path ever asks which release it runs: the interpreter and its
//! fast paths are the same for every release.

/// A cel-go release (the ones hosts pin in practice). Ordered: a release
/// compares greater than the ones before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CelGoVersion {
    /// v0.16: `string.indexOf`/`lastIndexOf` with an offset at or past the
    /// end fail (`index out of range: N`); `''.lastIndexOf('a')` fails.
    V0_16,
    /// v0.17.
    V0_17,
    /// v0.20.
    V0_20,
    /// v0.22: an offset at or past the end finds nothing (-1) (cel-go
    /// ba36ff84).
    V0_22,
    /// v0.23: an escape naming a surrogate or a value past U+10FFFF is
    /// `invalid unicode code point` (before: a surrogate reads as U+FFFD,
    /// past U+10FFFF is `unable to unescape string`).
    V0_23,
    /// v0.26: `''.lastIndexOf('a')` is -1 (cel-go 845f2a8e, v0.25.1).
    V0_26,
    /// v0.29: `duration(int)` is no longer declared (cel-go 339269b4,
    /// v0.28.1); an empty-string search checks its offset (14f6746a); the
    /// minutes of a time-zone offset must be 0 to 59 (783267d0);
    /// `lists.range` rejects a negative size (13cff33f); the global
    /// `matches(s, re)` is priced as `s.matches(re)` (d4efa771).
    #[default]
    V0_29,
}
