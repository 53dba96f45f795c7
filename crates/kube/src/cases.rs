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

use crate::crd::CustomResourceDefinition;
use crate::crd_review::validate_crd;
use crate::pipeline::json::Parsed;
use crate::pipeline::status::Status;
use crate::pipeline::{FieldValidation, KubeVersion, Operation, Options, Pipeline};
use crate::rules::CelRuleStep;

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

/// Runs every case of a case file; one result object per case, in order. `namespace` is the
/// request's namespace for cases that name none.
pub fn run_case_file(
    file: &Value,
    kube_version: KubeVersion,
    namespace: Option<&str>,
) -> Result<Vec<Value>, String> {
    let crds = file
        .get("crds")
        .and_then(Value::as_object)
        .ok_or("case file has no `crds` map")?;
    let cases = file
        .get("cases")
        .and_then(Value::as_array)
        .ok_or("case file has no `cases` list")?;
    let mut out = Vec::with_capacity(cases.len());
    for case in cases {
        out.push(run_case(case, crds, kube_version, namespace, None));
    }
    Ok(out)
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

/// Runs one case with the CRDs of its file; `namespace` is the request's when the case names
/// none; `name_suffix` replaces the random characters of a generated name.
pub fn run_case(
    case: &Value,
    crds: &Map<String, Value>,
    kv: KubeVersion,
    namespace: Option<&str>,
    name_suffix: Option<&str>,
) -> Value {
    let mut r = Map::new();
    r.insert("name".into(), Value::String(id_of(case.get("name"))));
    let crd_id = id_of(case.get("crd"));
    let crd: CustomResourceDefinition = match crds
        .get(&crd_id)
        .ok_or_else(|| format!("no CRD {crd_id:?}"))
        .and_then(|v| serde_json::from_value(v.clone()).map_err(|e| e.to_string()))
    {
        Ok(c) => c,
        Err(e) => {
            r.insert("error".into(), Value::String(e));
            return Value::Object(r);
        }
    };
    let crd_errs = validate_crd(&crd, None, kv);
    if !crd_errs.is_empty() {
        let status = Status::invalid(
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            &crd.metadata.name,
            &crd_errs,
            kv,
        );
        r.insert("crdStatus".into(), json!(status));
        return Value::Object(r);
    }
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
    let rules = match CelRuleStep::for_version(&crd, &version, kv) {
        Ok(r) => r,
        Err(e) => {
            r.insert("error".into(), Value::String(e));
            return Value::Object(r);
        }
    };
    let pipeline = match Pipeline::new(&crd, &version, Some(&rules)) {
        Ok(p) => p,
        Err(e) => {
            r.insert("error".into(), Value::String(e.0));
            return Value::Object(r);
        }
    };
    let mode = match field_validation(case) {
        Ok(m) => m,
        Err(e) => {
            r.insert("error".into(), Value::String(e));
            return Value::Object(r);
        }
    };
    let options = Options {
        kube_version: kv,
        field_validation: mode.unwrap_or(FieldValidation::Ignore),
        namespace: case
            .get("namespace")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .or(namespace)
            .map(str::to_string),
        name_suffix: name_suffix.map(str::to_string),
        ..Options::default()
    };
    let resp = pipeline.run_with_duplicates(obj.value, &obj.duplicates, &operation, &options);
    if let Some(e) = resp.decode_error {
        r.insert("decodeError".into(), Value::String(e));
        return Value::Object(r);
    }
    let reported: Vec<&String> = resp
        .duplicate_fields
        .iter()
        .chain(&resp.unknown_fields)
        .collect();
    if mode != Some(FieldValidation::Ignore) && !reported.is_empty() {
        r.insert("unknownFields".into(), json!(reported));
    }
    if let Some(mut o) = resp.object {
        if let Some(Value::Object(m)) = o.get_mut("metadata") {
            m.shift_remove("uid");
            m.shift_remove("creationTimestamp");
        }
        r.insert("objectAfterDecode".into(), o);
    }
    r.insert("status".into(), json!(resp.status));
    if let Some(d) = &resp.status.details
        && !d.causes.is_empty()
    {
        let strings: Vec<String> = d
            .causes
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        r.insert("causeStrings".into(), json!(strings));
    }
    if !resp.warnings.is_empty() {
        r.insert("warnings".into(), json!(resp.warnings));
    }
    if resp.rules_skipped {
        r.insert("rulesSkipped".into(), Value::Bool(true));
    }
    Value::Object(r)
}
