use std::sync::Arc;

use cel::Value;
use cel::value::{KeyRef, List, Map};
use serde_json::json;

use super::*;
use crate::schema_props::JsonSchemaProps;

fn schema(v: serde_json::Value) -> Arc<Structural> {
    let props: JsonSchemaProps = serde_json::from_value(v).expect("props");
    Arc::new(Structural::from_props(&props).expect("structural"))
}

fn value(doc: serde_json::Value, s: &Arc<Structural>) -> Value {
    to_value(&Json::from_serde(&doc).expect("json"), s).expect("value")
}

fn map(v: &Value) -> &Map {
    match v {
        Value::Map(m) => m,
        other => panic!("not a map: {other:?}"),
    }
}

fn list(v: &Value) -> &List {
    match v {
        Value::List(l) => l,
        other => panic!("not a list: {other:?}"),
    }
}

#[test]
fn object_fields_null_is_absent_but_counted() {
    let s = schema(json!({"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "string", "nullable": true},
        "if": {"type": "number"}, "x-y": {"type": "string", "format": "date"}
    }}));
    let v = value(
        json!({"a": 1, "b": null, "if": 2, "x-y": "1970-01-02", "unknown": true}),
        &s,
    );
    let m = map(&v);
    assert_eq!(m.len(), 5);
    assert!(matches!(m.field("a"), Some(Value::Int(1))));
    assert!(m.field("b").is_none());
    assert!(matches!(m.field("__if__"), Some(Value::Double(d)) if d == 2.0));
    assert!(matches!(m.field("if"), Some(Value::Double(d)) if d == 2.0));
    assert!(matches!(m.field("x__dash__y"), Some(Value::Timestamp(t)) if t.seconds == 86_400));
    assert!(m.field("unknown").is_none());
    assert!(m.field("x-y").is_none());
}

#[test]
fn resource_root_exposes_only_name_and_generate_name() {
    let s = schema(json!({"type": "object", "properties": {"spec": {"type": "object"}}}));
    let doc = Json::from_serde(&json!({"apiVersion": "v1", "kind": "K",
        "metadata": {"name": "n", "labels": {"a": "b"}}, "spec": {}}))
    .expect("json");
    let v = root_value(&doc, &s).expect("value");
    let meta = map(&v).field("metadata").expect("metadata");
    assert!(matches!(map(&meta).field("name"), Some(Value::String(n)) if &*n == "n"));
    assert!(map(&meta).field("labels").is_none());
    assert!(matches!(map(&v).field("kind"), Some(Value::String(_))));
}

#[test]
fn maps_int_or_string_and_errors() {
    let s = schema(
        json!({"type": "object", "additionalProperties": {"x-kubernetes-int-or-string": true}}),
    );
    let v = value(json!({"a.b": 1, "c": "x", "d": 1.5}), &s);
    let m = map(&v);
    assert!(matches!(m.get(KeyRef::String("a.b")), Some(Value::Int(1))));
    assert!(matches!(m.get(KeyRef::String("c")), Some(Value::String(_))));
    assert!(m.get(KeyRef::String("d")).is_none());
    let int = schema(json!({"type": "integer"}));
    let err = to_value(&Json::Double(1.5), &int).expect_err("not int");
    assert_eq!(err.to_string(), "invalid data, expected int, got float64");
    let err = to_value(&Json::Null, &int).expect_err("null");
    assert_eq!(
        err.to_string(),
        "invalid data, got null for schema with nullable=false"
    );
    let num = schema(json!({"type": "number"}));
    assert!(matches!(to_value(&Json::Int(3), &num), Ok(Value::Double(d)) if d == 3.0));
    let big = Json::from_serde(&json!(18446744073709551615u64)).expect("json");
    assert!(matches!(big, Json::Double(_)));
}

