//! Comparing the results of case files ([`crate::cases`]) with expected results in the format of
//! `out*.json` (reference §11.4), as `kcel test` and the oracle test do.
//!
//! Kubernetes lists the causes of one Status in an order that depends on Go's map iteration, so
//! causes compare as multisets, and the message after putting our causes in the expected order;
//! `causeStrings` and `warnings` compare as multisets; everything else exactly (the object after
//! decoding in the bytes Go's `json.Marshal` gives it).

use std::fmt;

use serde_json::Value;

use crate::field::go_json;
use crate::pipeline::Status;

/// The keys of an expected result that are compared; an expected result with any other key does
/// not match (nothing goes unchecked).
pub const COMPARED_KEYS: &[&str] = &[
    "name",
    "crdStatus",
    "unknownFields",
    "decodeError",
    "objectAfterDecode",
    "status",
    "causeStrings",
    "warnings",
];

/// How a result differs from the expected one: the part that differs, and both sides as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// What differs (`status.message`, `causeStrings`, ...).
    pub what: String,
    /// The result's side (empty when it has none).
    pub got: String,
    /// The expected side (empty when there is none).
    pub want: String,
}

impl Mismatch {
    fn new(what: impl Into<String>, got: impl Into<String>, want: impl Into<String>) -> Mismatch {
        Mismatch {
            what: what.into(),
            got: got.into(),
            want: want.into(),
        }
    }

    /// The mismatch prefixed: `crdStatus` + `message` → `crdStatus.message`.
    fn within(mut self, prefix: &str) -> Mismatch {
        self.what = format!("{prefix}.{}", self.what);
        self
    }
}

