//! Runs every case of every `cases*.yaml` of `../shared/oracle` through [`kcel_kube::cases`]
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

use kcel_kube::field::go_json;
use kcel_kube::pipeline::{KubeVersion, Status};
use serde_json::Value;

mod common;
use common::raw_json::member_texts;
use common::{compare_status, reorder_message, shared_or_skip, skip_list, sorted};

/// The Kubernetes release the outputs come from.
const KUBE_1_35: KubeVersion = KubeVersion::new(35).expect("a supported version");

/// Output keys this runner compares; any other key fails the case (nothing goes unchecked).
const KNOWN_KEYS: &[&str] = &[
    "name",
    "crdStatus",
    "unknownFields",
    "decodeError",
    "objectAfterDecode",
    "status",
    "causeStrings",
    "warnings",
];

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

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn status_of(v: &Value) -> Result<Status, String> {
    serde_json::from_value(v.clone()).map_err(|e| format!("status: {e}"))
}

/// The random part of a generated name, read from the expected name.
fn name_suffix(case: &Value, want: &Value) -> Option<String> {
    let object = match case.get("objectRaw").and_then(Value::as_str) {
        Some(raw) => kcel_kube::pipeline::json::parse(raw).ok()?.value,
        None => case.get("object")?.clone(),
    };
    let generate = object.pointer("/metadata/generateName")?.as_str()?;
    let prefix: String = generate.chars().take(58).collect();
    let name = want.pointer("/objectAfterDecode/metadata/name")?.as_str()?;
    name.strip_prefix(&prefix).map(str::to_string)
}

/// Compares one result of the case runner with the recorded one.
fn compare(got: &Value, want: &Value, want_object: Option<&str>) -> Result<(), String> {
    if let Some(k) = want
        .as_object()
        .and_then(|w| w.keys().find(|k| !KNOWN_KEYS.contains(&k.as_str())))
    {
        return Err(format!("recorded output has `{k}`, which is not compared"));
    }
    if let Some(e) = got.get("error") {
        return Err(format!("case not run: {e}"));
    }
    if let Some(want_status) = want.get("crdStatus") {
        let got_status = got
            .get("crdStatus")
            .ok_or("CRD accepted, want it rejected")?;
        let got_status = status_of(got_status)?;
        return compare_status(&got_status, want_status, &|o| {
            reorder_message(&got_status, o)
        })
        .map_err(|e| format!("crdStatus: {e}"));
    }
    if let Some(s) = got.get("crdStatus") {
        return Err(format!("CRD rejected: {}", s["message"]));
    }
    let got_decode = got.get("decodeError").and_then(Value::as_str);
    let want_decode = want.get("decodeError").and_then(Value::as_str);
    if got_decode != want_decode {
        return Err(format!(
            "decodeError: got {got_decode:?}, want {want_decode:?}"
        ));
    }
    if want_decode.is_some() {
        return Ok(());
    }
    let (gu, wu) = (
        strings(got.get("unknownFields")),
        strings(want.get("unknownFields")),
    );
    if gu != wu {
        return Err(format!("unknownFields: got {gu:?}, want {wu:?}"));
    }
    let got_object = got.get("objectAfterDecode").map(go_json);
    if got_object.as_deref() != want_object {
        return Err(format!(
            "objectAfterDecode:\n  got:  {}\n  want: {}",
            got_object.unwrap_or_default(),
            want_object.unwrap_or_default()
        ));
    }
    let status = match (got.get("status"), want.get("status")) {
        (Some(g), Some(w)) => {
            let g = status_of(g)?;
            compare_status(&g, w, &|o| reorder_message(&g, o))
        }
        (None, None) => Ok(()),
        (g, w) => Err(format!("status: got {g:?}, want {w:?}")),
    };
    let (gc, wc) = (
        strings(got.get("causeStrings")),
        strings(want.get("causeStrings")),
    );
    let causes = if sorted(gc.clone()) == sorted(wc.clone()) {
        Ok(())
    } else {
        Err(format!("causeStrings: got {gc:?}, want {wc:?}"))
    };
    let (gw, ww) = (strings(got.get("warnings")), strings(want.get("warnings")));
    let warnings = if sorted(gw.clone()) == sorted(ww.clone()) {
        Ok(())
    } else {
        Err(format!("warnings: got {gw:?}, want {ww:?}"))
    };
    match status.and(causes).and(warnings) {
        Err(e) if got.get("rulesSkipped").is_some() => {
            Err(format!("{e}\n  (CEL rules were not run)"))
        }
        other => other,
    }
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
        match compare(&got, want, want_object.as_deref()) {
            Ok(()) => counts.passed += 1,
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
    let Some(shared) = shared_or_skip("oracle test") else {
        return;
    };
    let skips = skip_list(include_str!("oracle.skip"));
    let files = discover(&shared.join("oracle"));
    assert!(!files.is_empty(), "no cases*.yaml in the oracle folder");
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
