//! The SARIF 2.1.0 rendering (OASIS Static Analysis Results Interchange Format, as GitHub code
//! scanning and other CI tools upload it): one run of the tool `kcel` with three rules,
//! `invalid-object` (kube-apiserver would reject the object), `input-error` (an input could not
//! be validated) and `object-warning` (a warning of an answer), and one result per invalid
//! document, error and warning, located at its file (a relative URI reference as given) and
//! line. Valid and skipped documents have no result. A result of an object sent carries its
//! request's operation as the property `operation` (`CREATE`, `UPDATE`, `DELETE`).

use std::io::{self, Write};

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::{Value, json};

use super::{Outcome, Record, RenderOptions, Report};

/// The characters a path keeps percent-encoded in a URI reference (RFC 3986: everything but
/// unreserved characters, sub-delimiters, `/` and `@`; `:` too, so that a relative path is never read as a scheme).
const URI_ESCAPED: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b':')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The rules, in `tool.driver.rules` order (results name them by id and index).
const RULES: [(&str, &str, &str); 3] = [
    (
        "invalid-object",
        "error",
        "kube-apiserver would reject the object",
    ),
    ("input-error", "error", "the input could not be validated"),
    (
        "object-warning",
        "warning",
        "kube-apiserver would warn about the object",
    ),
];

fn result(rule: usize, r: &Record, message: &str) -> Value {
    let (id, level, _) = RULES[rule];
    let mut location = json!({
        "artifactLocation": {"uri": utf8_percent_encode(&r.file, URI_ESCAPED).to_string()},
    });
    if let Some(line) = r.line {
        location["region"] = json!({"startLine": line});
    }
    let mut result = json!({
        "ruleId": id,
        "ruleIndex": rule,
        "level": level,
        "message": {"text": if message.is_empty() { id } else { message }},
        "locations": [{"physicalLocation": location}],
    });
    if let Some(op) = r.operation {
        result["properties"] = json!({"operation": op.as_str()});
    }
    result
}

pub(super) fn render(
    report: &Report,
    options: &RenderOptions,
    w: &mut dyn Write,
) -> io::Result<()> {
    let mut results = Vec::new();
    for r in &report.records {
        for warn in &r.warnings {
            results.push(result(2, r, warn));
        }
        match r.outcome {
            Outcome::Invalid => results.push(result(0, r, &r.message)),
            Outcome::Error => results.push(result(1, r, &r.message)),
            Outcome::Valid | Outcome::Skipped => {}
        }
    }
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, level, text)| {
            json!({
                "id": id,
                "shortDescription": {"text": text},
                "defaultConfiguration": {"level": level},
            })
        })
        .collect();
    let version = options
        .tool_version
        .clone()
        .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_string());
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "kcel", "version": version, "rules": rules}},
            "results": results,
        }],
    });
    serde_json::to_writer_pretty(&mut *w, &doc)?;
    writeln!(w)
}
