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
//! Each record is checked twice: as its Go test checks it (`strings.Contains` where the Go test
//! uses it), in the newest release, whose apiserver the tables come from; and byte-exact against
//! the real Kubernetes 1.35 code's answer in release 1.35 (`cel.server.json`, recorded by
//! `tests/gen/admission_cel`: every result's value or full error text, the remaining budget, the
//! list's error). One trial per record, named `<test>/<case>`; skipped records are listed with their
//! reason in `tests/admission_cel.skip`. The run ends with one line
//! `N passed, N failed, N skipped`, and fails when fewer trials ran than the data holds.

#[path = "common/table_runner.rs"]
mod table_runner;

use std::process::ExitCode;
use std::sync::Arc;

use cel::Value as CelValue;
use kcel_kube::KubeVersion;
use kcel_kube::admission::authorizer::AuthorizerValues;
use kcel_kube::admission::environment::{Compiler, Optional, ReturnTypes};
use kcel_kube::admission::evaluate::{
    Bindings, Expression, OUT_OF_BUDGET, OutOfBudget, Outcome, Variable, for_input_with_limit,
};
use kcel_kube::admission::request::{
    Attributes, GroupVersionKind, GroupVersionResource, Operation, UserInfo, namespace_json,
    request_json,
};
use kcel_kube::library::authz::{
    Attributes as AuthzAttributes, Authorizer, Decision, Target as AuthzTarget, Verdict,
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
/// `MustBaseEnvSet(compatibilityVersion)` in `envType`'s view, in the apiserver of release
/// `binary`: its default compatibility version is its minimum one (one minor below, which is
/// `binary`'s new-expressions view); a compatibility version `1.N` of new expressions is release
/// `1.N+1`'s; stored expressions see every option of the binary whatever the compatibility
/// version.
fn environment(r: &Value, binary: KubeVersion) -> Result<(KubeVersion, EnvKind), String> {
    if r["envType"] == "StoredExpressions" {
        return Ok((binary, EnvKind::StoredExpressions));
    }
    let version = match r["compatibilityVersion"].as_str() {
        None => binary,
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
    let authorizer = match r.get("authorizer") {
        Some(a) if !a.is_null() => {
            let fake: Arc<dyn Authorizer> = Arc::new(FakeAuthorizer::new(a)?);
            Some(AuthorizerValues::new(&fake, &attr))
        }
        _ => None,
    };
    let json_or_null = |v: Option<&Value>| v.map_or(CelValue::Null, CelValue::from_json);
    let namespace = Some(&r["namespaceObject"]).filter(|v| !v.is_null());
    Ok(Bindings {
        object: json_or_null(attr.object.as_ref()),
        old_object: json_or_null(attr.old_object.as_ref()),
        request: CelValue::from_json(&request_json(&attr, &attr.resource, &attr.kind)),
        namespace: json_or_null(namespace.map(namespace_json).as_ref()),
        params: json_or_null(Some(&r["params"]).filter(|v| !v.is_null())),
        authorizer,
    })
}

/// The Go test's `fakeAuthorizer`: `allowMatch` allows exactly one `AttributesRecord`
/// (`reflect.DeepEqual`, every field, absent ones zero) and denies the rest; `denyAll` and
/// `errorAll` answer every check alike.
#[derive(Debug)]
struct FakeAuthorizer {
    /// The record `allowMatch` allows.
    matches: Option<Value>,
    /// The answer to every other check.
    default: Verdict,
}

impl FakeAuthorizer {
    fn new(a: &Value) -> Result<FakeAuthorizer, String> {
        let decision = |d: &Value| match d.as_str() {
            Some("Deny") => Ok(Decision::Deny),
            Some("Allow") => Ok(Decision::Allow),
            Some("NoOpinion") => Ok(Decision::NoOpinion),
            other => Err(format!("decision {other:?}")),
        };
        match a["kind"].as_str() {
            Some("allowMatch") => Ok(FakeAuthorizer {
                matches: Some(a["match"].clone()),
                default: Verdict {
                    decision: Decision::Deny,
                    ..Verdict::default()
                },
            }),
            Some("denyAll" | "errorAll") => Ok(FakeAuthorizer {
                matches: None,
                default: Verdict {
                    decision: decision(&a["decision"])?,
                    reason: text(a, "reason"),
                    error: a["error"].as_str().map(str::to_string),
                },
            }),
            other => Err(format!("fake authorizer {other:?}")),
        }
    }
}

/// The check as the `AttributesRecord` `authz.go` builds, in the Go test's JSON field names.
fn attributes_record(a: &AuthzAttributes<'_>) -> Value {
    let mut record = serde_json::Map::new();
    let mut put = |k: &str, v: Value| {
        let zero = v.is_null() || v == "" || v == false || v == Value::Array(Vec::new());
        if !zero {
            record.insert(k.to_string(), v);
        }
    };
    let user = a.user;
    if !(user.username.is_empty() && user.groups.is_empty()) {
        put(
            "User",
            serde_json::json!({"Name": user.username, "Groups": user.groups}),
        );
    }
    put("Verb", a.verb.into());
    match a.target {
        AuthzTarget::Path(p) => put("Path", p.into()),
        AuthzTarget::Resource {
            group,
            resource,
            subresource,
            namespace,
            name,
            ..
        } => {
            put("ResourceRequest", true.into());
            put("APIGroup", group.into());
            put("APIVersion", "*".into());
            put("Resource", resource.into());
            put("Subresource", subresource.into());
            put("Namespace", namespace.into());
            put("Name", name.into());
        }
    }
    Value::Object(record)
}

impl Authorizer for FakeAuthorizer {
    fn authorize(&self, attributes: &AuthzAttributes<'_>) -> Verdict {
        let allowed = self.matches.as_ref().is_some_and(|m| {
            let mut m = m.clone();
            // Zero fields are left out of both sides.
            if let Value::Object(o) = &mut m {
                o.retain(|_, v| !(v.is_null() || *v == "" || *v == false));
            }
            m == attributes_record(attributes)
        });
        if allowed {
            Verdict {
                decision: Decision::Allow,
                ..Verdict::default()
            }
        } else {
            self.default.clone()
        }
    }
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
        patch_types: false,
    }
}

/// `CompileCondition` with a stateless compiler (`NewConditionCompiler`: no `variables`).
fn compile_condition(r: &Value, binary: KubeVersion) -> Result<Vec<Option<Expression>>, String> {
    let (version, kind) = environment(r, binary)?;
    let compiler = Compiler::stateless(version, kind);
    Ok(strings(&r["expressions"])
        .into_iter()
        .map(|text| {
            let compiled = compiler.compile(&text, ReturnTypes::Bool, optional(r));
            Some(Expression { text, compiled })
        })
        .collect())
}

/// `NewCompositedCompiler` with `variables` compiled and stored in order.
fn composited(
    version: KubeVersion,
    kind: EnvKind,
    variables: &Value,
) -> (Compiler, Arc<[Variable]>) {
    let mut compiler = Compiler::new(version, kind);
    let compiled = variables
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| {
            let name = text(v, "name");
            let compiled = compiler.compile_variable(&name, &text(v, "expression"), NONE);
            Variable { name, compiled }
        })
        .collect();
    (compiler, compiled)
}

