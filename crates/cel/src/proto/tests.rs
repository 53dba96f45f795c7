//! Unit tests of message types and values over a small inline file.

use std::sync::Arc;

use super::{ProtoError, ProtoTypes};
use crate::{Env, Value, library};

const SOURCE: &str = r#"
syntax = "proto3";
package t;
import "google/protobuf/any.proto";
import "google/protobuf/wrappers.proto";
message M {
  int32 i = 1;
  repeated string names = 2;
  map<string, int64> counts = 3;
  M child = 4;
  google.protobuf.Int64Value w = 5;
  google.protobuf.Any any = 6;
  E e = 7;
  enum E { ZERO = 0; ONE = 1; }
}
"#;

fn types() -> Arc<ProtoTypes> {
    Arc::new(ProtoTypes::from_source("t.proto", SOURCE).expect("the test file compiles"))
}

fn eval(expr: &str) -> Result<Value, String> {
    let mut b = library::full().type_provider(types());
    b.options_mut().container = "t".into();
    let env: Env = b.build();
    let program = env.compile(expr).map_err(|i| i.to_string())?;
    program.eval(&()).map_err(|e| e.to_string())
}

fn is_true(expr: &str) {
    match eval(expr) {
        Ok(Value::Bool(true)) => {}
        other => panic!("{expr}: {other:?}"),
    }
}

#[test]
fn construction_selection_presence_equality() {
    is_true("M{i: 3}.i == 3 && M{}.i == 0 && !has(M{}.i) && has(M{i: 1}.i)");
    is_true("M{names: ['a']}.names == ['a'] && M{counts: {'k': 2}}.counts.k == 2");
    is_true("M{child: M{i: 1}}.child.i == 1 && M{}.child.child.i == 0");
    is_true("M{}.w == null && M{w: 5}.w == 5 && !has(M{}.w)");
    is_true("M{i: 1} == M{i: 1} && M{i: 1} != M{i: 2} && M{i: 0} == M{}");
    is_true("M{e: M.E.ONE}.e == 1 && type(M{}) == t.M");
    is_true("M{any: M{i: 4}}.any == M{i: 4} && M{any: 1}.any == 1");
    is_true("M{}.?child.hasValue() == false && M{child: M{}}.?child.hasValue()");
}

fn eval_strong(expr: &str) -> Result<Value, String> {
    let types = ProtoTypes::from_source("t.proto", SOURCE)
        .expect("the test file compiles")
        .with_enum_mode(super::EnumMode::Strong);
    let mut b = library::full().library(Arc::new(types));
    b.options_mut().container = "t".into();
    let env: Env = b.build();
    let program = env.compile(expr).map_err(|i| i.to_string())?;
    program.eval(&()).map_err(|e| e.to_string())
}

#[test]
fn strong_enums_are_types_of_their_own() {
    for expr in [
        "M.E.ONE == M.E(1) && M.E('ONE') == M.E.ONE && int(M.E.ONE) == 1",
        "type(M.E.ZERO) == t.M.E && type(M{}.e) == M.E && M{e: M.E.ONE}.e == M.E.ONE",
        "M{e: M.E(7)}.e == M.E(7) && M{e: M.E(7)} != M{e: M.E(1)}",
        "M.E(-1) != M.E(1) && [M.E.ONE].exists(x, x == M.E.ONE)",
    ] {
        match eval_strong(expr) {
            Ok(Value::Bool(true)) => {}
            other => panic!("{expr}: {other:?}"),
        }
    }
    let shown = eval_strong("M.E.ONE").map(|v| v.to_string());
    assert_eq!(shown.as_deref(), Ok("t.M.E(1)"));
    // An enum is not an int: comparing them does not check.
    for expr in ["M.E.ONE == 1", "M{e: 1}", "M.E.ONE + 1"] {
        assert!(eval_strong(expr).is_err(), "{expr} compiled");
    }
    // Out of 32-bit range, an unknown name: errors.
    for (expr, text) in [
        ("M.E(5000000000)", "range"),
        ("M.E('TWO')", "invalid enum value name 'TWO'"),
    ] {
        match eval_strong(expr) {
            Err(e) if e.contains(text) => {}
            other => panic!("{expr}: {other:?}"),
        }
    }
    // Legacy enums stay ints, with no enum functions declared.
    is_true("M.E.ONE == 1 && type(M.E.ONE) == int");
    assert!(eval("M.E(1)").is_err());
}

