//! Case files in the format of `shared/oracle/cases*.yaml` (reference §11.4) and results in the
//! format of `out*.json`.
//!
//! Input: `{crds: {<id>: <v1 CRD>}, cases: [{name, crd: <id>, version?, object | objectRaw,
//! oldObject | oldObjectRaw, subresource?: status}]}`. Output per case: `name`, `crdStatus` (when
//! the CRD itself is invalid), `unknownFields`, `decodeError`, `objectAfterDecode`, `status`,
//! `causeStrings`, `warnings`; and `duplicateFields` (`duplicate field "spec.a"`) when an
//! `objectRaw` repeats a key (Kubernetes reports them before the unknown fields).

use serde_json::{Map, Value, json};

use std::collections::HashMap;

use crate::crd::CustomResourceDefinition;
use crate::crd_review::review_crd;
use crate::pipeline::json::Parsed;
use crate::pipeline::status::Status;
use crate::pipeline::{FieldValidation, KubeVersion, Operation};
use crate::validator::{CrdId, Request, Validator};

/// A case id or a CRD id: YAML 1.1 may have made it a boolean (`n` → `false`).
fn id_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// The object under `key`, or parsed from the JSON text under `raw` (with its repeated keys).
fn object(case: &Value, key: &str, raw: &str) -> Result<Option<Parsed>, String> {
    if let Some(r) = case.get(raw).and_then(Value::as_str) {
        return crate::pipeline::json::parse(r).map(Some);
    }
    Ok(case.get(key).cloned().map(|value| Parsed {
        value,
        duplicates: Vec::new(),
    }))
}

/// A CRD of a case file: decoded and reviewed once, or why it could not be decoded.
struct FileCrd {
    decoded: Result<(CrdId, Option<Status>), String>,
}

/// Why a document is not a case file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CaseFileError {
    /// It has no `crds` map.
    #[error("case file has no `crds` map")]
    NoCrds,
    /// It has no `cases` list.
    #[error("case file has no `cases` list")]
    NoCases,
}

/// Runs every case of a case file; one result object per case, in order.
pub fn run_case_file(file: &Value, kube_version: KubeVersion) -> Result<Vec<Value>, CaseFileError> {
    let crds = file
        .get("crds")
        .and_then(Value::as_object)
        .ok_or(CaseFileError::NoCrds)?;
    let cases = file
        .get("cases")
        .and_then(Value::as_array)
        .ok_or(CaseFileError::NoCases)?;
    let mut builder = Validator::builder()
        .kube_version(kube_version)
        .field_validation(FieldValidation::Ignore);
    let mut decoded = Vec::with_capacity(crds.len());
    for (id, v) in crds {
        let crd = serde_json::from_value::<CustomResourceDefinition>(v.clone());
        decoded.push((id.clone(), crd.map_err(|e| e.to_string())));
    }
    let mut by_id = HashMap::new();
    for (id, crd) in decoded {
        let entry = crd.map(|crd| {
            let review = review_crd(&crd, None, kube_version);
            let status = (!review.accepted()).then(|| review.status(&crd, kube_version));
            (builder.add_crd(crd, None), status)
        });
        by_id.insert(id, FileCrd { decoded: entry });
    }
    let validator = builder.build();
    let mut out = Vec::with_capacity(cases.len());
    for case in cases {
        out.push(run_case(case, &by_id, &validator));
    }
    Ok(out)
}

fn run_case(case: &Value, crds: &HashMap<String, FileCrd>, validator: &Validator) -> Value {
    let mut r = Map::new();
    r.insert("name".into(), Value::String(id_of(case.get("name"))));
    let crd_id = id_of(case.get("crd"));
    let found = crds
        .get(&crd_id)
        .ok_or_else(|| format!("no CRD {crd_id:?}"))
        .and_then(|c| c.decoded.clone());
    let id = match found {
        Ok((_, Some(status))) => {
            r.insert("crdStatus".into(), json!(status));
            return Value::Object(r);
        }
        Ok((id, None)) => id,
        Err(e) => {
            r.insert("error".into(), Value::String(e));
            return Value::Object(r);
        }
    };
    let Some(crd) = validator.crd(id) else {
        r.insert("error".into(), format!("no CRD {crd_id:?}").into());
        return Value::Object(r);
    };
    let version = case
        .get("version")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| crd.spec.versions.first().map(|v| v.name.clone()))
        .unwrap_or_default();
    let objects = object(case, "object", "objectRaw").and_then(|o| {
        let old = object(case, "oldObject", "oldObjectRaw")?;
        Ok((o, old))
    });
    let (obj, old) = match objects {
        Ok((Some(o), old)) => (o, old),
        Ok((None, _)) => {
            r.insert("error".into(), "case without object".into());
            return Value::Object(r);
        }
        Err(e) => {
            r.insert("decodeError".into(), Value::String(e));
            return Value::Object(r);
        }
    };
    let operation = match (old, case.get("subresource").and_then(Value::as_str)) {
        (None, _) => Operation::Create,
        (Some(o), Some("status")) => Operation::UpdateStatus(o.value),
        (Some(o), _) => Operation::Update(o.value),
    };
    let request = Request::new(obj.value, operation)
        .with_duplicates(obj.duplicates)
        .against(id, version);
    let verdict = match validator.validate(request) {
        Ok(v) => v,
        Err(e) => {
            r.insert("error".into(), Value::String(e.to_string()));
            return Value::Object(r);
        }
    };
    if let Some(e) = verdict.decode_error {
        r.insert("decodeError".into(), Value::String(e));
        return Value::Object(r);
    }
    if !verdict.duplicate_fields.is_empty() {
        r.insert("duplicateFields".into(), json!(verdict.duplicate_fields));
    }
    if !verdict.unknown_fields.is_empty() {
        r.insert("unknownFields".into(), json!(verdict.unknown_fields));
    }
    if let Some(o) = verdict.object {
        r.insert("objectAfterDecode".into(), o);
    }
    r.insert("status".into(), json!(verdict.status));
    if let Some(d) = &verdict.status.details
        && !d.causes.is_empty()
    {
        let strings: Vec<String> = d
            .causes
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        r.insert("causeStrings".into(), json!(strings));
    }
    if !verdict.warnings.is_empty() {
        r.insert("warnings".into(), json!(verdict.warnings));
    }
    Value::Object(r)
}
