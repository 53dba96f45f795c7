//! Runs every case of `../shared/oracle/cases*.yaml` through the pipeline (Kubernetes 1.35) and
//! compares with the verified `out*.json`: decode error, unknown fields, object after decoding,
//! status (code, reason, message up to the order of causes, causes as a multiset), warnings and
//! the CRD's own status.
//!
//! Cases listed in `oracle.skip` (`<file>:<case> <reason>`) are skipped. Closing line:
//! `N passed, N failed, N skipped`.

use std::collections::HashMap;
use std::path::Path;

use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::field::go_json;
use kcel_kube::pipeline::{
    FieldValidation, KubeVersion, Operation, Options, Pipeline, Response, Status,
};
use kcel_kube::rules::CelRuleStep;
use serde_json::Value;

mod common;
use common::{compare_status, reorder_message, shared_or_skip, skip_list, sorted};

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("read cases");
    let docs = kcel_kube::yaml::parse_stream(&text).expect("cases parse");
    docs.into_iter()
        .next()
        .map(|d| d.value)
        .unwrap_or(Value::Null)
}

struct Case<'a> {
    file: &'a str,
    crds: &'a HashMap<String, Value>,
    case: &'a Value,
    want: &'a Value,
}

/// Runs one case; `Ok(rules_skipped)` when it matches.
fn run_case(c: &Case<'_>) -> Result<(), String> {
    let name = c.case.get("name").and_then(Value::as_str).unwrap_or("");
    // YAML 1.1 turned some ids (`n`) into booleans, in keys and values alike.
    let crd_id = match c.case.get("crd") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    };
    let crd_id = crd_id.as_str();
    let crd_value = c
        .crds
        .get(crd_id)
        .ok_or_else(|| format!("no CRD {crd_id}"))?;
    let crd: CustomResourceDefinition =
        serde_json::from_value(crd_value.clone()).map_err(|e| format!("CRD decode: {e}"))?;
    let kv = KubeVersion::new(35).expect("supported");

    let crd_errs = kcel_kube::crd_review::validate_crd(&crd, None, kv);
    match c.want.get("crdStatus") {
        Some(want) => {
            if crd_errs.is_empty() {
                return Err("CRD accepted, want it rejected".into());
            }
            let got = Status::invalid(
                "apiextensions.k8s.io",
                "CustomResourceDefinition",
                &crd.metadata.name,
                &crd_errs,
                kv,
            );
            let render = |order: &[usize]| {
                let errs: Vec<_> = order.iter().map(|&i| crd_errs[i].clone()).collect();
                Status::invalid(
                    "apiextensions.k8s.io",
                    "CustomResourceDefinition",
                    &crd.metadata.name,
                    &errs,
                    kv,
                )
                .message
            };
            return compare_status(&got, want, &render).map_err(|e| format!("crdStatus: {e}"));
        }
        None => {
            if !crd_errs.is_empty() {
                let s: Vec<String> = crd_errs.iter().map(ToString::to_string).collect();
                return Err(format!("CRD rejected: {s:?}"));
            }
        }
    }

    let version = c
        .case
        .get("version")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| crd.spec.versions.first().map(|v| v.name.clone()))
        .unwrap_or_default();
    let object = |k: &str, raw: &str| -> Result<Option<Value>, String> {
        if let Some(r) = c.case.get(raw).and_then(Value::as_str) {
            return kcel_kube::pipeline::decode::parse_json(r).map(Some);
        }
        Ok(c.case.get(k).cloned())
    };
    let obj = object("object", "objectRaw")?.ok_or("case without object")?;
    let old = object("oldObject", "oldObjectRaw")?;
    let operation = match (old, c.case.get("subresource").and_then(Value::as_str)) {
        (None, _) => Operation::Create,
        (Some(o), Some("status")) => Operation::UpdateStatus(o),
        (Some(o), _) => Operation::Update(o),
    };
    let generate = obj
        .pointer("/metadata/generateName")
        .and_then(Value::as_str)
        .unwrap_or("");
    let name_suffix = c
        .want
        .pointer("/objectAfterDecode/metadata/name")
        .and_then(Value::as_str)
        .and_then(|n| n.strip_prefix(generate))
        .filter(|_| !generate.is_empty())
        .map(str::to_string);
    let options = Options {
        kube_version: kv,
        field_validation: FieldValidation::Ignore,
        namespace: None,
        name_suffix,
        ratcheting: true,
    };
    let schema = crd
        .version(&version)
        .and_then(|v| v.open_api_v3_schema())
        .ok_or_else(|| format!("CRD has no schema for version {version}"))?;
    let rules = CelRuleStep::new(schema, kv)?;
    let pipeline = Pipeline::new(&crd, &version, Some(&rules)).map_err(|e| e.to_string())?;
    let got: Response = pipeline.run(obj.clone(), &operation, &options);

    if let Some(want) = c.want.get("decodeError").and_then(Value::as_str) {
        return match &got.decode_error {
            Some(g) if g == want => Ok(()),
            g => Err(format!("decodeError: got {g:?}, want {want:?}")),
        };
    }
    if let Some(e) = &got.decode_error {
        return Err(format!("unexpected decode error: {e}"));
    }
    let want_unknown: Vec<String> = c
        .want
        .get("unknownFields")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if got.unknown_fields != want_unknown {
        return Err(format!(
            "unknownFields: got {:?}, want {want_unknown:?}",
            got.unknown_fields
        ));
    }
    if let Some(want_obj) = c.want.get("objectAfterDecode") {
        let g = got.object.as_ref().map(go_json).unwrap_or_default();
        let w = go_json(want_obj);
        if g != w {
            return Err(format!("objectAfterDecode:\n  got:  {g}\n  want: {w}"));
        }
    }
    let want_warnings: Vec<String> = c
        .want
        .get("warnings")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let status_result = match c.want.get("status") {
        Some(want_status) => {
            let render = |order: &[usize]| -> String {
                // Re-run is deterministic; reorder the causes' errors by re-rendering.
                reorder_message(&got.status, order)
            };
            compare_status(&got.status, want_status, &render)
        }
        None => Ok(()),
    };
    let warn_result = if sorted(got.warnings.clone()) != sorted(want_warnings.clone()) {
        Err(format!(
            "warnings: got {:?}, want {want_warnings:?}",
            got.warnings
        ))
    } else {
        Ok(())
    };
    let result = status_result.and(warn_result);
    match result {
        Err(e) if got.rules_skipped => Err(format!("{e}\n  (CEL rules were not run)")),
        other => {
            let _ = name;
            let _ = c.file;
            other
        }
    }
}

