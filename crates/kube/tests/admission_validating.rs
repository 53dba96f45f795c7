//! ValidatingAdmissionPolicy against k8s.io/apiserver's own tests of the validating plugin,
//! driven through the admission facade ([`PolicySet`]) as `kcel validate` drives it:
//!
//! * `tests/data/admission/validator.json` (`gen_validator.py`): `validator_test.go`
//!   `TestValidate` and `TestContextCanceled`: one policy bound with the `Deny` action to a
//!   ConfigMap create; the binding's evaluation (its decisions and audit annotation results)
//!   compared as the Go test compares `ValidateResult`: the number of decisions and
//!   annotations, each action and reason exactly, each message containing the expected one,
//!   each annotation's value and error exactly.
//! * `tests/data/admission/validating_admission.json` (`gen_validating_admission.py`):
//!   `admission_test.go`'s dispatches (policies, bindings and params in, the error, warnings,
//!   audit annotations, evaluations per binding and params evaluated out), the policy source's
//!   hooks (`policy_source_test.go`), and `generic.CollectParams` for a param kind without
//!   objects.
//!
//! Records listed in `tests/admission_validating.skip` (with the reason) are skipped; every
//! record the generators mark untranscribable must be listed there. The run ends with
//! `N passed, N failed, N skipped`, and fails when it ran fewer records than the data holds.

mod common;

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;

use kcel_kube::KubeVersion;
use kcel_kube::Validator;
use kcel_kube::admission::model::{ParamKind, ParamRef};
use kcel_kube::admission::request::Operation;
use kcel_kube::admission::validating::{
    Answer, AuditAction, Params, VALIDATION_FAILURE_ANNOTATION, ValidateResult, collect_params,
};
use kcel_kube::admission::{PolicySet, RequestOptions};
use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::documents::Document;
use libtest_mimic::{Failed, Trial};
use serde_json::{Value, json};

const VALIDATOR: &str = include_str!("data/admission/validator.json");
const ADMISSION: &str = include_str!("data/admission/validating_admission.json");

fn main() -> ExitCode {
    common::trials::run_trials("admission_validating", collect())
}

fn records(data: &str) -> Result<(Value, Vec<Value>), String> {
    let data: Value = serde_json::from_str(data).map_err(|e| e.to_string())?;
    let records = data["records"].as_array().ok_or("no records")?.to_vec();
    Ok((data, records))
}

fn collect() -> Result<Vec<Trial>, String> {
    let version = KubeVersion::NEWEST;
    let (_, validator_records) = records(VALIDATOR)?;
    let (admission, admission_records) = records(ADMISSION)?;
    let mut builder = Validator::builder().kube_version(version);
    for crd in admission["crds"].as_array().ok_or("no crds")? {
        let crd: CustomResourceDefinition =
            serde_json::from_value(crd.clone()).map_err(|e| format!("crd: {e}"))?;
        builder = builder.crd(crd);
    }
    for (i, doc) in admission["openapi"]
        .as_array()
        .ok_or("no openapi")?
        .iter()
        .enumerate()
    {
        builder = builder.openapi_document(doc.clone(), format!("openapi[{i}]"));
    }
    let cluster = Arc::new(builder.try_build().map_err(|e| e.to_string())?);
    let plain = Arc::new(Validator::builder().kube_version(version).build());
    let mut skips = common::tab_skip_list(include_str!("admission_validating.skip"));
    let mut trials = Vec::new();
    let total = validator_records.len() + admission_records.len();
    let all = validator_records
        .into_iter()
        .map(|r| ("validator", r))
        .chain(admission_records.into_iter().map(|r| ("admission", r)));
    for (file, record) in all {
        let name = record["name"]
            .as_str()
            .ok_or("record without name")?
            .to_string();
        if skips.remove(&name).is_some() {
            trials.push(Trial::test(name, || Ok(())).with_ignored_flag(true));
            continue;
        }
        if record.get("skip").is_some() {
            return Err(format!("{name}: untranscribable, but not in the skip file"));
        }
        let (cluster, plain) = (cluster.clone(), plain.clone());
        trials.push(Trial::test(name, move || {
            let result = match (file, record["section"].as_str()) {
                ("validator", _) => run_validator(&record, &plain, version),
                (_, Some("dispatch")) => run_dispatch(&record, &cluster, version),
                (_, Some("collect")) => run_collect(&record),
                (_, section) => Err(format!("no runner for section {section:?}")),
            };
            result.map_err(Failed::from)
        }));
    }
    common::trials::complete(trials, total, &skips)
}

