//! Whole-pipeline tests on small CRDs (request-level behaviour not covered by the oracle).

use serde_json::json;

use super::{FieldValidation, Operation, Options, Pipeline};
use crate::crd::CustomResourceDefinition;
use crate::schema_props::JsonSchemaProps;
use crate::values::Json;

/// A schema written as JSON.
pub(super) fn schema(v: serde_json::Value) -> JsonSchemaProps {
    serde_json::from_value(v).expect("schema")
}

/// A document written as JSON, as the pipeline holds it.
pub(super) fn doc(v: serde_json::Value) -> Json {
    Json::from_serde(&v).expect("json")
}

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
    let obj = r.object.expect("object").into_value();
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

fn numbers_crd() -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "nums.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Cluster",
            "names": {"plural": "nums", "singular": "num", "kind": "Num", "listKind": "NumList"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "i32": {"type": "integer", "format": "int32"},
                        "i64": {"type": "integer", "format": "int64"},
                        "int": {"type": "integer"},
                        "f32": {"type": "number", "format": "float"},
                        "f64": {"type": "number", "format": "double"},
                        "half": {"type": "integer", "maximum": 2.5},
                        "numi32": {"type": "number", "format": "int32"}
                    }}
                }}}
            }]
        }
    }))
    .expect("CRD")
}

fn cause_strings(r: &super::Response) -> Vec<String> {
    let mut v: Vec<String> = r
        .status
        .details
        .as_ref()
        .map(|d| {
            d.causes
                .iter()
                .map(|c| format!("{}: {}", c.field, c.message))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn run_nums(spec: &str, minor: u32) -> super::Response {
    let crd = numbers_crd();
    let p = Pipeline::new(&crd, "v1", None).expect("pipeline");
    let body = format!(
        r#"{{"apiVersion":"example.com/v1","kind":"Num","metadata":{{"name":"n"}},"spec":{spec}}}"#
    );
    let options = Options {
        kube_version: super::KubeVersion::new(minor).expect("supported"),
        ..Options::default()
    };
    p.run_json(&body, &Operation::Create, &options)
}

#[test]
fn numeric_formats_are_ignored_up_to_1_35() {
    let r = run_nums(
        r#"{"i32":3000000000,"f32":3.5e38,"numi32":1.5,"half":2}"#,
        35,
    );
    assert_eq!(r.status.status, "Success", "{:?}", cause_strings(&r));
    let r = run_nums(r#"{"int":1.5}"#, 35);
    assert_eq!(
        cause_strings(&r),
        [
            r#"spec.int: Invalid value: "number": spec.int in body must be of type integer: "number""#
        ]
    );
}

#[test]
fn numeric_formats_are_enforced_from_1_36() {
    let r = run_nums(
        r#"{"i32":2147483647,"i64":9223372036854775807,"int":1.0,"f32":3.4e38,"f64":1e300,"numi32":1.5}"#,
        36,
    );
    assert_eq!(r.status.status, "Success", "{:?}", cause_strings(&r));

    let r = run_nums(r#"{"i32":3000000000,"f32":3.5e38}"#, 36);
    assert_eq!(
        cause_strings(&r),
        [
            r#"<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.i32"#,
            r#"<nil>: Invalid value: "": Checked value must be of type number with format float in spec.f32"#,
        ]
    );

    let r = run_nums(r#"{"int":1.5,"i64":2.5,"i32":true}"#, 36);
    assert_eq!(
        cause_strings(&r),
        [
            r#"<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.int"#,
            r#"<nil>: Invalid value: "": Checked value must be of type integer with format int64 in spec.i64"#,
            r#"spec.i32: Invalid value: "": spec.i32 in body must be of type int32: """#,
            r#"spec.i64: Invalid value: "float64": spec.i64 in body must be of type int64: "float64""#,
            r#"spec.int: Invalid value: "number": spec.int in body must be of type integer: "number""#,
        ]
    );
}

#[test]
fn bounds_outside_the_type_are_reported_and_applied_as_floats_from_1_36() {
    let r = run_nums(r#"{"half":2}"#, 36);
    assert_eq!(
        cause_strings(&r),
        [
            r#"<nil>: Invalid value: "": Maximum boundary value must be of type integer (default format) in spec.half"#
        ]
    );
    let r = run_nums(r#"{"half":3}"#, 36);
    assert_eq!(
        cause_strings(&r),
        [
            r#"<nil>: Invalid value: "": Maximum boundary value must be of type integer (default format) in spec.half"#,
            "spec.half: Invalid value: 3: spec.half in body should be less than or equal to 2.5",
        ]
    );
    // Up to 1.35 the bound is truncated for integer data.
    let r = run_nums(r#"{"half":3}"#, 35);
    assert_eq!(
        cause_strings(&r),
        ["spec.half: Invalid value: 3: spec.half in body should be less than or equal to 2"]
    );
}

#[test]
fn before_create_checks_a_generate_name_as_a_path_segment_after_validation() {
    let crd = widget_crd();
    let p = Pipeline::new(&crd, "v1", None).expect("pipeline");
    let object = |generate_name: &str| {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "generateName": generate_name}})
    };
    // The strategy checks `x/-` masked (`xa`), a DNS subdomain; `BeforeCreate` as written.
    let r = p.run(object("x/-"), &Operation::Create, &Options::default());
    assert_eq!(
        r.status.message,
        r#"Widget.example.com "w" is invalid: metadata.generateName: Invalid value: "x/-": may not contain '/'"#
    );
    let r = p.run(object("x-"), &Operation::Create, &Options::default());
    assert_eq!(r.status.status, "Success", "{:?}", r.status);
}
