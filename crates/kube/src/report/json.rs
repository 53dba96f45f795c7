//! The JSON rendering: one JSON document (what `jq` and CI scripts read whole), as kubeconform's
//! `-output json` is one document of resources and a summary:
//!
//! ```json
//! {"documents": [{"file": "w.yaml", "line": 1, "index": 0, "item": null,
//!                 "apiVersion": "example.com/v1", "kind": "Widget", "namespace": "", "name": "w1",
//!                 "verdict": "invalid", "message": "The Widget \"w1\" is invalid: ...",
//!                 "status": {"kind": "Status", ...}, "warnings": []}],
//!  "summary": {"valid": 0, "invalid": 1, "errors": 0, "skipped": 0}}
//! ```
//!
//! `operation` is the request an object was sent in (`CREATE`, `UPDATE`, `DELETE`; absent for
//! inputs never sent). `auditAnnotations` maps the keys admission policies annotated (`<policy>/<key>`) to their
//! values. `status` is the `metav1.Status` as on the wire (absent for errors and skips); `line` and
//! `index` are `null` for an input that could not be opened.

use std::io::{self, Write};

use std::num::NonZeroUsize;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value, json};

use super::{Record, Report, Summary};
use crate::gate::parallel;
use crate::kubectl::WireStatus;

/// The JSON object of one record, written field by field (no intermediate `Value`);
/// `operation` only for objects sent, `mutatedObject` only when admission mutated the object.
struct RecordJson<'r>(&'r Record);

impl Serialize for RecordJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("file", &r.file)?;
        map.serialize_entry("line", &r.line)?;
        map.serialize_entry("index", &r.index)?;
        map.serialize_entry("item", &r.item)?;
        map.serialize_entry("apiVersion", &r.api_version)?;
        map.serialize_entry("kind", &r.kind)?;
        map.serialize_entry("namespace", &r.namespace)?;
        map.serialize_entry("name", &r.name)?;
        map.serialize_entry("verdict", r.outcome.as_str())?;
        map.serialize_entry("message", &r.message)?;
        map.serialize_entry("status", &r.status.as_ref().map(WireStatus))?;
        map.serialize_entry("warnings", &r.warnings)?;
        // A key annotated twice keeps its first place and its last value, as a JSON object.
        let annotations: serde_json::Map<String, Value> = r
            .audit_annotations
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        map.serialize_entry("auditAnnotations", &annotations)?;
        if let Some(op) = r.operation {
            map.serialize_entry("operation", op.as_str())?;
        }
        if let Some(mutated) = &r.mutated {
            map.serialize_entry("mutatedObject", mutated)?;
        }
        map.end()
    }
}

/// The first line of the document and of its `documents` array (`to_writer_pretty`'s).
const HEAD: &[u8] = b"{\n  \"documents\": [\n";

/// Writes the JSON document record by record, the same bytes as `to_writer_pretty` writes for
/// the whole `{"documents": [...], "summary": {...}}`: each record as the printer writes it
/// two levels deep (every line indented four more spaces; a JSON string holds no line break,
/// so every line break is the printer's).
#[derive(Default)]
pub(super) struct JsonWriter {
    /// Records written so far.
    written: usize,
    /// One record's text, reused.
    buf: Vec<u8>,
}

impl JsonWriter {
    /// Writes `r` after the records before it.
    pub fn record(&mut self, r: &Record, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(if self.written == 0 { HEAD } else { b",\n" })?;
        self.written += 1;
        self.buf.clear();
        serde_json::to_writer_pretty(&mut self.buf, &RecordJson(r))?;
        write_indented(&self.buf, w)
    }

    /// Ends the document with the summary of the records written.
    pub fn finish(&self, summary: &Summary, w: &mut dyn Write) -> io::Result<()> {
        let summary = json!({
            "valid": summary.valid,
            "invalid": summary.invalid,
            "errors": summary.errors,
            "skipped": summary.skipped,
        });
        let summary = serde_json::to_string_pretty(&summary)?.replace('\n', "\n  ");
        if self.written == 0 {
            writeln!(w, "{{\n  \"documents\": [],\n  \"summary\": {summary}\n}}")
        } else {
            writeln!(w, "\n  ],\n  \"summary\": {summary}\n}}")
        }
    }
}

/// `text` with four spaces before it and after each of its line breaks.
fn write_indented(text: &[u8], w: &mut dyn Write) -> io::Result<()> {
    const INDENT: &[u8] = b"    ";
    w.write_all(INDENT)?;
    let mut rest = text;
    while let Some(i) = rest.iter().position(|&b| b == b'\n') {
        w.write_all(&rest[..=i])?;
        w.write_all(INDENT)?;
        rest = &rest[i + 1..];
    }
    w.write_all(rest)
}

/// Records per piece of the report written by one thread.
const RECORDS_PER_PIECE: usize = 256;

pub(super) fn render(report: &Report, jobs: NonZeroUsize, w: &mut dyn Write) -> io::Result<()> {
    let summary = report.summary();
    let mut writer = JsonWriter::default();
    if jobs.get() == 1 || report.records.len() <= RECORDS_PER_PIECE {
        for r in &report.records {
            writer.record(r, w)?;
        }
        return writer.finish(&summary, w);
    }
    // The records in pieces on `jobs` threads, each piece's bytes as one writer writes them,
    // put together in order.
    let pieces: Vec<&[Record]> = report.records.chunks(RECORDS_PER_PIECE).collect();
    let written = parallel::ordered_map(pieces, jobs, |records| {
        let mut piece = JsonWriter::default();
        let mut out = Vec::new();
        for r in records {
            piece.record(r, &mut out)?;
        }
        Ok::<_, io::Error>(out)
    });
    for (i, piece) in written.into_iter().enumerate() {
        let piece = piece?;
        // Every piece starts as the first record does; the later ones continue the array.
        let body = piece.get(HEAD.len()..).unwrap_or_default();
        w.write_all(if i == 0 { HEAD } else { b",\n" })?;
        w.write_all(body)?;
    }
    writer.written = report.records.len();
    writer.finish(&summary, w)
}
