//! Go defaulting of built-in kinds before admission (`kcel_kube::admission::defaults`): the
//! cases of `tests/data/admission/defaults.yaml` (Kubernetes' own `defaults_test.go` cases and
//! kcel's, with provenance there). The run ends with `N passed, N failed, N skipped` and fails
//! when it ran fewer cases than the data holds.

mod common;

use std::process::ExitCode;

use kcel_kube::KubeVersion;
use kcel_kube::admission::defaults::apply;
use libtest_mimic::Trial;
use serde_json::{Value, json};

const DATA: &str = include_str!("data/admission/defaults.yaml");

fn main() -> ExitCode {
    common::trials::run_trials("admission_defaults", collect())
}

fn collect() -> Result<Vec<Trial>, String> {
    let docs = kcel_kube::yaml::parse_stream(DATA).map_err(|e| e.to_string())?;
    let data = &docs.first().ok_or("no document")?.value;
    let cases = data["cases"].as_array().ok_or("no cases")?;
    let trials: Vec<Trial> = cases
        .iter()
        .map(|case| {
            let name = case["name"].as_str().unwrap_or("?").to_string();
            let case = case.clone();
            Trial::test(name, move || run(&case).map_err(Into::into))
        })
        .collect();
    if trials.len() != cases.len() {
        return Err(format!("{} cases, {} trials", cases.len(), trials.len()));
    }
    Ok(trials)
}

fn run(case: &Value) -> Result<(), String> {
    let version = match case["version"].as_str() {
        None => KubeVersion::NEWEST,
        Some(v) => v.parse().map_err(|e| format!("version {v}: {e}"))?,
    };
    if let Some(image) = case.get("image") {
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
            "spec": {"containers": [{"name": "c", "image": image}]}});
        apply(&mut pod, version);
        let got = &pod["spec"]["containers"][0]["imagePullPolicy"];
        return if *got == case["pullPolicy"] {
            Ok(())
        } else {
            Err(format!(
                "imagePullPolicy {got}, want {}",
                case["pullPolicy"]
            ))
        };
    }
    let mut object = case["object"].clone();
    apply(&mut object, version);
    if object == case["expected"] {
        Ok(())
    } else {
        Err(format!(
            "got\n{}\nwant\n{}",
            serde_json::to_string_pretty(&object).unwrap_or_default(),
            serde_json::to_string_pretty(&case["expected"]).unwrap_or_default()
        ))
    }
}
