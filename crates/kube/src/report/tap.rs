//! The TAP rendering (Test Anything Protocol, version 14, which TAP 13 consumers read too): a
//! plan, one test point per document, a YAML diagnostic block for each invalid document or
//! error, `# SKIP` directives for skips, and the summary as a closing comment.
//!
//! ```text
//! TAP version 14
//! 1..2
//! ok 1 - w.yaml:1 Widget "w1"
//! not ok 2 - w.yaml:5 Widget "w2"
//!   ---
//!   verdict: invalid
//!   message: "The Widget \"w2\" is invalid: ..."
//!   file: "w.yaml"
//!   line: 5
//!   ...
//! # 1 valid, 1 invalid, 0 errors, 0 skipped
//! ```
//!
//! Descriptions escape `\` and `#` as TAP 14 says (`\\`, `\#`) and fold line breaks; the YAML
//! block's strings are JSON strings, which are YAML double-quoted scalars.

use std::io::{self, Write};

use serde_json::Value;

use super::{Outcome, Report};

/// `text` as a test point description: one line, `\` and `#` escaped.
fn description(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '#' => out.push_str("\\#"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}

pub(super) fn render(report: &Report, w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, "TAP version 14")?;
    writeln!(w, "1..{}", report.records.len())?;
    for (i, r) in report.records.iter().enumerate() {
        let n = i + 1;
        let what = description(&format!("{} {}", r.location(), r.subject()));
        match r.outcome {
            Outcome::Valid => writeln!(w, "ok {n} - {what}")?,
            Outcome::Skipped => writeln!(w, "ok {n} - {what} # SKIP {}", description(&r.message))?,
            Outcome::Invalid | Outcome::Error => {
                writeln!(w, "not ok {n} - {what}")?;
                writeln!(w, "  ---")?;
                writeln!(w, "  verdict: {}", r.outcome.as_str())?;
                writeln!(w, "  message: {}", quoted(&r.message))?;
                writeln!(w, "  file: {}", quoted(&r.file))?;
                if let Some(line) = r.line {
                    writeln!(w, "  line: {line}")?;
                }
                writeln!(w, "  ...")?;
            }
        }
        for warn in &r.warnings {
            writeln!(w, "# Warning: {}", description(warn))?;
        }
    }
    writeln!(w, "# {}", report.summary())
}