/// No `params`, no `authorizer`.
const NONE: Optional = Optional {
    params: false,
    authorizer: false,
    patch_types: false,
};

/// What kcel answers for a record in the apiserver of release `binary`.
enum Answer {
    /// `TestCompile`: each expression's compilation error text.
    Compiled(Vec<(String, Option<String>)>),
    /// The other tests: `ForInput`'s results and remaining budget, or its error.
    Evaluated(Result<(Vec<Outcome>, i64), OutOfBudget>),
}

fn answer(r: &Value, binary: KubeVersion) -> Result<Answer, String> {
    let expressions = match r["mode"].as_str() {
        Some("compile") => {
            return Ok(Answer::Compiled(
                compile_condition(r, binary)?
                    .into_iter()
                    .flatten()
                    .map(|e| (e.text, e.compiled.err().map(|e| e.to_string())))
                    .collect(),
            ));
        }
        Some("condition" | "budget") => (compile_condition(r, binary)?, Arc::from([])),
        Some("composited") => {
            let (compiler, variables) =
                composited(binary, EnvKind::NewExpressions, &r["variables"]);
            let text = text(r, "expression");
            let compiled = compiler.compile(&text, ReturnTypes::Bool, optional(r));
            (vec![Some(Expression { text, compiled })], variables)
        }
        other => return Err(format!("no answer for mode {other:?}")),
    };
    let budget = r["budget"].as_i64().unwrap_or(RUNTIME_CEL_COST_BUDGET);
    let per_call = r["perCallLimit"].as_u64().unwrap_or(PER_CALL_LIMIT);
    let (expressions, variables) = expressions;
    Ok(Answer::Evaluated(for_input_with_limit(
        &expressions,
        &variables,
        &bindings(r)?,
        budget,
        per_call,
    )))
}

