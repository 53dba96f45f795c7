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
//! A case file with expected results — `--expected FILE`, or beside it `<stem>.out.json` (for
//! `cases<x>.yaml`, the oracle's naming, also `out<x>.json`) — has each result compared with the
//! expected one ([`kcel_kube::case_compare`]): a `PASS`/`FAIL` line per case, each mismatch as a
//! diff (`-` expected, `+` got), and the closing counts (on standard error with `-o json`, whose
//! standard output is the results alone). With `-o json`, suites give one record per test.
//!
//! `-n` is the namespace requests are sent to (a case's own `namespace` wins); without it, each
//! object's own namespace, else `default`, as kubectl sends it. A flag that does not apply to the
//! inputs given (`--crd` or `--feature-gate` without a suite, `--expected` with other than one
//! case file) is a usage error.
//!
//! Exit code 0 when every compared case matches and every suite test passes, 1 when one does
//! not, 2 on unreadable input or bad usage.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use kcel_kube::Validator;
use kcel_kube::pipeline::FieldValidation;
use kcel_kube::test_suite::{self, TestResult};
use serde_json::Value;

use crate::{EXIT_FAILED, EXIT_USAGE};

#[derive(clap::Args)]
pub struct Args {
    /// Case files or test suites (YAML or JSON).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// CRD files for test suites.
    #[arg(long = "crd", value_name = "FILE")]
    crds: Vec<PathBuf>,
    /// The expected results of the one case file given (default: the file beside it, see above).
    #[arg(long = "expected", value_name = "FILE.json")]
    expected: Option<PathBuf>,
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

/// One input document: a case file (with its expected results, if any) or a test suite.
enum Input {
    Cases {
        file: PathBuf,
        doc: Value,
        expected: Option<Expected>,
    },
    Suite(Value),
}

/// Expected results of a case file: the records and the recorded bytes of each
/// `objectAfterDecode`.
struct Expected {
    file: PathBuf,
    records: Vec<Value>,
}

/// The expected results beside a case file: `<stem>.out.json`, or for `cases<x>.<ext>` (the
/// oracle's naming) `out<x>.json`.
fn expected_beside(file: &Path) -> Option<PathBuf> {
    let dir = file.parent().unwrap_or(Path::new(""));
    let stem = file.file_stem()?.to_str()?;
    let mut candidates = vec![dir.join(format!("{stem}.out.json"))];
    if let Some(x) = stem.strip_prefix("cases") {
        candidates.push(dir.join(format!("out{x}.json")));
    }
    candidates.into_iter().find(|c| c.is_file())
}

fn read_expected(file: &Path) -> Result<Expected, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let records: Vec<Value> = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a JSON array of results: {e}", file.display()))?;
    Ok(Expected {
        file: file.to_path_buf(),
        records,
    })
}

/// Reads every input and classifies its documents; checks that each flag applies to them.
fn read_inputs(args: &Args) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    for f in &args.files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let docs =
            kcel_kube::yaml::parse_stream(&text).map_err(|e| format!("{}: {e}", f.display()))?;
        let mut cases_in_file = 0;
        for doc in docs {
            let v = doc.value;
            if v.get("cases").is_some() {
                cases_in_file += 1;
                if cases_in_file > 1 {
                    return Err(format!(
                        "{}: more than one case file in one input (expected results pair with one)",
                        f.display()
                    ));
                }
                let expected = match args.expected.as_deref() {
                    Some(e) => Some(read_expected(e)?),
                    None => expected_beside(f).map(|e| read_expected(&e)).transpose()?,
                };
                inputs.push(Input::Cases {
                    file: f.clone(),
                    doc: v,
                    expected,
                });
            } else if v.get("tests").is_some() {
                inputs.push(Input::Suite(v));
            } else {
                return Err(format!(
                    "{}: neither a case file (`cases`) nor a test suite (`tests`)",
                    f.display()
                ));
            }
        }
    }
    let cases = inputs
        .iter()
        .filter(|i| matches!(i, Input::Cases { .. }))
        .count();
    let suites = inputs.len() - cases;
    if suites == 0 && !args.crds.is_empty() {
        return Err("--crd applies to test suites, and no test suite was given".into());
    }
    if suites == 0 && !args.feature_gates.is_empty() {
        return Err("--feature-gate applies to test suites, and no test suite was given".into());
    }
    if args.expected.is_some() && (cases != 1 || suites != 0) {
        return Err("--expected applies to exactly one case file given alone".into());
    }
    if args.output == Format::Json && cases > 0 && suites > 0 {
        return Err("-o json prints case results or suite results: give one kind of file".into());
    }
    Ok(inputs)
}

