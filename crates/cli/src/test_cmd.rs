//! `kcel test FILE...`: runs custom-resource test files through the kube-apiserver pipeline.
//!
//! Two kinds of files, told apart by their top-level keys:
//! * case files (`crds` + `cases`, the format of `shared/oracle/cases*.yaml`): with `-o json`
//!   the results are printed as a JSON array in the format of `out*.json`; otherwise one line per
//!   case with its status message;
//! * declarative CRD test suites (`tests: {onCreate, onUpdate}`, the `*.testsuite.yaml` format
//!   of openshift/api), run against the CRDs given with `--crd` (the one named by the suite's
//!   `crdName`, else the one defining the object's kind): one `PASS`/`FAIL`/`SKIP` line per test
//!   and a closing `N passed, N failed, N skipped`. Update tests may patch the CRD for the
//!   initial object (`initialCRDPatches`, RFC 6902), to test ratcheting; a suite whose
//!   `featureGates` asks for gates that are not enabled (`--feature-gate`), or for disabled
//!   gates (`-Name`) that are, is skipped with the reason.
//!
//! `-n` is the namespace requests are sent to (a case's own `namespace` wins); without it, each
//! object's own namespace, else `default`, as kubectl sends it.
//!
//! Exit code 0 when every suite test passes, 1 when one fails, 2 on unreadable input.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::pipeline::{FieldValidation, Operation};
use kcel_kube::{CrdId, Request, Validator};
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
    /// The Kubernetes version to behave as (1.28 to 1.37; default the newest).
    #[arg(long = "kube-version", value_name = "1.NN")]
    kube_version: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text)]
    output: Format,
    /// The namespace requests are sent to (`kubectl -n`), for suites and for cases that name
    /// none; default: the object's own, else `default`.
    #[arg(short = 'n', long = "namespace", value_name = "NAMESPACE")]
    namespace: Option<String>,
    /// Feature gates enabled for test suites (repeatable or comma-separated).
    #[arg(long = "feature-gate", value_name = "NAME", value_delimiter = ',')]
    feature_gates: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

