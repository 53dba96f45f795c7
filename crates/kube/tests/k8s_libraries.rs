//! Data-driven test of Kubernetes' CEL libraries against the Kubernetes unit-test
//! tables in `../shared/k8s-cases/tables` (`TestIP`, `TestCIDR`, `TestQuantity`,
//! `TestSemver` and the library cost tables of `library/cost_test.go`: runtime
//! costs, and estimated costs with Kubernetes' `CostEstimator` over the test's
//! size estimator, `{0, 12}` for every string or bytes node of unknown size).
//! The plain-CEL cost tables (`TestSetsCost`, two-variable comprehensions)
//! are the `cel` crate's `cost_estimate` test.
//!
//! Prints one closing line `N passed, N failed, N skipped`; skipped records are
//! listed with their reason in `tests/k8s_libraries.skip`. When the shared data is
//! absent the test prints a notice and passes, unless `CI=true`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use cel::cost::{self as cel_cost, AstNode, EstimateOptions, Hooks, SizeEstimate, SizeEstimator};
use cel::library::Std;
use cel::library::ext::{Optionals, Sets, Strings};
use cel::value::Opaque;
use cel::{Env, EnvBuilder, EvalOptions, Type, Value};
use kcel_kube::library::{
    authz, cidr, cost, format, ip, jsonpatch, lists, quantity, regex, semver, urls,
};
use kcel_kube::rules::estimate::KubeCalls;
use serde_json::Value as Json;

fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("KCEL_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    dir.join("k8s-cases/tables").is_dir().then_some(dir)
}

/// Skip patterns and reasons.
fn skip_list() -> Vec<(String, String)> {
    let text = include_str!("k8s_libraries.skip");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (k, r) = l.split_once("  ").or_else(|| l.split_once('\t'))?;
            Some((k.trim().to_string(), r.trim().to_string()))
        })
        .collect()
}

fn skip_reason<'a>(skips: &'a [(String, String)], key: &str) -> Option<&'a str> {
    skips.iter().find_map(|(pat, reason)| {
        let hit = match pat.find('*') {
            None => pat == key,
            Some(_) => glob(pat, key),
        };
        hit.then_some(reason.as_str())
    })
}

/// `*` matches any run of characters.
fn glob(pat: &str, s: &str) -> bool {
    let parts: Vec<&str> = pat.split('*').collect();
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

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: Vec<String>,
    skipped: Vec<String>,
}

/// The environment of `TestIP`/`TestCIDR`/`TestQuantity`/`TestSemver`: cel-go's
/// standard library plus only the library under test.
fn library_env(test: &str, library_version: u32) -> Env {
    let b = Env::builder().library(Std);
    let b = match test {
        "TestIP" | "TestCIDR" => b.library(ip::Ip).library(cidr::Cidr),
        "TestQuantity" => b.library(quantity::QuantityLib),
        _ => b.library(semver::SemverLib {
            version: library_version,
        }),
    };
    b.build()
}

/// The environment of `library/cost_test.go`'s `testCost()`.
fn cost_env() -> Env {
    let mut b: EnvBuilder = Env::builder()
        .library(Std)
        .library(Strings::version(2))
        .library(urls::Urls)
        .library(regex::RegexLib)
        .library(lists::Lists { version: 1 })
        .library(authz::Authz)
        .library(authz::AuthzSelectors)
        .library(quantity::QuantityLib)
        .library(Sets)
        .library(ip::Ip)
        .library(cidr::Cidr)
        .library(format::FormatLib)
        .library(jsonpatch::JsonPatch)
        .library(Optionals::default())
        .library(semver::SemverLib { version: 1 });
    b = b.runtime_cost_hook(Arc::new(|f: &str, id: &str| {
        let site = cost::RuntimeCost::of(f, id)?;
        let priced: cel::CallCostFn = Arc::new(move |args: &[&Value], result: Option<&Value>| {
            site.cost(args, result.unwrap_or(&Value::Null))
        });
        Some(priced)
    }));
    b.build()
}