/// One result against `{"value": bool}` (every expected value of these tables is a bool) or
/// `{"error": text}`: the text contained in the error, or equal to it when `exact`.
fn check_outcome(i: usize, got: &Outcome, want: &Value, exact: bool) -> Result<(), String> {
    match (got, want.get("error").and_then(Value::as_str)) {
        (Outcome::Error(e), Some(w)) if exact && e.to_string() == w => Ok(()),
        (Outcome::Error(e), Some(w)) if !exact && e.to_string().contains(w) => Ok(()),
        (Outcome::Error(e), Some(w)) => {
            Err(format!("result {i}: error {:?}, want {w:?}", e.to_string()))
        }
        (got, Some(w)) => Err(format!("result {i}: {got:?}, want an error {w:?}")),
        (Outcome::Value(CelValue::Bool(b)), None) if want["value"].as_bool() == Some(*b) => Ok(()),
        (got, None) => Err(format!("result {i}: {got:?}, want {}", want["value"])),
    }
}

/// The Go test's assertions on kcel's answer in the newest release.
fn check_go_test(r: &Value, answer: Answer) -> Result<(), String> {
    const PER_CALL_ERROR: &str = "operation cancelled: actual cost limit exceeded";
    let evaluated = match answer {
        // TestCompile: the expressions named in `compileErrors` fail with a text containing the
        // given one; the others compile.
        Answer::Compiled(errors) => {
            for (e, got) in errors {
                match (got, r["compileErrors"][&e].as_str()) {
                    (None, None) => {}
                    (Some(g), Some(w)) if g.contains(w) => {}
                    (got, want) => return Err(format!("{e:?}: error {got:?}, want {want:?}")),
                }
            }
            return Ok(());
        }
        Answer::Evaluated(evaluated) => evaluated,
    };
    match r["mode"].as_str() {
        // TestCondition: no list error, every result as expected.
        Some("condition") => {
            let (outcomes, _) = evaluated.map_err(|e| format!("unexpected error: {e}"))?;
            let want = r["results"].as_array().ok_or("no results")?;
            if outcomes.len() != want.len() {
                return Err(format!("{} results, want {}", outcomes.len(), want.len()));
            }
            for (i, (got, want)) in outcomes.iter().zip(want).enumerate() {
                check_outcome(i, got, want, false)?;
            }
            Ok(())
        }
        // TestRuntimeCELCostBudget: the budget error when it runs out (no results, remaining
        // -1), the per-call limit error in some result, the remaining budget.
        Some("budget") => {
            let exceed = r["exceedBudget"].as_bool().unwrap_or(false);
            let (outcomes, remaining) = match evaluated {
                Err(e) if exceed && e.to_string().contains(OUT_OF_BUDGET) => (Vec::new(), -1),
                Err(e) => return Err(format!("unexpected error: {e}")),
                Ok(_) if exceed => return Err("budget not exceeded".into()),
                Ok(ok) => ok,
            };
            let per_call_error = |o: &Outcome| matches!(o, Outcome::Error(e) if e.to_string().contains(PER_CALL_ERROR));
            if r["exceedPerCallLimit"] == true && !outcomes.iter().any(per_call_error) {
                return Err(format!("no per-call limit error: {outcomes:?}"));
            }
            match r["remaining"].as_i64() {
                Some(want) if want != remaining => {
                    Err(format!("remaining {remaining}, want {want}"))
                }
                _ => Ok(()),
            }
        }
        // TestCompositedPolicies: the list error, else the first result's error or value.
        _ => match evaluated {
            Err(e) => match r["error"].as_str() {
                Some(w) if e.to_string().contains(w) => Ok(()),
                _ => Err(format!("unexpected list error: {e}")),
            },
            Ok((outcomes, _)) => check_outcome(0, outcomes.first().ok_or("no result")?, r, false),
        },
    }
}