/// `what` then the expected side (`-`) and the result's (`+`), one line each, as a diff shows them.
impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}:", self.what)?;
        for line in self.want.lines() {
            writeln!(f, "  - {line}")?;
        }
        for line in self.got.lines() {
            writeln!(f, "  + {line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Mismatch {}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The causes of a Status as JSON, `reason|field|message` each.
pub fn cause_strings(status: &Value) -> Vec<String> {
    status
        .pointer("/details/causes")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
                    format!("{}|{}|{}", s("reason"), s("field"), s("message"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Compares a Status with an expected one: status, code, reason, details (name, group, kind),
/// causes as a multiset, and the message after putting our causes in the expected order.
pub fn compare_status(got: &Status, want: &Value) -> Result<(), Mismatch> {
    compare_status_rendered(got, want, &|order| reorder_message(got, order))
}

/// [`compare_status`] with the message of our causes in a given order rendered by `render`.
pub fn compare_status_rendered(
    got: &Status,
    want: &Value,
    render: &dyn Fn(&[usize]) -> String,
) -> Result<(), Mismatch> {
    let got_v =
        serde_json::to_value(got).map_err(|e| Mismatch::new("status", e.to_string(), ""))?;
    let text = |v: Option<&Value>| v.map(go_json).unwrap_or_default();
    for k in ["status", "code", "reason"] {
        if got_v.get(k) != want.get(k) {
            return Err(Mismatch::new(k, text(got_v.get(k)), text(want.get(k))));
        }
    }
    for k in ["name", "group", "kind"] {
        let pointer = format!("/details/{k}");
        let (g, w) = (got_v.pointer(&pointer), want.pointer(&pointer));
        if g != w {
            return Err(Mismatch::new(format!("details.{k}"), text(g), text(w)));
        }
    }
    let gc = cause_strings(&got_v);
    let wc = cause_strings(want);
    if sorted(gc.clone()) != sorted(wc.clone()) {
        return Err(Mismatch::new(
            "details.causes",
            sorted(gc).join("\n"),
            sorted(wc).join("\n"),
        ));
    }
    let mut used = vec![false; gc.len()];
    let mut order = Vec::with_capacity(wc.len());
    for w in &wc {
        if let Some(i) = (0..gc.len()).find(|&i| !used[i] && gc[i] == *w) {
            used[i] = true;
            order.push(i);
        }
    }
    let message = if gc.is_empty() {
        got.message.clone()
    } else {
        render(&order)
    };
    let want_message = want.get("message").and_then(Value::as_str).unwrap_or("");
    if message != want_message {
        return Err(Mismatch::new("message", message, want_message));
    }
    Ok(())
}

/// The message of `status` with its causes in `order`, rebuilt as Kubernetes aggregates them.
pub fn reorder_message(status: &Status, order: &[usize]) -> String {
    let Some(details) = &status.details else {
        return status.message.clone();
    };
    let strings: Vec<String> = order
        .iter()
        .filter_map(|&i| details.causes.get(i))
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect();
    let qualified = if details.group.is_empty() {
        details.kind.clone()
    } else {
        format!("{}.{}", details.kind, details.group)
    };
    match crate::pipeline::status::aggregate(&strings) {
        Some(agg) => format!(
            "{qualified} {} is invalid: {agg}",
            crate::go::fmt::quote(&details.name)
        ),
        None => status.message.clone(),
    }
}

fn status_of(v: &Value, what: &str) -> Result<Status, Mismatch> {
    serde_json::from_value(v.clone())
        .map_err(|e| Mismatch::new(what, format!("not a Status: {e}"), go_json(v)))
}

/// The random part of a generated name (`metadata.generateName`), read from the expected
/// result's name, so that the case can be run with it
/// ([`crate::cases::CaseFile::run`]'s `name_suffix`).
pub fn name_suffix(case: &Value, want: &Value) -> Option<String> {
    let object = match case.get("objectRaw").and_then(Value::as_str) {
        Some(raw) => crate::pipeline::json::parse(raw).ok()?.value,
        None => case.get("object")?.clone(),
    };
    let generate = object.pointer("/metadata/generateName")?.as_str()?;
    // `names.SimpleNameGenerator` keeps at most 58 characters of the prefix.
    let prefix: String = generate.chars().take(58).collect();
    let name = want.pointer("/objectAfterDecode/metadata/name")?.as_str()?;
    name.strip_prefix(&prefix).map(str::to_string)
}

/// Compares one result of a case ([`crate::cases::CaseFile::run`]) with the expected one.
/// `want_object` is the expected `objectAfterDecode` as recorded (its bytes); `None` compares
/// with the expected value printed as Go prints it.
pub fn compare_result(
    got: &Value,
    want: &Value,
    want_object: Option<&str>,
) -> Result<(), Mismatch> {
    if let Some(k) = want
        .as_object()
        .and_then(|w| w.keys().find(|k| !COMPARED_KEYS.contains(&k.as_str())))
    {
        return Err(Mismatch::new(
            k.as_str(),
            "",
            format!("`{k}` is not a key of the result format"),
        ));
    }
    if let Some(e) = got.get("error") {
        return Err(Mismatch::new("error", go_json(e), ""));
    }
    if let Some(want_status) = want.get("crdStatus") {
        let Some(got_status) = got.get("crdStatus") else {
            return Err(Mismatch::new(
                "crdStatus",
                "(the CRD is accepted)",
                go_json(want_status),
            ));
        };
        let got_status = status_of(got_status, "crdStatus")?;
        return compare_status(&got_status, want_status).map_err(|m| m.within("crdStatus"));
    }
    if let Some(s) = got.get("crdStatus") {
        return Err(Mismatch::new(
            "crdStatus",
            s.get("message").and_then(Value::as_str).unwrap_or(""),
            "(the CRD is accepted)",
        ));
    }
    let (got_decode, want_decode) = (got.get("decodeError"), want.get("decodeError"));
    if got_decode != want_decode {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
        return Err(Mismatch::new(
            "decodeError",
            text(got_decode),
            text(want_decode),
        ));
    }
    if want_decode.is_some() {
        return Ok(());
    }
    let (gu, wu) = (
        strings(got.get("unknownFields")),
        strings(want.get("unknownFields")),
    );
    if gu != wu {
        return Err(Mismatch::new("unknownFields", gu.join("\n"), wu.join("\n")));
    }
    let got_object = got.get("objectAfterDecode").map(go_json);
    let want_object = want_object
        .map(str::to_string)
        .or_else(|| want.get("objectAfterDecode").map(go_json));
    if got_object != want_object {
        return Err(Mismatch::new(
            "objectAfterDecode",
            got_object.unwrap_or_default(),
            want_object.unwrap_or_default(),
        ));
    }
    match (got.get("status"), want.get("status")) {
        (Some(g), Some(w)) => {
            compare_status(&status_of(g, "status")?, w).map_err(|m| m.within("status"))?
        }
        (None, None) => {}
        (g, w) => {
            return Err(Mismatch::new(
                "status",
                g.map(go_json).unwrap_or_default(),
                w.map(go_json).unwrap_or_default(),
            ));
        }
    }
    for key in ["causeStrings", "warnings"] {
        let (g, w) = (strings(got.get(key)), strings(want.get(key)));
        if sorted(g.clone()) != sorted(w.clone()) {
            return Err(Mismatch::new(key, g.join("\n"), w.join("\n")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn causes_compare_as_multisets_and_mismatches_print_as_a_diff() {
        let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "W.example.com \"w\" is invalid: [a: Invalid value: 1, b: Required value]",
            "reason": "Invalid", "code": 422,
            "details": {"name": "w", "group": "example.com", "kind": "W", "causes": [
                {"reason": "FieldValueInvalid", "message": "Invalid value: 1", "field": "a"},
                {"reason": "FieldValueRequired", "message": "Required value", "field": "b"}]}});
        let mut reordered = status.clone();
        reordered["message"] =
            json!("W.example.com \"w\" is invalid: [b: Required value, a: Invalid value: 1]");
        let causes = reordered["details"]["causes"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        reordered["details"]["causes"] = json!([causes[1], causes[0]]);
        let got = json!({"name": "c", "status": status, "causeStrings": ["x", "y"]});
        let want = json!({"name": "c", "status": reordered, "causeStrings": ["y", "x"]});
        assert_eq!(compare_result(&got, &want, None), Ok(()));

        let want = json!({"name": "c", "status": reordered, "causeStrings": ["y"]});
        let m = compare_result(&got, &want, None).expect_err("differs");
        assert_eq!(m.to_string(), "causeStrings:\n  - y\n  + x\n  + y\n");

        let want = json!({"name": "c", "surprise": 1});
        assert_eq!(
            compare_result(&got, &want, None).map_err(|m| m.what),
            Err("surprise".to_string())
        );
    }
}
