//! `kcel test FILE...`: runs custom-resource test files through the kube-apiserver pipeline.
//!
//! Two kinds of files, told apart by their top-level keys:
//! * case files (`crds` + `cases`, the format of `shared/oracle/cases*.yaml`): with `-o json`
//!   the results are printed as a JSON array in the format of `out*.json`; otherwise one line per
//!   case with its status message;
//! * declarative CRD test suites (`tests: {onCreate, onUpdate}`, the `*.testsuite.yaml` format
//!   of openshift/api), run against the CRDs given with `--crd`: one `PASS`/`FAIL` line per test
//!   and a summary.
//!
//! Exit code 0 when every suite test passes, 1 when one fails, 2 on unreadable input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::pipeline::{
    FieldValidation, KubeVersion, Operation, Options, Pipeline, cases::run_case_file,
};
use serde_json::{Map, Value};

use crate::{EXIT_FAILED, EXIT_USAGE};

#[derive(clap::Args)]
pub struct Args {
    /// Case files or test suites (YAML or JSON).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// CRD files for test suites.
    #[arg(long = "crd", value_name = "FILE")]
    crds: Vec<PathBuf>,
    /// Kubernetes version whose texts to reproduce (1.28 to 1.37).
    #[arg(long = "kube-version", default_value = "1.35")]
    kube_version: String,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text)]
    output: Format,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

