//! The cel-spec conformance suite (`cel-spec/json/*.json` in the shared data).
//!
//! Every test of every file is one named trial, `file/section/test`, run with
//! the libtest-style runner of `libtest-mimic`; the run ends with the usual
//! summary and the plain line `N passed, N failed, N skipped`.
//!
//! A test is parsed, checked (unless `disable_check`), planned and evaluated in
//! the environment of [`common::full_env`], extended with the test's
//! `container` and `type_env` declarations, then its result is compared with
//! the expected one: a value (structurally, see [`common::structural`]), a
//! value and the checker's deduced type (`typed_result`; `check_only` compares
//! the type alone), or any evaluation error (`eval_error`). As in cel-go's
//! harness, a parse or check error fails every kind of test, except that an
//! `eval_error` test is satisfied by a check error with exactly the expected
//! message (the suite's way of saying "rejected, at compile time if possible").
//!
//! Enums are cel-spec's legacy enums (`int`s) except in the `strong_proto2`
//! and `strong_proto3` sections of `enums`, which run with strong enums
//! (`cel::proto::EnumMode::Strong`: the environment, the expected values and
//! the bindings). A few tests expect an older cel-go release's behaviour and
//! run with it ([`RELEASE_PINNED`]).
//!
//! Messages: with the engine's `proto` feature, the suite's message types are
//! compiled from the shared `cel-spec/proto` sources (`common::proto_types`)
//! and serve as the environment's type provider and to read `object_value`s.
//! Without it, tests that need protobuf messages (`no_proto: false` in
//! `index.json`) are skipped with that reason. Every other skip is listed,
//! with its reason, in `conformance.skip` next to this file. Skipped trials are "ignored" trials:
//! `--include-ignored` runs them anyway. Each case runs on its own thread with
//! a large stack, a panic is caught and reported as that case's failure, and a
//! case that does not finish within [`CASE_TIMEOUT`] fails.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use cel::{EvalOptions, Value};
use common::proto_json::{self, Decl, Enums};
use common::structural::{same, show};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value as Json;

/// How long one case may run before it is reported as hung.
const CASE_TIMEOUT: Duration = Duration::from_secs(30);
/// The evaluation deadline given to the engine (well inside [`CASE_TIMEOUT`]).
const EVAL_DEADLINE: Duration = Duration::from_secs(10);
/// Stack of the thread each case runs on: deep but legal expressions must not
/// overflow in debug builds.
const CASE_STACK: usize = 64 << 20;

/// Conformance tests run so far, by outcome (the runner's own checks excluded).
static CASES_PASSED: AtomicUsize = AtomicUsize::new(0);
static CASES_FAILED: AtomicUsize = AtomicUsize::new(0);

/// The skip list: `file/section/test: reason` per line, `#` comments.
const SKIP_FILE: &str = "conformance.skip";

/// Tests whose expectation is an older cel-go release's behaviour, run with
/// that release reproduced (`EnvOptions::cel_go`; every other test runs with
/// the newest): the test, the newest release that behaves as it expects, and
/// why.
const RELEASE_PINNED: [(&str, cel::CelGoVersion, &str); 2] = [
    (
        "string_ext/value_errors/indexof_out_of_range",
        cel::CelGoVersion::V0_20,
        "an offset past the end is `index out of range` up to cel-go v0.20; \
         from v0.22 (cel-go ba36ff84) it finds nothing (-1), and cel-go's own \
         conformance run skips the test (\"need a spec update\")",
    ),
    (
        "string_ext/value_errors/lastindexof_out_of_range",
        cel::CelGoVersion::V0_20,
        "as indexof_out_of_range (cel-go ba36ff84)",
    ),
];

fn main() -> ExitCode {
    let args = Arguments::from_args();
    install_panic_hook();
    let trials = match collect_trials() {
        Ok(Some(trials)) => trials,
        Ok(None) => runner_self_tests(),
        Err(message) => {
            let mut trials = runner_self_tests();
            trials.push(Trial::test(
                "conformance/setup",
                move || Err(message.into()),
            ));
            trials
        }
    };
    let conclusion = libtest_mimic::run(&args, trials);
    // The suite's own count: the runner's checks are in libtest's summary only;
    // skipped (ignored) trials are all conformance tests.
    println!(
        "{} passed, {} failed, {} skipped",
        CASES_PASSED.load(Ordering::Relaxed),
        CASES_FAILED.load(Ordering::Relaxed),
        conclusion.num_ignored
    );
    conclusion.exit_code()
}

