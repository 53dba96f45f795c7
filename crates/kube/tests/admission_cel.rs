//! Data-driven test of the admission CEL environment and evaluation against Kubernetes' own
//! test tables of `k8s.io/apiserver/pkg/admission/plugin/cel`, extracted with provenance into
//! `tests/data/admission/` by the generators beside the data:
//!
//! * `condition.json` (`gen_condition.py`): `condition_test.go` — `TestCompile` (compilation
//!   results), `TestCondition` (results and error texts of expressions over `object`,
//!   `oldObject`, `params`, `request`, `namespaceObject`, by compatibility version and
//!   environment type, with a per-call limit), `TestRuntimeCELCostBudget` (remaining budgets,
//!   budget exhaustion, per-call limit) and `TestCompilationErrors`;
//! * `composition.json` (`gen_composition.py`): `composition_test.go` —
//!   `TestCompositedPolicies` (variables: lazy, evaluated once, error texts, costs) and
//!   `TestCompilerIsolation`.
//!
//! Each record is checked as its Go test checks it (`strings.Contains` where the Go test uses
//! it). One trial per record, named `<test>/<case>`; skipped records are listed with their
//! reason in `tests/admission_cel.skip`. The run ends with one line
//! `N passed, N failed, N skipped`, and fails when fewer trials ran than the data holds.

#[path = "common/table_runner.rs"]
mod table_runner;

use std::process::ExitCode;
use std::sync::Arc;

use cel::Value as CelValue;
use kcel_kube::KubeVersion;
use kcel_kube::admission::environment::{Compiler, Optional, ReturnTypes};
use kcel_kube::admission::evaluate::{
    Bindings, Expression, Outcome, Variable, for_input_with_limit,
};
use kcel_kube::admission::request::{
    Attributes, GroupVersionKind, GroupVersionResource, Operation, UserInfo, namespace_json,
    request_json,
};
use kcel_kube::rules::EnvKind;
use kcel_kube::rules::env::{PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET};
use libtest_mimic::Trial;
use serde_json::Value;
use table_runner::{is_skipped, run_tables, skip_patterns};

/// The data files, embedded so the test needs nothing outside the repository.
const DATA: [(&str, &str); 2] = [
    (
        "condition.json",
        include_str!("data/admission/condition.json"),
    ),
    (
        "composition.json",
        include_str!("data/admission/composition.json"),
    ),
];

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_string()
}

/// The Kubernetes release and view whose environment is the Go test's
/// `MustBaseEnvSet(compatibilityVersion)` in `envType`'s view. The test's apiserver is the
/// newest release; a compatibility version `1.N` of new expressions is release `1.N+1`'s
/// (whose minimum compatibility version is one minor below); stored expressions see every
/// option of the binary whatever the compatibility version.
fn environment(r: &Value) -> Result<(KubeVersion, EnvKind), String> {
    if r["envType"] == "StoredExpressions" {
        return Ok((KubeVersion::NEWEST, EnvKind::StoredExpressions));
    }
    let version = match r["compatibilityVersion"].as_str() {
        None => KubeVersion::NEWEST,
        Some(v) => {
            let minor: u32 = v
                .strip_prefix("1.")
                .and_then(|m| m.parse().ok())
                .ok_or(format!("compatibility version {v:?}"))?;
            KubeVersion::new(minor + 1).ok_or(format!("no release for compatibility {v}"))?
        }
    };
    Ok((version, EnvKind::NewExpressions))
}

fn attributes(a: &Value) -> Result<Attributes, String> {
    let operation = match a["operation"].as_str() {
        Some("CREATE") => Operation::Create,
        Some("UPDATE") => Operation::Update,
        Some("DELETE") => Operation::Delete,
        other => return Err(format!("operation {other:?}")),
    };
    let object = |k: &str| Some(a[k].clone()).filter(|v| !v.is_null());
    Ok(Attributes {
        kind: GroupVersionKind {
            group: text(&a["kind"], "group"),
            version: text(&a["kind"], "version"),
            kind: text(&a["kind"], "kind"),
        },
        resource: GroupVersionResource {
            group: text(&a["resource"], "group"),
            version: text(&a["resource"], "version"),
            resource: text(&a["resource"], "resource"),
        },
        subresource: text(a, "subresource"),
        name: text(a, "name"),
        namespace: text(a, "namespace"),
        operation,
        object: object("object"),
        old_object: object("oldObject"),
        user: UserInfo::default(),
        dry_run: false,
    })
}