#[test]
fn messages_convert_to_protobuf_json() {
    let v = eval("M{i: 1, names: ['a'], counts: {'k': 2}, w: 3, e: M.E.ONE, child: M{}}")
        .expect("evaluates");
    assert_eq!(
        v.to_json().expect("has a JSON form"),
        serde_json::json!({
            "i": 1, "names": ["a"], "counts": {"k": "2"}, "child": {}, "w": "3", "e": "ONE"
        })
    );
}

#[test]
fn bad_values_are_errors_not_panics() {
    for expr in ["M{i: 5000000000}", "dyn(M{}).nope", "M{w: dyn('x')}"] {
        assert!(eval(expr).is_err(), "{expr} evaluated");
    }
    assert!(eval("M{nope: 1}").is_err());
}

#[test]
fn json_reads_messages_and_refuses_bad_input() {
    let t = types();
    let v = t
        .value_from_json(
            "t.M",
            &serde_json::json!({"i": 2, "names": ["x"], "counts": {"a": "3"}, "e": "ONE",
                "any": {"@type": "type.googleapis.com/google.protobuf.Int64Value", "value": "9"}}),
        )
        .expect("valid JSON");
    assert!(matches!(v, Value::Opaque(_)));
    for bad in [
        serde_json::json!({"i": "x"}),
        serde_json::json!({"nope": 1}),
        serde_json::json!({"e": "TWO"}),
        serde_json::json!([1]),
        serde_json::json!({"any": {"value": 1}}),
    ] {
        assert!(t.value_from_json("t.M", &bad).is_err(), "{bad} accepted");
    }
    assert_eq!(
        t.value_from_json("t.Nope", &serde_json::json!({})).err(),
        Some(ProtoError::UnknownType("t.Nope".into()))
    );
    let mut deep = serde_json::json!({});
    for _ in 0..500 {
        deep = serde_json::json!({ "child": deep });
    }
    assert!(t.value_from_json("t.M", &deep).is_err());
}

#[test]
fn compile_errors_are_typed() {
    assert!(matches!(
        ProtoTypes::from_source("x.proto", "syntax = \"proto3\"; message {"),
        Err(ProtoError::Compile(_))
    ));
}

/// `Debug` of a recursive message type's values and of the types prints
/// names, not descriptors (which recurse without end).
#[test]
fn debug_of_recursive_types_terminates() {
    let v = eval("M{child: M{i: 1}}").expect("evaluates");
    assert_eq!(format!("{v:?}"), "Opaque(t.M{child: t.M{i: 1}})");
    assert!(format!("{:?}", types()).contains("t.proto"));
}

/// An `Any` nested in `Any`s 300 deep (bytes built in CEL) is an error,
/// not a stack overflow.
#[test]
fn deeply_nested_any_is_an_error() {
    use prost::Message as _;
    let t = types();
    let any = t.message("google.protobuf.Any").expect("Any");
    let mut bytes: Vec<u8> = Vec::new();
    for _ in 0..300 {
        let mut m = prost_reflect::DynamicMessage::new(any.clone());
        m.set_field_by_name(
            "type_url",
            prost_reflect::Value::String("type.googleapis.com/google.protobuf.Any".into()),
        );
        m.set_field_by_name("value", prost_reflect::Value::Bytes(bytes.into()));
        bytes = m.encode_to_vec();
    }
    let json = serde_json::json!({
        "@type": "type.googleapis.com/google.protobuf.Any",
        "value": {"@type": "type.googleapis.com/google.protobuf.Int64Value", "value": "1"}
    });
    assert!(t.value_from_any_json(&json).is_ok());
    let mut m = prost_reflect::DynamicMessage::new(any);
    m.set_field_by_name(
        "type_url",
        prost_reflect::Value::String("type.googleapis.com/google.protobuf.Any".into()),
    );
    m.set_field_by_name("value", prost_reflect::Value::Bytes(bytes.into()));
    let r = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || super::convert::message_to_cel(&m, super::EnumMode::Legacy).is_err())
        .expect("thread")
        .join();
    assert_eq!(r.ok(), Some(true));
}