/// One test of the suite.
struct Case {
    /// `file/section/test`.
    name: String,
    /// The `SimpleTest` message.
    test: Json,
    /// How enums convert: strong in the `strong_*` sections of `enums`
    /// (cel-spec's strong enum semantics), legacy elsewhere.
    enums: Enums,
    /// The cel-go release reproduced ([`RELEASE_PINNED`], else the newest).
    cel_go: cel::CelGoVersion,
}

/// Reads the suite and builds the trials. `Ok(None)`: the data is absent
/// (outside CI; a notice was printed).
fn collect_trials() -> Result<Option<Vec<Trial>>, String> {
    let Some(dir) = common::shared::require("cel-spec/json", "the cel-spec conformance suite")?
    else {
        return Ok(None);
    };
    let proto_tests = proto_tests(&dir.join("../index.json"))?;
    let skips = read_skip_file()?;
    let cases = read_cases(&dir)?;

    let mut trials = runner_self_tests();
    trials.push(skip_list_check(&skips, &cases));
    let n_runner = trials.len();
    let (mut n_proto, mut n_listed) = (0, 0);
    for case in cases {
        let reason = if !cfg!(feature = "proto") && proto_tests.contains(&case.name) {
            n_proto += 1;
            Some("needs protobuf messages")
        } else if skips.contains_key(&case.name) {
            n_listed += 1;
            Some("listed in conformance.skip")
        } else {
            None
        };
        let name = case.name.clone();
        let case = Arc::new(case);
        let mut trial = Trial::test(name, move || {
            let expr = case
                .test
                .get("expr")
                .and_then(Json::as_str)
                .unwrap_or_default();
            let worker = Arc::clone(&case);
            let outcome = run_isolated(
                expr,
                move || run_case(&worker.test, worker.enums, worker.cel_go),
                CASE_TIMEOUT,
            );
            let counter = if outcome.is_ok() {
                &CASES_PASSED
            } else {
                &CASES_FAILED
            };
            counter.fetch_add(1, Ordering::Relaxed);
            outcome
        });
        if let Some(reason) = reason {
            trial = trial.with_kind(reason).with_ignored_flag(true);
        }
        trials.push(trial);
    }
    eprintln!(
        "conformance: {} tests from {}; skipping {n_proto} that need protobuf messages \
         (index.json no_proto=false) and {n_listed} listed in {SKIP_FILE}",
        trials.len() - n_runner,
        dir.canonicalize().unwrap_or(dir.clone()).display()
    );
    Ok(Some(trials))
}

/// Names of the tests `index.json` marks as needing protobuf messages.
fn proto_tests(index: &Path) -> Result<HashSet<String>, String> {
    let text = std::fs::read_to_string(index)
        .map_err(|e| format!("cannot read {}: {e}", index.display()))?;
    let entries: Vec<Json> =
        serde_json::from_str(&text).map_err(|e| format!("bad {}: {e}", index.display()))?;
    let mut out = HashSet::new();
    for e in &entries {
        let field = |k: &str| e.get(k).and_then(Json::as_str).unwrap_or_default();
        if e.get("no_proto").and_then(Json::as_bool) == Some(false) {
            out.insert(format!(
                "{}/{}/{}",
                field("file"),
                field("section"),
                field("name")
            ));
        }
    }
    Ok(out)
}

/// Every test of every `json/*.json` file (files named `_*` are metadata), in
/// file order.
fn read_cases(dir: &Path) -> Result<Vec<Case>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('_'))
        })
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let file: Json =
            serde_json::from_str(&text).map_err(|e| format!("bad {}: {e}", path.display()))?;
        for section in array(&file, "section") {
            let section_name = section
                .get("name")
                .and_then(Json::as_str)
                .unwrap_or_default();
            for test in array(section, "test") {
                let test_name = test.get("name").and_then(Json::as_str).unwrap_or_default();
                let enums = if stem == "enums" && section_name.starts_with("strong_") {
                    Enums::Strong
                } else {
                    Enums::Legacy
                };
                let name = format!("{stem}/{section_name}/{test_name}");
                let cel_go = RELEASE_PINNED
                    .iter()
                    .find(|(pinned, _, _)| *pinned == name)
                    .map_or(cel::CelGoVersion::default(), |(_, v, _)| *v);
                cases.push(Case {
                    name,
                    test: test.clone(),
                    enums,
                    cel_go,
                });
            }
        }
    }
    Ok(cases)
}

