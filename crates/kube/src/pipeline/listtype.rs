//! `x-kubernetes-list-type` `set` and `map` uniqueness (apiextensions
//! `schema/listtype/validation.go`, reference §2.6). Walks only schema-described structure.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::trail::Trail;
use crate::field::{BadValue, FieldError, Path, go_json};
use crate::schema_props::{JsonSchemaProps, SchemaLookup, SchemaOrArray, SchemaOrBool};

/// How deep the walk descends.
const MAX_LIST_TYPE_DEPTH: usize = 1000;

/// Every set and list-map uniqueness error in `value`.
pub fn validate(path: &Path, schema: &JsonSchemaProps, value: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    walk(&Trail::Base(path), schema, value, &mut errs, 0);
    errs
}

fn walk(
    path: &Trail<'_>,
    schema: &JsonSchemaProps,
    value: &Value,
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > MAX_LIST_TYPE_DEPTH {
        return;
    }
    match value {
        Value::Array(items) => {
            match schema.x_list_type.as_deref() {
                Some("set") => set_duplicates(path, items, errs),
                Some("map") => map_duplicates(path, &schema.x_list_map_keys, items, errs),
                _ => {}
            }
            if let Some(SchemaOrArray::Schema(item_schema)) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    walk(&path.index(i), item_schema, item, errs, depth + 1);
                }
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                if let Some(prop) = schema.properties.lookup(k) {
                    walk(&path.child(k), prop, v, errs, depth + 1);
                } else if let Some(SchemaOrBool::Schema(ap)) = &schema.additional_properties {
                    walk(&path.key(k), ap, v, errs, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// The identity of a set element: scalars by Go equality (int and float differ), compound values
/// by their JSON encoding with sorted keys.
fn set_key(v: &Value) -> String {
    match v {
        Value::Number(n) if n.is_f64() => format!("f:{}", go_json(v)),
        Value::Number(_) => format!("i:{}", go_json(v)),
        _ => format!("j:{}", go_json(v)),
    }
}

fn bad_value(v: &Value) -> BadValue {
    super::openapi::bad_value_of(v)
}

fn set_duplicates(path: &Trail<'_>, items: &[Value], errs: &mut Vec<FieldError>) {
    let mut seen: HashSet<String> = HashSet::with_capacity(items.len());
    let mut reported: HashSet<String> = HashSet::new();
    for (i, item) in items.iter().enumerate() {
        let key = set_key(item);
        if !seen.insert(key.clone()) && reported.insert(key) {
            errs.push(FieldError::duplicate(
                path.index(i).to_path(),
                bad_value(item),
            ));
        }
    }
}

fn map_duplicates(path: &Trail<'_>, keys: &[String], items: &[Value], errs: &mut Vec<FieldError>) {
    for (i, item) in items.iter().enumerate() {
        if !matches!(item, Value::Object(_) | Value::Null) {
            errs.push(FieldError::invalid(
                path.index(i).to_path(),
                bad_value(item),
                "must be an object for an array of list-type map",
            ));
            return;
        }
    }
    if keys.is_empty() {
        return;
    }
    let mut seen: HashSet<String> = HashSet::with_capacity(items.len());
    let mut reported: HashSet<String> = HashSet::new();
    for (i, item) in items.iter().enumerate() {
        let mut key_map = Map::new();
        if let Value::Object(o) = item {
            for k in keys {
                if let Some(v) = o.get(k) {
                    key_map.insert(k.clone(), v.clone());
                }
            }
        }
        let identity: Vec<String> = keys
            .iter()
            .map(|k| key_map.get(k).map_or_else(|| "-".to_string(), set_key))
            .collect();
        let identity = identity.join("\u{0}");
        if !seen.insert(identity.clone()) && reported.insert(identity) {
            errs.push(FieldError::duplicate(
                path.index(i).to_path(),
                BadValue::Json(Value::Object(key_map)),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn duplicates() {
        let s: JsonSchemaProps = serde_json::from_value(json!({"type": "object", "properties": {
            "s": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
            "m": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object"}}
        }}))
        .expect("schema");
        let v = json!({"s": [1, 1, 1.0, 2, 2], "m": [{"name": "a"}, {"name": "a", "x": 1}]});
        let mut errs: Vec<String> = validate(&Path::new("spec"), &s, &v)
            .iter()
            .map(ToString::to_string)
            .collect();
        errs.sort();
        assert_eq!(
            errs,
            [
                "spec.m[1]: Duplicate value: {\"name\":\"a\"}",
                "spec.s[1]: Duplicate value: 1",
                "spec.s[4]: Duplicate value: 2"
            ]
        );
    }
}
