//! The JUnit XML rendering, as JUnit consumers (Jenkins, GitLab, Azure Pipelines, the
//! `dorny/test-reporter` and `mikepenz/action-junit-report` actions) read it: a `<testsuites>`
//! root, one `<testsuite>` per file in input order, one `<testcase>` per document with a
//! `<failure>` (invalid), `<error>` (could not be validated) or `<skipped>` child. Counts are
//! attributes of both levels, as kubeconform writes them (`pkg/output/junit.go`).

use std::io::{self, Write};

use indexmap::IndexMap;

use super::{Outcome, Record, Report, Summary};

/// `text` escaped for XML character data and attribute values: markup characters as entities,
/// line breaks and tabs as character references (so attributes keep them), and the characters
/// XML 1.0 cannot carry at all (other C0 controls, U+FFFE, U+FFFF) replaced by U+FFFD.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn attributes(s: &Summary) -> String {
    format!(
        "tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"",
        s.total(),
        s.invalid,
        s.errors,
        s.skipped
    )
}

fn test_case(r: &Record, w: &mut dyn Write) -> io::Result<()> {
    let name = match r.line {
        Some(line) => format!("{} (line {line})", r.subject()),
        None => r.subject(),
    };
    write!(
        w,
        "    <testcase name=\"{}\" classname=\"{}\" time=\"0\"",
        escape(&name),
        escape(&r.file)
    )?;
    let child = match r.outcome {
        Outcome::Valid => return writeln!(w, "/>"),
        Outcome::Invalid => "failure",
        Outcome::Error => "error",
        Outcome::Skipped => {
            writeln!(w, ">")?;
            writeln!(w, "      <skipped message=\"{}\"/>", escape(&r.message))?;
            return writeln!(w, "    </testcase>");
        }
    };
    let first_line = r.message.lines().next().unwrap_or("");
    let kind = if r.outcome == Outcome::Invalid {
        "Invalid"
    } else {
        "Error"
    };
    writeln!(w, ">")?;
    writeln!(
        w,
        "      <{child} message=\"{}\" type=\"{kind}\">{}</{child}>",
        escape(first_line),
        escape(&format!("{}: {}", r.location(), r.message))
    )?;
    writeln!(w, "    </testcase>")
}

pub(super) fn render(report: &Report, w: &mut dyn Write) -> io::Result<()> {
    let mut files: IndexMap<&str, Vec<&Record>> = IndexMap::new();
    for r in &report.records {
        files.entry(&r.file).or_default().push(r);
    }
    writeln!(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    writeln!(
        w,
        "<testsuites name=\"kcel validate\" {}>",
        attributes(&report.summary())
    )?;
    for (id, (file, records)) in files.iter().enumerate() {
        writeln!(
            w,
            "  <testsuite name=\"{}\" id=\"{id}\" {}>",
            escape(file),
            attributes(&Summary::of(records.iter().copied()))
        )?;
        for r in records {
            test_case(r, w)?;
        }
        writeln!(w, "  </testsuite>")?;
    }
    writeln!(w, "</testsuites>")
}