fn array<'a>(json: &'a Json, key: &str) -> &'a [Json] {
    json.get(key)
        .and_then(Json::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The skip list: test name → reason.
fn read_skip_file() -> Result<BTreeMap<String, String>, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(SKIP_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut skips = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, reason)) = line.split_once(": ") else {
            return Err(format!(
                "{SKIP_FILE}:{}: expected `file/section/test: reason`",
                n + 1
            ));
        };
        if reason.trim().is_empty() {
            return Err(format!("{SKIP_FILE}:{}: the reason is empty", n + 1));
        }
        skips.insert(name.trim().to_string(), reason.trim().to_string());
    }
    Ok(skips)
}

/// A trial that fails when the skip list names a test that does not exist
/// (stale entries). Entries for tests that need messages apply to builds with
/// the `proto` feature.
fn skip_list_check(skips: &BTreeMap<String, String>, cases: &[Case]) -> Trial {
    let names: HashSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    let mut problems = Vec::new();
    for name in skips.keys() {
        if !names.contains(name.as_str()) {
            problems.push(format!("{name}: no such test"));
        }
    }
    for (name, _, _) in RELEASE_PINNED {
        if !names.contains(name) {
            problems.push(format!("{name} (RELEASE_PINNED): no such test"));
        }
    }
    Trial::test(
        format!("{SKIP_FILE}/entries_name_existing_tests"),
        move || {
            if problems.is_empty() {
                Ok(())
            } else {
                Err(format!("stale entries in {SKIP_FILE}:\n{}", problems.join("\n")).into())
            }
        },
    )
}

/// Runs a case on its own thread: catches panics and reports hangs (the hung
/// thread is left behind; the process ends after the run).
fn run_isolated(
    expr: &str,
    case: impl FnOnce() -> Result<(), String> + Send + 'static,
    timeout: Duration,
) -> Result<(), Failed> {
    let (tx, rx) = mpsc::channel();
    let (place_tx, place_rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .stack_size(CASE_STACK)
        .spawn(move || {
            PANIC_PLACE.with(|p| *p.borrow_mut() = Some(place_tx));
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(case));
            // The receiver is gone only if the case timed out; nothing to report then.
            let _ = tx.send(outcome);
        });
    if let Err(e) = spawned {
        return Err(format!("cannot start a thread for the case: {e}").into());
    }
    match rx.recv_timeout(timeout) {
        Ok(Ok(Ok(()))) => Ok(()),
        Ok(Ok(Err(message))) => Err(format!("expr: {expr}\n{message}").into()),
        Ok(Err(panic)) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a non-string payload".into());
            let place = rx_panic_place(&place_rx);
            Err(format!("expr: {expr}\nPANIC: {what}{place}").into())
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            Err(format!("expr: {expr}\ndid not finish within {CASE_TIMEOUT:?}").into())
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(format!("expr: {expr}\nthe case's thread ended without a result").into())
        }
    }
}

thread_local! {
    /// Where the panic hook sends the location (and backtrace, when enabled)
    /// of a panic on a case's thread.
    static PANIC_PLACE: std::cell::RefCell<Option<mpsc::Sender<String>>> =
        const { std::cell::RefCell::new(None) };
}

/// Panics on case threads are reported in the case's failure message (with
/// their location) instead of on stderr; other panics keep the default report.
fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let sent = PANIC_PLACE.with(|p| {
            p.borrow().as_ref().is_some_and(|tx| {
                let location = info.location().map(|l| l.to_string()).unwrap_or_default();
                let backtrace = std::backtrace::Backtrace::capture();
                let trace = match backtrace.status() {
                    std::backtrace::BacktraceStatus::Captured => format!("\n{backtrace}"),
                    _ => String::new(),
                };
                tx.send(format!("\n  at {location}{trace}")).is_ok()
            })
        });
        if !sent {
            default(info);
        }
    }));
}

