//! Estimated costs against the plain-CEL part of Kubernetes' library cost
//! tables (`apiserver/pkg/cel/library/cost_test.go`, extracted to
//! `../shared/k8s-cases/tables/`): ext.Sets, two-variable comprehensions and
//! the ext.Strings records of `TestStringLibrary` that cel-go prices itself.
//!
//! Each record is an expression with the estimated {min, max} cel-go computed
//! in Kubernetes' test environment: the standard library, ext.Strings v2,
//! ext.Sets, optionals and two-variable comprehensions; presence tests cost 0;
//! the size estimator answers {0, 12} for every string- or bytes-typed node of
//! unknown size. The tables of Kubernetes' own libraries, and the
//! `TestStringLibrary` records calling functions Kubernetes' `CostEstimator`
//! prices by name ([`KUBERNETES_PRICED`]), are estimated with that estimator
//! by kcel-kube's `k8s_libraries` test (this crate cannot depend on it).
//! Records skipped on purpose are listed in `cost_estimate.skip`.
//!
//! The runner prints one closing line `N passed, N failed, N skipped`.

mod common;

use std::collections::HashMap;
use std::path::Path;

use cel::cost::{
    self, AstNode, CostEstimate, EstimateOptions, Hooks, NoEstimates, SizeEstimate, SizeEstimator,
};
use cel::library::Std;
use cel::library::ext::{Optionals, Sets, Strings};
use cel::syntax::macros;
use cel::{Env, Function, Overload, Type};
use serde_json::Value as Json;

/// The tables of `cost_test.go` whose functions cel-go prices.
const TABLES: [&str; 3] = [
    "TestStringLibrary",
    "TestSetsCost",
    "TestTwoVariableComprehensionCost",
];

/// Functions Kubernetes' `CostEstimator` prices by name (`library/cost.go`),
/// ext.Strings ones included: records calling them belong to kcel-kube's
/// `k8s_libraries` test.
const KUBERNETES_PRICED: [&str; 10] = [
    "lowerAscii",
    "upperAscii",
    "replace",
    "split",
    "substring",
    "trim",
    "join",
    "find",
    "findAll",
    "jsonpatch.escapeKey",
];

/// Whether `expr` calls a function of [`KUBERNETES_PRICED`] (a textual test
/// on `name(`: every such call in the tables is written that way).
fn kubernetes_priced(expr: &str) -> bool {
    KUBERNETES_PRICED
        .iter()
        .any(|f| expr.contains(&format!(".{f}(")) || expr.starts_with(&format!("{f}(")))
}

/// Kubernetes' test size estimator: {0, 12} for strings and bytes.
struct TwelveBytes;

impl SizeEstimator for TwelveBytes {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        matches!(node.ty(), Type::String | Type::Bytes).then_some(SizeEstimate::new(0, 12))
    }
}

/// The plain-CEL part of Kubernetes' test environment: the standard macros
/// and library, ext.Strings v2, ext.Sets (with its estimators), optionals and
/// the two-variable comprehension macros with the declarations of the
/// `cel.@mapInsert` helper they expand to (checking is all the estimate needs).
fn library_env() -> Env {
    let mut builder = Env::builder();
    for m in macros::standard()
        .into_iter()
        .chain(macros::optional())
        .chain(macros::two_var_comprehensions())
    {
        builder.add_macro(m);
    }
    builder = builder
        .library(Std)
        .library(Strings::version(2))
        .library(Sets)
        .library(Optionals::default());
    let (k, v) = (Type::param("K"), Type::param("V"));
    let map = Type::map(k.clone(), v.clone());
    builder.add_function(
        Function::new("cel.@mapInsert")
            .overload(Overload::global(
                "@mapInsert_map_key_value",
                vec![map.clone(), k, v],
                map.clone(),
                None,
            ))
            .overload(Overload::global(
                "@mapInsert_map_map",
                vec![map.clone(), map.clone()],
                map,
                None,
            )),
    );
    cel::internals::cost::install_sets_estimators(&mut builder);
    builder.build()
}

/// `<test>/<name>` (or `<test>/*`) → reason.
fn read_skip_file() -> Result<HashMap<String, String>, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cost_estimate.skip");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut skips = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, reason) = line
            .split_once(": ")
            .ok_or_else(|| format!("cost_estimate.skip:{}: expected `key: reason`", i + 1))?;
        skips.insert(key.to_string(), reason.to_string());
    }
    Ok(skips)
}

