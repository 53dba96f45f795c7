//! The outcome of validating a set of inputs, one [`Record`] per document (or per input that
//! could not be read), and its renderings for people and for CI systems: kubectl-style text,
//! JSON, JUnit XML, TAP, SARIF 2.1.0 and GitHub workflow commands.
//!
//! A [`Report`] is built by [`crate::gate`] (or by an embedder from its own verdicts) and
//! rendered with [`Report::render`]; [`Report::exit_code`] is the gate's verdict: 2 if any input
//! could not be validated, else 1 if any object is invalid, else 0.

mod github;
mod json;
mod junit;
mod sarif;
mod tap;
mod text;

use std::io::{self, Write};
use std::num::NonZeroUsize;

use serde_json::Value;

use crate::admission::request::Operation;
use crate::documents::{Document, DocumentError, DocumentValue, str_at};
use crate::kubectl;
use crate::pipeline::status::Status;
use crate::validator::Verdict;

/// What became of one document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Accepted.
    Valid,
    /// Rejected: the answer's `Status` says why.
    Invalid,
    /// Could not be validated (unreadable input, no `kind`, no schema, a rejected CRD, ...).
    Error,
    /// Not validated, on purpose (`--skip-kinds`, or no schema under `--ignore-missing-schemas`).
    Skipped,
}

impl Outcome {
    /// `valid`, `invalid`, `error` or `skipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Valid => "valid",
            Outcome::Invalid => "invalid",
            Outcome::Error => "error",
            Outcome::Skipped => "skipped",
        }
    }
}

/// One document of the inputs (or one input that could not be read) and its outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The file (`<stdin>` for standard input).
    pub file: String,
    /// The line the document (or the problem) is at, 1-based; `None` when a whole file or
    /// path is concerned (it could not be opened).
    pub line: Option<usize>,
    /// The document's position in its file (0-based), when it was read.
    pub index: Option<usize>,
    /// Its position in the `items` of a `kind: List` document, if it was one.
    pub item: Option<usize>,
    /// `apiVersion` (empty when absent).
    pub api_version: String,
    /// `kind` (empty when absent).
    pub kind: String,
    /// `metadata.namespace` (empty when absent).
    pub namespace: String,
    /// `metadata.name` (empty when absent).
    pub name: String,
    /// The outcome.
    pub outcome: Outcome,
    /// kube-apiserver's answer, for valid and invalid objects.
    pub status: Option<Status>,
    /// The answer's warnings.
    pub warnings: Vec<String>,
    /// One line saying what happened: kubectl's message for an invalid object, the error for
    /// an error, the reason for a skip; empty for a valid object.
    pub message: String,
    /// The audit annotations admission policies added (`<policy>/<key>` and value).
    pub audit_annotations: Vec<(String, String)>,
    /// The object as mutating admission policies left it, when they changed it.
    pub mutated: Option<Value>,
    /// The request the object was sent in (`CREATE`, `UPDATE`, `DELETE`), once it was sent.
    pub operation: Option<Operation>,
}

impl Record {
    /// A record of `doc` (identity filled in) with `outcome` and `message`.
    pub fn of<V: DocumentValue>(doc: &Document<V>, outcome: Outcome, message: String) -> Record {
        let s = |p: &str| str_at(&doc.value, p).to_string();
        Record {
            file: doc.source.clone(),
            line: Some(doc.line),
            index: Some(doc.index),
            item: doc.item,
            api_version: s("/apiVersion"),
            kind: s("/kind"),
            namespace: s("/metadata/namespace"),
            name: s("/metadata/name"),
            outcome,
            status: None,
            warnings: Vec::new(),
            message,
            audit_annotations: Vec::new(),
            mutated: None,
            operation: None,
        }
    }

    /// This record (of a document, [`Record::of`]) with kube-apiserver's answer: its outcome,
    /// message, status and warnings.
    pub fn answer(self, verdict: Verdict) -> Record {
        let (outcome, message) = if verdict.is_valid() {
            (Outcome::Valid, String::new())
        } else {
            (Outcome::Invalid, verdict.kubectl_message())
        };
        Record {
            outcome,
            message,
            status: Some(verdict.status),
            warnings: verdict.warnings,
            ..self
        }
    }