fn rx_panic_place(rx: &mpsc::Receiver<String>) -> String {
    rx.try_recv().unwrap_or_default()
}

/// What a test expects.
enum Expected {
    Value(Value),
    Typed {
        value: Option<Value>,
        deduced: cel::Type,
    },
    EvalError(Vec<String>),
}

fn expected(test: &Json, enums: Enums) -> Result<Expected, String> {
    let value = |v: &Json| proto_json::value_with(v, enums);
    if let Some(v) = test.get("value") {
        return Ok(Expected::Value(value(v)?));
    }
    if let Some(t) = test.get("typed_result") {
        let value = t.get("result").map(value).transpose()?;
        let deduced = t
            .get("deduced_type")
            .map_or(Ok(cel::Type::Dyn), proto_json::cel_type)?;
        return Ok(Expected::Typed { value, deduced });
    }
    if let Some(e) = test.get("eval_error") {
        let messages = array(e, "errors")
            .iter()
            .filter_map(|m| m.get("message").and_then(Json::as_str).map(str::to_string))
            .collect();
        return Ok(Expected::EvalError(messages));
    }
    for unsupported in ["any_eval_errors", "unknown", "any_unknowns"] {
        if test.get(unsupported).is_some() {
            return Err(format!("the `{unsupported}` matcher is not supported"));
        }
    }
    // No matcher: the result must be `true`.
    Ok(Expected::Value(Value::Bool(true)))
}

/// The standard macros, which `disable_macros` removes (extension macros stay,
/// as in cel-go's harness: `ClearMacros` comes before the extensions).
fn is_standard_macro(m: &cel::syntax::Macro) -> bool {
    cel::syntax::macros::standard().iter().any(|s| {
        s.name == m.name && s.receiver_style == m.receiver_style && s.arg_count == m.arg_count
    })
}

/// Runs one test: `Err` explains the failure.
fn run_case(test: &Json, enums: Enums, cel_go: cel::CelGoVersion) -> Result<(), String> {
    let flag = |k: &str| test.get(k).and_then(Json::as_bool).unwrap_or(false);
    let expr = test
        .get("expr")
        .and_then(Json::as_str)
        .ok_or("the test has no `expr`")?;
    let expected = expected(test, enums)?;

    let mut builder = common::full_env::builder();
    builder.options_mut().cel_go = cel_go;
    #[cfg(feature = "proto")]
    {
        builder = builder.library(common::proto_types::conformance(enums)?);
    }
    if flag("disable_macros") {
        builder
            .options_mut()
            .parser
            .macros
            .retain(|m| !is_standard_macro(m));
    }
    if let Some(container) = test.get("container").and_then(Json::as_str) {
        builder.options_mut().container = container.to_string();
    }
    for d in array(test, "type_env") {
        match proto_json::decl(d)? {
            Decl::Variable(name, t) => builder.add_variable(&name, t),
            Decl::Function(f) => builder.add_function(f),
        }
    }
    let env = builder.build();

    let ast = env
        .parse(expr)
        .map_err(|issues| format!("parse error:\n{issues}"))?;
    let checked = if flag("disable_check") {
        None
    } else {
        match env.check(&ast) {
            Ok(checked) => Some(checked),
            // A few tests expect an error that checking finds (e.g.
            // `isIP(cidr(...))`); it matches only with the expected message.
            Err(issues) => match &expected {
                Expected::EvalError(want)
                    if issues.issues.iter().any(|i| want.contains(&i.message)) =>
                {
                    return Ok(());
                }
                _ => return Err(format!("check error:\n{issues}")),
            },
        }
    };

    if flag("check_only") {
        let Expected::Typed { deduced, .. } = &expected else {
            return Err("a check_only test needs a typed_result".into());
        };
        let checked = checked.ok_or("a check_only test cannot disable the checker")?;
        return compare_type(deduced, checked.result_type());
    }

    let program = match &checked {
        Some(c) => env.program_checked(c),
        None => env.program(&ast),
    }
    .map_err(|issues| format!("plan error:\n{issues}"))?;

    let mut bindings = HashMap::new();
    if let Some(Json::Object(bound)) = test.get("bindings") {
        for (name, expr_value) in bound {
            let v = expr_value
                .get("value")
                .ok_or_else(|| format!("binding `{name}` is not a value: {expr_value}"))?;
            let v =
                proto_json::value_with(v, enums).map_err(|e| format!("binding `{name}`: {e}"))?;
            bindings.insert(name.clone(), v);
        }
    }
    let options = EvalOptions {
        deadline: Some(Instant::now() + EVAL_DEADLINE),
        ..EvalOptions::default()
    };
    let result = program.eval_with(&bindings, &options).value;

    match (expected, result) {
        (Expected::Value(want), Ok(got)) => compare_value(&want, &got),
        (Expected::Typed { value, deduced }, Ok(got)) => {
            if let Some(want) = value {
                compare_value(&want, &got)?;
            }
            let checked = checked.ok_or("a typed_result test cannot disable the checker")?;
            compare_type(&deduced, checked.result_type())
        }
        (Expected::EvalError(_), Err(_)) => Ok(()),
        (Expected::EvalError(want), Ok(got)) => Err(format!(
            "expected an evaluation error ({})\n     got: {}",
            want.join("; "),
            show(&got)
        )),
        (
            Expected::Value(want)
            | Expected::Typed {
                value: Some(want), ..
            },
            Err(e),
        ) => Err(format!("expected: {}\n     got: error: {e}", show(&want))),
        (Expected::Typed { value: None, .. }, Err(e)) => Err(format!("evaluation error: {e}")),
    }
}

