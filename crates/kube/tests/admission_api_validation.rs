//! Data-driven test of the API validation of admission policies and bindings against
//! Kubernetes' own tables (`pkg/apis/admissionregistration/validation/validation_test.go`),
//! extracted with provenance into `tests/data/admission/api_validation.json` by
//! `gen_api_validation.py`, which names the source copy, the Go test and each case.
//!
//! Each record runs the validation function its Go test calls on the record's object (and old
//! object, for updates), undefaulted as the Go test builds it, and checks what the Go test
//! checks: with errors, the aggregate's text (`errs.ToAggregate().Error()`: one error's text, or
//! `[a, b]`, duplicates dropped) contains `expectedError`, which is not empty; without errors,
//! `expectedError` is empty.
//!
//! One trial per record, named `<Go test>/<index>: <case>`; skipped records are listed with their
//! reason in `tests/admission_api_validation.skip`. The run ends with the libtest summary and one
//! line `N passed, N failed, N skipped`, and fails when fewer trials ran than the data holds.

mod common;

use std::process::ExitCode;
use std::sync::Arc;

use cel::{EnvBuilder, Function, Library, Overload, Type};
use kcel_kube::KubeVersion;
use kcel_kube::admission::api_validation::{self, Environments};
use kcel_kube::admission::mutating::api_validation as mutating;
use kcel_kube::field::FieldError;
use kcel_kube::rules::env::ExtraLibrary;
use libtest_mimic::Trial;
use serde_json::Value;

use common::trials::run_record_trials;

/// The data, embedded so the test needs nothing outside the repository.
const DATA: &str = include_str!("data/admission/api_validation.json");

/// Skip patterns and their reasons: `<name><TAB><reason>` lines (`#` lines are comments).
fn skip_list() -> Vec<(&'static str, &'static str)> {
    include_str!("admission_api_validation.skip")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .collect()
}

/// `library.Test()`: `test()`, a function Kubernetes' tests add at version 1.999 so that only
/// the stored-expressions view has it.
struct TestLibrary;

impl Library for TestLibrary {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_function(Function::new("test").overload(Overload::global(
            "test",
            vec![],
            Type::Bool,
            None,
        )));
    }
}

/// `utilerrors.NewAggregate(errs).Error()`: the one error's text, or the texts in brackets,
/// comma-separated, each distinct text once.
fn aggregate(errs: &[FieldError]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for e in errs {
        let text = e.to_string();
        if !seen.contains(&text) {
            seen.push(text);
        }
    }
    match seen.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

fn run(r: &Value) -> Result<(), String> {
    let version: KubeVersion = r["kubeVersion"]
        .as_str()
        .ok_or("no kubeVersion")?
        .parse()
        .map_err(|e| format!("kubeVersion: {e}"))?;
    let mut envs = Environments::new(version);
    if r["testLibrary"].as_bool() == Some(true) {
        envs.extra.push(ExtraLibrary {
            introduced_minor: 999,
            library: Arc::new(TestLibrary),
        });
    }
    let object = &r["object"];
    let old = &r["oldObject"];
    let errs = match r["function"].as_str().unwrap_or("") {
        "ValidateValidatingAdmissionPolicy" => api_validation::validate_policy(object, &envs),
        "ValidateValidatingAdmissionPolicyUpdate" => {
            api_validation::validate_policy_update(object, old, &envs)
        }
        "ValidateValidatingAdmissionPolicyBinding" => {
            api_validation::validate_binding(object, version)
        }
        "ValidateValidatingAdmissionPolicyBindingUpdate" => {
            api_validation::validate_binding_update(object, old, version)
        }
        "validateValidatingAdmissionPolicyStatus" => {
            api_validation::validate_policy_status(&r["status"])
        }
        "ValidateMutatingAdmissionPolicy" => mutating::validate_policy(object, &envs),
        "ValidateMutatingAdmissionPolicyUpdate" => {
            mutating::validate_policy_update(object, old, &envs)
        }
        "ValidateMutatingAdmissionPolicyBinding" => mutating::validate_binding(object, version),
        "ValidateMutatingAdmissionPolicyBindingUpdate" => {
            mutating::validate_binding_update(object, old, version)
        }
        f => return Err(format!("unknown function {f:?}")),
    };
    let want = r["expectedError"].as_str().ok_or("no expectedError")?;
    if r["compare"] != "contains" {
        return Err(format!("unknown comparison {}", r["compare"]));
    }
    if errs.is_empty() {
        return match want {
            "" => Ok(()),
            w => Err(format!("no error, expected one containing {w:?}")),
        };
    }
    let got = aggregate(&errs);
    if want.is_empty() || !got.contains(want) {
        return Err(format!("expected to contain {want:?}, got {got:?}"));
    }
    Ok(())
}

fn trials() -> Result<Vec<Trial>, String> {
    let records: Vec<Value> =
        serde_json::from_str(DATA).map_err(|e| format!("api_validation.json: {e}"))?;
    let skips = skip_list();
    let mut out = Vec::with_capacity(records.len());
    for r in &records {
        let p = &r["provenance"];
        let name = format!(
            "{}/{:02}: {}",
            p["test"].as_str().unwrap_or("?"),
            p["index"].as_u64().unwrap_or(0),
            p["case"].as_str().unwrap_or("?")
        );
        let is_skipped = skips.iter().any(|(s, _)| *s == name);
        let r = r.clone();
        out.push(
            Trial::test(name, move || run(&r).map_err(Into::into)).with_ignored_flag(is_skipped),
        );
    }
    Ok(out)
}

fn main() -> ExitCode {
    let records = serde_json::from_str::<Vec<Value>>(DATA).map_or(0, |r| r.len());
    run_record_trials("admission API validation", trials(), records)
}
