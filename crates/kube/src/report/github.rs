//! The GitHub Actions rendering: workflow commands that annotate the files of a pull request
//! (`::error file=w.yaml,line=5,title=Widget "w2" is invalid::The Widget "w2" is invalid: ...`)
//! for each invalid document and each error, `::warning` for each warning, and the summary
//! line, which the log shows as is. Valid and skipped documents print nothing.
//!
//! Values are escaped as GitHub's toolkit escapes them (`@actions/core`, `src/command.ts`:
//! `escapeData` turns `%`, `\r`, `\n` into `%25`, `%0D`, `%0A`; `escapeProperty` also turns
//! `:` and `,` into `%3A` and `%2C`).

use std::io::{self, Write};

use super::{Outcome, Record, Report};

/// A command's message (`escapeData`).
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value (`escapeProperty`).
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// `::command file=…,line=…,title=…::message`.
fn command(
    w: &mut dyn Write,
    name: &str,
    r: &Record,
    title: &str,
    message: &str,
) -> io::Result<()> {
    let mut props = vec![format!("file={}", escape_property(&r.file))];
    if let Some(line) = r.line {
        props.push(format!("line={line}"));
    }
    props.push(format!("title={}", escape_property(title)));
    writeln!(w, "::{name} {}::{}", props.join(","), escape_data(message))
}

pub(super) fn render(report: &Report, w: &mut dyn Write) -> io::Result<()> {
    for r in &report.records {
        for warn in &r.warnings {
            command(w, "warning", r, &format!("{} warning", r.subject()), warn)?;
        }
        match r.outcome {
            Outcome::Invalid => {
                command(
                    w,
                    "error",
                    r,
                    &format!("{} is invalid", r.subject()),
                    &r.message,
                )?;
            }
            Outcome::Error => command(w, "error", r, "kcel validate error", &r.message)?,
            Outcome::Valid | Outcome::Skipped => {}
        }
    }
    writeln!(w, "{}", report.summary())
}
