//! The text rendering: kubectl's messages, one entry per document, then the summary line.
//!
//! ```text
//! examples/widget-valid.yaml:1: Widget "w1" is valid
//! gone.yaml:1: Widget "w3" may be deleted
//! examples/widget-invalid.yaml:1: The Widget "w2" is invalid: ...
//! broken.yaml:3: error: syntax error at column 5: ...
//! ns.yaml:1: Namespace "a" skipped: no schema
//! 1 valid, 1 invalid, 1 errors, 1 skipped
//! ```
//!
//! Warnings and admission policies' audit annotations come before their document's line
//! (`file:line: Warning: ...`, `file:line: Audit annotation <policy>/<key>: <value>`). With
//! [`RenderOptions::colour`] the location is coloured by outcome (green valid, red invalid or
//! error, yellow skipped or warning) and nothing else changes.

use std::io::{self, Write};

use anstyle::{AnsiColor, Style};

use super::{Outcome, RenderOptions, Report};
use crate::admission::request::Operation;

fn style(outcome: Outcome) -> Style {
    let colour = match outcome {
        Outcome::Valid => AnsiColor::Green,
        Outcome::Invalid | Outcome::Error => AnsiColor::Red,
        Outcome::Skipped => AnsiColor::Yellow,
    };
    Style::new().fg_color(Some(colour.into())).bold()
}

pub(super) fn render(
    report: &Report,
    options: &RenderOptions,
    w: &mut dyn Write,
) -> io::Result<()> {
    let paint = |style: Style, text: &str| {
        if options.colour {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    };
    let warning = Style::new().fg_color(Some(AnsiColor::Yellow.into()));
    for r in &report.records {
        let at = paint(style(r.outcome), &format!("{}:", r.location()));
        for warn in &r.warnings {
            writeln!(w, "{at} {}: {warn}", paint(warning, "Warning"))?;
        }
        for (key, value) in &r.audit_annotations {
            writeln!(w, "{at} Audit annotation {key}: {value}")?;
        }
        match r.outcome {
            Outcome::Valid if r.operation == Some(Operation::Delete) => {
                writeln!(w, "{at} {} may be deleted", r.subject())?;
            }
            Outcome::Valid => writeln!(w, "{at} {} is valid", r.subject())?,
            Outcome::Invalid => writeln!(w, "{at} {}", r.message)?,
            Outcome::Error => writeln!(w, "{at} error: {}", r.message)?,
            Outcome::Skipped => writeln!(w, "{at} {} skipped: {}", r.subject(), r.message)?,
        }
    }
    writeln!(w, "{}", report.summary())
}
