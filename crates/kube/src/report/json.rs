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

use super::{Record, Report};
use crate::gate::parallel;

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
        map.serialize_entry("status", &r.status_json())?;
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

/// The records as a JSON array.
struct Documents<'r>(&'r [Record]);

impl Serialize for Documents<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(RecordJson))
    }
}

/// The whole document: `documents`, then `summary`.
struct Whole<'r> {
    documents: Documents<'r>,
    summary: Value,
}

impl Serialize for Whole<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("documents", &self.documents)?;
        map.serialize_entry("summary", &self.summary)?;
        map.end()
    }
}

/// Records per piece of the report written by one thread.
const RECORDS_PER_PIECE: usize = 256;

pub(super) fn render(report: &Report, jobs: NonZeroUsize, w: &mut dyn Write) -> io::Result<()> {
    let s = report.summary();
    let summary = json!({
        "valid": s.valid,
        "invalid": s.invalid,
        "errors": s.errors,
        "skipped": s.skipped,
    });
    if jobs.get() == 1 || report.records.len() <= RECORDS_PER_PIECE {
        let doc = Whole {
            documents: Documents(&report.records),
            summary,
        };
        serde_json::to_writer_pretty(&mut *w, &doc)?;
        return writeln!(w);
    }
    // The records in pieces on `jobs` threads, each written as `to_writer_pretty` writes it
    // inside `documents` (two levels deep: every line indented four more spaces; a JSON string
    // holds no line break, so every line break is the printer's), then put together in order
    // between the lines the printer writes around them: the same bytes as one pass.
    let pieces: Vec<&[Record]> = report.records.chunks(RECORDS_PER_PIECE).collect();
    let written = parallel::ordered_map(pieces, jobs, |records| {
        let mut out = String::new();
        for (i, r) in records.iter().enumerate() {
            if i > 0 {
                out.push_str(",\n");
            }
            let record = serde_json::to_string_pretty(&RecordJson(r))?;
            out.push_str("    ");
            out.push_str(&record.replace('\n', "\n    "));
        }
        Ok::<_, serde_json::Error>(out)
    });
    w.write_all(b"{\n  \"documents\": [\n")?;
    for (i, piece) in written.into_iter().enumerate() {
        if i > 0 {
            w.write_all(b",\n")?;
        }
        w.write_all(piece?.as_bytes())?;
    }
    let summary = serde_json::to_string_pretty(&summary)?.replace('\n', "\n  ");
    writeln!(w, "\n  ],\n  \"summary\": {summary}\n}}")
}
