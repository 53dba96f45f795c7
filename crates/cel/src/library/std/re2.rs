//! Go's (RE2's) view of a pattern's syntax, on top of the `regex` crate.
//!
//! The `regex` crate's syntax is close to Go's `regexp/syntax`, but:
//!
//! * Go rejects stacked repetition operators (`x++`, `x**`, `x*?+`,
//!   `x{2}*`: `invalid nested repetition operator`) and repeat counts above
//!   1000 (`invalid repeat count`), which the crate accepts;
//! * Go words its errors as ``<code>: `<text>` ``, e.g. ``unexpected ): `)` ``.
//!
//! [`syntax_error`] gives Go's error detail for a pattern, when it can be
//! told: the patterns the crate rejects get Go's code and text for the common
//! error kinds, and the patterns only Go rejects are found here.

use regex_syntax::ast::{self, Ast, ErrorKind, RepetitionKind, RepetitionRange};

/// Go's `regexp/syntax` limit on explicit repeat counts.
const MAX_REPEAT: u32 = 1000;

/// Go's error detail for `pattern` (what follows `error parsing regexp: `),
/// or `None` when Go would accept it or the error is not one mapped here.
pub fn syntax_error(pattern: &str) -> Option<String> {
    match ast::parse::Parser::new().parse(pattern) {
        Ok(ast) => repetition_error(pattern, &ast),
        Err(e) => map_parse_error(pattern, &e),
    }
}

/// Go's error for a pattern the crate parses: nested repetition operators or
/// a repeat count above 1000, the leftmost first.
fn repetition_error(pattern: &str, root: &Ast) -> Option<String> {
    let mut found: Option<(usize, String)> = None;
    let mut note = |at: usize, msg: String| {
        if found.as_ref().is_none_or(|(f, _)| at < *f) {
            found = Some((at, msg));
        }
    };
    // Explicit stack: the crate's parser bounds nesting, but a pattern may
    // still be long.
    let mut stack: Vec<&Ast> = vec![root];
    while let Some(a) = stack.pop() {
        match a {
            Ast::Repetition(r) => {
                if let RepetitionKind::Range(range) = &r.op.kind {
                    let (lo, hi) = match range {
                        RepetitionRange::Exactly(n) | RepetitionRange::AtLeast(n) => (*n, *n),
                        RepetitionRange::Bounded(m, n) => (*m, *n),
                    };
                    if lo > MAX_REPEAT || hi > MAX_REPEAT {
                        let text = span_text(pattern, r.op.span.start.offset, r.op.span.end.offset);
                        note(
                            r.op.span.start.offset,
                            format!("invalid repeat count: `{text}`"),
                        );
                    }
                }
                if let Ast::Repetition(inner) = &*r.ast {
                    let text = span_text(pattern, inner.op.span.start.offset, r.op.span.end.offset);
                    note(
                        inner.op.span.start.offset,
                        format!("invalid nested repetition operator: `{text}`"),
                    );
                }
                stack.push(&r.ast);
            }
            Ast::Group(g) => stack.push(&g.ast),
            Ast::Alternation(alt) => stack.extend(alt.asts.iter()),
            Ast::Concat(c) => stack.extend(c.asts.iter()),
            _ => {}
        }
    }
    found.map(|(_, msg)| msg)
}

/// Go's wording of the parse errors both libraries report.
fn map_parse_error(pattern: &str, e: &ast::Error) -> Option<String> {
    let span = e.span();
    let (start, end) = (span.start.offset, span.end.offset);
    let msg = match e.kind() {
        ErrorKind::GroupUnopened => format!("unexpected ): `{pattern}`"),
        ErrorKind::GroupUnclosed => format!("missing closing ): `{pattern}`"),
        // Go quotes the class from its `[` to the end of the pattern.
        ErrorKind::ClassUnclosed => {
            format!(
                "missing closing ]: `{}`",
                span_text(pattern, start, pattern.len())
            )
        }
        ErrorKind::RepetitionMissing => format!(
            "missing argument to repetition operator: `{}`",
            repetition_operator_at(pattern, start)
        ),
        ErrorKind::EscapeUnrecognized => {
            format!(
                "invalid escape sequence: `{}`",
                span_text(pattern, start, end)
            )
        }
        ErrorKind::EscapeUnexpectedEof => "trailing backslash at end of expression: ``".into(),
        ErrorKind::RepetitionCountInvalid => {
            format!("invalid repeat count: `{}`", span_text(pattern, start, end))
        }
        ErrorKind::ClassRangeInvalid => {
            format!(
                "invalid character class range: `{}`",
                span_text(pattern, start, end)
            )
        }
        ErrorKind::FlagUnrecognized => {
            // Go quotes from the group's `(?` through the bad flag.
            let group = pattern
                .get(..start)
                .and_then(|p| p.rfind("(?"))
                .unwrap_or(start);
            format!(
                "invalid or unsupported Perl syntax: `{}`",
                span_text(pattern, group, end)
            )
        }
        ErrorKind::NestLimitExceeded(_) => format!("expression nests too deeply: `{pattern}`"),
        _ => return None,
    };
    Some(msg)
}

/// The repetition operator starting at byte `at` (`*`, `+?`, `{2,3}`), as Go
/// quotes it when it has nothing to repeat.
fn repetition_operator_at(pattern: &str, at: usize) -> &str {
    let rest = pattern.get(at..).unwrap_or("");
    let mut len = match rest.as_bytes().first() {
        Some(b'{') => rest.find('}').map_or(rest.len(), |i| i + 1),
        Some(_) => 1,
        None => 0,
    };
    if rest.as_bytes().get(len) == Some(&b'?') {
        len += 1;
    }
    rest.get(..len).unwrap_or(rest)
}

fn span_text(pattern: &str, start: usize, end: usize) -> &str {
    pattern.get(start..end.min(pattern.len())).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::syntax_error;

    fn err(p: &str) -> String {
        syntax_error(p).unwrap_or_else(|| format!("<accepted {p}>"))
    }

    #[test]
    fn nested_repetition_and_large_counts_are_go_errors() {
        assert_eq!(err("x++"), "invalid nested repetition operator: `++`");
        assert_eq!(err("ab**c"), "invalid nested repetition operator: `**`");
        assert_eq!(err("x*?+"), "invalid nested repetition operator: `*?+`");
        assert_eq!(err("x{2}*"), "invalid nested repetition operator: `{2}*`");
        assert_eq!(err("x++?y"), "invalid nested repetition operator: `++?`");
        assert_eq!(err("x{1001}"), "invalid repeat count: `{1001}`");
        assert_eq!(syntax_error("x*?y+(a|b{2,1000})"), None);
        assert_eq!(syntax_error("(x+)+"), None);
        assert_eq!(syntax_error("[+*]+\\++"), None);
    }

    #[test]
    fn parse_errors_in_go_words() {
        assert_eq!(err(")"), "unexpected ): `)`");
        assert_eq!(err("a(b"), "missing closing ): `a(b`");
        assert_eq!(err("x[a-"), "missing closing ]: `[a-`");
        assert_eq!(err("*a"), "missing argument to repetition operator: `*`");
        assert_eq!(err("a\\q"), "invalid escape sequence: `\\q`");
        assert_eq!(err("a\\"), "trailing backslash at end of expression: ``");
        assert_eq!(err("a{2,1}"), "invalid repeat count: `{2,1}`");
        assert_eq!(err("[z-a]"), "invalid character class range: `z-a`");
        assert_eq!(err("(?z)"), "invalid or unsupported Perl syntax: `(?z`");
    }
}