    /// The record of an input that could not be read.
    pub fn unreadable(error: &DocumentError) -> Record {
        let (file, line) = error.location();
        Record {
            file: file.to_string(),
            line,
            index: None,
            item: None,
            api_version: String::new(),
            kind: String::new(),
            namespace: String::new(),
            name: String::new(),
            outcome: Outcome::Error,
            status: None,
            warnings: Vec::new(),
            message: error.message(),
            audit_annotations: Vec::new(),
            mutated: None,
            operation: None,
        }
    }

    /// `file:line` (`file` alone without a line).
    pub fn location(&self) -> String {
        match self.line {
            Some(line) => format!("{}:{line}", self.file),
            None => self.file.clone(),
        }
    }

    /// `Kind "name"`, `Kind "namespace/name"`, `Kind` or `document` as far as known.
    pub fn subject(&self) -> String {
        let name = match (self.namespace.as_str(), self.name.as_str()) {
            (_, "") => String::new(),
            ("", n) => format!(" {n:?}"),
            (ns, n) => format!(" \"{ns}/{n}\""),
        };
        match self.kind.as_str() {
            "" if name.is_empty() => "document".into(),
            "" => format!("document{name}"),
            k => format!("{k}{name}"),
        }
    }

    /// The `metav1.Status` as on the wire, if there is one.
    pub fn status_json(&self) -> Option<Value> {
        self.status.as_ref().map(kubectl::status_json)
    }
}

/// How many records ended each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Valid objects.
    pub valid: usize,
    /// Invalid objects.
    pub invalid: usize,
    /// Inputs that could not be validated.
    pub errors: usize,
    /// Documents skipped.
    pub skipped: usize,
}

impl Summary {
    /// The counts of `records`.
    pub fn of<'r>(records: impl IntoIterator<Item = &'r Record>) -> Summary {
        let mut s = Summary::default();
        for r in records {
            s.count(r.outcome);
        }
        s
    }

    /// Counts one more record of `outcome`.
    pub fn count(&mut self, outcome: Outcome) {
        *match outcome {
            Outcome::Valid => &mut self.valid,
            Outcome::Invalid => &mut self.invalid,
            Outcome::Error => &mut self.errors,
            Outcome::Skipped => &mut self.skipped,
        } += 1;
    }

    /// [`EXIT_ERROR`] if any input could not be validated, else [`EXIT_INVALID`] if any object
    /// is invalid, else [`EXIT_VALID`].
    pub fn exit_code(&self) -> u8 {
        if self.errors > 0 {
            EXIT_ERROR
        } else if self.invalid > 0 {
            EXIT_INVALID
        } else {
            EXIT_VALID
        }
    }

    /// How many records there are.
    pub fn total(&self) -> usize {
        self.valid + self.invalid + self.errors + self.skipped
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} valid, {} invalid, {} errors, {} skipped",
            self.valid, self.invalid, self.errors, self.skipped
        )
    }
}

/// The records of a run, in input order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// One per document, or per input that could not be read.
    pub records: Vec<Record>,
    /// Notices about the run as a whole, shown once (e.g. that Kubernetes 1.37's built-in kinds
    /// were validated with the newest shipped schemas).
    pub notices: Vec<String>,
}

/// Exit code: every document valid (or skipped).
pub const EXIT_VALID: u8 = 0;
/// Exit code: some object invalid, every input validated.
pub const EXIT_INVALID: u8 = 1;
/// Exit code: some input could not be validated.
pub const EXIT_ERROR: u8 = 2;

impl Report {
    /// The counts of each outcome.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.records)
    }

    /// [`EXIT_ERROR`] if any input could not be validated, else [`EXIT_INVALID`] if any object
    /// is invalid, else [`EXIT_VALID`].
    pub fn exit_code(&self) -> u8 {
        self.summary().exit_code()
    }

    /// Writes the report in `format`.
    pub fn render(
        &self,
        format: Format,
        options: &RenderOptions,
        w: &mut dyn Write,
    ) -> io::Result<()> {
        match format {
            Format::Text => text::render(self, options, w),
            Format::Json => json::render(self, options.jobs.unwrap_or(NonZeroUsize::MIN), w),
            Format::Junit => junit::render(self, w),
            Format::Tap => tap::render(self, w),
            Format::Sarif => sarif::render(self, options, w),
            Format::Github => github::render(self, w),
        }
    }
}

