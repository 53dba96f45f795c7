//! MutatingAdmissionPolicy against k8s.io/apiserver's own test tables
//! (`pkg/admission/plugin/policy/mutating`: `patch/json_patch_test.go` `TestJSONPatch`,
//! `patch/smd_test.go` `TestApplyConfiguration`, `compilation_test.go` `TestCompilation`,
//! `dispatcher_test.go` `TestDispatcher`, and the `plugin_test.go` tests whose patcher is
//! `ApplyStructuredMergeDiff` with a fixed patch), transcribed into
//! `tests/data/admission/mutating_tables.json` with provenance (`tests/gen/admission_mutating`).
//!
//! Sections `json_patch`, `smd`, `compilation`: each record's mutations run one after the other
//! on the object, as the upstream tests call the patchers. `dispatcher`: the policies run
//! through [`mutate`] with the test's defaulter (`fakeSetDefaultForDeployment`). `apply`: the
//! patch merged by `smd::apply`; the result's `apiVersion` and `kind` are not compared (the
//! plugin converts the result into the request's typed object, whose type fields stay empty).
//! An expected error must be contained in the patcher's error (the upstream
//! tests' `strings.Contains`), an expected object must equal the result as the typed code sees
//! both: `null` members, empty lists, empty maps and empty structs are absent. After a typed
//! decode, `equality.Semantic` treats nil and empty slices and maps alike, and a struct field
//! that is not a pointer has no "absent": the expected objects are Go encodings (with
//! `resources: {}`, `strategy: {}`), the results are the unstructured patch results. What this
//! comparison cannot see is an empty struct behind a pointer set on one side only.
//! Skipped records are listed with their reason in `tests/admission_mutating.skip`. The run
//! ends with `N passed, N failed, N skipped`, and fails when it ran fewer records than the
//! data holds.

mod common;

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;

use kcel_kube::KubeVersion;
use kcel_kube::admission::authorizer::{AuthorizerValues, AuthzRules};
use kcel_kube::admission::evaluate::Bindings;
use kcel_kube::admission::mutating::patch::{self, Failure, Target};
use kcel_kube::admission::mutating::{
    CompiledPolicy, Defaulter, Invocation, MutatingAdmissionPolicy, Request, mutate, smd,
};
use kcel_kube::admission::request::UserInfo;
use kcel_kube::builtins::{BuiltinKind, Builtins};
use kcel_kube::library::authz::{self, Authorizer, RequestResource};
use kcel_kube::rules::env::RUNTIME_CEL_COST_BUDGET;
use kcel_kube::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use libtest_mimic::{Failed, Trial};
use serde_json::{Value, json};

const DATA: &str = include_str!("data/admission/mutating_tables.json");
const SECTIONS: [&str; 5] = ["json_patch", "smd", "compilation", "dispatcher", "apply"];

fn main() -> ExitCode {
    common::trials::run_trials("admission_mutating", collect())
}

fn skips() -> HashMap<String, String> {
    include_str!("admission_mutating.skip")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(n, r)| (n.to_string(), r.to_string()))
        .collect()
}

