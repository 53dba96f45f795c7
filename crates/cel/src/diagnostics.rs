//! Compile-time issues (syntax and type errors) rendered as cel-go renders them:
//!
//! ```text
//! ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting ...
//!  | a + (
//!  | ....^
//! ```

use std::fmt;
use std::sync::Arc;

use crate::syntax::Source;

/// One compile-time problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// Offset in code points into the source, when known.
    pub offset: Option<usize>,
    /// The message without location, e.g. `Syntax error: mismatched input ...`
    /// or `undeclared reference to 'x' (in container '')`.
    pub message: String,
    /// The id of the expression node the issue is about (0 when none).
    pub expr_id: i64,
}

/// The issues of one compilation, with the source they refer to.
#[derive(Clone, Debug)]
pub struct Issues {
    /// The expression the issues are about.
    pub source: Arc<Source>,
    /// The issues, in the order reported.
    pub issues: Vec<Issue>,
}

impl Issues {
    /// No issues yet, about `source`.
    pub fn new(source: Arc<Source>) -> Self {
        Issues {
            source,
            issues: Vec::new(),
        }
    }

    /// Whether no issue was reported.
    pub fn is_empty(&self) -> bool {
        self.issues.is_empty()
    }

    /// Reports `message` about node `expr_id`, at code-point `offset` of the source when known (cel-go's `Errors.ReportErrorAtID`).
    pub fn push(&mut self, offset: Option<usize>, expr_id: i64, message: impl Into<String>) {
        self.issues.push(Issue {
            offset,
            message: message.into(),
            expr_id,
        });
    }

    /// The issues in the order cel-go reports them: by position, stable.
    pub fn sorted(&self) -> Vec<&Issue> {
        let mut v: Vec<&Issue> = self.issues.iter().collect();
        v.sort_by_key(|i| {
            i.offset
                .map(|o| self.source.location(o))
                .map(|l| (l.line, l.column))
        });
        v
    }
}

impl fmt::Display for Issues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, issue) in self.sorted().into_iter().enumerate() {
            if n > 0 {
                f.write_str("\n")?;
            }
            write_issue(f, &self.source, issue)?;
        }
        Ok(())
    }
}

impl std::error::Error for Issues {}

fn write_issue(f: &mut fmt::Formatter<'_>, source: &Source, issue: &Issue) -> fmt::Result {
    let Some(offset) = issue.offset else {
        return write!(f, "ERROR: {}:-1:0: {}", source.description(), issue.message);
    };
    let loc = source.location(offset);
    write!(
        f,
        "ERROR: {}:{}:{}: {}",
        source.description(),
        loc.line,
        loc.column + 1,
        issue.message
    )?;
    if let Some(line) = source.line_text(loc.line) {
        let line = line.replace('\t', " ");
        write!(f, "\n | {line}\n | ")?;
        let mut chars = line.chars();
        for _ in 0..loc.column {
            match chars.next() {
                Some(c) if c.len_utf8() > 1 => f.write_str("\u{ff0e}")?,
                Some(_) => f.write_str(".")?,
                None => break,
            }
        }
        match chars.next() {
            Some(c) if c.len_utf8() > 1 => f.write_str("\u{ff3e}")?,
            _ => f.write_str("^")?,
        }
    }
    Ok(())
}
