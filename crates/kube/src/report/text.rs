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

use super::{Outcome, Record, RenderOptions, Report};
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
    for r in &report.records {
        record(r, options, w)?;
    }
    writeln!(w, "{}", report.summary())
}

/// Writes the lines of one record.
pub(super) fn record(r: &Record, options: &RenderOptions, w: &mut dyn Write) -> io::Result<()> {
    let at = Location(r, options.colour.then(|| style(r.outcome)));
    for warn in &r.warnings {
        if options.colour {
            let warning = Style::new().fg_color(Some(AnsiColor::Yellow.into()));
            writeln!(
                w,
                "{at} {}Warning{}: {warn}",
                warning.render(),
                warning.render_reset()
            )?;
        } else {
            writeln!(w, "{at} Warning: {warn}")?;
        }
    }
    for (key, value) in &r.audit_annotations {
        writeln!(w, "{at} Audit annotation {key}: {value}")?;
    }
    match r.outcome {
        Outcome::Valid if r.operation == Some(Operation::Delete) => {
            writeln!(w, "{at} {} may be deleted", r.subject())
        }
        Outcome::Valid => writeln!(w, "{at} {} is valid", r.subject()),
        Outcome::Invalid => writeln!(w, "{at} {}", r.message),
        Outcome::Error => writeln!(w, "{at} error: {}", r.message),
        Outcome::Skipped => writeln!(w, "{at} {} skipped: {}", r.subject(), r.message),
    }
}

/// `file:line:` (`file:` without a line), painted in a style when one is given.
struct Location<'r>(&'r Record, Option<Style>);

impl std::fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Location(r, style) = self;
        if let Some(s) = style {
            write!(f, "{}", s.render())?;
        }
        match r.line {
            Some(line) => write!(f, "{}:{line}:", r.file)?,
            None => write!(f, "{}:", r.file)?,
        }
        if let Some(s) = style {
            write!(f, "{}", s.render_reset())?;
        }
        Ok(())
    }
}
