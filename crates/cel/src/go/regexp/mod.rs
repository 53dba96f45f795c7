//! Go's regular expressions (`regexp.Compile`, RE2 syntax), exactly: the one
//! regex dialect of kcel. CEL's `matches`, Kubernetes' `find`/`findAll`,
//! OpenAPI `pattern` and the CRD-creation pattern check all compile here.
//!
//! A pattern is parsed by a port of Go's `regexp/syntax` parser
//! (`parse`: Go's syntax, parse tree, error texts and limits), translated
//! to a `regex-syntax` `Hir` with Go's meaning made explicit (`hir`:
//! ASCII-only `\w`, `\d`, `\s`, `\b`; Go's case folding), and run by
//! `regex-automata`'s meta engine, leftmost-first as Go's `regexp` is.
//! [`Regex::cached`] compiles through one process-wide, bounded cache of
//! patterns (`cache`), for the callers that meet the same pattern many times.
//!
//! Go's limits, with their numbers: repeat counts up to
//! [`MAX_REPEAT`] (1000), also for the product of nested counts; parse trees
//! at most [`MAX_HEIGHT`] (1000) deep; programs of at most [`MAX_SIZE`]
//! instructions (3,355,443); at most [`MAX_RUNES`] runes in classes. The
//! engine's own NFA budget ([`ENGINE_SIZE_LIMIT`]) sits above what those
//! limits let realistic patterns reach; a pattern Go accepts but whose
//! automaton would exceed it is rejected as `expression too large`.

mod cache;
mod class;
mod hir;
mod parse;
mod unicode_names;

use std::fmt;
use std::sync::Arc;

use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::{Input, Span};

pub use parse::{MAX_HEIGHT, MAX_REPEAT, MAX_RUNES, MAX_SIZE};

/// The NFA size budget of the matching engine, in bytes.
pub const ENGINE_SIZE_LIMIT: usize = 128 << 20;

/// Go's `syntax.ErrorCode`: what went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// Go's `ErrInvalidCharClass`.
    InvalidCharClass,
    /// Go's `ErrInvalidCharRange`.
    InvalidCharRange,
    /// Go's `ErrInvalidEscape`.
    InvalidEscape,
    /// Go's `ErrInvalidNamedCapture`.
    InvalidNamedCapture,
    /// Go's `ErrInvalidPerlOp`.
    InvalidPerlOp,
    /// Go's `ErrInvalidRepeatOp`.
    InvalidRepeatOp,
    /// Go's `ErrInvalidRepeatSize`.
    InvalidRepeatSize,
    /// Go's `ErrInvalidUtf8`.
    InvalidUtf8,
    /// Go's `ErrMissingBracket`.
    MissingBracket,
    /// Go's `ErrMissingParen`.
    MissingParen,
    /// Go's `ErrMissingRepeatArgument`.
    MissingRepeatArgument,
    /// Go's `ErrTrailingBackslash`.
    TrailingBackslash,
    /// Go's `ErrUnexpectedParen`.
    UnexpectedParen,
    /// Go's `ErrNestingDepth`.
    NestingDepth,
    /// Go's `ErrLarge`.
    Large,
}

impl ErrorCode {
    /// Go's text of the code.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidCharClass => "invalid character class",
            ErrorCode::InvalidCharRange => "invalid character class range",
            ErrorCode::InvalidEscape => "invalid escape sequence",
            ErrorCode::InvalidNamedCapture => "invalid named capture",
            ErrorCode::InvalidPerlOp => "invalid or unsupported Perl syntax",
            ErrorCode::InvalidRepeatOp => "invalid nested repetition operator",
            ErrorCode::InvalidRepeatSize => "invalid repeat count",
            ErrorCode::InvalidUtf8 => "invalid UTF-8",
            ErrorCode::MissingBracket => "missing closing ]",
            ErrorCode::MissingParen => "missing closing )",
            ErrorCode::MissingRepeatArgument => "missing argument to repetition operator",
            ErrorCode::TrailingBackslash => "trailing backslash at end of expression",
            ErrorCode::UnexpectedParen => "unexpected )",
            ErrorCode::NestingDepth => "expression nests too deeply",
            ErrorCode::Large => "expression too large",
        }
    }
}

/// A pattern Go's `regexp.Compile` rejects (`*syntax.Error`). Displays as
/// Go prints it: ``error parsing regexp: missing closing ]: `[a` ``.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegexError {
    /// What went wrong.
    pub code: ErrorCode,
    /// The offending part of the pattern, as Go quotes it.
    pub expr: String,
}

