//! The `k8s-openapi` feature: k8s-openapi's `CustomResourceDefinition` converts into kcel's model
//! exactly as kcel's loader reads the same document, and the converted CRD validates objects as
//! the loaded one does; policies and bindings become the documents their JSON is.
//!
//! Data-driven part: every CRD of the Gateway API corpus (`../shared/corpora/gateway-api/config
//! /crd`, both channels), decoded by k8s-openapi and by kcel's loader, must convert to equal
//! models. Closing line: `N passed, N failed, N skipped` (nothing is skipped).

mod common;

use std::path::{Path, PathBuf};

use k8s_openapi::api::admissionregistration::v1 as admissionregistration;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::k8s_openapi_interop::{ConversionError, to_document};
use kcel_kube::{Request, Validator};
use serde_json::{Value, json};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
}

/// The first YAML document of `path` as JSON.
fn first_document(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("readable");
    let docs = kcel_kube::yaml::parse_stream(&text).expect("YAML");
    docs.into_iter().next().expect("one document").value
}

/// k8s-openapi's CRD decoded from `doc`, converted to kcel's model.
fn converted(doc: &Value) -> Result<CustomResourceDefinition, String> {
    let theirs: apiextensions::CustomResourceDefinition =
        serde_json::from_value(doc.clone()).map_err(|e| format!("k8s-openapi: {e}"))?;
    CustomResourceDefinition::try_from(&theirs).map_err(|e| e.to_string())
}

#[test]
fn converted_crd_equals_loaded_crd_and_validates_alike() {
    let path = example("widget-crd.yaml");
    let loaded = kcel_kube::load::load_file(&path).expect("loads");
    let from_k8s = converted(&first_document(&path)).expect("converts");
    assert_eq!(from_k8s, loaded[0].crd);

    let by_file = Validator::builder().crd_file(&path).expect("CRD").build();
    let by_value = Validator::builder().crd(from_k8s).build();
    for (name, valid) in [("widget-valid.yaml", true), ("widget-invalid.yaml", false)] {
        let object = first_document(&example(name));
        let a = by_file
            .validate(Request::create(object.clone()))
            .expect("answered");
        let b = by_value
            .validate(Request::create(object))
            .expect("answered");
        assert_eq!(a.is_valid(), valid, "{name}");
        assert_eq!(a.status_json(), b.status_json(), "{name}");
    }
}

#[test]
fn owned_crd_converts_too() {
    let doc = first_document(&example("widget-crd.yaml"));
    let theirs: apiextensions::CustomResourceDefinition =
        serde_json::from_value(doc).expect("k8s-openapi decodes");
    let ours = CustomResourceDefinition::try_from(theirs).expect("converts");
    assert_eq!(ours.spec.names.kind, "Widget");
    assert_eq!(ours.spec.versions.len(), 1);
}

#[test]
fn too_deep_a_schema_is_an_error_not_a_crash() {
    let mut schema = apiextensions::JSONSchemaProps {
        type_: Some("string".into()),
        ..Default::default()
    };
    for _ in 0..kcel_kube::load::MAX_CRD_DEPTH {
        schema = apiextensions::JSONSchemaProps {
            type_: Some("object".into()),
            properties: Some([("a".to_string(), schema)].into()),
            ..Default::default()
        };
    }
    let crd = apiextensions::CustomResourceDefinition {
        metadata: ObjectMeta {
            name: Some("deep.example.com".into()),
            ..Default::default()
        },
        spec: apiextensions::CustomResourceDefinitionSpec {
            group: "example.com".into(),
            names: apiextensions::CustomResourceDefinitionNames {
                kind: "Deep".into(),
                plural: "deep".into(),
                ..Default::default()
            },
            scope: "Namespaced".into(),
            versions: vec![apiextensions::CustomResourceDefinitionVersion {
                name: "v1".into(),
                served: true,
                storage: true,
                schema: Some(apiextensions::CustomResourceValidation {
                    open_api_v3_schema: Some(schema),
                }),
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    let err = CustomResourceDefinition::try_from(&crd).expect_err("too deep");
    assert!(
        matches!(&err, ConversionError::TooDeep { name } if name == "deep.example.com"),
        "{err}"
    );
}

#[test]
fn policies_and_bindings_become_documents() {
    let policy = admissionregistration::ValidatingAdmissionPolicy {
        metadata: ObjectMeta {
            name: Some("replicas".into()),
            ..Default::default()
        },
        spec: Some(admissionregistration::ValidatingAdmissionPolicySpec {
            validations: Some(vec![admissionregistration::Validation {
                expression: "object.spec.replicas <= 5".into(),
                message: Some("too many".into()),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        to_document(&policy).expect("serializes"),
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "replicas"},
            "spec": {"validations": [{"expression": "object.spec.replicas <= 5", "message": "too many"}]}
        })
    );
    let binding = admissionregistration::ValidatingAdmissionPolicyBinding {
        metadata: ObjectMeta {
            name: Some("replicas-binding".into()),
            ..Default::default()
        },
        spec: Some(
            admissionregistration::ValidatingAdmissionPolicyBindingSpec {
                policy_name: Some("replicas".into()),
                validation_actions: Some(vec!["Deny".into()]),
                ..Default::default()
            },
        ),
    };
    assert_eq!(
        to_document(&binding).expect("serializes"),
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "replicas-binding"},
            "spec": {"policyName": "replicas", "validationActions": ["Deny"]}
        })
    );
}

#[test]
fn gateway_api_crds_convert_as_loaded() {
    let Some(shared) = common::shared_or_skip("k8s-openapi conversion of the Gateway API CRDs")
    else {
        return;
    };
    let root = shared.join("corpora/gateway-api/config/crd");
    let mut files = Vec::new();
    for channel in ["standard", "experimental"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(channel))
            .expect("channel folder")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        entries.sort();
        files.extend(entries);
    }
    // The data: every document of kind CustomResourceDefinition, counted apart from the run.
    let expected: usize = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("readable");
            kcel_kube::yaml::parse_stream(&text)
                .expect("YAML")
                .iter()
                .filter(|d| d.value["kind"] == "CustomResourceDefinition")
                .count()
        })
        .sum();
    let (mut passed, mut failed) = (0usize, Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let loaded = kcel_kube::load::load_file(f).expect("kcel loads");
        let docs = kcel_kube::yaml::parse_stream(&text).expect("YAML");
        let crds = docs
            .iter()
            .filter(|d| d.value["kind"] == "CustomResourceDefinition");
        for (doc, ours) in crds.zip(&loaded) {
            match converted(&doc.value) {
                Ok(c) if c == ours.crd => passed += 1,
                Ok(_) => failed.push(format!("{}: models differ", f.display())),
                Err(e) => failed.push(format!("{}: {e}", f.display())),
            }
        }
    }
    println!("{passed} passed, {} failed, 0 skipped", failed.len());
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(passed, expected, "ran fewer cases than the corpus holds");
    assert!(expected > 0, "no CRDs found under {}", root.display());
}