fn compare_value(want: &Value, got: &Value) -> Result<(), String> {
    if same(want, got) {
        Ok(())
    } else {
        Err(format!("expected: {}\n     got: {}", show(want), show(got)))
    }
}

fn compare_type(want: &cel::Type, got: &cel::Type) -> Result<(), String> {
    if want == got {
        Ok(())
    } else {
        Err(format!("expected type: {want}\n     got type: {got}"))
    }
}

/// Tests of the runner itself (conversions, comparison, isolation), so that a
/// bug in the harness cannot pass for an engine result. They run with or
/// without the shared data.
fn runner_self_tests() -> Vec<Trial> {
    vec![
        Trial::test("runner/proto_json_scalars", || check(self_test_scalars())),
        Trial::test("runner/proto_json_types", || check(self_test_types())),
        Trial::test("runner/structural_comparison", || {
            check(self_test_structural())
        }),
        Trial::test("runner/isolation", || check(self_test_isolation())),
    ]
}

fn check(r: Result<(), String>) -> Result<(), Failed> {
    r.map_err(Failed::from)
}

fn parse_value(text: &str) -> Result<Value, String> {
    let json: Json = serde_json::from_str(text).map_err(|e| e.to_string())?;
    proto_json::value(&json)
}

fn expect_value(text: &str, want: &Value) -> Result<(), String> {
    let got = parse_value(text)?;
    if same(want, &got) {
        Ok(())
    } else {
        Err(format!("{text}: got {}", show(&got)))
    }
}