pub fn run(args: Args) -> ExitCode {
    let kv = match crate::validate::kube_version(args.kube_version.as_deref()) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("kcel test: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // What suites send: strict field validation, as `kubectl apply` does.
    let mut crds = Validator::builder()
        .kube_version(kv)
        .field_validation(FieldValidation::Strict);
    for f in &args.crds {
        match crds.crd_file(f) {
            Ok(b) => crds = b,
            Err(e) => {
                eprintln!("kcel test: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    let crds = crds.build();
    let mut failed = false;
    let mut json_results = Vec::new();
    let gates: BTreeSet<String> = args.feature_gates.iter().cloned().collect();
    let mut totals = Totals::default();
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
                match kcel_kube::cases::run_case_file(&v, kv, args.namespace.as_deref()) {
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
                let t = run_suite(&v, &crds, args.namespace.as_deref(), &gates);
                failed |= t.failed > 0;
                totals.add(t);
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
        match kcel_kube::gofmt::to_json_pretty(&json_results) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("kcel test: {e}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
    }
    if totals.passed + totals.failed + totals.skipped > 0 {
        println!(
            "{} passed, {} failed, {} skipped",
            totals.passed, totals.failed, totals.skipped
        );
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

/// Test counts of suites.
#[derive(Clone, Copy, Default)]
struct Totals {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Totals {
    fn add(&mut self, o: Totals) {
        self.passed += o.passed;
        self.failed += o.failed;
        self.skipped += o.skipped;
    }
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

/// The CRD a suite tests: the one named `crdName`, else the one defining the object's kind.
fn find_crd(suite: &Value, obj: &Value, crds: &Validator) -> Result<CrdId, String> {
    if let Some(name) = suite.get("crdName").and_then(Value::as_str) {
        return crds
            .crd_ids()
            .find(|&id| crds.crd(id).is_some_and(|c| c.metadata.name == name))
            .ok_or_else(|| format!("no --crd named {name:?}"));
    }
    let s = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("");
    crds.find_kind(s("apiVersion"), s("kind"))
        .ok_or_else(|| "no --crd defines the object's kind".to_string())
}

/// The version of `apiVersion` (`group/version`).
fn version_of(obj: &Value) -> String {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    api_version
        .rsplit_once('/')
        .map_or(api_version, |(_, v)| v)
        .to_string()
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

/// The object without `metadata` (what suites compare).
fn content(v: &Value) -> Value {
    let mut v = v.clone();
    if let Value::Object(o) = &mut v {
        o.shift_remove("metadata");
    }
    v
}

/// The CRD with an RFC 6902 JSON patch applied (paths as in the CRD's YAML).
fn patched_crd(
    crd: &CustomResourceDefinition,
    patches: &Value,
) -> Result<CustomResourceDefinition, String> {
    let patch: json_patch::Patch =
        serde_json::from_value(patches.clone()).map_err(|e| format!("initialCRDPatches: {e}"))?;
    let mut doc = serde_json::to_value(crd).map_err(|e| e.to_string())?;
    json_patch::patch(&mut doc, &patch).map_err(|e| format!("initialCRDPatches: {e}"))?;
    serde_json::from_value(doc).map_err(|e| format!("patched CRD: {e}"))
}

struct Outcome {
    object: Option<Value>,
    message: Option<String>,
}

/// One CRD of a validator: what suite tests are run against.
#[derive(Clone, Copy)]
struct Target<'v> {
    validator: &'v Validator,
    crd: CrdId,
    /// The request's namespace (`-n`).
    namespace: Option<&'v str>,
}

impl Target<'_> {
    fn crd(&self) -> Result<&CustomResourceDefinition, String> {
        self.validator
            .crd(self.crd)
            .ok_or_else(|| format!("no CRD {}", self.crd))
    }
}

fn apply(target: Target<'_>, obj: Value, operation: Operation) -> Result<Outcome, String> {
    let request = Request::new(with_name(obj), operation)
        .in_namespace(target.namespace.map(str::to_string))
        .against_crd(target.crd);
    let r = target
        .validator
        .validate(request)
        .map_err(|e| e.to_string())?;
    let failed = !r.is_valid();
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

/// Creates the initial object of an update test, then (like the openshift suite) writes its
/// `status` through the status subresource when the CRD has one.
fn create_initial(target: Target<'_>, initial: Value) -> Result<Value, String> {
    let status = initial.get("status").cloned();
    let created = apply(target, initial.clone(), Operation::Create)?;
    if let Some(m) = created.message {
        return Err(format!("initial object rejected: {m}"));
    }
    let stored = created.object.ok_or("initial object not stored")?;
    let has_status = target
        .crd()?
        .version(&version_of(&initial))
        .is_some_and(|v| v.has_status_subresource());
    if !(has_status && status.is_some()) {
        return Ok(stored);
    }
    let mut with_status = stored.clone();
    if let (Value::Object(o), Some(st)) = (&mut with_status, status) {
        o.insert("status".into(), st);
    }
    let written = apply(target, with_status, Operation::UpdateStatus(stored))?;
    if let Some(m) = written.message {
        return Err(format!("initial status rejected: {m}"));
    }
    written
        .object
        .ok_or_else(|| "initial status not stored".into())
}

fn run_test(
    suite: &Value,
    test: &Value,
    update: bool,
    crds: &Validator,
    namespace: Option<&str>,
) -> Result<(), String> {
    let initial = object_field(test, "initial")?.ok_or("test without `initial`")?;
    let target = Target {
        validator: crds,
        crd: find_crd(suite, &initial, crds)?,
        namespace,
    };
    if !update {
        let out = apply(target, initial, Operation::Create)?;
        return check(&out, test, "expectedError");
    }
    // The initial object may be written under a patched CRD; the update meets the real one.
    let old = match test.get("initialCRDPatches").filter(|p| !p.is_null()) {
        Some(patches) => {
            let mut builder = Validator::builder()
                .kube_version(crds.kube_version())
                .field_validation(FieldValidation::Strict);
            let crd = builder.add_crd(patched_crd(target.crd()?, patches)?, None);
            let validator = builder.build();
            create_initial(
                Target {
                    validator: &validator,
                    crd,
                    namespace,
                },
                initial,
            )?
        }
        None => create_initial(target, initial)?,
    };
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
    let spec = apply(target, updated.clone(), Operation::Update(old.clone()))?;
    check(&spec, test, "expectedError")?;
    if test.get("expectedStatusError").is_some() {
        let status = apply(target, updated, Operation::UpdateStatus(old))?;
        check(&status, test, "expectedStatusError")?;
    }
    Ok(())
}

/// Why a suite does not run with the enabled gates: its `featureGates` lists gates that must
/// be enabled (`Name`) or disabled (`-Name`).
fn gate_skip_reason(suite: &Value, enabled: &BTreeSet<String>) -> Option<String> {
    let gates = suite.get("featureGates").and_then(Value::as_array)?;
    for g in gates.iter().filter_map(Value::as_str) {
        match g.strip_prefix('-') {
            Some(name) if enabled.contains(name) => {
                return Some(format!(
                    "the suite needs feature gate {name} disabled, but it is enabled"
                ));
            }
            None if !enabled.contains(g) => {
                return Some(format!(
                    "the suite needs feature gate {g}, which is not enabled (--feature-gate {g})"
                ));
            }
            _ => {}
        }
    }
    None
}

/// Runs a suite; prints a line per test; returns the counts.
fn run_suite(
    suite: &Value,
    crds: &Validator,
    namespace: Option<&str>,
    gates: &BTreeSet<String>,
) -> Totals {
    let suite_name = suite.get("name").and_then(Value::as_str).unwrap_or("suite");
    let skip = gate_skip_reason(suite, gates);
    let mut totals = Totals::default();
    let empty = Vec::new();
    for (key, update) in [("onCreate", false), ("onUpdate", true)] {
        let tests = suite
            .pointer(&format!("/tests/{key}"))
            .and_then(Value::as_array)
            .unwrap_or(&empty);
        for t in tests {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("");
            if let Some(reason) = &skip {
                totals.skipped += 1;
                println!("SKIP {suite_name} / {key} / {name}: {reason}");
                continue;
            }
            match run_test(suite, t, update, crds, namespace) {
                Ok(()) => {
                    totals.passed += 1;
                    println!("PASS {suite_name} / {key} / {name}");
                }
                Err(e) => {
                    totals.failed += 1;
                    println!("FAIL {suite_name} / {key} / {name}: {e}");
                }
            }
        }
    }
    totals
}
