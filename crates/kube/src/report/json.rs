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
//! `auditAnnotations` maps the keys admission policies annotated (`<policy>/<key>`) to their
//! values. `status` is the `metav1.Status` as on the wire (absent for errors and skips); `line` and
//! `index` are `null` for an input that could not be opened.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::{Record, Report};

/// The JSON object of one record.
fn record_json(r: &Record) -> Value {
    json!({
        "file": r.file,
        "line": r.line,
        "index": r.index,
        "item": r.item,
        "apiVersion": r.api_version,
        "kind": r.kind,
        "namespace": r.namespace,
        "name": r.name,
        "verdict": r.outcome.as_str(),
        "message": r.message,
        "status": r.status_json(),
        "warnings": r.warnings,
        "auditAnnotations": r
            .audit_annotations
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect::<serde_json::Map<_, _>>(),
    })
}

pub(super) fn render(report: &Report, w: &mut dyn Write) -> io::Result<()> {
    let s = report.summary();
    let doc = json!({
        "documents": report.records.iter().map(record_json).collect::<Vec<_>>(),
        "summary": {
            "valid": s.valid,
            "invalid": s.invalid,
            "errors": s.errors,
            "skipped": s.skipped,
        },
    });
    serde_json::to_writer_pretty(&mut *w, &doc)?;
    writeln!(w)
}