#[test]
fn set_lists_compare_as_sets_on_the_left_only() {
    let s = schema(
        json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}}),
    );
    let v = value(json!([1, 2, 3]), &s);
    let other = Value::list(vec![Value::Int(3), Value::Int(1), Value::Int(2)]);
    assert!(v.equals(&other));
    assert!(
        !other.equals(&v),
        "a plain list on the left compares in order"
    );
    assert!(!v.equals(&Value::list(vec![
        Value::Int(1),
        Value::Int(1),
        Value::Int(2)
    ])));
    let ListRef(p) = provider(&v);
    let sum = p
        .add(list(&Value::list(vec![
            Value::Int(4),
            Value::Int(2),
            Value::Int(5),
        ])))
        .expect("set")
        .expect("ok");
    let items: Vec<i64> = sum
        .iter()
        .filter_map(|v| if let Value::Int(i) = v { Some(i) } else { None })
        .collect();
    assert_eq!(items, [1, 2, 3, 4, 5]);
    assert!(Value::List(sum).equals(&Value::list((1..=5).rev().map(Value::Int).collect())));
}

struct ListRef(Arc<dyn cel::value::ListProvider>);

fn provider(v: &Value) -> ListRef {
    match list(v) {
        List::Provided(p) => ListRef(p.clone()),
        List::Values(_) => panic!("plain list"),
    }
}

#[test]
fn map_lists_compare_by_key_and_merge() {
    let s = schema(
        json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}}),
    );
    let a = value(json!([{"name": "a", "v": 1}, {"name": "b", "v": 2}]), &s);
    let b = value(json!([{"name": "b", "v": 2}, {"name": "a", "v": 1}]), &s);
    let c = value(json!([{"name": "b", "v": 3}, {"name": "a", "v": 1}]), &s);
    assert!(a.equals(&b));
    assert!(!a.equals(&c));
    let ListRef(p) = provider(&a);
    let merged = p
        .add(list(&value(
            json!([{"name": "b", "v": 9}, {"name": "c", "v": 0}]),
            &s,
        )))
        .expect("map")
        .expect("ok");
    let names: Vec<(String, i64)> = merged
        .iter()
        .map(|e| {
            let m = map(&e).clone();
            let n = match m.field("name") {
                Some(Value::String(s)) => s.to_string(),
                _ => String::new(),
            };
            let v = match m.field("v") {
                Some(Value::Int(i)) => i,
                _ => -1,
            };
            (n, v)
        })
        .collect();
    assert_eq!(
        names,
        [
            ("a".to_string(), 1),
            ("b".to_string(), 9),
            ("c".to_string(), 0)
        ]
    );
}

#[test]
fn object_equality_counts_unknown_and_null_fields() {
    let s = schema(
        json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
        "properties": {"a": {"type": "integer", "nullable": true}}}),
    );
    let x = value(json!({"a": 1, "extra": {"k": [1]}}), &s);
    let y = value(json!({"extra": {"k": [1]}, "a": 1}), &s);
    let z = value(json!({"a": 1, "extra": {"k": [2]}}), &s);
    let w = value(json!({"a": 1, "extra": {"k": [1]}, "n": null}), &s);
    assert!(x.equals(&y));
    assert!(!x.equals(&z));
    assert!(!x.equals(&w), "size differs");
    let n1 = value(json!({"a": null, "extra": 1}), &s);
    let n2 = value(json!({"extra": 1, "q": null}), &s);
    // Kubernetes only walks the left's keys: same raw size, `a` null vs absent alike.
    assert!(n1.equals(&n2));
}

#[test]
fn conversion_shares_repeated_keys_and_keeps_every_document_intact() {
    let doc = json!({"items": [
        {"name": "a", "value": "1"},
        {"name": "b", "value": "2"},
        {"value": "3", "name": "c", "extra": {"name": null}},
        {"other": 1},
        {"name": "d", "value": "4", "x": [{"name": "e"}, {"name": "f", "y": true}]}
    ]});
    let converted = Json::from_serde(&doc).expect("json");
    // Round trip: every key and value in place, in document order.
    assert_eq!(converted.to_serde().to_string(), doc.to_string());
    let Json::Object(root) = &converted else {
        panic!("object expected")
    };
    let Some(Json::Array(items)) = root.get("items") else {
        panic!("items expected")
    };
    let key = |i: usize, position: usize| -> Arc<str> {
        match &items[i] {
            Json::Object(o) => o.get_index(position).expect("entry").0.clone(),
            _ => panic!("object expected"),
        }
    };
    // Same key at the same depth and position: one allocation.
    assert!(Arc::ptr_eq(&key(0, 0), &key(1, 0)));
    assert!(Arc::ptr_eq(&key(0, 1), &key(1, 1)));
    assert_eq!(key(2, 0).as_ref(), "value");
    assert_eq!(key(2, 1).as_ref(), "name");
    assert_eq!(key(3, 0).as_ref(), "other");
    assert_eq!(key(4, 0).as_ref(), "name");
}