pub fn run(args: Args) -> ExitCode {
    let kv: KubeVersion = match args.kube_version.parse() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("kcel test: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let mut crds = Vec::new();
    for f in &args.crds {
        match kcel_kube::load::load_file(f) {
            Ok(l) => crds.extend(l.into_iter().map(|l| l.crd)),
            Err(e) => {
                eprintln!("kcel test: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    let mut failed = false;
    let mut json_results = Vec::new();
    let (mut passed_tests, mut failed_tests) = (0usize, 0usize);
    for f in &args.files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("kcel test: {}: {e}", f.display());
                return ExitCode::from(EXIT_USAGE);
            }
        };
        let docs = match kcel_kube::yaml::parse_stream(&text) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("kcel test: {}: {e}", f.display());
                return ExitCode::from(EXIT_USAGE);
            }
        };
        for doc in docs {
            let v = doc.value;
            if v.get("cases").is_some() {
                match run_case_file(&v, kv, None) {
                    Ok(results) => {
                        if args.output == Format::Text {
                            for r in &results {
                                println!("{}", case_line(r));
                            }
                        }
                        json_results.extend(results);
                    }
                    Err(e) => {
                        eprintln!("kcel test: {}: {e}", f.display());
                        return ExitCode::from(EXIT_USAGE);
                    }
                }
            } else if v.get("tests").is_some() {
                let (p, q) = run_suite(&v, &crds, kv);
                passed_tests += p;
                failed_tests += q;
                failed |= q > 0;
            } else {
                eprintln!(
                    "kcel test: {}: neither a case file (`cases`) nor a test suite (`tests`)",
                    f.display()
                );
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    if args.output == Format::Json && !json_results.is_empty() {
        match serde_json::to_string_pretty(&json_results) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("kcel test: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    if passed_tests + failed_tests > 0 {
        println!("{passed_tests} passed, {failed_tests} failed");
    }
    if failed {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

fn case_line(r: &Value) -> String {
    let name = r.get("name").and_then(Value::as_str).unwrap_or("");
    if let Some(s) = r.get("crdStatus") {
        return format!(
            "{name}: CRD invalid: {}",
            s.get("message").and_then(Value::as_str).unwrap_or("")
        );
    }
    if let Some(e) = r.get("decodeError").and_then(Value::as_str) {
        return format!("{name}: decode error: {e}");
    }
    let status = r.get("status");
    let outcome = status
        .and_then(|s| s.get("message"))
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .unwrap_or("Success");
    format!("{name}: {outcome}")
}

/// A YAML text field of a suite test as an object.
fn object_field(test: &Value, key: &str) -> Result<Option<Value>, String> {
    match test.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => kcel_kube::yaml::parse_stream(text)
            .map_err(|e| format!("{key}: {e}"))
            .map(|d| d.into_iter().next().map(|d| d.value)),
        Some(other) => Ok(Some(other.clone())),
    }
}

fn find_crd<'c>(
    obj: &Value,
    crds: &'c [CustomResourceDefinition],
) -> Option<(&'c CustomResourceDefinition, String)> {
    let kind = obj.get("kind").and_then(Value::as_str)?;
    let api_version = obj.get("apiVersion").and_then(Value::as_str)?;
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    crds.iter()
        .find(|c| c.spec.group == group && c.spec.names.kind == kind)
        .map(|c| (c, version.to_string()))
}

/// Gives an object a name when it has none (suites leave names out).
fn with_name(mut obj: Value) -> Value {
    if let Value::Object(o) = &mut obj {
        let meta = o
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = meta
            && !m.contains_key("name")
            && !m.contains_key("generateName")
        {
            m.insert("name".into(), Value::String("test".into()));
        }
    }
    obj
}

/// The object without `metadata` and `status` (what suites compare).
fn content(v: &Value) -> Value {
    let mut v = v.clone();
    if let Value::Object(o) = &mut v {
        o.shift_remove("metadata");
    }
    v
}

struct Outcome {
    object: Option<Value>,
    message: Option<String>,
}

fn apply(
    crds: &[CustomResourceDefinition],
    obj: Value,
    operation: Operation,
    kv: KubeVersion,
) -> Result<Outcome, String> {
    let (crd, version) = find_crd(&obj, crds).ok_or("no --crd defines the object's kind")?;
    let pipeline = Pipeline::new(crd, &version, None).map_err(|e| e.to_string())?;
    let options = Options {
        kube_version: kv,
        field_validation: FieldValidation::Strict,
        ..Options::default()
    };
    let r = pipeline.run(with_name(obj), &operation, &options);
    let failed = r.status.status != "Success";
    Ok(Outcome {
        object: r.object,
        message: failed.then_some(r.status.message),
    })
}

fn check(outcome: &Outcome, test: &Value, error_key: &str) -> Result<(), String> {
    if let Some(want) = test.get(error_key).and_then(Value::as_str) {
        return match &outcome.message {
            Some(m) if m.contains(want) => Ok(()),
            Some(m) => Err(format!("error {m:?} does not contain {want:?}")),
            None => Err(format!("accepted, want an error containing {want:?}")),
        };
    }
    if let Some(m) = &outcome.message {
        return Err(format!("rejected: {m}"));
    }
    if let Some(want) = object_field(test, "expected")? {
        let got = outcome.object.as_ref().map(content).unwrap_or(Value::Null);
        if got != content(&want) {
            return Err(format!(
                "object differs:\n  got:  {}\n  want: {}",
                kcel_kube::field::go_json(&got),
                kcel_kube::field::go_json(&content(&want))
            ));
        }
    }
    Ok(())
}

fn run_test(
    test: &Value,
    update: bool,
    crds: &[CustomResourceDefinition],
    kv: KubeVersion,
) -> Result<(), String> {
    let initial = object_field(test, "initial")?.ok_or("test without `initial`")?;
    if !update {
        let out = apply(crds, initial, Operation::Create, kv)?;
        return check(&out, test, "expectedError");
    }
    let created = apply(crds, initial, Operation::Create, kv)?;
    if let Some(m) = created.message {
        return Err(format!("initial object rejected: {m}"));
    }
    let old = created.object.ok_or("initial object not stored")?;
    let updated = object_field(test, "updated")?.ok_or("update test without `updated`")?;
    let mut updated = with_name(updated);
    if let (Value::Object(u), Some(Value::Object(om))) = (&mut updated, old.get("metadata"))
        && let Some(Value::Object(um)) = u.get_mut("metadata")
    {
        for k in ["name", "namespace", "resourceVersion", "uid", "generation"] {
            if let Some(x) = om.get(k) {
                um.entry(k.to_string()).or_insert_with(|| x.clone());
            }
        }
    }
    let spec = apply(crds, updated.clone(), Operation::Update(old.clone()), kv)?;
    check(&spec, test, "expectedError")?;
    if test.get("expectedStatusError").is_some() {
        let status = apply(crds, updated, Operation::UpdateStatus(old), kv)?;
        check(&status, test, "expectedStatusError")?;
    }
    Ok(())
}

/// Runs a suite; prints a line per test; returns (passed, failed).
fn run_suite(suite: &Value, crds: &[CustomResourceDefinition], kv: KubeVersion) -> (usize, usize) {
    let suite_name = suite.get("name").and_then(Value::as_str).unwrap_or("suite");
    let (mut passed, mut failed) = (0, 0);
    let empty = Vec::new();
    for (key, update) in [("onCreate", false), ("onUpdate", true)] {
        let tests = suite
            .pointer(&format!("/tests/{key}"))
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        for t in tests {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("");
            match run_test(t, update, crds, kv) {
                Ok(()) => {
                    passed += 1;
                    println!("PASS {suite_name} / {key} / {name}");
                }
                Err(e) => {
                    failed += 1;
                    println!("FAIL {suite_name} / {key} / {name}: {e}");
                }
            }
        }
    }
    (passed, failed)
}
