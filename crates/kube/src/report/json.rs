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

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value, json};

use super::{Record, Report};

/// The JSON object of one record; `operation` only for objects sent, `mutatedObject` only when
/// admission mutated the object.
fn record_json(r: &Record) -> Value {
    let mut record = json!({
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
    });
    if let Some(o) = record.as_object_mut() {
        if let Some(op) = r.operation {
            o.insert("operation".into(), op.as_str().into());
        }
        if let Some(mutated) = &r.mutated {
            o.insert("mutatedObject".into(), mutated.clone());
        }
    }
    record
}

/// The records as a JSON array, each record's object built only while it is written.
struct Documents<'r>(&'r [Record]);

impl Serialize for Documents<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(record_json))
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

pub(super) fn render(report: &Report, w: &mut dyn Write) -> io::Result<()> {
    let s = report.summary();
    let doc = Whole {
        documents: Documents(&report.records),
        summary: json!({
            "valid": s.valid,
            "invalid": s.invalid,
            "errors": s.errors,
            "skipped": s.skipped,
        }),
    };
    serde_json::to_writer_pretty(&mut *w, &doc)?;
    writeln!(w)
}