struct Record {
    test: String,
    /// The record's name, or its expression when it has none.
    name: String,
    expr: String,
    expected: CostEstimate,
}

fn read_records(dir: &Path) -> Result<Vec<Record>, String> {
    let mut out = Vec::new();
    for table in TABLES {
        let path = dir.join(format!("{table}.json"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let json: Json =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let records = json["records"]
            .as_array()
            .ok_or_else(|| format!("{}: no records", path.display()))?;
        for r in records {
            let field = |k: &str| {
                r[k].as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{}: record without {k}", path.display()))
            };
            let bound = |k: &str| {
                r["estimatedCost"][k]
                    .as_u64()
                    .ok_or_else(|| format!("{}: record without estimatedCost.{k}", path.display()))
            };
            let expr = field("expr")?;
            out.push(Record {
                test: table.to_string(),
                // Some tables have no names: the expression names the record.
                name: field("name").unwrap_or_else(|_| expr.clone()),
                expr,
                expected: CostEstimate::new(bound("min")?, bound("max")?),
            });
        }
    }
    Ok(out)
}

/// The estimate of `expr`, or why there is none.
fn estimate(env: &Env, expr: &str) -> Result<CostEstimate, String> {
    let ast = env.parse(expr).map_err(|e| format!("parse: {e}"))?;
    let checked = env.check(&ast).map_err(|e| format!("check: {e}"))?;
    let options = EstimateOptions {
        presence_test_cost: 0,
        ..EstimateOptions::default()
    };
    let hooks = Hooks {
        size: &TwelveBytes,
        calls: &NoEstimates,
    };
    cost::estimate(&checked, env, &options, hooks).map_err(|e| e.to_string())
}

#[test]
fn library_cost_tables() {
    let dir = match common::shared::require("k8s-cases/tables", "Kubernetes test tables") {
        Ok(Some(dir)) => dir,
        Ok(None) => return,
        Err(e) => panic!("{e}"),
    };
    let skips = read_skip_file().unwrap();
    let records = read_records(&dir).unwrap();

    // Every skip entry must name records that exist.
    for key in skips.keys() {
        let known = match key.strip_suffix("/*") {
            Some(table) => TABLES.contains(&table),
            None => records
                .iter()
                .any(|r| &format!("{}/{}", r.test, r.name) == key),
        };
        assert!(known, "cost_estimate.skip: no record matches {key:?}");
    }

    let env = library_env();
    // The estimator needs the parser and the checker; until both are
    // available the records cannot run (a failure under CI).
    if let Err(e) = env.parse("1").map(|ast| env.check(&ast)) {
        let msg = format!("parser not available: {e}");
        eprintln!(
            "NOTICE: {msg}; 0 passed, 0 failed, {} skipped",
            records.len()
        );
        assert!(!common::shared::in_ci(), "CI: {msg}");
        return;
    }

    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut priced_elsewhere = 0;
    for r in &records {
        let key = format!("{}/{}", r.test, r.name);
        let table_key = format!("{}/*", r.test);
        if skips.contains_key(&key) || skips.contains_key(&table_key) {
            skipped += 1;
            continue;
        }
        if kubernetes_priced(&r.expr) {
            priced_elsewhere += 1;
            skipped += 1;
            continue;
        }
        match estimate(&env, &r.expr) {
            Ok(got) if got == r.expected => passed += 1,
            Ok(got) => {
                failed += 1;
                eprintln!(
                    "FAIL {key}: `{}`: estimated {{{}, {}}}, expected {{{}, {}}}",
                    r.expr, got.min, got.max, r.expected.min, r.expected.max
                );
            }
            Err(e) => {
                failed += 1;
                eprintln!("FAIL {key}: `{}`: {e}", r.expr);
            }
        }
    }
    println!(
        "{priced_elsewhere} records call a function Kubernetes' CostEstimator prices \
         (KUBERNETES_PRICED): skipped here, estimated by kcel-kube's k8s_libraries test"
    );
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(failed, 0, "{failed} estimates differ from cel-go's");
    assert!(!records.is_empty(), "no cost records");
    assert_eq!(
        passed + failed + skipped,
        records.len(),
        "ran fewer records than the data holds"
    );
}