/// kcel's answer in release 1.35 against the real 1.35 code's (`cel.server.json`, recorded by
/// `tests/gen/admission_cel`): every text byte-exact, the remaining budget equal.
fn check_server(answer: Answer, want: &Value) -> Result<(), String> {
    let evaluated = match answer {
        Answer::Compiled(errors) => {
            let want = want["compileErrors"].as_array().ok_or("no compileErrors")?;
            if errors.len() != want.len() {
                return Err(format!(
                    "1.35: {} expressions, server {}",
                    errors.len(),
                    want.len()
                ));
            }
            for ((e, got), want) in errors.iter().zip(want) {
                if got.as_deref() != want.as_str() {
                    return Err(format!("1.35: {e:?}: error {got:?}, server {want}"));
                }
            }
            return Ok(());
        }
        Answer::Evaluated(evaluated) => evaluated,
    };
    let (outcomes, remaining) = match (evaluated, want["error"].as_str()) {
        (Err(e), Some(w)) if e.to_string() == w => return Ok(()),
        (Err(e), w) => return Err(format!("1.35: list error {e}, server {w:?}")),
        (Ok(_), Some(w)) => return Err(format!("1.35: no list error, server {w:?}")),
        (Ok(ok), None) => ok,
    };
    let results = want["results"].as_array().map_or(&[][..], Vec::as_slice);
    if outcomes.len() != results.len() {
        return Err(format!(
            "1.35: {} results, server {}",
            outcomes.len(),
            results.len()
        ));
    }
    for (i, (got, want)) in outcomes.iter().zip(results).enumerate() {
        check_outcome(i, got, want, true).map_err(|e| format!("1.35: {e}"))?;
    }
    match want["remaining"].as_i64() {
        Some(w) if w == remaining => Ok(()),
        w => Err(format!("1.35: remaining {remaining}, server {w:?}")),
    }
}

/// `TestCompilerIsolation`: each compiler's `variables` has its own fields only.
fn run_isolation(r: &Value) -> Result<(), String> {
    let (version, kind) = environment(r, KubeVersion::NEWEST)?;
    for c in r["compilers"].as_array().ok_or("no compilers")? {
        let (compiler, _) = composited(version, kind, &c["variables"]);
        for field in strings(&c["has"]) {
            compiler
                .compile(&format!("variables.{field}"), ReturnTypes::Any, NONE)
                .map_err(|e| format!("variables.{field}: {e}"))?;
        }
        for field in strings(&c["lacks"]) {
            match compiler.compile(&format!("variables.{field}"), ReturnTypes::Any, NONE) {
                Err(e)
                    if e.to_string()
                        .contains(&format!("undefined field '{field}'")) => {}
                other => return Err(format!("variables.{field}: {other:?}")),
            }
        }
    }
    Ok(())
}

/// The release whose real code recorded `cel.server.json`.
const SERVER_RELEASE: u32 = 35;

fn run(r: &Value, server: &Value) -> Result<(), String> {
    match r["mode"].as_str() {
        Some("isolation") => return run_isolation(r),
        Some("compilationErrors") => {
            return Err("hand-built CompilationResults have no input".into());
        }
        _ => {}
    }
    check_go_test(r, answer(r, KubeVersion::NEWEST)?)?;
    let release = KubeVersion::new(SERVER_RELEASE).ok_or("no release 1.35")?;
    check_server(answer(r, release)?, server)
}

fn trials() -> Result<(Vec<Trial>, usize), String> {
    let skips = skip_patterns(include_str!("admission_cel.skip"));
    let server: Value = serde_json::from_str(include_str!("data/admission/cel.server.json"))
        .map_err(|e| format!("cel.server.json: {e}"))?;
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
            let (r, server) = (r.clone(), server[&name].clone());
            out.push(
                Trial::test(name, move || run(&r, &server).map_err(Into::into))
                    .with_ignored_flag(skip),
            );
        }
    }
    Ok((out, records))
}

fn main() -> ExitCode {
    run_tables("admission CEL tables", trials())
}
