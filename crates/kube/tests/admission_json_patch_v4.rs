//! The JSON Patch port (`admission::mutating::json_patch`) against the real
//! `gopkg.in/evanphx/json-patch.v4` v4.13.0, the library kube-apiserver applies
//! MutatingAdmissionPolicy patches with: `tests/data/admission/json_patch_v4.json` holds the
//! cases of `tests/gen/json_patch_v4/cases.json` with the library's outcome (patched document,
//! or error text and whether it is `ErrTestFailed`), written by `tests/gen/json_patch_v4`.
//!
//! Operations are built as `DecodePatch` builds them: a `"value": null` is no value (a nil
//! `*json.RawMessage`). Documents compare as JSON values (the library re-encodes with sorted
//! keys). Ends with `N passed, N failed, N skipped`; fails when it ran fewer cases than the
//! data holds.

mod common;

use std::process::ExitCode;

use kcel_kube::admission::mutating::json_patch::{Operation, PatchError, apply};
use libtest_mimic::{Failed, Trial};
use serde_json::Value;

const DATA: &str = include_str!("data/admission/json_patch_v4.json");

fn main() -> ExitCode {
    common::trials::run_trials("json_patch_v4", trials())
}

fn trials() -> Result<Vec<Trial>, String> {
    let data: Vec<Value> = serde_json::from_str(DATA).map_err(|e| e.to_string())?;
    let trials: Vec<Trial> = data
        .into_iter()
        .enumerate()
        .map(|(i, case)| {
            let name = format!("{i:02} {}", case["patch"]);
            Trial::test(name, move || run(&case).map_err(Failed::from))
        })
        .collect();
    if trials.is_empty() {
        return Err("no cases".into());
    }
    Ok(trials)
}

fn run(case: &Value) -> Result<(), String> {
    let ops: Vec<Operation> = case["patch"]
        .as_array()
        .ok_or("patch is not a list")?
        .iter()
        .map(|op| Operation {
            op: op["op"].as_str().unwrap_or("").to_string(),
            path: op["path"].as_str().unwrap_or("").to_string(),
            from: op["from"].as_str().map(String::from),
            value: op.get("value").filter(|v| !v.is_null()).cloned(),
        })
        .collect();
    let mut doc = case["doc"].clone();
    let got = apply(&mut doc, &ops);
    match (got, case.get("error").and_then(Value::as_str)) {
        (Ok(()), None) if doc == case["result"] => Ok(()),
        (Ok(()), None) => Err(format!("want {}, got {doc}", case["result"])),
        (Err(e), Some(want)) => {
            let test_failed = matches!(e, PatchError::TestFailed { .. });
            let want_test_failed = case["testFailed"].as_bool().unwrap_or(false);
            if e.to_string() == want && test_failed == want_test_failed {
                Ok(())
            } else {
                Err(format!(
                    "want error {want:?} (test failed: {want_test_failed}), got {:?} (test failed: {test_failed})",
                    e.to_string()
                ))
            }
        }
        (Ok(()), Some(want)) => Err(format!("want error {want:?}, got {doc}")),
        (Err(e), None) => Err(format!("unexpected error {e}")),
    }
}