fn document(value: Value, index: usize) -> Document {
    Document {
        source: "record".into(),
        line: index + 1,
        index,
        item: None,
        value,
    }
}

fn policy_set(version: KubeVersion, documents: &[Value]) -> PolicySet {
    let mut set = PolicySet::new(version, RequestOptions::default());
    for (i, d) in documents.iter().enumerate() {
        set.add_document(&document(d.clone(), i));
    }
    set
}

fn decode_errors(set: &PolicySet, documents: &[Value]) -> Result<(), String> {
    for (i, d) in documents.iter().enumerate() {
        if let Some(e) = set.decode_error(&document(d.clone(), i)) {
            return Err(format!("document {i} does not decode: {e}"));
        }
    }
    Ok(())
}

/// `TestValidate`: the one binding's one evaluation against the expected `ValidateResult`.
fn run_validator(
    record: &Value,
    validator: &Validator,
    version: KubeVersion,
) -> Result<(), String> {
    let documents = vec![
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "policy"},
            "spec": record["spec"],
        }),
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "binding"},
            "spec": {"policyName": "policy", "validationActions": ["Deny"]},
        }),
    ];
    let set = policy_set(version, &documents);
    decode_errors(&set, &documents)?;
    let object = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "foo", "namespace": "default"},
    });
    let (_, answer) = set
        .admit(validator, Some(&object), None, Operation::Create, None)
        .ok_or("no served resource for the request")?;
    let [binding] = answer.bindings.as_slice() else {
        return Err(format!(
            "want one binding evaluated, got {:?}",
            answer.bindings
        ));
    };
    let [result] = binding.results.as_slice() else {
        return Err(format!("want one evaluation, got {:?}", binding.results));
    };
    compare_result(record, result)
}

fn compare_result(record: &Value, result: &ValidateResult) -> Result<(), String> {
    let want = record["decisions"].as_array().ok_or("no decisions")?;
    if want.len() != result.decisions.len() {
        return Err(format!(
            "{} decisions, want {}: {:?}",
            result.decisions.len(),
            want.len(),
            result.decisions
        ));
    }
    for (i, (w, got)) in want.iter().zip(&result.decisions).enumerate() {
        let action = if got.deny { "Deny" } else { "Admit" };
        let s = |k: &str| w[k].as_str().unwrap_or("");
        if s("action") != action {
            return Err(format!(
                "decision {i}: action {action}, want {}",
                s("action")
            ));
        }
        if !got.message.contains(s("messageContains")) {
            return Err(format!(
                "decision {i}: message {:?} does not contain {:?}",
                got.message,
                s("messageContains")
            ));
        }
        if got.reason != s("reason") {
            return Err(format!(
                "decision {i}: reason {:?}, want {:?}",
                got.reason,
                s("reason")
            ));
        }
    }
    let want = record["audit"].as_array().ok_or("no audit")?;
    if want.len() != result.audit_annotations.len() {
        return Err(format!(
            "{} audit annotations, want {}: {:?}",
            result.audit_annotations.len(),
            want.len(),
            result.audit_annotations
        ));
    }
    for (i, (w, got)) in want.iter().zip(&result.audit_annotations).enumerate() {
        let action = match got.action {
            AuditAction::Publish => "Publish",
            AuditAction::Error => "Error",
            AuditAction::Exclude => "Exclude",
        };
        let s = |k: &str| w[k].as_str().unwrap_or("");
        if s("action") != action || s("value") != got.value || s("error") != got.error {
            return Err(format!("audit annotation {i}: got {got:?}, want {w}"));
        }
    }
    Ok(())
}

