//! Data-driven test of CEL rule compilation and validation against Kubernetes' own test tables
//! (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel`, extracted as JSON records in
//! `../shared/k8s-cases/tables`, format in `../shared/k8s-cases/README.md`).
//!
//! One trial per record, named `<test>/<case>[/<rule>]`. Records of the library tables
//! (`k8s.io/apiserver/pkg/cel/library`) are run by `k8s_libraries.rs` and left out here.
//! Skipped records are listed with their reason in `tests/k8s_tables.skip`; records whose
//! extraction lost data are corrected as `tests/k8s_tables.errata` says. The run ends with the
//! libtest summary and one line `N passed, N failed, N skipped`. When the shared data is absent
//! the test prints a notice and passes, unless `CI=true`.

use std::collections::HashMap;
use std::path::{Path as FsPath, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use cel::{EnvBuilder, FnImpl, Function, Library, Overload, Type, Value};
use kcel_kube::KubeVersion;
use kcel_kube::field::{FieldError, Path};
use kcel_kube::rules::compile::{CompiledRule, EnvLoader, StoredExpressions, compile_node};
use kcel_kube::rules::env::{ExtraLibrary, PER_CALL_LIMIT};
use kcel_kube::rules::{RuleFindings, SchemaRules};
use kcel_kube::schema_props::JsonSchemaProps;
use kcel_kube::structural::Structural;
use kcel_kube::values::Json;
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value as JsonValue;

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let trials = match collect_trials() {
        Ok(t) => t,
        Err(message) => vec![Trial::test("k8s_tables/setup", move || Err(message.into()))],
    };
    let conclusion = libtest_mimic::run(&args, trials);
    println!(
        "{} passed, {} failed, {} skipped",
        conclusion.num_passed, conclusion.num_failed, conclusion.num_ignored
    );
    conclusion.exit_code()
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("KCEL_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// Corrections of records whose extraction lost data: (trial name, JSON pointer, value).
fn errata() -> Result<Vec<(String, String, JsonValue)>, String> {
    include_str!("k8s_tables.errata")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let [name, pointer, value, _reason] = f[..] else {
                return Err(format!("k8s_tables.errata: bad line {l:?}"));
            };
            let v = serde_json::from_str(value)
                .map_err(|e| format!("k8s_tables.errata: {value}: {e}"))?;
            Ok((name.to_string(), pointer.to_string(), v))
        })
        .collect()
}

/// Sets the value at `pointer` (`/a/b`), creating the last key.
fn apply_erratum(record: &mut JsonValue, pointer: &str, value: JsonValue) -> Result<(), String> {
    let (parent, key) = pointer
        .rsplit_once('/')
        .ok_or_else(|| format!("bad pointer {pointer}"))?;
    let target = record
        .pointer_mut(parent)
        .and_then(JsonValue::as_object_mut)
        .ok_or_else(|| format!("no object at {parent}"))?;
    target.insert(key.to_string(), value);
    Ok(())
}

/// Skip patterns and their reasons (`<name><TAB or two spaces><reason>`; `*` matches any run).
fn skip_list() -> Vec<(String, String)> {
    include_str!("k8s_tables.skip")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (k, r) = l.split_once('\t').or_else(|| l.split_once("  "))?;
            Some((k.trim().to_string(), r.trim().to_string()))
        })
        .collect()
}

fn glob(pat: &str, s: &str) -> bool {
    let parts: Vec<&str> = pat.split('*').collect();
    if parts.len() == 1 {
        return pat == s;
    }
    let mut rest = s;
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(p) else {
                return false;
            };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.ends_with(p);
        } else {
            let Some(at) = rest.find(p) else { return false };
            rest = &rest[at + p.len()..];
        }
    }
    rest.is_empty()
}

fn collect_trials() -> Result<Vec<Trial>, String> {
    let dir = shared_dir().join("k8s-cases/tables");
    if !dir.is_dir() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        eprintln!(
            "notice: {} not found; the Kubernetes table tests were not run",
            dir.display()
        );
        if ci {
            return Err(format!("CI=true and {} is missing", dir.display()));
        }
        return Ok(Vec::new());
    }
    let skips = skip_list();
    let errata = errata()?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut trials = Vec::new();
    let mut used = HashMap::<String, usize>::new();
    for file in files {
        for mut record in read_records(&file)? {
            let source = record["source"].as_str().unwrap_or_default();
            if !source.contains("apiextensions-apiserver/pkg/apiserver/schema/cel") {
                continue; // library tables: k8s_libraries.rs
            }
            let name = trial_name(&record, &mut used);
            for (_, pointer, value) in errata.iter().filter(|(n, _, _)| *n == name) {
                apply_erratum(&mut record, pointer, value.clone())?;
            }
            let skipped = skips.iter().any(|(p, _)| glob(p, &name));
            let trial = Trial::test(name, move || run_record(&record).map_err(Failed::from))
                .with_ignored_flag(skipped);
            trials.push(trial);
        }
    }
    Ok(trials)
}