fn collect() -> Result<Vec<Trial>, String> {
    let data: Value = serde_json::from_str(DATA).map_err(|e| e.to_string())?;
    let version = KubeVersion::NEWEST;
    let builtins = Builtins::new(version, true);
    let mut kinds: HashMap<(String, String), Arc<BuiltinKind>> = HashMap::new();
    let mut skips = skips();
    let mut trials = Vec::new();
    let mut total = 0;
    for section in SECTIONS {
        let records = data[section]
            .as_array()
            .ok_or_else(|| format!("section {section} missing"))?;
        for record in records {
            total += 1;
            let name = format!(
                "{section}/{}",
                record["name"].as_str().ok_or("record without name")?
            );
            if skips.remove(&name).is_some() {
                trials.push(Trial::test(name, || Ok(())).with_ignored_flag(true));
                continue;
            }
            let s = |k: &str| record["kind"][k].as_str().unwrap_or("").to_string();
            let key = (s("apiVersion"), s("kind"));
            let kind = match kinds.get(&key) {
                Some(k) => k.clone(),
                None => {
                    let kind = builtins
                        .kind(&key.0, &key.1)
                        .map_err(|e| e.to_string())?
                        .ok_or(format!("no built-in kind {key:?}"))?;
                    kinds.insert(key, kind.clone());
                    kind
                }
            };
            if kind
                .crd
                .spec
                .versions
                .first()
                .and_then(|v| v.open_api_v3_schema())
                .is_none()
            {
                return Err(format!("no schema for {name}"));
            }
            let record = record.clone();
            trials.push(Trial::test(name, move || {
                let result = match section {
                    "dispatcher" => run_dispatcher(&record, &kind, version),
                    "apply" => run_apply(&record, schema_of(&kind)),
                    _ => run(&record, &kind, version),
                };
                result.map_err(Failed::from)
            }));
        }
    }
    if !skips.is_empty() {
        return Err(format!("skips naming no record: {:?}", skips.keys()));
    }
    if trials.len() != total {
        return Err(format!("ran {} of {total} records", trials.len()));
    }
    Ok(trials)
}

/// The kind's schema (checked to be present when the trials are built).
fn schema_of(kind: &BuiltinKind) -> &JsonSchemaProps {
    kind.crd
        .spec
        .versions
        .first()
        .and_then(|v| v.open_api_v3_schema())
        .expect("checked in collect")
}

fn target(kind: &BuiltinKind) -> Target<'_> {
    Target {
        schema: Some(schema_of(kind)),
        go_type: Some(&kind.go_type),
    }
}

/// The upstream tests' `fakeAuthorizer`, which allows everything, for the request's user (none).
fn allow_all() -> AuthorizerValues {
    let rules: Arc<dyn Authorizer> = Arc::new(AuthzRules::allow_all());
    let request = RequestResource {
        group: "apps",
        resource: "deployments",
        subresource: "",
        namespace: "",
        name: "",
    };
    let user = UserInfo::default();
    AuthorizerValues {
        authorizer: authz::authorizer_value(&user, rules.clone()),
        request_resource: authz::request_resource_value(&user, rules, &request),
    }
}

fn run(record: &Value, kind: &BuiltinKind, version: KubeVersion) -> Result<(), String> {
    let schema = schema_of(kind);
    let doc = json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "policy"},
        "spec": record["policy"],
    });
    let policy: MutatingAdmissionPolicy =
        serde_json::from_value(doc).map_err(|e| format!("policy: {e}"))?;
    let compiled = CompiledPolicy::compile(&policy, version);
    let get = |k: &str| record.get(k).cloned().unwrap_or(Value::Null);
    let target = target(kind);
    let mut object = get("object");
    let mut error = None;
    for mutation in &compiled.mutations {
        let cel = |k: &str| cel::Value::from_json(&get(k));
        let bindings = Bindings {
            object: cel::Value::from_json(&object),
            old_object: cel("oldObject"),
            request: cel("request"),
            namespace: cel("namespaceObject"),
            params: cel("params"),
            authorizer: Some(allow_all()),
        };
        let mut budget = RUNTIME_CEL_COST_BUDGET;
        match patch::apply(
            mutation,
            &compiled.variables,
            &bindings,
            &object,
            target,
            &mut budget,
        ) {
            Ok(o) => object = o,
            Err(Failure::Policy(e)) => {
                error = Some(e.to_string());
                break;
            }
            Err(Failure::Status(s)) => {
                error = Some(s.message);
                break;
            }
        }
    }
    match (record.get("expectedError").and_then(Value::as_str), error) {
        (Some(want), Some(got)) if got.contains(want) => Ok(()),
        (Some(want), Some(got)) => Err(format!("error\n want (contained): {want}\n got: {got}")),
        (Some(want), None) => Err(format!("no error, want {want}; object {object}")),
        (None, Some(got)) => Err(format!("unexpected error: {got}")),
        (None, None) => same_object(&get("expectedObject"), &object, schema),
    }
}