impl RegexError {
    fn new(code: ErrorCode, expr: &str) -> RegexError {
        RegexError {
            code,
            expr: expr.to_string(),
        }
    }
}

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error parsing regexp: {}: `{}`",
            self.code.as_str(),
            self.expr
        )
    }
}

impl std::error::Error for RegexError {}

/// A compiled Go regular expression. Cheap to clone: clones share the automata and the
/// matching caches.
#[derive(Clone, Debug)]
pub struct Regex {
    re: Arc<meta::Regex>,
}

impl Regex {
    /// Compiles `pattern` as Go's `regexp.Compile` does.
    pub fn new(pattern: &str) -> Result<Regex, RegexError> {
        let tree = parse::parse(pattern)?;
        let hir = hir::to_hir(&tree);
        drop(tree);
        let config = meta::Config::new()
            .nfa_size_limit(Some(ENGINE_SIZE_LIMIT))
            .which_captures(WhichCaptures::Implicit)
            .utf8_empty(true);
        let re = meta::Builder::new()
            .configure(config)
            .build_from_hir(&hir)
            .map_err(|_| RegexError::new(ErrorCode::Large, pattern))?;
        Ok(Regex { re: Arc::new(re) })
    }

    /// Whether `s` contains a match (Go's `MatchString`).
    pub fn is_match(&self, s: &str) -> bool {
        self.re.is_match(s)
    }

    /// The leftmost-first match in `s` (Go's `FindStringIndex`), or `None`.
    pub fn find<'h>(&self, s: &'h str) -> Option<&'h str> {
        self.re.find(s).map(|m| &s[m.range()])
    }

    /// At most `n` successive non-overlapping matches (all when `n < 0`),
    /// as Go's `FindAllString(s, n)`: an empty match right after the
    /// previous match is skipped, and the search moves on one character.
    pub fn find_all<'h>(&self, s: &'h str, n: i64) -> Vec<&'h str> {
        let limit = usize::try_from(n).unwrap_or(usize::MAX);
        let mut out = Vec::new();
        let mut pos = 0;
        let mut prev_end = None;
        while out.len() < limit && pos <= s.len() {
            let input = Input::new(s).span(Span::from(pos..s.len()));
            let Some(m) = self.re.find(input) else {
                break;
            };
            let accept = !(m.end() == pos && Some(m.start()) == prev_end);
            if m.end() == pos {
                pos += s[pos..].chars().next().map_or(1, char::len_utf8);
            } else {
                pos = m.end();
            }
            prev_end = Some(m.end());
            if accept {
                out.push(&s[m.range()]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(p: &str) -> String {
        Regex::new(p).map_or_else(|e| e.to_string(), |_| format!("<accepted {p}>"))
    }

    #[test]
    fn go_syntax_and_errors() {
        assert!(Regex::new(r"^[^][ ()<>]+$").is_ok());
        assert!(Regex::new(r#"^[^()<>@,;:\\"\/[\]?={} \t\x7f\x00-\x1f]+$"#).is_ok());
        assert_eq!(error("[a"), "error parsing regexp: missing closing ]: `[a`");
        assert_eq!(
            error("a**"),
            "error parsing regexp: invalid nested repetition operator: `**`"
        );
        assert_eq!(
            error("a{1001}"),
            "error parsing regexp: invalid repeat count: `{1001}`"
        );
        assert_eq!(
            error("(a{100}){100}"),
            "error parsing regexp: invalid repeat count: `{100}`"
        );
        assert_eq!(
            error(r"\8"),
            "error parsing regexp: invalid escape sequence: `\\8`"
        );
        assert_eq!(
            error(&"(".repeat(1001)),
            format!(
                "error parsing regexp: missing closing ): `{}`",
                "(".repeat(1001)
            )
        );
    }

    #[test]
    fn go_semantics() {
        let re = Regex::new(r"^\w+$").unwrap();
        assert!(re.is_match("abc_1"));
        assert!(!re.is_match("é"));
        assert!(Regex::new("(?i)k").unwrap().is_match("\u{212a}"));
        assert!(!Regex::new("a.b").unwrap().is_match("a\nb"));
        assert!(Regex::new("(?s)a.b").unwrap().is_match("a\nb"));
        let all = Regex::new("a*").unwrap();
        assert_eq!(all.find_all("baaac", -1), ["", "aaa", ""]);
        assert_eq!(all.find_all("baaac", 2), ["", "aaa"]);
        assert_eq!(all.find("baaa"), Some(""));
    }
}