/// A library value parsed from the expected text, for equality checks.
fn expected_value(result: &Json) -> Result<Value, String> {
    let (kind, v) = result
        .as_object()
        .and_then(|o| o.iter().next())
        .ok_or("empty result")?;
    let text = v.as_str().unwrap_or_default();
    let parsed = match kind.as_str() {
        "bool" => {
            return v
                .as_bool()
                .map(Value::Bool)
                .ok_or_else(|| "bad bool".into());
        }
        "int" => return v.as_i64().map(Value::Int).ok_or_else(|| "bad int".into()),
        "uint" => return v.as_u64().map(Value::Uint).ok_or_else(|| "bad uint".into()),
        "double" => {
            return v
                .as_f64()
                .map(Value::Double)
                .ok_or_else(|| "bad double".into());
        }
        "string" => return Ok(Value::from(text)),
        "ip" => ip::string_to_ip(&Value::from(text)),
        "cidr" => cidr::string_to_cidr(&Value::from(text)),
        "quantity" => quantity::string_to_quantity(&Value::from(text)),
        "semver" => semver::string_to_semver(&Value::from(text)),
        other => return Err(format!("unknown result kind {other}")),
    };
    parsed.map_err(|e| e.to_string())
}

fn same(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Opaque(a), Value::Opaque(b)) => {
            a.type_name() == b.type_name() && a.equals(&**b as &dyn Opaque)
        }
        (Value::Double(a), Value::Double(b)) => a == b || (a.is_nan() && b.is_nan()),
        _ => std::mem::discriminant(got) == std::mem::discriminant(want) && got.equals(want),
    }
}

fn check_result_record(env: &Env, rec: &Json) -> Result<(), String> {
    let expr = rec["expr"].as_str().ok_or("no expr")?;
    let expect = &rec["expect"];
    let program = match env.compile(expr) {
        Ok(p) => p,
        Err(issues) => {
            let text = issues.to_string();
            let Some(res) = expect["compileErrorRegexes"].as_array() else {
                return Err(format!("unexpected compile error: {text}"));
            };
            for r in res {
                let re = ::regex::Regex::new(r.as_str().unwrap_or_default())
                    .map_err(|e| e.to_string())?;
                if !re.is_match(&text) {
                    return Err(format!("compile error {text:?} does not match {re}"));
                }
            }
            return Ok(());
        }
    };
    if expect.get("compileErrorRegexes").is_some() {
        return Err("expected a compile error".into());
    }
    match program.eval(&()) {
        Ok(v) => {
            let want = expected_value(&expect["result"])?;
            if same(&v, &want) {
                Ok(())
            } else {
                Err(format!("got {v:?}, want {want:?}"))
            }
        }
        Err(e) => {
            if let Some(exact) = expect["runtimeErrorExact"].as_str() {
                return if e.message() == exact {
                    Ok(())
                } else {
                    Err(format!("error {:?}, want {exact:?}", e.message()))
                };
            }
            if let Some(r) = expect["runtimeErrorRegex"].as_str() {
                let re = ::regex::Regex::new(r).map_err(|e| e.to_string())?;
                return if re.is_match(e.message()) {
                    Ok(())
                } else {
                    Err(format!("error {:?} !~ {r}", e.message()))
                };
            }
            Err(format!("unexpected error: {}", e.message()))
        }
    }
}

fn check_runtime_cost(env: &Env, rec: &Json) -> Result<(), String> {
    let expr = rec["expr"].as_str().ok_or("no expr")?;
    let want = rec["runtimeCost"].as_u64().ok_or("no runtimeCost")?;
    let program = env.compile(expr).map_err(|e| format!("compile: {e}"))?;
    let out = program.eval_with(
        &(),
        &EvalOptions {
            track_cost: true,
            ..Default::default()
        },
    );
    out.value.map_err(|e| format!("eval: {}", e.message()))?;
    let got = out.cost.ok_or("no cost reported")?;
    if got == want {
        Ok(())
    } else {
        Err(format!("runtime cost {got}, want {want}"))
    }
}

/// `cost_test.go`'s `testCostEstimator`: `{0, 12}` for strings and bytes.
struct TwelveBytes;

impl SizeEstimator for TwelveBytes {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        matches!(node.ty(), Type::String | Type::Bytes).then_some(SizeEstimate::new(0, 12))
    }
}

/// The estimate with Kubernetes' `CostEstimator{SizeEstimator: testCostEstimator}`
/// and `PresenceTestHasCost(false)`.
fn check_estimated_cost(env: &Env, rec: &Json) -> Result<(), String> {
    let expr = rec["expr"].as_str().ok_or("no expr")?;
    let bound = |k: &str| {
        rec["estimatedCost"][k]
            .as_u64()
            .ok_or_else(|| format!("no estimatedCost.{k}"))
    };
    let (min, max) = (bound("min")?, bound("max")?);
    let ast = env.parse(expr).map_err(|e| format!("parse: {e}"))?;
    let checked = env.check(&ast).map_err(|e| format!("check: {e}"))?;
    let options = EstimateOptions {
        presence_test_cost: 0,
        ..EstimateOptions::default()
    };
    let calls = KubeCalls::new(&TwelveBytes);
    let hooks = Hooks {
        size: &TwelveBytes,
        calls: &calls,
    };
    let got = cel_cost::estimate(&checked, env, &options, hooks).map_err(|e| e.to_string())?;
    if (got.min, got.max) == (min, max) {
        Ok(())
    } else {
        Err(format!(
            "estimated {{{}, {}}}, want {{{min}, {max}}}",
            got.min, got.max
        ))
    }
}

