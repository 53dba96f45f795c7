//! Runs every case of every `cases*.yaml` of `../shared/oracle` and of `tests/data/oracle_extra`
//! (answers recorded with the oracle probe, see its README) through [`kcel_kube::cases`]
//! (Kubernetes 1.35) and compares with the verified outputs of the same name
//! (`cases<x>.yaml` → `out<x>.json`): decode error, reported unknown fields, the object after
//! decoding in the bytes Go's `json.Marshal` gives it, status (code, reason, details, causes as a
//! multiset, message up to the order of causes), warnings (a multiset) and the CRD's own status.
//! Case fields `namespace` and `fieldValidation` are the case runner's.
//!
//! Cases listed in `oracle.skip` (`<file>:<case> <reason>`) are skipped. A cases file without
//! outputs, or with a different number of them, fails. Closing line, per file and in total:
//! `N passed, N failed, N skipped`.

use std::path::{Path, PathBuf};

use kcel_kube::case_compare::{compare_result, name_suffix};
use kcel_kube::pipeline::KubeVersion;
use serde_json::Value;

mod common;
use common::raw_json::member_texts;
use common::{shared_or_skip, skip_list};

/// The Kubernetes release the outputs come from.
const KUBE_1_35: KubeVersion = KubeVersion::new(35).expect("a supported version");

/// Every `cases<x>.yaml` of `dir` with its `out<x>.json`, sorted by name.
fn discover(dir: &Path) -> Vec<(String, PathBuf, PathBuf)> {
    let mut out: Vec<(String, PathBuf, PathBuf)> = std::fs::read_dir(dir)
        .expect("read the oracle folder")
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let x = name
                .strip_prefix("cases")?
                .strip_suffix(".yaml")?
                .to_string();
            let outputs = dir.join(format!("out{x}.json"));
            Some((format!("cases{x}"), e.path(), outputs))
        })
        .collect();
    out.sort();
    out
}

#[derive(Default)]
struct Counts {
    passed: usize,
    failed: usize,
    skipped: usize,
}

/// Runs one cases file; `Err` when its outputs are missing or do not pair with its cases.
fn run_file(
    file: &str,
    cases_path: &Path,
    out_path: &Path,
    skips: &std::collections::HashMap<String, String>,
    seen: &mut Vec<String>,
) -> Result<Counts, String> {
    let text = std::fs::read_to_string(cases_path).map_err(|e| format!("{file}: {e}"))?;
    let input = kcel_kube::yaml::parse_stream(&text)
        .map_err(|e| format!("{file}: {e}"))?
        .into_iter()
        .next()
        .map(|d| d.value)
        .ok_or_else(|| format!("{file}: empty"))?;
    let out_text = std::fs::read_to_string(out_path)
        .map_err(|e| format!("{file}: no outputs ({}): {e}", out_path.display()))?;
    let outs: Vec<Value> = serde_json::from_str(&out_text).map_err(|e| format!("{file}: {e}"))?;
    let objects =
        member_texts(&out_text, "objectAfterDecode").map_err(|e| format!("{file}: {e}"))?;
    let cases = input
        .get("cases")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{file}: no `cases`"))?;
    if cases.len() != outs.len() || outs.len() != objects.len() {
        return Err(format!(
            "{file}: {} cases, {} outputs",
            cases.len(),
            outs.len()
        ));
    }
    let case_file =
        kcel_kube::cases::CaseFile::new(&input, KUBE_1_35).map_err(|e| format!("{file}: {e}"))?;
    let mut counts = Counts::default();
    for ((case, want), want_object) in cases.iter().zip(&outs).zip(&objects) {
        let name = case.get("name").and_then(Value::as_str).unwrap_or("");
        let want_name = want.get("name").and_then(Value::as_str).unwrap_or("");
        if name != want_name {
            return Err(format!(
                "{file}: case {name:?} paired with output {want_name:?}"
            ));
        }
        let key = format!("{file}:{name}");
        seen.push(key.clone());
        if skips.contains_key(&key) {
            counts.skipped += 1;
            continue;
        }
        let suffix = name_suffix(case, want);
        let got = case_file.run(case, None, suffix.as_deref());
        match compare_result(&got, want, want_object.as_deref()) {
            Ok(()) => counts.passed += 1,
            Err(e) if got.get("rulesSkipped").is_some() => {
                counts.failed += 1;
                eprintln!("FAIL {key}: {e}  (CEL rules were not run)");
            }
            Err(e) => {
                counts.failed += 1;
                eprintln!("FAIL {key}: {e}");
            }
        }
    }
    Ok(counts)
}

#[test]
fn oracle_cases() {
    let extra = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle_extra");
    let mut files = discover(&extra);
    assert!(!files.is_empty(), "no cases*.yaml in {}", extra.display());
    if let Some(shared) = shared_or_skip("oracle test (shared cases)") {
        let shared_files = discover(&shared.join("oracle"));
        assert!(
            !shared_files.is_empty(),
            "no cases*.yaml in the oracle folder"
        );
        files.extend(shared_files);
    }
    let skips = skip_list(include_str!("oracle.skip"));
    let mut total = Counts::default();
    let mut problems = Vec::new();
    let mut seen = Vec::new();
    for (file, cases, outs) in &files {
        match run_file(file, cases, outs, &skips, &mut seen) {
            Ok(c) => {
                println!(
                    "{file}: {} passed, {} failed, {} skipped",
                    c.passed, c.failed, c.skipped
                );
                total.passed += c.passed;
                total.failed += c.failed;
                total.skipped += c.skipped;
            }
            Err(e) => problems.push(e),
        }
    }
    let stale: Vec<&String> = skips.keys().filter(|k| !seen.contains(k)).collect();
    println!(
        "{} passed, {} failed, {} skipped",
        total.passed, total.failed, total.skipped
    );
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(stale.is_empty(), "oracle.skip names no case: {stale:?}");
    assert_eq!(total.failed, 0, "{} oracle cases failed", total.failed);
}

#[test]
fn recorded_bytes() {
    let text = "[\n {\"a\": 1, \"o\": {\"k\": [1.5e+21, \"x <y>\"], \"n\": null}},\n {\"o\": true}, {}, 3\n]";
    assert_eq!(
        member_texts(text, "o").expect("scans"),
        [
            Some("{\"k\":[1.5e+21,\"x \\u003cy\\u003e\"],\"n\":null}".to_string()),
            Some("true".to_string()),
            None,
            None
        ]
    );
}
