//! What a client shows of kube-apiserver's answers: kubectl's text for a failed request, and the
//! `metav1.Status` as it travels on the wire.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::field::FieldError;
use crate::pipeline::status::{Cause, Status};

/// The `status` of a successful request.
const SUCCESS: &str = "Success";

/// kubectl's message for an `Invalid` answer built from field errors: one error inline, several
/// as a bullet list (`The Widget "w1" is invalid: spec.a: ...`).
pub fn invalid_message(kind: &str, name: &str, errors: &[FieldError]) -> String {
    let lines: Vec<String> = errors
        .iter()
        .map(|e| format!("{}: {}", e.path, e.body()))
        .collect();
    invalid_text(kind, name, &lines)
}

/// `The <kind> "<name>" is invalid: ` followed by one line inline, or each line as a bullet.
fn invalid_text(kind: &str, name: &str, lines: &[String]) -> String {
    match lines {
        [one] => format!("The {kind} {name:?} is invalid: {one}"),
        _ => {
            let mut s = format!("The {kind} {name:?} is invalid: ");
            for line in lines {
                s.push_str("\n* ");
                s.push_str(line);
            }
            s
        }
    }
}

/// kubectl's rendering of a failed request for object `name` of `kind`: the causes of an
/// `Invalid` status inline (one) or as a bullet list (several), each `<field>: <message>` (an
/// empty field too: `: <message>`, `statusCausesToAggrError` in kubectl's
/// `cmd/util/helpers.go`), after `The <details.kind> "<details.name>" is invalid` (`kind` and
/// `name` when the status has no details kind: an admission denial names the resource,
/// `deployments`); otherwise `Error from server (Reason): message`.
pub fn status_message(kind: &str, name: &str, status: &Status) -> String {
    let details = status.details.as_ref();
    let causes = details.map(|d| d.causes.as_slice()).unwrap_or(&[]);
    if status.reason != "Invalid" || causes.is_empty() {
        return format!("Error from server ({}): {}", status.reason, status.message);
    }
    let (kind, name) = match details {
        Some(d) if !d.kind.is_empty() => (d.kind.as_str(), d.name.as_str()),
        _ => (kind, name),
    };
    let line = |c: &Cause| format!("{}: {}", c.field, c.message);
    let mut lines: Vec<String> = Vec::with_capacity(causes.len());
    for l in causes.iter().map(line) {
        if !lines.contains(&l) {
            lines.push(l);
        }
    }
    invalid_text(kind, name, &lines)
}

/// Whether a status reports success.
pub fn is_success(status: &Status) -> bool {
    status.status == SUCCESS
}

/// The `metav1.Status` kube-apiserver answers with, as on the wire (`kind` and `apiVersion`
/// set, code 200 on success).
pub fn status_json(status: &Status) -> Value {
    serde_json::to_value(WireStatus(status)).unwrap_or(Value::Null)
}

/// A `metav1.Status` as on the wire, written without building a JSON value: the status's
/// fields in their order, then `kind` and `apiVersion`; a success's `code` is 200, in the
/// status's place for it when it has one, else last.
pub struct WireStatus<'s>(pub &'s Status);

impl Serialize for WireStatus<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let status = self.0;
        let success = is_success(status);
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("metadata", &status.metadata)?;
        map.serialize_entry("status", &status.status)?;
        if !status.message.is_empty() {
            map.serialize_entry("message", &status.message)?;
        }
        if !status.reason.is_empty() {
            map.serialize_entry("reason", &status.reason)?;
        }
        if let Some(details) = &status.details {
            map.serialize_entry("details", details)?;
        }
        if let Some(code) = status.code {
            map.serialize_entry("code", &if success { 200 } else { code })?;
        }
        map.serialize_entry("kind", "Status")?;
        map.serialize_entry("apiVersion", "v1")?;
        if success && status.code.is_none() {
            map.serialize_entry("code", &200)?;
        }
        map.end()
    }
}