const RESULT_TABLES: [&str; 4] = ["TestIP", "TestCIDR", "TestQuantity", "TestSemver"];
const COST_TABLES: [&str; 11] = [
    "TestListsCost",
    "TestIndexOfCost",
    "TestIncludesCost",
    "TestURLsCost",
    "TestIPCost",
    "TestIPIsCanonicalCost",
    "TestCIDRCost",
    "TestQuantityCost",
    "TestNameFormatCost",
    "TestSemverCost",
    "TestStringLibrary",
];

/// Whether the engine can parse and evaluate at all in this build.
fn engine_ready() -> bool {
    Env::builder()
        .library(Std)
        .build()
        .compile("1 == 1")
        .is_ok_and(|p| matches!(p.eval(&()), Ok(Value::Bool(true))))
}

#[test]
fn kubernetes_library_tables() {
    let Some(shared) = shared_dir() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "shared data missing under CI=true"
        );
        println!(
            "notice: ../shared/k8s-cases not found; set KCEL_SHARED to run the Kubernetes library tables"
        );
        println!("0 passed, 0 failed, 0 skipped");
        return;
    };
    let skips = skip_list();
    let ready = engine_ready();
    let mut t = Tally::default();
    let mut envs: HashMap<(String, u32), Env> = HashMap::new();
    let cost_env = ready.then(cost_env);
    let tables = shared.join("k8s-cases/tables");
    let mut expected = 0;
    for name in RESULT_TABLES.iter().chain(COST_TABLES.iter()) {
        let path = tables.join(format!("{name}.json"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let doc: Json =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let records = doc["records"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| panic!("{}: no `records` array", path.display()));
        // The table's checks, counted apart from the run: a cost record is checked twice
        // (runtime and estimate), any other once.
        expected += records.len() * if COST_TABLES.contains(name) { 2 } else { 1 };
        for rec in &records {
            let label = rec["case"]
                .as_str()
                .or(rec["name"].as_str())
                .or(rec["expr"].as_str())
                .unwrap_or("?");
            let is_cost = COST_TABLES.contains(name);
            let checks: Vec<String> = if is_cost {
                vec![
                    format!("{name}/{label}#runtime"),
                    format!("{name}/{label}#estimate"),
                ]
            } else {
                vec![format!("{name}/{label}")]
            };
            for key in checks {
                if let Some(reason) = skip_reason(&skips, &key) {
                    t.skipped.push(format!("{key}: {reason}"));
                    continue;
                }
                if !ready {
                    t.skipped.push(format!(
                        "{key}: the CEL parser/checker is not in this build yet"
                    ));
                    continue;
                }
                let outcome = if is_cost {
                    let env = cost_env.as_ref().expect("ready");
                    if key.ends_with("#estimate") {
                        check_estimated_cost(env, rec)
                    } else {
                        check_runtime_cost(env, rec)
                    }
                } else {
                    let version = rec["libraryVersion"].as_u64().unwrap_or(0) as u32;
                    let env = envs
                        .entry((name.to_string(), version))
                        .or_insert_with(|| library_env(name, version));
                    check_result_record(env, rec)
                };
                match outcome {
                    Ok(()) => t.passed += 1,
                    Err(e) => t.failed.push(format!("{key}: {e}")),
                }
            }
        }
    }
    for s in &t.skipped {
        println!("skipped {s}");
    }
    for f in &t.failed {
        println!("FAILED {f}");
    }
    println!(
        "{} passed, {} failed, {} skipped",
        t.passed,
        t.failed.len(),
        t.skipped.len()
    );
    assert!(
        t.failed.is_empty(),
        "{} Kubernetes library records failed",
        t.failed.len()
    );
    assert!(expected > 0, "no Kubernetes library records");
    assert_eq!(
        t.passed + t.failed.len() + t.skipped.len(),
        expected,
        "ran fewer checks than the tables hold"
    );
}