/// One dispatch of `admission_test.go` (or the policy source's hooks).
fn run_dispatch(record: &Value, validator: &Validator, version: KubeVersion) -> Result<(), String> {
    let documents = record["documents"].as_array().ok_or("no documents")?;
    let set = policy_set(version, documents);
    decode_errors(&set, documents)?;
    let object = &record["request"]["object"];
    let (attr, answer) = set
        .admit(validator, Some(object), None, Operation::Create, None)
        .ok_or("no served resource for the request")?;
    let error = answer.status(&attr).map(|s| s.message);
    match (record["error"].as_str(), &error) {
        (None, None) => {}
        (Some(want), Some(got)) if got.contains(want) => {}
        (want, got) => return Err(format!("error {got:?}, want (contained) {want:?}")),
    }
    if let Some(want) = record.get("warnings") {
        let want: Vec<String> = serde_json::from_value(want.clone()).map_err(|e| e.to_string())?;
        let got = answer.warnings.clone();
        if got.len() != want.len() || sorted(got.clone()) != sorted(want.clone()) {
            return Err(format!("warnings {got:?}, want {want:?}"));
        }
    }
    let annotations: BTreeMap<&str, &str> = answer
        .audit_annotations
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    if let Some(want) = record.get("annotationKeys") {
        let want: Vec<String> = serde_json::from_value(want.clone()).map_err(|e| e.to_string())?;
        let got: Vec<String> = annotations.keys().map(|k| k.to_string()).collect();
        if got != sorted(want.clone()) {
            return Err(format!("annotation keys {got:?}, want {want:?}"));
        }
    }
    if let Some(want) = record.get("validationFailures") {
        let value = annotations
            .get(VALIDATION_FAILURE_ANNOTATION)
            .ok_or("no validation failure annotation")?;
        let got: Vec<Value> = serde_json::from_str(value).map_err(|e| format!("{e}: {value}"))?;
        let want = want.as_array().ok_or("validationFailures")?;
        let same = if record["validationFailuresOrdered"] == json!(true) {
            got == *want
        } else {
            same_multiset(&got, want)
        };
        if !same {
            return Err(format!("validation failures {value}, want {want:?}"));
        }
    }
    if let Some(want) = record.get("annotationParts").and_then(Value::as_object) {
        for (key, parts) in want {
            let value = annotations
                .get(key.as_str())
                .ok_or(format!("no annotation {key}"))?;
            let got: Vec<Value> = value.split(", ").map(|p| json!(p)).collect();
            if !same_multiset(&got, parts.as_array().ok_or("annotationParts")?) {
                return Err(format!("annotation {key} = {value:?}, want parts {parts}"));
            }
        }
    }
    if let Some(want) = record.get("evaluations").and_then(Value::as_object) {
        for (binding, n) in want {
            let got: usize = answer
                .bindings
                .iter()
                .filter(|b| b.binding == *binding)
                .map(|b| b.results.len())
                .sum();
            if Some(got as u64) != n.as_u64() {
                return Err(format!("binding {binding} evaluated {got} times, want {n}"));
            }
        }
    }
    if let Some(want) = record.get("observed").and_then(Value::as_array) {
        let got = observed(&answer);
        if !same_multiset(&got, want) {
            return Err(format!("evaluated {got:?}, want {want:?}"));
        }
    }
    if let Some(want) = record.get("hooks") {
        let mut got: Vec<Value> = answer
            .bindings
            .iter()
            .map(|b| json!([b.policy, b.binding]))
            .chain(
                answer
                    .denied
                    .iter()
                    .filter(|d| d.binding.is_none())
                    .map(|d| json!([d.policy, null])),
            )
            .collect();
        got.sort_by_key(Value::to_string);
        let mut want = want.as_array().ok_or("hooks")?.clone();
        want.sort_by_key(Value::to_string);
        if got != want {
            return Err(format!("hooks {got:?}, want {want:?}"));
        }
    }
    Ok(())
}

/// The messages of the denying decisions of every evaluation.
fn observed(answer: &Answer) -> Vec<Value> {
    answer
        .bindings
        .iter()
        .flat_map(|b| &b.results)
        .flat_map(|r| &r.decisions)
        .filter(|d| d.deny)
        .map(|d| json!(d.message))
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

fn same_multiset(a: &[Value], b: &[Value]) -> bool {
    let key = |v: &[Value]| {
        let mut k: Vec<String> = v.iter().map(Value::to_string).collect();
        k.sort();
        k
    };
    key(a) == key(b)
}

/// A param kind the server's mapper has an informer for, with no objects.
struct NoObjects;

impl Params for NoObjects {
    fn param_scope(&self, _api_version: &str, _kind: &str) -> Option<bool> {
        Some(true)
    }

    fn param_objects(&self, _: &str, _: &str, _: Option<&str>) -> Vec<Value> {
        Vec::new()
    }
}

/// `generic.CollectParams` for a namespaced param kind of which no object exists.
fn run_collect(record: &Value) -> Result<(), String> {
    let kind: ParamKind =
        serde_json::from_value(record["paramKind"].clone()).map_err(|e| e.to_string())?;
    let r: ParamRef =
        serde_json::from_value(record["paramRef"].clone()).map_err(|e| e.to_string())?;
    let namespace = record["namespace"].as_str().unwrap_or("");
    let got = collect_params(Some(&kind), Some(&r), namespace, &NoObjects);
    match (record["error"].as_str(), got) {
        (None, Ok(params)) if Some(params.len() as u64) == record["params"].as_u64() => Ok(()),
        (Some(want), Err(e)) if e.to_string().contains(want) => Ok(()),
        (want, got) => Err(format!("got {got:?}, want error {want:?}")),
    }
}