fn read_records(file: &FsPath) -> Result<Vec<JsonValue>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let v: JsonValue =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    match v.get("records") {
        Some(JsonValue::Array(a)) => Ok(a.clone()),
        _ => Err(format!("{}: no records", file.display())),
    }
}

/// `<test>/<case>[/<rule>]`, rules shortened, made unique with ` #n`.
fn trial_name(record: &JsonValue, used: &mut HashMap<String, usize>) -> String {
    let mut name = format!(
        "{}/{}",
        record["test"].as_str().unwrap_or("?"),
        record["case"].as_str().unwrap_or("?")
    );
    if let Some(rule) = record["rule"].as_str() {
        let short: String = rule.chars().take(160).collect();
        name.push('/');
        name.push_str(&short.replace('\n', " "));
    }
    let n = used.entry(name.clone()).or_insert(0);
    *n += 1;
    if *n > 1 {
        name = format!("{name} #{n}");
    }
    name
}

fn structural(schema: &JsonValue) -> Result<Arc<Structural>, String> {
    let props: JsonSchemaProps =
        serde_json::from_value(schema.clone()).map_err(|e| format!("schema: {e}"))?;
    Structural::from_props(&props)
        .map(Arc::new)
        .map_err(|e| format!("structural: {e}"))
}

fn run_record(r: &JsonValue) -> Result<(), String> {
    match r["test"].as_str().unwrap_or_default() {
        "TestCelCompilation" => run_compilation(r),
        "TestCelEstimatedCostStability" | "TestCostEstimation" => run_estimate(r),
        _ => run_validation(r),
    }
}

/// The test-only library of `TestCelCompilation`: `fakeFunction(string) → string`, introduced at
/// 1.999 (visible to stored expressions only).
struct FakeFunction;

impl Library for FakeFunction {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_function(Function::new("fakeFunction").overload(Overload::global(
            "fakeFunction_string",
            vec![Type::String],
            Type::String,
            Some(FnImpl::Unary(|v: &Value| match v {
                Value::String(s) => Ok(Value::from(s.to_uppercase().as_str())),
                _ => Err(cel::EvalError::no_such_overload()),
            })),
        )));
    }
}

fn loader_for(env: &str) -> EnvLoader {
    let stored = if env.starts_with("StoredExpressions") {
        StoredExpressions::All
    } else {
        StoredExpressions::None
    };
    EnvLoader {
        version: KubeVersion::NEWEST,
        stored,
        extra: vec![ExtraLibrary {
            introduced_minor: 999,
            library: Arc::new(FakeFunction),
        }],
    }
}

fn compile_root(r: &JsonValue) -> Result<Vec<CompiledRule>, String> {
    let schema = structural(&r["schema"])?;
    let loader = loader_for(r["env"].as_str().unwrap_or_default());
    let root = r["isResourceRoot"].as_bool().unwrap_or(false);
    compile_node(&schema, &schema.extensions.validations, root, &loader).map_err(|e| e.to_string())
}

fn run_compilation(r: &JsonValue) -> Result<(), String> {
    let results = compile_root(r)?;
    let matchers = r["expect"]["perRule"]
        .as_array()
        .ok_or("no perRule matchers")?;
    if matchers.len() != results.len() {
        return Err(format!(
            "{} rules compiled, {} matchers",
            results.len(),
            matchers.len()
        ));
    }
    for (i, (m, res)) in matchers.iter().zip(&results).enumerate() {
        check_matcher(m, res).map_err(|e| format!("rule {i} ({}): {e}", res.rule.rule))?;
    }
    Ok(())
}

fn error_type_name(t: kcel_kube::field::ErrorType) -> &'static str {
    match t {
        kcel_kube::field::ErrorType::Invalid => "RuleInvalid",
        kcel_kube::field::ErrorType::Required => "RuleRequired",
        kcel_kube::field::ErrorType::Internal => "InternalError",
        _ => "Other",
    }
}

