//! kube-openapi's JSON-Schema fixtures (`../shared/corpora/kube-openapi-jsonschema`): the
//! draft-4 JSON-Schema-Test-Suite files `TestJSONSchemaSuite` enables, `formats/`, and
//! `schemas/int-enum.json`, run through the pipeline's kube-openapi validator. Only validity is
//! compared (the fixtures hold no messages).
//!
//! Groups listed in `kube_openapi.skip` (`<file>|<group description> <reason>` per line) are not
//! run. Closing line: `N passed, N failed, N skipped` (counting tests).

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::shared_or_skip;

use kcel_kube::pipeline::KubeVersion;
use kcel_kube::pipeline::decode::normalize_numbers;
use kcel_kube::pipeline::openapi::SchemaValidator;
use kcel_kube::schema_props::JsonSchemaProps;
use kcel_kube::values::Json;
use serde_json::Value;

fn read_json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).expect("read fixture");
    let mut v: Value = serde_json::from_str(&text).expect("fixture json");
    normalize_numbers(&mut v, 0).expect("numbers");
    v
}

/// Every number as a float, as `TestJSONSchemaSuite` decodes test data (`json.Unmarshal` into
/// `interface{}`); custom resources instead keep whole numbers as integers.
fn all_floats(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().and_then(serde_json::Number::from_f64) {
                *n = f;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(all_floats),
        Value::Object(m) => m.values_mut().for_each(all_floats),
        _ => {}
    }
}

/// The enabled files of the suite (the `optional/` ones are disabled upstream).
fn suite_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn valid(v: &SchemaValidator, schema: &JsonSchemaProps, data: &Value) -> bool {
    let data = Json::from_serde(data).expect("test data converts");
    v.validate(&data, schema, "data", None).errors.is_empty()
}

#[test]
fn kube_openapi_fixtures() {
    let Some(shared) = shared_or_skip("kube-openapi fixtures") else {
        return;
    };
    let root = shared.join("corpora/kube-openapi-jsonschema");
    let skips: HashMap<String, String> = include_str!("kube_openapi.skip")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (key, reason) = l.rsplit_once(" -- ")?;
            Some((key.to_string(), reason.to_string()))
        })
        .collect();
    let validator = SchemaValidator::new(KubeVersion::NEWEST);
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut files = suite_files(&root.join("jsonschema_suite"));
    files.extend(suite_files(&root.join("formats")));
    let int_enum = read_json(&root.join("schemas/int-enum.json"));
    // The cases of the data, counted apart from the run: every test of every group, and a
    // valid and an invalid value per int-enum schema.
    let expected: usize = files
        .iter()
        .flat_map(|f| read_json(f).as_array().cloned().unwrap_or_default())
        .map(|g| g["tests"].as_array().map_or(0, Vec::len))
        .sum::<usize>()
        + 2 * int_enum.as_array().map_or(0, Vec::len);
    for file in files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let groups = read_json(&file);
        for g in groups.as_array().into_iter().flatten() {
            let desc = g.get("description").and_then(Value::as_str).unwrap_or("");
            let tests = g
                .get("tests")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let key = format!("{name}|{desc}");
            if skips.contains_key(&key) {
                skipped += tests.len();
                continue;
            }
            let schema: JsonSchemaProps = match serde_json::from_value(g["schema"].clone()) {
                Ok(s) => s,
                Err(e) => {
                    failed += tests.len();
                    eprintln!("FAIL {key}: schema does not decode: {e}");
                    continue;
                }
            };
            for t in &tests {
                let want = t.get("valid").and_then(Value::as_bool).unwrap_or(false);
                let mut data = t["data"].clone();
                all_floats(&mut data);
                let got = valid(&validator, &schema, &data);
                if got == want {
                    passed += 1;
                } else {
                    failed += 1;
                    eprintln!(
                        "FAIL {key} / {}: got valid={got}, want {want}",
                        t.get("description").and_then(Value::as_str).unwrap_or("")
                    );
                }
            }
        }
    }
    // schemas/int-enum.json: {schema, valid, invalid}.
    for g in int_enum.as_array().into_iter().flatten() {
        let schema: JsonSchemaProps = serde_json::from_value(g["schema"].clone()).expect("schema");
        for (k, want) in [("valid", true), ("invalid", false)] {
            if valid(&validator, &schema, &g[k]) == want {
                passed += 1;
            } else {
                failed += 1;
                eprintln!("FAIL int-enum.json {k}");
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(failed, 0, "{failed} kube-openapi fixture tests failed");
    assert!(expected > 0, "no kube-openapi fixtures found");
    assert_eq!(
        passed + failed + skipped,
        expected,
        "ran fewer tests than the fixtures hold"
    );
}