#[test]
fn data_that_does_not_fit_its_schema_reads_as_an_error() {
    let s = schema(json!({"type": "object", "properties": {
        "o": {"type": "object", "properties": {"f": {"type": "string"}}},
        "l": {"type": "array", "items": {"type": "string"}},
        "n": {"type": "array", "items": {"type": "string"}},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
        "ok": {"type": "string"}
    }}));
    let v = value(
        json!({"o": [], "l": {}, "n": [null], "m": {"a": "x"}, "ok": "y"}),
        &s,
    );
    let m = map(&v);
    let err = m.try_field("o").expect_err("o is not a map");
    assert_eq!(
        err.message(),
        "invalid data, expected a map for the provided schema with type=object"
    );
    assert!(m.field("o").is_none(), "the infallible lookup reads absent");
    let err = m.try_get(KeyRef::String("l")).expect_err("l is not a list");
    assert_eq!(
        err.message(),
        "invalid data, expected an array for the provided schema with type=array"
    );
    assert!(m.try_contains_key(KeyRef::String("l")).is_err());
    assert!(matches!(m.try_field("ok"), Ok(Some(Value::String(_)))));
    assert!(matches!(m.try_field("absent"), Ok(None)));
    let n = m.try_field("n").expect("n reads").expect("n is set");
    let err = list(&n).try_get(0).expect_err("null item");
    assert_eq!(
        err.message(),
        "invalid data, got null for schema with nullable=false"
    );
    assert!(matches!(list(&n).try_get(1), Ok(None)));
    let inner = m.try_field("m").expect("m reads").expect("m is set");
    let err = map(&inner)
        .try_get(KeyRef::String("a"))
        .expect_err("a string under integer values");
    assert_eq!(err.message(), "invalid data, expected int, got string");
}

#[test]
fn map_list_equality_compares_properties_without_a_cel_name() {
    let s = schema(json!({"type": "array", "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["k!", "k."],
        "items": {"type": "object", "properties": {
            "k!": {"type": "string"}, "k.": {"type": "string"}}}}));
    let l = |doc| value(doc, &s);
    let a = l(json!([{"k!": "a", "k.": "1"}, {"k!": "b", "k.": "2"}]));
    let swapped = l(json!([{"k!": "b", "k.": "2"}, {"k!": "a", "k.": "1"}]));
    let other_name = l(json!([{"k!": "b", "k.": "2"}, {"k!": "c", "k.": "1"}]));
    assert!(a.equals(&swapped));
    assert!(!a.equals(&other_name));
    let item = list(&a).get(0).expect("item");
    assert!(matches!(map(&item).get(KeyRef::String("k!")), Some(Value::String(s)) if &*s == "a"));
    assert!(map(&item).field("k!").is_none(), "no CEL field is named k!");
    let keys: Vec<String> = map(&item).keys().map(|k| format!("{k:?}")).collect();
    assert_eq!(keys.len(), 2, "both properties are keys: {keys:?}");
}