fn check_matcher(m: &JsonValue, res: &CompiledRule) -> Result<(), String> {
    let obj = m.as_object().ok_or("matcher is not an object")?;
    if let Some(all) = obj.get("all").and_then(JsonValue::as_array) {
        return all.iter().try_for_each(|x| check_matcher(x, res));
    }
    if obj.get("noError").and_then(JsonValue::as_bool) == Some(true) {
        if let Some(e) = &res.error {
            return Err(format!("expected no error, got {}", e.detail));
        }
        if let Some(e) = &res.message_expression_error {
            return Err(format!("expected no error, got {}", e.detail));
        }
    }
    if let Some(t) = obj.get("errorType").and_then(JsonValue::as_str) {
        let e = res.error.as_ref().ok_or("expected an error, got none")?;
        if error_type_name(e.type_) != t {
            return Err(format!("error type {:?}, want {t}", e.type_));
        }
    }
    if let Some(s) = obj.get("errorContains").and_then(JsonValue::as_str) {
        let e = res.error.as_ref().ok_or("expected an error, got none")?;
        if !e.detail.contains(s) {
            return Err(format!("error {:?} does not contain {s:?}", e.detail));
        }
    }
    if let Some(t) = obj
        .get("messageExpressionErrorType")
        .and_then(JsonValue::as_str)
    {
        let e = res
            .message_expression_error
            .as_ref()
            .ok_or("expected a messageExpression error, got none")?;
        if error_type_name(e.type_) != t {
            return Err(format!(
                "messageExpression error type {:?}, want {t}",
                e.type_
            ));
        }
    }
    if let Some(s) = obj
        .get("messageExpressionErrorContains")
        .and_then(JsonValue::as_str)
    {
        let e = res
            .message_expression_error
            .as_ref()
            .ok_or("expected a messageExpression error, got none")?;
        if !e.detail.contains(s) {
            return Err(format!(
                "messageExpression error {:?} does not contain {s:?}",
                e.detail
            ));
        }
    }
    if let Some(b) = obj.get("usesOldSelf").and_then(JsonValue::as_bool)
        && res.uses_old_self != b
    {
        return Err(format!("usesOldSelf {}, want {b}", res.uses_old_self));
    }
    Ok(())
}

fn run_estimate(r: &JsonValue) -> Result<(), String> {
    let results = compile_root(r)?;
    let first = results.first().ok_or("no rule")?;
    if let Some(e) = &first.error {
        return Err(format!("compile error: {}", e.detail));
    }
    let got = first
        .max_cost
        .ok_or("no cost estimate (the engine has no static cost estimator yet)")?;
    let expect = &r["expect"];
    if let Some(want) = expect["estimatedMaxCost"].as_u64()
        && got != want
    {
        return Err(format!("estimated max cost {got}, want {want}"));
    }
    if let Some(want) = expect["estimatedMaxCostAtLeast"].as_u64()
        && got < want
    {
        return Err(format!("estimated max cost {got}, want at least {want}"));
    }
    Ok(())
}

fn json(v: &JsonValue) -> Result<Json, String> {
    Json::from_serde(v).map_err(|e| e.to_string())
}

fn run_validation(r: &JsonValue) -> Result<(), String> {
    let schema = structural(&r["schema"])?;
    let root = r["isResourceRoot"].as_bool().unwrap_or(false);
    let limit = r["perCallLimit"].as_u64().unwrap_or(PER_CALL_LIMIT);
    let loader = EnvLoader::runtime(KubeVersion::NEWEST);
    let budget = r["costBudget"].as_i64().ok_or("no costBudget")?;
    let obj = json(&r["object"])?;
    let old = match &r["oldObject"] {
        JsonValue::Null => None,
        o => Some(json(o)?),
    };
    let path = match r["fieldPathRoot"].as_str() {
        Some(p) if !p.is_empty() => Path::new(p),
        _ => Path::root(),
    };
    let ratcheting = r["ratcheting"].as_bool() == Some(true);
    let outcome = match SchemaRules::new(&schema, root, &loader, limit) {
        Some(v) => v.validate(&path, &obj, old.as_ref(), ratcheting, budget),
        None => RuleFindings {
            remaining_budget: budget,
            ..RuleFindings::default()
        },
    };
    check_outcome(&r["expect"], &outcome, budget)
}

fn texts(errors: &[FieldError]) -> Vec<String> {
    errors.iter().map(|e| e.to_string()).collect()
}

