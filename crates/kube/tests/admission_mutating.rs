//! MutatingAdmissionPolicy against k8s.io/apiserver's own test tables
//! (`pkg/admission/plugin/policy/mutating`: `patch/json_patch_test.go` `TestJSONPatch`,
//! `patch/smd_test.go` `TestApplyConfiguration`, `compilation_test.go` `TestCompilation`),
//! transcribed into `tests/data/admission/mutating_tables.json` with provenance
//! (`tests/gen/admission_mutating`).
//!
//! Each record's mutations run one after the other on the object, as the upstream tests call
//! the patchers; an expected error must be contained in the patcher's error (the upstream
//! tests' `strings.Contains`), an expected object must equal the result as the typed code sees
//! both: `null` members, empty lists, empty maps and empty structs are absent. After a typed
//! decode, `equality.Semantic` treats nil and empty slices and maps alike, and a struct field
//! that is not a pointer has no "absent": the expected objects are Go encodings (with
//! `resources: {}`, `strategy: {}`), the results are the unstructured patch results. What this
//! comparison cannot see is an empty struct behind a pointer set on one side only.
//! Skipped records are listed with their reason in `tests/admission_mutating.skip`. The run
//! ends with `N passed, N failed, N skipped`, and fails when it ran fewer records than the
//! data holds.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;

use kcel_kube::KubeVersion;
use kcel_kube::admission::mutating::evaluate::{Activation, Bindings};
use kcel_kube::admission::mutating::patch::{self, Failure, Target};
use kcel_kube::admission::mutating::{
    CompiledPolicy, MutatingAdmissionPolicy, RUNTIME_CEL_COST_BUDGET,
};
use kcel_kube::builtins::Builtins;
use kcel_kube::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{Value, json};

const DATA: &str = include_str!("data/admission/mutating_tables.json");
const SECTIONS: [&str; 3] = ["json_patch", "smd", "compilation"];

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let trials = match collect() {
        Ok(t) => t,
        Err(message) => vec![Trial::test("admission_mutating/setup", move || {
            Err(message.into())
        })],
    };
    let conclusion = libtest_mimic::run(&args, trials);
    println!(
        "{} passed, {} failed, {} skipped",
        conclusion.num_passed, conclusion.num_failed, conclusion.num_ignored
    );
    conclusion.exit_code()
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
    let kind = builtins
        .kind("apps/v1", "Deployment")
        .map_err(|e| e.to_string())?
        .ok_or("no built-in apps/v1 Deployment")?;
    let schema: Arc<JsonSchemaProps> = Arc::new(
        kind.crd
            .spec
            .versions
            .first()
            .and_then(|v| v.open_api_v3_schema())
            .cloned()
            .ok_or("the Deployment schema is missing")?,
    );
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
            let record = record.clone();
            let schema = schema.clone();
            trials.push(Trial::test(name, move || {
                run(&record, &schema, version).map_err(Failed::from)
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

fn run(record: &Value, schema: &JsonSchemaProps, version: KubeVersion) -> Result<(), String> {
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
    let target = Target {
        schema: Some(schema),
        typed: true,
    };
    let mut object = get("object");
    let mut error = None;
    for mutation in &compiled.mutations {
        let bindings = Bindings {
            object: object.clone(),
            old_object: get("oldObject"),
            request: get("request"),
            namespace_object: get("namespaceObject"),
            params: get("params"),
        };
        let activation = Activation::new(&compiled, &bindings);
        let mut budget = RUNTIME_CEL_COST_BUDGET;
        match patch::apply(mutation, &activation, &object, target, &mut budget) {
            Ok(o) => object = o,
            Err(Failure::Policy(e)) => {
                error = Some(e);
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
        (None, None) => {
            let want = typed_view(&get("expectedObject"), Some(schema));
            let got = typed_view(&object, Some(schema));
            if want == got {
                Ok(())
            } else {
                Err(format!("object\n want: {want}\n  got: {got}"))
            }
        }
    }
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