/// Writes a report record by record, as a run hands its records on ([`crate::gate::stream()`]):
/// the text and JSON formats write each record at once; the others need the whole report
/// (counts up front, records grouped by file), so their records are kept and written by
/// [`RecordWriter::finish`]. The bytes are those [`Report::render`] writes for the same records.
pub struct RecordWriter<W> {
    format: Format,
    options: RenderOptions,
    out: W,
    summary: Summary,
    json: json::JsonWriter,
    kept: Vec<Record>,
}

impl<W: Write> RecordWriter<W> {
    /// A writer of `format` to `out`.
    pub fn new(format: Format, options: RenderOptions, out: W) -> RecordWriter<W> {
        RecordWriter {
            format,
            options,
            out,
            summary: Summary::default(),
            json: json::JsonWriter::default(),
            kept: Vec::new(),
        }
    }

    /// Writes (or keeps) the next record.
    pub fn record(&mut self, record: Record) -> io::Result<()> {
        self.summary.count(record.outcome);
        match self.format {
            Format::Text => text::record(&record, &self.options, &mut self.out),
            Format::Json => self.json.record(&record, &mut self.out),
            _ => {
                self.kept.push(record);
                Ok(())
            }
        }
    }

    /// The counts of the records so far.
    pub fn summary(&self) -> Summary {
        self.summary
    }

    /// Ends the report (writes the kept records, or the summary) and gives the output back.
    pub fn finish(mut self) -> io::Result<W> {
        match self.format {
            Format::Text => writeln!(self.out, "{}", self.summary)?,
            Format::Json => self.json.finish(&self.summary, &mut self.out)?,
            format => {
                let report = Report {
                    records: std::mem::take(&mut self.kept),
                    notices: Vec::new(),
                };
                report.render(format, &self.options, &mut self.out)?;
            }
        }
        Ok(self.out)
    }
}

/// The renderings of a [`Report`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// kubectl's messages, one line (or bullet list) per document, then the summary line.
    Text,
    /// One JSON document: `{"documents": [...], "summary": {...}}`.
    Json,
    /// JUnit XML: a test suite per file, a test case per document.
    Junit,
    /// TAP version 14: a test point per document.
    Tap,
    /// SARIF 2.1.0: a result per invalid document or error, with its file and line.
    Sarif,
    /// GitHub Actions workflow commands: `::error file=…,line=…::…` per invalid document or
    /// error, `::warning` per warning, then the summary line.
    Github,
}

impl Format {
    /// The formats' names, as [`Format::from_str`](std::str::FromStr) reads them.
    pub const NAMES: [&'static str; 6] = ["text", "json", "junit", "tap", "sarif", "github"];

    const ALL: [Format; 6] = [
        Format::Text,
        Format::Json,
        Format::Junit,
        Format::Tap,
        Format::Sarif,
        Format::Github,
    ];
}

/// A name that is none of [`Format::NAMES`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown report format {name:?} (one of text, json, junit, tap, sarif, github)")]
pub struct UnknownFormat {
    /// The name given.
    pub name: String,
}

impl std::str::FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Format, UnknownFormat> {
        Format::NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Format::ALL[i])
            .ok_or_else(|| UnknownFormat {
                name: name.to_string(),
            })
    }
}

/// How a report is rendered, where the format leaves a choice.
#[derive(Clone, Debug, Default)]
pub struct RenderOptions {
    /// Colour the text format's markers with ANSI escapes (for terminals).
    pub colour: bool,
    /// The version of the tool named in SARIF's `tool.driver` (default this crate's).
    pub tool_version: Option<String>,
    /// Threads writing the JSON report's records (default one); the bytes do not depend on it.
    pub jobs: Option<NonZeroUsize>,
}