/// The activation's values (`newActivation`): the request as `CreateAdmissionRequest` builds it
/// for an unconverted request (its own kind and resource), the namespace as
/// `CreateNamespaceObject` copies it.
fn bindings(r: &Value) -> Result<Bindings, String> {
    let attr = attributes(&r["attributes"])?;
    let json_or_null = |v: Option<&Value>| v.map_or(CelValue::Null, CelValue::from_json);
    let namespace = Some(&r["namespaceObject"]).filter(|v| !v.is_null());
    Ok(Bindings {
        object: json_or_null(attr.object.as_ref()),
        old_object: json_or_null(attr.old_object.as_ref()),
        request: CelValue::from_json(&request_json(&attr, &attr.resource, &attr.kind)),
        namespace: json_or_null(namespace.map(namespace_json).as_ref()),
        params: json_or_null(Some(&r["params"]).filter(|v| !v.is_null())),
    })
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

fn optional(r: &Value) -> Optional {
    Optional {
        params: r["hasParams"].as_bool().unwrap_or(false),
        authorizer: r["hasAuthorizer"].as_bool().unwrap_or(false),
    }
}

/// `CompileCondition` with a stateless compiler (`NewConditionCompiler`: no `variables`).
fn compile_condition(r: &Value) -> Result<Vec<Option<Expression>>, String> {
    let (version, kind) = environment(r)?;
    let compiler = Compiler::stateless(version, kind);
    Ok(strings(&r["expressions"])
        .into_iter()
        .map(|text| {
            let compiled = compiler.compile(&text, ReturnTypes::Bool, optional(r));
            Some(Expression { text, compiled })
        })
        .collect())
}

/// `TestCompile`: expressions named in `compileErrors` fail with a text containing the given
/// one; the others compile.
fn run_compile(r: &Value) -> Result<(), String> {
    for e in compile_condition(r)?.into_iter().flatten() {
        match (&e.compiled, r["compileErrors"][&e.text].as_str()) {
            (Ok(_), None) => {}
            (Ok(_), Some(want)) => return Err(format!("{:?} compiled, want {want:?}", e.text)),
            (Err(err), None) => return Err(format!("{:?}: unexpected error {err}", e.text)),
            (Err(err), Some(want)) if err.to_string().contains(want) => {}
            (Err(err), Some(want)) => {
                return Err(format!("{:?}: error {err} lacks {want:?}", e.text));
            }
        }
    }
    Ok(())
}

/// One result against `{"value": bool}` (every expected value of these tables is a bool) or `{"error": substring}`.
fn check_outcome(i: usize, got: &Outcome, want: &Value) -> Result<(), String> {
    match (got, want.get("error").and_then(Value::as_str)) {
        (Outcome::Error(e), Some(w)) if e.to_string().contains(w) => Ok(()),
        (Outcome::Error(e), Some(w)) => Err(format!("result {i}: error {e} lacks {w:?}")),
        (got, Some(w)) => Err(format!("result {i}: {got:?}, want an error with {w:?}")),
        (Outcome::Value(CelValue::Bool(b)), None) if want["value"].as_bool() == Some(*b) => Ok(()),
        (got, None) => Err(format!("result {i}: {got:?}, want {}", want["value"])),
    }
}

/// Budget and per-call limit of a record, the Go test's defaults when absent.
fn limits(r: &Value) -> (i64, u64) {
    (
        r["budget"].as_i64().unwrap_or(RUNTIME_CEL_COST_BUDGET),
        r["perCallLimit"].as_u64().unwrap_or(PER_CALL_LIMIT),
    )
}

/// `TestCondition`: every result as expected, no list error.
fn run_condition(r: &Value) -> Result<(), String> {
    let expressions = compile_condition(r)?;
    let (budget, per_call) = limits(r);
    let (outcomes, _) = for_input_with_limit(
        &expressions,
        &Arc::from([]),
        &bindings(r)?,
        budget,
        per_call,
    )
    .map_err(|e| format!("unexpected error: {e}"))?;
    let want = r["results"].as_array().ok_or("no results")?;
    if outcomes.len() != want.len() {
        return Err(format!("{} results, want {}", outcomes.len(), want.len()));
    }
    for (i, (got, want)) in outcomes.iter().zip(want).enumerate() {
        check_outcome(i, got, want)?;
    }
    Ok(())
}

/// `TestRuntimeCELCostBudget`: the list error when the budget runs out (and then no results,
/// remaining -1), the per-call limit error in some result, the remaining budget.
fn run_budget(r: &Value) -> Result<(), String> {
    const PER_CALL_ERROR: &str = "operation cancelled: actual cost limit exceeded";
    let expressions = compile_condition(r)?;
    let (budget, per_call) = limits(r);
    let result = for_input_with_limit(
        &expressions,
        &Arc::from([]),
        &bindings(r)?,
        budget,
        per_call,
    );
    let exceed = r["exceedBudget"].as_bool().unwrap_or(false);
    let (outcomes, remaining) = match result {
        Err(e)
            if exceed
                && e.to_string()
                    .contains(kcel_kube::admission::evaluate::OUT_OF_BUDGET) =>
        {
            (Vec::new(), -1)
        }
        Err(e) => return Err(format!("unexpected error: {e}")),
        Ok(_) if exceed => return Err("budget not exceeded".into()),
        Ok(ok) => ok,
    };
    if r["exceedPerCallLimit"] == true
        && !outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Error(e) if e.to_string().contains(PER_CALL_ERROR)))
    {
        return Err(format!("no per-call limit error: {outcomes:?}"));
    }
    match r["remaining"].as_i64() {
        Some(want) if want != remaining => Err(format!("remaining {remaining}, want {want}")),
        _ => Ok(()),
    }
}