#[test]
fn evaluation_fails_on_data_that_does_not_fit_its_schema() {
    let s = schema(json!({"type": "object", "properties": {
        "o": {"type": "object", "properties": {"f": {"type": "string"}}},
        "n": {"type": "array", "items": {"type": "string"}},
        "ok": {"type": "string"}
    }}));
    let v = value(json!({"o": [], "n": [null], "ok": "y"}), &s);
    let env = cel::Env::builder()
        .library(cel::library::Std)
        .variable("self", cel::Type::Dyn)
        .build();
    let eval = |src: &str| {
        let vars: std::collections::HashMap<String, Value> =
            [("self".to_string(), v.clone())].into();
        env.compile(src).expect("compiles").eval(&vars)
    };
    let expected_map = "invalid data, expected a map for the provided schema with type=object";
    for src in ["has(self.o)", "'o' in self", "self['o'] == []"] {
        let err = eval(src).expect_err(src);
        assert_eq!(err.message(), expected_map, "{src}");
    }
    let err = eval("self.n[0] == 'x'").expect_err("null item");
    assert_eq!(
        err.message(),
        "invalid data, got null for schema with nullable=false"
    );
    // Selection through the bad object, and iteration over the bad item.
    let err = eval("self.o.f == 'x'").expect_err("select through o");
    assert_eq!(err.message(), expected_map);
    for src in ["self.n.all(x, x == 'x')", "self.n.map(x, x).size() == 1"] {
        let err = eval(src).expect_err(src);
        assert_eq!(
            err.message(),
            "invalid data, got null for schema with nullable=false",
            "{src}"
        );
    }
    assert!(matches!(
        eval("has(self.ok) && !has(self.f)"),
        Ok(Value::Bool(true))
    ));
}

#[test]
fn owned_conversion_equals_the_borrowed_one_and_round_trips_number_forms_and_order() {
    let text = r#"{"z":1,"a":{"y":1.0,"b":[1e3,-0.5,9223372036854775807,-9223372036854775808]},"m":[{"k":"v","j":null,"i":true}],"s":"x"}"#;
    let doc: serde_json::Value = serde_json::from_str(text).expect("json");
    let borrowed = Json::from_serde(&doc).expect("json");
    let owned = Json::from_serde_owned(doc.clone()).expect("json");
    assert_eq!(owned, borrowed);
    assert!(
        matches!(&owned, Json::Object(o) if o.get("a").and_then(|a| match a {
        Json::Object(a) => a.get("y").cloned(),
        _ => None,
    }) == Some(Json::Double(1.0)))
    );
    assert_eq!(owned.to_serde().to_string(), doc.to_string());
    assert_eq!(owned.to_serde().to_string(), text.replace("1e3", "1000.0"));
    assert_eq!(owned.str_field("s"), Some("x"));
    assert_eq!(owned.str_field("z"), None);
    assert_eq!(Json::Int(1).str_field("s"), None);
}

#[test]
fn owned_conversion_gives_a_too_deep_document_back_untouched() {
    let mut doc = json!("leaf");
    for _ in 0..=MAX_CEL_DOCUMENT_DEPTH {
        doc = json!([doc]);
    }
    assert_eq!(Json::from_serde(&doc), Err(ValueError::TooDeep));
    match Json::from_serde_owned(doc.clone()) {
        Err((ValueError::TooDeep, back)) => assert_eq!(back, doc),
        other => panic!("expected TooDeep, got {other:?}"),
    }
    // One level less converts.
    let Some(inner) = doc.get(0).cloned() else {
        panic!("array expected")
    };
    assert!(Json::from_serde_owned(inner).is_ok());
}

#[test]
fn decoded_documents_of_any_depth_convert_and_report_whether_cel_reads_them() {
    for (leaf, wrap) in [
        (json!("leaf"), 0),
        (json!([]), 0),
        (json!({}), 0),
        (json!(1), 1),
        (json!({"a": 1}), 1),
    ] {
        for extra in [0, 1, 2] {
            let mut doc = leaf.clone();
            for i in 0..MAX_CEL_DOCUMENT_DEPTH - 1 + extra {
                doc = if (i + wrap) % 2 == 0 {
                    json!([doc])
                } else {
                    json!({ "k": doc })
                };
            }
            let too_deep = Json::from_serde(&doc).is_err();
            let decoded = Json::from_serde_owned_noting_nulls(doc.clone(), usize::MAX)
                .expect("any depth converts")
                .0;
            assert_eq!(
                decoded.nests_deeper_than_cel_reads(),
                too_deep,
                "{leaf} {extra}"
            );
            assert_eq!(decoded.to_serde(), doc);
        }
    }
}
