//! Case files in the format of `shared/oracle/cases*.yaml` (reference §11.4) and results in the
//! format of `out*.json`.
//!
//! Input: `{crds: {<id>: <v1 CRD>}, cases: [{name, crd: <id>, version?, object | objectRaw,
//! oldObject | oldObjectRaw, subresource?: status, namespace?, fieldValidation?}]}`:
//! `namespace` is the request's (default: the object's own, else `default`);
//! `fieldValidation` is `Strict`, `Warn` or `Ignore`, and when absent the unknown fields are
//! only reported. Output per case: `name`, `crdStatus` (when the CRD itself is invalid),
//! `unknownFields` (repeated keys of an `objectRaw`, `duplicate field "spec.a"`, then the
//! pruned fields, as Kubernetes lists them; none under `Ignore`), `decodeError`,
//! `objectAfterDecode` (without `uid` and `creationTimestamp`, which a server fills itself),
//! `status`, `causeStrings`, `warnings`.

use serde_json::{Map, Value, json};

use std::collections::HashMap;

use crate::crd::CustomResourceDefinition;
use crate::crd_review::review_crd;
use crate::pipeline::json::Parsed;
use crate::pipeline::status::Status;
use crate::pipeline::{FieldValidation, KubeVersion, Operation, StoredObject};
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
fn object(
    case: &Value,
    key: &str,
    raw: &str,
) -> Result<Option<Parsed>, crate::pipeline::DecodeError> {
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

/// The CRDs of a case file, decoded, reviewed and compiled once for all its cases.
pub struct CaseFile {
    crds: HashMap<String, FileCrd>,
    validator: Validator,
}

impl CaseFile {
    /// Reads the CRDs of a case file (`crds`), for Kubernetes `kube_version`.
    pub fn new(file: &Value, kube_version: KubeVersion) -> Result<CaseFile, CaseFileError> {
        let crds = file
            .get("crds")
            .and_then(Value::as_object)
            .ok_or(CaseFileError::NoCrds)?;
        let mut builder = Validator::builder()
            .kube_version(kube_version)
            .field_validation(FieldValidation::Ignore);
        let mut by_id = HashMap::new();
        for (id, v) in crds {
            let crd = serde_json::from_value::<CustomResourceDefinition>(v.clone())
                .map_err(|e| e.to_string());
            let entry = crd.map(|crd| {
                let review = review_crd(&crd, None, kube_version);
                let status = (!review.accepted()).then(|| review.status(&crd, kube_version));
                (builder.add_crd(crd, None), status)
            });
            by_id.insert(id.clone(), FileCrd { decoded: entry });
        }
        Ok(CaseFile {
            crds: by_id,
            validator: builder.build(),
        })
    }

    /// Runs one case; `namespace` is the request's when the case names none; `name_suffix`
    /// replaces the random characters of a generated name.
    pub fn run(&self, case: &Value, namespace: Option<&str>, name_suffix: Option<&str>) -> Value {
        run_case(case, self, namespace, name_suffix)
    }
}

/// Runs every case of a case file; one result object per case, in order. `namespace` is the
/// request's namespace for cases that name none.
pub fn run_case_file(
    file: &Value,
    kube_version: KubeVersion,
    namespace: Option<&str>,
) -> Result<Vec<Value>, CaseFileError> {
    let cases = file
        .get("cases")
        .and_then(Value::as_array)
        .ok_or(CaseFileError::NoCases)?;
    let case_file = CaseFile::new(file, kube_version)?;
    Ok(cases
        .iter()
        .map(|case| case_file.run(case, namespace, None))
        .collect())
}

/// The `fieldValidation` of a case (any letter case): `None` when absent (unknown fields
/// reported, nothing else).
fn field_validation(case: &Value) -> Result<Option<FieldValidation>, String> {
    let Some(v) = case.get("fieldValidation") else {
        return Ok(None);
    };
    match v.as_str().map(str::to_ascii_lowercase).as_deref() {
        Some("") => Ok(None),
        Some("strict") => Ok(Some(FieldValidation::Strict)),
        Some("warn") => Ok(Some(FieldValidation::Warn)),
        Some("ignore") => Ok(Some(FieldValidation::Ignore)),
        _ => Err(format!(
            "fieldValidation {}: want Strict, Warn or Ignore",
            crate::field::go_json(v)
        )),
    }
}

fn run_case(
    case: &Value,
    file: &CaseFile,
    namespace: Option<&str>,
    name_suffix: Option<&str>,
) -> Value {
    let (crds, validator) = (&file.crds, &file.validator);
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
            r.insert("decodeError".into(), Value::String(e.to_string()));
            return Value::Object(r);
        }
    };
    let operation = match (old, case.get("subresource").and_then(Value::as_str)) {
        (None, _) => Operation::Create,
        (Some(o), Some("status")) => Operation::UpdateStatus(o.value),
        (Some(o), _) => Operation::Update(o.value),
    };
    let mode = match field_validation(case) {
        Ok(m) => m,
        Err(e) => {
            r.insert("error".into(), Value::String(e));
            return Value::Object(r);
        }
    };
    let namespace = case
        .get("namespace")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .or(namespace)
        .map(str::to_string);
    let request = Request::new(obj.value, operation)
        .with_duplicates(obj.duplicates)
        .with_field_validation(mode.unwrap_or(FieldValidation::Ignore))
        .in_namespace(namespace)
        .with_name_suffix(name_suffix.map(str::to_string))
        .against(id, version);
    let verdict = match validator.validate(request) {
        Ok(v) => v,
        Err(e) => {
            r.insert("error".into(), Value::String(e.to_string()));
            return Value::Object(r);
        }
    };
    if let Some(e) = verdict.decode_error {
        r.insert("decodeError".into(), Value::String(e.to_string()));
        return Value::Object(r);
    }
    let reported: Vec<&String> = verdict
        .duplicate_fields
        .iter()
        .chain(&verdict.unknown_fields)
        .collect();
    if mode != Some(FieldValidation::Ignore) && !reported.is_empty() {
        r.insert("unknownFields".into(), json!(reported));
    }
    if let Some(mut o) = verdict.object.map(StoredObject::into_value) {
        if let Some(Value::Object(m)) = o.get_mut("metadata") {
            m.shift_remove("uid");
            m.shift_remove("creationTimestamp");
        }
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
    if verdict.rules_skipped {
        r.insert("rulesSkipped".into(), Value::Bool(true));
    }
    Value::Object(r)
}
