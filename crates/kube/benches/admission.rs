//! ValidatingAdmissionPolicy speed: 20 policies (each with a Deny binding and one validation)
//! against 1,000 Deployments, and the same 20 expressions as CRD validation rules of a kind
//! shaped like a Deployment (`object` read as `self`) on 1,000 objects, rule step only.
//!
//! Criterion reports objects/s for both groups; policies/s is 20 × the `admission` figure.
//!
//! `cargo bench -p kcel-kube --bench admission`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use kcel_kube::Validator;
use kcel_kube::admission::request::Operation;
use kcel_kube::admission::{PolicySet, RequestOptions};
use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::documents::Document;
use kcel_kube::pipeline::{KubeVersion, RuleRequest, RuleValidator};
use kcel_kube::rules::CelRuleStep;
use serde_json::{Value, json};

const OBJECTS: usize = 1000;
const POLICIES: usize = 20;

fn version() -> KubeVersion {
    KubeVersion::new(35).unwrap_or_default()
}

/// The 20 expressions, over `<root>` (`object` for policies, `self` for CRD rules); every one
/// holds for the generated objects, so each runs to the end.
fn expressions(root: &str) -> Vec<String> {
    (0..POLICIES)
        .map(|i| match i % 5 {
            0 => format!("{root}.spec.replicas <= {}", 100 + i),
            1 => format!("{root}.metadata.name.size() < {}", 60 + i),
            2 => format!("{root}.spec.selector.matchLabels['app'] != 'forbidden-{i}'"),
            3 => format!("{root}.spec.template.spec.containers.all(c, c.image.contains(':'))"),
            _ => format!(
                "{root}.spec.template.spec.containers.all(c, c.name.size() < {})",
                40 + i
            ),
        })
        .collect()
}

fn deployment(i: usize, api_version: &str, kind: &str) -> Value {
    json!({
        "apiVersion": api_version, "kind": kind,
        "metadata": {"name": format!("app-{i}"), "namespace": "default", "labels": {"app": format!("app-{i}")}},
        "spec": {
            "replicas": i % 10,
            "selector": {"matchLabels": {"app": format!("app-{i}")}},
            "template": {
                "metadata": {"labels": {"app": format!("app-{i}")}},
                "spec": {"containers": [
                    {"name": "main", "image": format!("registry.example.com/app:{i}")},
                    {"name": "sidecar", "image": "registry.example.com/proxy:1.0"}
                ]}
            }
        }
    })
}

fn document(value: Value) -> Document {
    Document {
        source: "bench".into(),
        line: 1,
        index: 0,
        item: None,
        value,
    }
}

fn policy_set() -> PolicySet {
    let mut set = PolicySet::new(version(), RequestOptions::default());
    for (i, e) in expressions("object").into_iter().enumerate() {
        set.add_document(&document(json!({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": format!("p{i}")},
            "spec": {
                "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"],
                    "operations": ["CREATE"], "resources": ["deployments"]}]},
                "validations": [{"expression": e}]
            }
        })));
        set.add_document(&document(json!({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": format!("b{i}")},
            "spec": {"policyName": format!("p{i}"), "validationActions": ["Deny"]}
        })));
    }
    set
}

/// A CRD whose schema has the fields the expressions read, with the 20 expressions as rules.
fn crd() -> Result<CustomResourceDefinition, String> {
    let rules: Vec<Value> = expressions("self")
        .into_iter()
        .map(|r| json!({"rule": r}))
        .collect();
    let labels = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let container = json!({"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 63}, "image": {"type": "string", "maxLength": 512}}});
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "apps.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"kind": "App", "plural": "apps", "singular": "app", "listKind": "AppList"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "x-kubernetes-validations": rules,
                "properties": {
                    "metadata": {"type": "object", "properties": {"labels": labels.clone()}},
                    "spec": {"type": "object", "properties": {
                        "replicas": {"type": "integer"},
                        "selector": {"type": "object", "properties": {"matchLabels": labels}},
                        "template": {"type": "object", "properties": {
                            "metadata": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                            "spec": {"type": "object", "properties": {
                                "containers": {"type": "array", "maxItems": 16, "items": container}}}}}}}}}}}]}
    }))
    .map_err(|e| e.to_string())
}

fn bench(c: &mut Criterion) -> Result<(), String> {
    let validator = Validator::builder().kube_version(version()).build();
    let set = policy_set();
    let deployments: Vec<Value> = (0..OBJECTS)
        .map(|i| deployment(i, "apps/v1", "Deployment"))
        .collect();
    for d in &deployments {
        let (_, answer) = set
            .admit(&validator, Some(d), None, Operation::Create, None)
            .ok_or("Deployment has no served resource")?;
        if !answer.denied.is_empty() || answer.bindings.len() != POLICIES {
            return Err(format!("unexpected answer: {answer:?}"));
        }
    }
    let mut g = c.benchmark_group("admission");
    g.throughput(Throughput::Elements(OBJECTS as u64));
    g.bench_function("20-policies-1000-deployments", |b| {
        b.iter(|| {
            for d in &deployments {
                black_box(set.admit(&validator, Some(d), None, Operation::Create, None));
            }
        });
    });
    g.finish();

    let crd = crd()?;
    let step = CelRuleStep::for_version(&crd, "v1", version()).map_err(String::from)?;
    let crd_validator = Validator::builder()
        .kube_version(version())
        .crd(crd.clone())
        .build();
    let schema = crd
        .version("v1")
        .and_then(|v| v.open_api_v3_schema())
        .ok_or("no schema")?;
    let mut prepared = Vec::with_capacity(OBJECTS);
    for i in 0..OBJECTS {
        let v = crd_validator
            .validate_create(deployment(i, "example.com/v1", "App"))
            .map_err(|e| e.to_string())?;
        if !v.is_valid() {
            return Err(format!("App {i} is invalid: {}", v.status.message));
        }
        prepared.push(
            v.object
                .ok_or("no object")?
                .to_json()
                .map_err(|e| e.to_string())?,
        );
    }
    let mut g = c.benchmark_group("crd-rules");
    g.throughput(Throughput::Elements(OBJECTS as u64));
    g.bench_function("20-rules-1000-objects", |b| {
        b.iter(|| {
            for o in &prepared {
                black_box(step.validate(&RuleRequest {
                    schema,
                    object: o,
                    old_object: None,
                    ratcheting: false,
                    kube_version: version(),
                }));
            }
        });
    });
    g.finish();
    Ok(())
}

fn main() {
    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(Duration::from_secs(5))
        .sample_size(20);
    if let Err(e) = bench(&mut c) {
        eprintln!("admission bench: {e}");
        std::process::exit(1);
    }
    c.final_summary();
}
