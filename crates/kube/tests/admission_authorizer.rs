//! The `authorizer` variable of admission policies: the cases of
//! `tests/data/admission/authorizer.yaml` (k8s.io/apiserver's `TestAuthzLibrary` runtime costs
//! and kcel's cases of `authz.go`'s decision semantics and errors under an `--authz` rules
//! file), each compiled as the validating plugin compiles a validation and evaluated with
//! `authorizer` and `authorizer.requestResource` bound. The run ends with
//! `N passed, N failed, N skipped` and fails when it ran fewer cases than the data holds.

mod common;

use std::process::ExitCode;
use std::sync::Arc;

use kcel_kube::KubeVersion;
use kcel_kube::admission::authorizer::{AuthorizerValues, AuthzRules};
use kcel_kube::admission::environment::{Compiler, Optional, ReturnTypes};
use kcel_kube::admission::evaluate::{Bindings, Expression, Outcome, for_input};
use kcel_kube::admission::request::UserInfo;
use kcel_kube::library::authz::{self, Authorizer, RequestResource};
use kcel_kube::rules::env::EnvKind;
use libtest_mimic::Trial;
use serde_json::Value;

const DATA: &str = include_str!("data/admission/authorizer.yaml");
const BUDGET: i64 = 10_000_000;

fn main() -> ExitCode {
    common::trials::run_trials("admission_authorizer", collect())
}

fn collect() -> Result<Vec<Trial>, String> {
    let docs = kcel_kube::yaml::parse_stream(DATA).map_err(|e| e.to_string())?;
    let data = &docs.first().ok_or("no document")?.value;
    let rules = AuthzRules::parse(
        "authorizer.yaml",
        &serde_json::to_string(&data["rules"]).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let cases = data["cases"].as_array().ok_or("no cases")?;
    let rules: Arc<dyn Authorizer> = Arc::new(rules);
    let allow_all: Arc<dyn Authorizer> = Arc::new(AuthzRules::allow_all());
    let mut trials = Vec::new();
    for case in cases {
        let name = case["name"]
            .as_str()
            .ok_or("a case without name")?
            .to_string();
        let authorizer = match case["authz"].as_str() {
            Some("rules") => rules.clone(),
            Some("allowAll") => allow_all.clone(),
            other => return Err(format!("{name}: authz {other:?}")),
        };
        let case = case.clone();
        trials.push(Trial::test(name, move || {
            run(&case, &authorizer).map_err(Into::into)
        }));
    }
    if trials.len() != cases.len() {
        return Err(format!("{} cases, {} trials", cases.len(), trials.len()));
    }
    Ok(trials)
}

fn run(case: &Value, authorizer: &Arc<dyn Authorizer>) -> Result<(), String> {
    let s = |v: &Value, k: &str, d: &'static str| v[k].as_str().unwrap_or(d).to_string();
    let user = UserInfo {
        username: s(case, "user", ""),
        groups: case["groups"]
            .as_array()
            .map(|g| {
                g.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        ..Default::default()
    };
    let r = &case["request"];
    let (group, resource, subresource, namespace, name) = (
        s(r, "group", "apps"),
        s(r, "resource", "deployments"),
        s(r, "subresource", ""),
        s(r, "namespace", "prod"),
        s(r, "name", "web"),
    );
    let request = RequestResource {
        group: &group,
        resource: &resource,
        subresource: &subresource,
        namespace: &namespace,
        name: &name,
    };
    let values = AuthorizerValues {
        authorizer: authz::authorizer_value(&user, authorizer.clone()),
        request_resource: authz::request_resource_value(&user, authorizer.clone(), &request),
    };
    let text = case["expression"].as_str().ok_or("no expression")?;
    let compiler = Compiler::new(KubeVersion::NEWEST, EnvKind::StoredExpressions);
    let optional = Optional {
        params: false,
        authorizer: true,
        patch_types: false,
    };
    let expression = Expression {
        text: text.to_string(),
        compiled: compiler.compile(text, ReturnTypes::Any, optional),
    };
    let bindings = Bindings {
        object: cel::Value::Null,
        old_object: cel::Value::Null,
        request: cel::Value::Null,
        namespace: cel::Value::Null,
        params: cel::Value::Null,
        authorizer: Some(values),
    };
    let (outcomes, remaining) = for_input(&[Some(expression)], &Arc::from([]), &bindings, BUDGET)
        .map_err(|e| e.to_string())?;
    match (&outcomes[0], case.get("error")) {
        (Outcome::Error(e), Some(want)) => {
            if want.as_str() != Some(e.to_string().as_str()) {
                return Err(format!("error {e}, want {want}"));
            }
        }
        (Outcome::Error(e), None) => return Err(format!("error: {e}")),
        (Outcome::Value(v), None) => match (case.get("type"), case.get("value")) {
            (Some(t), _) => {
                let got = v.type_name();
                if t.as_str() != Some(got) {
                    return Err(format!("type {got}, want {t}"));
                }
            }
            (None, Some(want)) => {
                let got = v.to_json().map_err(|e| e.to_string())?;
                if got != *want {
                    return Err(format!("value {got}, want {want}"));
                }
            }
            (None, None) => return Err("the case expects nothing".into()),
        },
        (o, want) => return Err(format!("outcome {o:?}, want {want:?}")),
    }
    if let Some(want) = case.get("cost").and_then(Value::as_i64) {
        let cost = BUDGET - remaining;
        if cost != want {
            return Err(format!("cost {cost}, want {want}"));
        }
    }
    Ok(())
}