fn self_test_scalars() -> Result<(), String> {
    use cel::value::{Duration as CelDuration, Timestamp};
    expect_value(
        r#"{"int64_value": "-9223372036854775808"}"#,
        &Value::Int(i64::MIN),
    )?;
    expect_value(
        r#"{"uint64_value": "18446744073709551615"}"#,
        &Value::Uint(u64::MAX),
    )?;
    expect_value(
        r#"{"double_value": "-Infinity"}"#,
        &Value::Double(f64::NEG_INFINITY),
    )?;
    expect_value(r#"{"double_value": "NaN"}"#, &Value::Double(f64::NAN))?;
    expect_value(r#"{"bytes_value": "AP8="}"#, &Value::bytes(vec![0u8, 255]))?;
    expect_value(r#"{"bytes_value": "-_8"}"#, &Value::bytes(vec![0xfb, 0xff]))?;
    expect_value(r#"{"null_value": null}"#, &Value::Null)?;
    expect_value(
        r#"{"object_value": {"@type": "type.googleapis.com/google.protobuf.Duration", "value": "-1.5s"}}"#,
        &Value::Duration(CelDuration {
            nanos: -1_500_000_000,
        }),
    )?;
    expect_value(
        r#"{"object_value": {"@type": "type.googleapis.com/google.protobuf.Timestamp", "value": "1969-12-31T23:59:58.5Z"}}"#,
        &Value::Timestamp(Timestamp {
            seconds: -2,
            nanos: 500_000_000,
            offset_secs: 0,
        }),
    )?;
    expect_value(
        r#"{"map_value": {"entries": [{"key": {"uint64_value": "1"}, "value": {"list_value": {}}}]}}"#,
        &Value::Map(
            [(cel::value::Key::Uint(1), Value::list(vec![]))]
                .into_iter()
                .collect::<indexmap::IndexMap<_, _>>()
                .into(),
        ),
    )?;
    for bad in [
        r#"{"int64_value": "9223372036854775808"}"#,
        r#"{"object_value": {"@type": "type.googleapis.com/no.such.Message"}}"#,
        r#"{"object_value": {"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1.5"}}"#,
        r#"{"int64_value": "1", "bool_value": true}"#,
    ] {
        if parse_value(bad).is_ok() {
            return Err(format!("{bad}: accepted"));
        }
    }
    Ok(())
}

fn self_test_types() -> Result<(), String> {
    use cel::Type;
    let cases: [(&str, Type); 5] = [
        (r#"{"primitive": "UINT64"}"#, Type::Uint),
        (
            r#"{"map_type": {"key_type": {"primitive": "STRING"}, "value_type": {"dyn": {}}}}"#,
            Type::map(Type::String, Type::Dyn),
        ),
        (
            r#"{"abstract_type": {"name": "optional_type", "parameter_types": [{"primitive": "INT64"}]}}"#,
            Type::optional(Type::Int),
        ),
        (r#"{"wrapper": "INT64"}"#, Type::wrapper(Type::Int)),
        (
            r#"{"message_type": "google.protobuf.Duration"}"#,
            Type::Duration,
        ),
    ];
    for (text, want) in cases {
        let json: Json = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let got = proto_json::cel_type(&json)?;
        if got != want {
            return Err(format!("{text}: got {got}, want {want}"));
        }
    }
    Ok(())
}

fn self_test_structural() -> Result<(), String> {
    let pairs_differ = [
        (Value::Int(1), Value::Uint(1)),
        (Value::Int(1), Value::Double(1.0)),
        (
            Value::list(vec![Value::Int(1)]),
            Value::list(vec![Value::Int(1), Value::Int(2)]),
        ),
        (Value::string("a"), Value::bytes(b"a".to_vec())),
    ];
    for (a, b) in &pairs_differ {
        if same(a, b) {
            return Err(format!("{} and {} compared equal", show(a), show(b)));
        }
    }
    if !same(&Value::Double(f64::NAN), &Value::Double(f64::NAN)) {
        return Err("NaN must match NaN".into());
    }
    let map = |entries: Vec<(i64, i64)>| {
        Value::Map(
            entries
                .into_iter()
                .map(|(k, v)| (cel::value::Key::Int(k), Value::Int(v)))
                .collect::<indexmap::IndexMap<_, _>>()
                .into(),
        )
    };
    if !same(&map(vec![(1, 2), (3, 4)]), &map(vec![(3, 4), (1, 2)])) {
        return Err("map order must not matter".into());
    }
    if same(&map(vec![(1, 2)]), &map(vec![(1, 3)])) {
        return Err("map values must matter".into());
    }
    Ok(())
}

fn self_test_isolation() -> Result<(), String> {
    let quiet = Duration::from_millis(200);
    let panicked = run_isolated("p", || panic!("boom"), CASE_TIMEOUT);
    match panicked {
        Err(f)
            if format!("{f:?}").contains("PANIC: boom")
                && format!("{f:?}").contains("conformance.rs:") => {}
        other => return Err(format!("a panic was not reported: {other:?}")),
    }
    let hung = run_isolated(
        "h",
        move || {
            std::thread::sleep(quiet * 5);
            Ok(())
        },
        quiet,
    );
    match hung {
        Err(f) if format!("{f:?}").contains("did not finish") => {}
        other => return Err(format!("a hang was not reported: {other:?}")),
    }
    match run_isolated("e", || Err("no".into()), CASE_TIMEOUT) {
        Err(f) if format!("{f:?}").contains("no") => Ok(()),
        other => Err(format!("a failure was not reported: {other:?}")),
    }
}