pub fn run(args: Args) -> ExitCode {
    match run_inner(&args) {
        Ok(failed) => ExitCode::from(if failed { EXIT_FAILED } else { 0 }),
        Err(e) => {
            eprintln!("kcel test: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Runs every input; `Ok(true)` when a case differs from its expected result or a suite test
/// fails.
fn run_inner(args: &Args) -> Result<bool, String> {
    let kv = crate::validate::kube_version(args.kube_version.as_deref())?;
    let inputs = read_inputs(args)?;
    // What suites send: strict field validation, as `kubectl apply` does.
    let mut crds = Validator::builder()
        .kube_version(kv)
        .field_validation(FieldValidation::Strict);
    for f in &args.crds {
        crds = crds.crd_file(f).map_err(|e| e.to_string())?;
    }
    let crds = crds.build();
    let gates: BTreeSet<String> = args.feature_gates.iter().cloned().collect();
    let mut json_results = Vec::new();
    let mut totals = Totals::default();
    let mut compared = false;
    for input in &inputs {
        match input {
            Input::Cases {
                file,
                doc,
                expected,
            } => {
                let results = match expected {
                    Some(expected) => {
                        compared = true;
                        let (results, t) = run_compared(
                            file,
                            doc,
                            expected,
                            kv,
                            args.namespace.as_deref(),
                            args.output,
                        )?;
                        totals.add(t);
                        results
                    }
                    None => {
                        let results =
                            kcel_kube::cases::run_case_file(doc, kv, args.namespace.as_deref())
                                .map_err(|e| format!("{}: {e}", file.display()))?;
                        if args.output == Format::Text {
                            for r in &results {
                                println!("{}", case_line(r));
                            }
                        }
                        results
                    }
                };
                json_results.extend(results);
            }
            Input::Suite(suite) => {
                let (t, records) =
                    run_suite(suite, &crds, args.namespace.as_deref(), &gates, args.output);
                totals.add(t);
                json_results.extend(records);
            }
        }
    }
    if args.output == Format::Json {
        let text = kcel_kube::go::fmt::to_json_pretty(&json_results).map_err(|e| e.to_string())?;
        println!("{text}");
    }
    let any_suite = inputs.iter().any(|i| matches!(i, Input::Suite(_)));
    if compared || any_suite {
        let line = format!(
            "{} passed, {} failed, {} skipped",
            totals.passed, totals.failed, totals.skipped
        );
        // With `-o json`, standard output holds the JSON document alone.
        match args.output {
            Format::Text => println!("{line}"),
            Format::Json => eprintln!("{line}"),
        }
    }
    Ok(totals.failed > 0)
}

/// Runs a case file and compares each result with the expected one (paired by position, names
/// checked); prints `PASS`/`FAIL` lines and each mismatch as a diff (on standard error with
/// `-o json`). Returns the results and the counts.
fn run_compared(
    file: &Path,
    doc: &Value,
    expected: &Expected,
    kv: kcel_kube::KubeVersion,
    namespace: Option<&str>,
    output: Format,
) -> Result<(Vec<Value>, Totals), String> {
    let case_file =
        kcel_kube::cases::CaseFile::new(doc, kv).map_err(|e| format!("{}: {e}", file.display()))?;
    let cases = doc
        .get("cases")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{}: no `cases`", file.display()))?;
    if cases.len() != expected.records.len() {
        return Err(format!(
            "{}: {} cases, but {} has {} results",
            file.display(),
            cases.len(),
            expected.file.display(),
            expected.records.len()
        ));
    }
    let report = |line: String| match output {
        Format::Text => println!("{line}"),
        Format::Json => eprintln!("{line}"),
    };
    let mut totals = Totals::default();
    let mut results = Vec::with_capacity(cases.len());
    for (case, want) in cases.iter().zip(&expected.records) {
        let name = case.get("name").and_then(Value::as_str).unwrap_or("");
        let want_name = want.get("name").and_then(Value::as_str).unwrap_or("");
        let suffix = kcel_kube::case_compare::name_suffix(case, want);
        let got = case_file.run(case, namespace, suffix.as_deref());
        let outcome = if name != want_name {
            Err(format!(
                "paired with the expected result of {want_name:?} (the results are in case order)\n"
            ))
        } else {
            kcel_kube::case_compare::compare_result(&got, want, None).map_err(|m| m.to_string())
        };
        match outcome {
            Ok(()) => {
                totals.passed += 1;
                report(format!("PASS {name}"));
            }
            Err(diff) => {
                totals.failed += 1;
                report(format!(
                    "FAIL {name}: --- expected  +++ got\n{}",
                    diff.trim_end()
                ));
            }
        }
        results.push(got);
    }
    Ok((results, totals))
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

/// Runs a suite through [`kcel_kube::test_suite`]; prints a line per test (text), or gives a
/// record per test (`-o json`: `suite`, `operation`, `name`, `result` `pass`/`fail`/`skip`,
/// `message`); returns the counts.
fn run_suite(
    suite: &Value,
    crds: &Validator,
    namespace: Option<&str>,
    gates: &BTreeSet<String>,
    output: Format,
) -> (Totals, Vec<Value>) {
    let suite_name = suite.get("name").and_then(Value::as_str).unwrap_or("suite");
    let mut totals = Totals::default();
    let mut records = Vec::new();
    for t in test_suite::run_suite(suite, crds, namespace, gates) {
        match t.result {
            TestResult::Passed => totals.passed += 1,
            TestResult::Failed(_) => totals.failed += 1,
            TestResult::Skipped(_) => totals.skipped += 1,
        }
        let (key, name, result, message) = (
            t.phase.key(),
            &t.name,
            t.result.to_string(),
            t.result.reason(),
        );
        match output {
            Format::Text => {
                let label = result.to_ascii_uppercase();
                match &message {
                    Some(m) => println!("{label} {suite_name} / {key} / {name}: {m}"),
                    None => println!("{label} {suite_name} / {key} / {name}"),
                }
            }
            Format::Json => records.push(serde_json::json!({
                "suite": suite_name,
                "operation": key,
                "name": name,
                "result": result,
                "message": message,
            })),
        }
    }
    (totals, records)
}
