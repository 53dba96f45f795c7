//! The structured-merge-diff port (`admission::mutating::smd`) against the real
//! `sigs.k8s.io/structured-merge-diff/v6` and `k8s.io/apimachinery` managedfields (v0.35.0):
//! `tests/data/admission/smd_merge.json` holds an OpenAPI schema and cases (live object,
//! patch) with what the real code answers — the typed conversion of the patch, of the live
//! object (duplicates allowed), the merge — as its first error (stage and text) or the merged
//! object; written by `tests/gen/smd_merge`.
//!
//! Ends with `N passed, N failed, N skipped`; fails when it ran fewer cases than the data holds.

mod common;

use std::process::ExitCode;
use std::sync::Arc;

use kcel_kube::admission::mutating::smd::{convert, merge_typed};
use kcel_kube::schema_props::JsonSchemaProps;
use libtest_mimic::{Failed, Trial};
use serde_json::Value;

const DATA: &str = include_str!("data/admission/smd_merge.json");

fn main() -> ExitCode {
    common::trials::run_trials("smd_merge", trials())
}

fn trials() -> Result<Vec<Trial>, String> {
    let data: Value = serde_json::from_str(DATA).map_err(|e| e.to_string())?;
    let schema: Arc<JsonSchemaProps> =
        Arc::new(serde_json::from_value(data["schema"].clone()).map_err(|e| e.to_string())?);
    let cases = data["cases"].as_array().ok_or("no cases")?;
    if cases.is_empty() {
        return Err("no cases".into());
    }
    Ok(cases
        .iter()
        .map(|case| {
            let case = case.clone();
            let schema = schema.clone();
            let name = case["name"].as_str().unwrap_or("?").to_string();
            Trial::test(name, move || run(&case, &schema).map_err(Failed::from))
        })
        .collect())
}

fn run(case: &Value, schema: &JsonSchemaProps) -> Result<(), String> {
    let (object, patch) = (&case["object"], &case["patch"]);
    let got = convert(schema, patch, false)
        .map_err(|e| ("patch", e))
        .and_then(|()| convert(schema, object, true).map_err(|e| ("live", e)))
        .and_then(|()| merge_typed(schema, object, patch).map_err(|e| ("merge", e)));
    let want_stage = case["stage"].as_str();
    match (got, want_stage) {
        (Ok(v), None) if v == case["result"] => Ok(()),
        (Ok(v), None) => Err(format!("want {}\n got {v}", case["result"])),
        (Err((stage, e)), Some(want))
            if stage == want && Some(e.to_string().as_str()) == case["error"].as_str() =>
        {
            Ok(())
        }
        (Err((stage, e)), _) => Err(format!(
            "want {:?} {}\n got {stage} {:?}",
            want_stage,
            case["error"],
            e.to_string()
        )),
        (Ok(v), Some(want)) => Err(format!("want {want} error {}, got {v}", case["error"])),
    }
}
