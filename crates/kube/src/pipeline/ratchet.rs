//! Correlation of old and new objects for OpenAPI ratcheting, over the request's JSON and the
//! CRD's schema (KEP-4008; apiserver `pkg/cel/common/equality.go`, reference §5.2). The CEL
//! rules' ratcheting correlates the same way over their own values (`rules::ratchet`).
//!
//! An [`OldValue`] is the old value that corresponds to a node of the new object:
//! * an object field `k` is correlated when both sides are objects holding `k` and the schema
//!   describes `k` (`properties[k]` or an `additionalProperties` schema); at a resource root
//!   `apiVersion` and `kind` never are;
//! * an array item only in an `x-kubernetes-list-type: map` list: the old item with the same
//!   key tuple.
//!
//! [`OldValue::unchanged`] is `CachedDeepEqual`: a node is unchanged when every key and item
//! correlates with an equal old one; scalars compare as Go's `reflect.DeepEqual` does (`1` and
//! `1.0` differ); a map holding a key the schema does not describe is never unchanged.

use serde_json::Value;

use crate::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};

/// How deep [`unchanged`] descends before giving up (answering "changed").
const MAX_DEPTH: usize = 1000;

/// The old value correlated with a node of the new object.
#[derive(Clone, Copy, Debug)]
pub struct OldValue<'a> {
    pub old: &'a Value,
    /// Whether this node is a resource root (`apiVersion`/`kind` never correlate).
    root: bool,
}

impl<'a> OldValue<'a> {
    /// The correlation of two resource roots.
    pub fn root(old: &'a Value) -> OldValue<'a> {
        OldValue { old, root: true }
    }

    /// The correlation of a non-root node.
    pub fn node(old: &'a Value) -> OldValue<'a> {
        OldValue { old, root: false }
    }

    /// The correlate of property `k` (`described`: the schema has `properties[k]` or an
    /// `additionalProperties` schema).
    pub fn property(&self, k: &str, described: bool) -> Option<OldValue<'a>> {
        if !described || (self.root && (k == "apiVersion" || k == "kind")) {
            return None;
        }
        match self.old {
            Value::Object(m) => m.get(k).map(OldValue::node),
            _ => None,
        }
    }

    /// The correlate of an item of a list-map: the old item with the same key tuple.
    pub fn list_map_item(&self, item: &Value, keys: &[String]) -> Option<OldValue<'a>> {
        let Value::Array(old_items) = self.old else {
            return None;
        };
        let Value::Object(new_item) = item else {
            return None;
        };
        old_items
            .iter()
            .find(|o| match o {
                Value::Object(old_item) => {
                    keys.iter()
                        .all(|k| match (new_item.get(k), old_item.get(k)) {
                            (Some(a), Some(b)) => go_deep_equal(a, b),
                            (None, None) => true,
                            _ => false,
                        })
                }
                _ => false,
            })
            .map(OldValue::node)
    }

    /// `CachedDeepEqual`: whether `new` (described by `schema`) equals the correlated old value.
    pub fn unchanged(&self, new: &Value, schema: &JsonSchemaProps) -> bool {
        unchanged(new, self.old, schema, self.root, 0)
    }
}

/// The schema of property `k`, if the schema describes it.
pub fn property_schema<'s>(schema: &'s JsonSchemaProps, k: &str) -> Option<&'s JsonSchemaProps> {
    let additional = match &schema.additional_properties {
        Some(SchemaOrBool::Schema(s)) => Some(&**s),
        _ => None,
    };
    schema.properties.get(k).or(additional)
}

/// See [`OldValue::unchanged`].
pub fn unchanged(
    new: &Value,
    old: &Value,
    schema: &JsonSchemaProps,
    root: bool,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match (new, old) {
        (Value::Object(n), Value::Object(o)) => {
            n.len() == o.len()
                && n.iter().all(|(k, v)| {
                    if root && (k == "apiVersion" || k == "kind") {
                        return false;
                    }
                    match (property_schema(schema, k), o.get(k)) {
                        (Some(s), Some(ov)) => unchanged(v, ov, s, false, depth + 1),
                        _ => false,
                    }
                })
        }
        (Value::Array(n), Value::Array(o)) => {
            if n.len() != o.len() {
                return false;
            }
            let item_schema = match &schema.items {
                Some(SchemaOrArray::Schema(s)) => Some(&**s),
                _ => None,
            };
            match (schema.x_list_type.as_deref(), item_schema) {
                (Some("map"), Some(is)) => {
                    let corr = OldValue::node(old);
                    n.iter().all(|item| {
                        corr.list_map_item(item, &schema.x_list_map_keys)
                            .is_some_and(|c| unchanged(item, c.old, is, false, depth + 1))
                    })
                }
                _ => go_deep_equal(new, old),
            }
        }
        _ => go_deep_equal(new, old),
    }
}

/// Go's `reflect.DeepEqual` on decoded JSON: `int64` and `float64` are different types.
pub fn go_deep_equal(a: &Value, b: &Value) -> bool {
    // serde_json keeps integers and floats apart (`1 != 1.0`), like Go's types.
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn props(v: Value) -> JsonSchemaProps {
        serde_json::from_value(v).expect("schema")
    }

    #[test]
    fn unchanged_rules() {
        let s = props(json!({"type": "object", "properties": {
            "a": {"type": "integer"},
            "l": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                  "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}}}
        }}));
        assert!(unchanged(&json!({"a": 1}), &json!({"a": 1}), &s, false, 0));
        assert!(!unchanged(
            &json!({"a": 1}),
            &json!({"a": 1.0}),
            &s,
            false,
            0
        ));
        assert!(!unchanged(&json!({"x": 1}), &json!({"x": 1}), &s, false, 0));
        assert!(unchanged(
            &json!({"l": [{"k": "a", "v": 1}, {"k": "b"}]}),
            &json!({"l": [{"k": "b"}, {"k": "a", "v": 1}]}),
            &s,
            false,
            0
        ));
        let root = json!({"kind": "X", "a": 1});
        assert!(!OldValue::root(&root).unchanged(&root, &s));
    }
}
