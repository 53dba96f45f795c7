//! Whole-pipeline tests on small CRDs (request-level behaviour not covered by the oracle).

use serde_json::json;

use super::{FieldValidation, Operation, Options, Pipeline};
use crate::crd::CustomResourceDefinition;

fn widget_crd() -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "a": {"type": "integer", "maximum": 5},
                        "b": {"type": "object", "properties": {"c": {"type": "string"}}}
                    }}
                }}}
            }]
        }
    }))
    .expect("CRD")
}

const BODY: &str = r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
  "spec":{"a":1,"a":2,"zz":1,"b":{"c":"x","c":"y"}}}"#;

fn options(field_validation: FieldValidation) -> Options {
    Options {
        field_validation,
        ..Options::default()
    }
}

#[test]
fn duplicate_keys_are_strict_decoding_errors_before_unknown_fields() {
    let crd = widget_crd();
    let p = Pipeline::new(&crd, "v1", None).expect("pipeline");
    let r = p.run_json(BODY, &Operation::Create, &options(FieldValidation::Strict));
    assert_eq!(r.status.code, Some(400));
    assert_eq!(r.status.reason, "BadRequest");
    assert_eq!(
        r.status.message,
        r#"Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "spec.a", duplicate field "spec.b.c", unknown field "spec.zz""#
    );
    assert_eq!(
        r.duplicate_fields,
        [
            r#"duplicate field "spec.a""#,
            r#"duplicate field "spec.b.c""#
        ]
    );
}

#[test]
fn duplicate_keys_are_warnings_in_warn_mode_and_silent_in_ignore_mode() {
    let crd = widget_crd();
    let p = Pipeline::new(&crd, "v1", None).expect("pipeline");
    let r = p.run_json(BODY, &Operation::Create, &options(FieldValidation::Warn));
    assert_eq!(r.status.status, "Success", "{:?}", r.status);
    assert_eq!(
        r.warnings,
        [
            r#"duplicate field "spec.a""#,
            r#"duplicate field "spec.b.c""#,
            r#"unknown field "spec.zz""#
        ]
    );
    // The last value wins.
    let obj = r.object.expect("object");
    assert_eq!(obj.pointer("/spec/a"), Some(&json!(2)));
    assert_eq!(obj.pointer("/spec/b/c"), Some(&json!("y")));

    let r = p.run_json(BODY, &Operation::Create, &options(FieldValidation::Ignore));
    assert_eq!(r.status.status, "Success");
    assert!(r.warnings.is_empty());
    assert_eq!(r.duplicate_fields.len(), 2);
}

#[test]
fn the_last_duplicate_value_is_validated() {
    let crd = widget_crd();
    let p = Pipeline::new(&crd, "v1", None).expect("pipeline");
    let body = r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"a":1,"a":9}}"#;
    let r = p.run_json(body, &Operation::Create, &options(FieldValidation::Ignore));
    assert_eq!(r.status.code, Some(422));
    assert!(
        r.status.message.contains("spec.a: Invalid value: 9"),
        "{}",
        r.status.message
    );
}

#[test]
fn a_body_that_is_not_json_is_a_bad_request() {
    let crd = widget_crd();
    let p = Pipeline::new(&crd, "v1", None).expect("pipeline");
    let r = p.run_json("{", &Operation::Create, &options(FieldValidation::Strict));
    assert_eq!(r.status.code, Some(400));
    assert!(r.decode_error.is_some());
    assert!(r.object.is_none());
}