fn same_object(want: &Value, got: &Value, schema: &JsonSchemaProps) -> Result<(), String> {
    let want = typed_view(want, Some(schema));
    let got = typed_view(got, Some(schema));
    if want == got {
        Ok(())
    } else {
        Err(format!("object\n want: {want}\n  got: {got}"))
    }
}

/// `fakeSetDefaultForDeployment`: `spec.strategy.type` defaults to `RollingUpdate`.
#[derive(Debug)]
struct FakeDeploymentDefaulter;

impl Defaulter for FakeDeploymentDefaulter {
    fn default(&self, object: &mut Value) {
        let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else {
            return;
        };
        let strategy = spec.entry("strategy").or_insert_with(|| json!({}));
        if let Some(s) = strategy.as_object_mut()
            && s.get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
        {
            s.insert("type".into(), json!("RollingUpdate"));
        }
    }
}

fn run_dispatcher(record: &Value, kind: &BuiltinKind, version: KubeVersion) -> Result<(), String> {
    let schema = schema_of(kind);
    let hooks = record["invocations"].as_array().ok_or("no invocations")?;
    let params = record["paramObjects"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut compiled = Vec::new();
    for hook in hooks {
        let doc = json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": hook["policy"]["name"]},
            "spec": hook["policy"]["spec"],
        });
        let policy: MutatingAdmissionPolicy =
            serde_json::from_value(doc).map_err(|e| format!("policy: {e}"))?;
        compiled.push(CompiledPolicy::compile(&policy, version));
    }
    let mut invocations = Vec::new();
    for (hook, policy) in hooks.iter().zip(&compiled) {
        let binding = &hook["binding"];
        let param = binding.get("paramRef").map(|r| {
            params.iter().find(|p| {
                p["metadata"]["name"] == r["name"] && p["metadata"]["namespace"] == r["namespace"]
            })
        });
        let param = match param {
            None => None,
            Some(Some(p)) => Some(p),
            Some(None) => return Err(format!("no param for {binding}")),
        };
        invocations.push(Invocation {
            policy,
            binding: binding["name"].as_str().unwrap_or(""),
            params: param,
        });
    }
    let request = Request {
        object: Some(record["object"].clone()),
        old_object: None,
        request: json!({"operation": "CREATE"}),
        namespace_object: Some(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}),
        ),
        target: target(kind),
        defaulter: Some(&FakeDeploymentDefaulter),
        authorizer: None,
    };
    let outcome = mutate(&invocations, &request).map_err(|e| format!("status: {e:?}"))?;
    let got = outcome.object.ok_or("no object")?;
    same_object(&record["expectedObject"], &got, schema)
}

fn run_apply(record: &Value, schema: &JsonSchemaProps) -> Result<(), String> {
    let mut got =
        smd::apply(schema, &record["object"], &record["patch"]).map_err(|e| e.to_string())?;
    if let Some(o) = got.as_object_mut() {
        o.remove("apiVersion");
        o.remove("kind");
    }
    same_object(&record["expectedObject"], &got, schema)
}

fn items(s: &JsonSchemaProps) -> Option<&JsonSchemaProps> {
    match &s.items {
        Some(SchemaOrArray::Schema(i)) => Some(i),
        Some(SchemaOrArray::Array(a)) => a.first(),
        None => None,
    }
}

/// `v` as a typed decode and `equality.Semantic` see it: no `null` members, no empty lists,
/// maps or structs.
fn typed_view(v: &Value, schema: Option<&JsonSchemaProps>) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = serde_json::Map::new();
            for (k, child) in m {
                let child_schema = schema.and_then(|s| {
                    s.properties.get(k).or(match &s.additional_properties {
                        Some(SchemaOrBool::Schema(ap)) => Some(&**ap),
                        _ => None,
                    })
                });
                let c = typed_view(child, child_schema);
                let drop = match &c {
                    Value::Null => true,
                    Value::Array(a) => a.is_empty(),
                    Value::Object(o) => o.is_empty(),
                    _ => false,
                };
                if !drop {
                    out.insert(k.clone(), c);
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|e| typed_view(e, schema.and_then(items)))
                .collect(),
        ),
        other => other.clone(),
    }
}