#[test]
fn oracle_cases() {
    let Some(shared) = shared_or_skip("oracle test") else {
        return;
    };
    let skips = skip_list(include_str!("oracle.skip"));
    let dir = shared.join("oracle");
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for suffix in ["1", "2", "3", "4", "5", "6", "7", "8", "_gw"] {
        let cases_path = dir.join(format!("cases{suffix}.yaml"));
        let out_path = dir.join(format!("out{suffix}.json"));
        let cases = yaml(&cases_path);
        let outs: Value =
            serde_json::from_str(&std::fs::read_to_string(&out_path).expect("read out"))
                .expect("out json");
        let crds: HashMap<String, Value> = cases
            .get("crds")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let file = format!("cases{suffix}");
        let empty = Vec::new();
        let list = cases
            .get("cases")
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        let outs = outs.as_array().unwrap_or(&empty);
        for (case, want) in list.iter().zip(outs) {
            let name = case.get("name").and_then(Value::as_str).unwrap_or("");
            let key = format!("{file}:{name}");
            if skips.contains_key(&key) {
                skipped += 1;
                continue;
            }
            let c = Case {
                file: &file,
                crds: &crds,
                case,
                want,
            };
            match run_case(&c) {
                Ok(()) => passed += 1,
                Err(e) => {
                    failed += 1;
                    eprintln!("FAIL {key}: {e}");
                }
            }
        }
        assert_eq!(
            list.len(),
            outs.len(),
            "{file}: cases and outputs differ in number"
        );
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(failed, 0, "{failed} oracle cases failed");
}