/// `NewCompositedCompiler` with `variables` compiled and stored in order.
fn composited(
    version: KubeVersion,
    kind: EnvKind,
    variables: &Value,
) -> (Compiler, Arc<[Variable]>) {
    let mut compiler = Compiler::new(version, kind);
    let none = Optional {
        params: false,
        authorizer: false,
    };
    let compiled = variables
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| {
            let name = text(v, "name");
            let compiled = compiler.compile_variable(&name, &text(v, "expression"), none);
            Variable { name, compiled }
        })
        .collect();
    (compiler, compiled)
}

/// `TestCompositedPolicies`: the list error, else the first result's error or value.
fn run_composited(r: &Value) -> Result<(), String> {
    let (compiler, variables) = composited(
        KubeVersion::NEWEST,
        EnvKind::NewExpressions,
        &r["variables"],
    );
    let text = text(r, "expression");
    let compiled = compiler.compile(&text, ReturnTypes::Bool, optional(r));
    let expressions = [Some(Expression { text, compiled })];
    let (budget, per_call) = limits(r);
    let outcome =
        match for_input_with_limit(&expressions, &variables, &bindings(r)?, budget, per_call) {
            Err(e) => {
                return match r["error"].as_str() {
                    Some(w) if e.to_string().contains(w) => Ok(()),
                    _ => Err(format!("unexpected list error: {e}")),
                };
            }
            Ok((mut outcomes, _)) if !outcomes.is_empty() => outcomes.swap_remove(0),
            Ok(_) => return Err("no result".into()),
        };
    check_outcome(0, &outcome, r)
}

/// `TestCompilerIsolation`: each compiler's `variables` has its own fields only.
fn run_isolation(r: &Value) -> Result<(), String> {
    let (version, kind) = environment(r)?;
    let any = Optional {
        params: false,
        authorizer: false,
    };
    for c in r["compilers"].as_array().ok_or("no compilers")? {
        let (compiler, _) = composited(version, kind, &c["variables"]);
        for field in strings(&c["has"]) {
            compiler
                .compile(&format!("variables.{field}"), ReturnTypes::Any, any)
                .map_err(|e| format!("variables.{field}: {e}"))?;
        }
        for field in strings(&c["lacks"]) {
            match compiler.compile(&format!("variables.{field}"), ReturnTypes::Any, any) {
                Err(e)
                    if e.to_string()
                        .contains(&format!("undefined field '{field}'")) => {}
                other => return Err(format!("variables.{field}: {other:?}")),
            }
        }
    }
    Ok(())
}

fn run(r: &Value) -> Result<(), String> {
    if r.get("authorizer").is_some() {
        return Err("the fake authorizer cannot be bound".into());
    }
    match r["mode"].as_str() {
        Some("compile") => run_compile(r),
        Some("condition") => run_condition(r),
        Some("budget") => run_budget(r),
        Some("composited") => run_composited(r),
        Some("isolation") => run_isolation(r),
        Some("compilationErrors") => Err("hand-built CompilationResults have no input".into()),
        other => Err(format!("unknown mode {other:?}")),
    }
}

fn trials() -> Result<(Vec<Trial>, usize), String> {
    let skips = skip_patterns(include_str!("admission_cel.skip"));
    let mut out = Vec::new();
    let mut records = 0;
    for (file, text) in DATA {
        let doc: Value = serde_json::from_str(text).map_err(|e| format!("{file}: {e}"))?;
        for r in doc["records"]
            .as_array()
            .ok_or(format!("{file}: no records"))?
        {
            records += 1;
            let p = &r["provenance"];
            let name = format!(
                "{}/{}",
                p["test"].as_str().unwrap_or("?"),
                p["case"].as_str().unwrap_or("?")
            );
            let skip = is_skipped(&skips, &name);
            let r = r.clone();
            out.push(
                Trial::test(name, move || run(&r).map_err(Into::into)).with_ignored_flag(skip),
            );
        }
    }
    Ok((out, records))
}

fn main() -> ExitCode {
    run_tables("admission CEL tables", trials())
}