fn check_outcome(expect: &JsonValue, out: &RuleFindings, budget: i64) -> Result<(), String> {
    let errs = texts(&out.errors);
    let shown = || format!("errors: {errs:#?}\nwarnings: {:#?}", out.warnings);
    if let Some(JsonValue::Array(want)) = expect.get("errors")
        && want.is_empty()
        && !errs.is_empty()
    {
        return Err(format!("expected no errors\n{}", shown()));
    }
    if let Some(cost) = expect.get("runtimeCost").and_then(JsonValue::as_i64) {
        let got = budget - out.remaining_budget;
        if got != cost {
            return Err(format!("runtime cost {got}, want {cost}\n{}", shown()));
        }
    }
    if expect.get("atLeastOneError").and_then(JsonValue::as_bool) == Some(true) && errs.is_empty() {
        return Err("expected at least one error, got none".into());
    }
    if let Some(t) = expect.get("everyErrorType").and_then(JsonValue::as_str)
        && let Some(e) = out.errors.iter().find(|e| e.type_.reason() != t)
    {
        return Err(format!("error of type {}, want {t}: {e}", e.type_.reason()));
    }
    if let Some(s) = expect.get("everyErrorContains").and_then(JsonValue::as_str)
        && let Some(e) = errs.iter().find(|e| !e.contains(s))
    {
        return Err(format!("error {e:?} does not contain {s:?}\n{}", shown()));
    }
    if let Some(JsonValue::Array(want)) = expect.get("errorsEachContainOneOf") {
        let want: Vec<&str> = want.iter().filter_map(JsonValue::as_str).collect();
        if !match_distinct(&errs, &want) {
            return Err(format!(
                "errors do not match one distinct expected substring each: {want:?}\n{}",
                shown()
            ));
        }
    }
    if let Some(n) = expect.get("errorCount").and_then(JsonValue::as_u64)
        && errs.len() as u64 != n
    {
        return Err(format!("{} errors, want {n}\n{}", errs.len(), shown()));
    }
    if let Some(JsonValue::Array(want)) = expect.get("errorsContain") {
        for w in want.iter().filter_map(JsonValue::as_str) {
            if !errs.iter().any(|e| e.contains(w)) {
                return Err(format!("no error contains {w:?}\n{}", shown()));
            }
        }
    }
    if let Some(s) = expect.get("errorContains").and_then(JsonValue::as_str)
        && !errs.iter().any(|e| e.contains(s))
    {
        return Err(format!("no error contains {s:?}\n{}", shown()));
    }
    if let Some(JsonValue::Array(want)) = expect.get("warningsExact") {
        let mut want: Vec<&str> = want.iter().filter_map(JsonValue::as_str).collect();
        let mut got: Vec<&str> = out.warnings.iter().map(String::as_str).collect();
        want.sort_unstable();
        got.sort_unstable();
        if want != got {
            return Err(format!("warnings {got:#?}, want {want:#?}"));
        }
    }
    if let Some(b) = expect.get("remainingBudget").and_then(JsonValue::as_i64)
        && out.remaining_budget != b
    {
        return Err(format!(
            "remaining budget {}, want {b}\n{}",
            out.remaining_budget,
            shown()
        ));
    }
    if let Some(s) = expect
        .get("internalMessageExpressionError")
        .and_then(JsonValue::as_str)
        && !out.log.iter().any(|l| l.contains(s))
    {
        return Err(format!("log {:?} does not contain {s:?}", out.log));
    }
    if let Some(JsonValue::Array(want)) = expect.get("errorsUnordered_TypeAndField") {
        let mut want: Vec<(String, String)> = want
            .iter()
            .map(|w| {
                (
                    w["type"].as_str().unwrap_or_default().to_string(),
                    w["field"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let mut got: Vec<(String, String)> = out
            .errors
            .iter()
            .map(|e| (e.type_.reason().to_string(), e.path.to_string()))
            .collect();
        want.sort();
        got.sort();
        if want != got {
            return Err(format!("errors (type, field) {got:?}, want {want:?}"));
        }
    }
    Ok(())
}

/// Whether every error contains a different one of `want` and every entry of `want` is used.
fn match_distinct(errs: &[String], want: &[&str]) -> bool {
    fn assign(errs: &[String], want: &[&str], used: &mut Vec<bool>, i: usize) -> bool {
        let Some(e) = errs.get(i) else {
            return true;
        };
        for (j, w) in want.iter().enumerate() {
            if !used[j] && e.contains(w) {
                used[j] = true;
                if assign(errs, want, used, i + 1) {
                    return true;
                }
                used[j] = false;
            }
        }
        false
    }
    errs.len() == want.len() && assign(errs, want, &mut vec![false; want.len()], 0)
}
