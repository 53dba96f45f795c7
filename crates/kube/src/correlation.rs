//! Old/new correlation for ratcheting (KEP-4008): one implementation of apiserver
//! `pkg/cel/common/equality.go` (`CorrelatedObject`) and `maplist.go` (`MapList`), shared by the
//! OpenAPI schema validator (`pipeline::openapi`, over [`Json`] and the CRD's
//! `JsonSchemaProps`) and the CEL rule validator (`rules::validator`, over [`Json`] and
//! [`Structural`]), as the server shares one `CorrelatedObject` between both.
//!
//! A [`Correlation`] pairs a node of the new object with its old value:
//! * an object field `k` correlates when both sides are objects holding `k` and the schema
//!   describes `k` (`properties[k]`, else an `additionalProperties` schema) — `Key`;
//! * an array item correlates only in an `x-kubernetes-list-type: map` list, with the first old
//!   item of the same key ([`MapList`]) — `Index`.
//!
//! [`Correlation::unchanged`] is `CachedDeepEqual`: objects are unchanged when every key
//! correlates with an unchanged child (so a key the schema does not describe makes an object
//! changed), map lists when every item does, other lists and scalars by Go's `reflect.DeepEqual`
//! on decoded JSON (`1` and `1.0` differ).
//!
//! What is never ratcheted (a resource root's `apiVersion` and `kind`, `allOf` branches) is the
//! validators' business, as in Go (`ratchetingValueValidator.SubPropertyValidator`,
//! `ratchetingOptions.key`).

use std::cell::{Cell, OnceCell};
use std::collections::HashMap;

use crate::go::fmt::quote;
use crate::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use crate::structural::Structural;
use crate::values::Json;

/// How deep [`Correlation::unchanged`] descends before answering "changed".
const MAX_EQUALITY_DEPTH: usize = 1000;

/// A scalar a map-list key field may hold (`keyStrategy.CompositeKeyFor` accepts `bool`,
/// `float64`, `int64` and `string`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum KeyScalar<'a> {
    Bool(bool),
    Int(i64),
    Double(f64),
    String(&'a str),
}

/// A decoded JSON value as the correlation reads it.
pub(crate) trait JsonNode: Sized {
    /// Whether the value is `null`.
    fn is_null(&self) -> bool;
    /// Field `k` of an object (`None` for other values).
    fn field(&self, k: &str) -> Option<&Self>;
    /// The number of fields of an object (`None` for other values).
    fn object_len(&self) -> Option<usize>;
    /// Whether every field name of an object satisfies `f` (`false` for other values).
    fn all_keys(&self, f: impl FnMut(&str) -> bool) -> bool;
    /// The items of an array.
    fn items(&self) -> Option<&[Self]>;
    /// The value as a map-list key scalar.
    fn key_scalar(&self) -> Option<KeyScalar<'_>>;
    /// Go's `reflect.DeepEqual` of the decoded values.
    fn deep_equal(&self, other: &Self) -> bool;
}

/// A schema node as the correlation reads it (`common.Schema`).
pub(crate) trait SchemaNode {
    /// `properties[k]`, else the `additionalProperties` schema.
    fn property(&self, k: &str) -> Option<&Self>;
    /// The items schema.
    fn items(&self) -> Option<&Self>;
    /// `type`.
    fn type_name(&self) -> &str;
    /// `x-kubernetes-list-type` (empty when unset).
    fn list_type(&self) -> &str;
    /// `x-kubernetes-list-map-keys`.
    fn list_map_keys(&self) -> &[String];
}

/// A node of the new object paired with its old value (`CorrelatedObject`).
pub(crate) struct Correlation<'a, V, S> {
    new: &'a V,
    old: &'a V,
    schema: &'a S,
    unchanged: Cell<Option<bool>>,
    old_items: OnceCell<MapList<'a, V>>,
}

impl<'a, V: JsonNode, S: SchemaNode> Correlation<'a, V, S> {
    /// The pair of `new` and `old`, described by `schema` (`NewCorrelatedObject`).
    pub(crate) fn new(new: &'a V, old: &'a V, schema: &'a S) -> Self {
        Correlation {
            new,
            old,
            schema,
            unchanged: Cell::new(None),
            old_items: OnceCell::new(),
        }
    }

    /// The child at field or map key `field` (`Key`).
    pub(crate) fn key(&self, field: &str) -> Option<Correlation<'a, V, S>> {
        let new = self.new.field(field)?;
        let old = self.old.field(field)?;
        let schema = self.schema.property(field)?;
        Some(Correlation::new(new, old, schema))
    }

    /// The child at index `i` of a map list, paired with the old item of the same key (`Index`).
    pub(crate) fn index(&self, i: usize) -> Option<Correlation<'a, V, S>> {
        let item = self.new.items()?.get(i)?;
        let old = self.old_item(item)?;
        let schema = self.schema.items()?;
        Some(Correlation::new(item, old, schema))
    }

    /// `correlateOldValueForChildAtNewIndex`: the old item of a map list with `item`'s key.
    fn old_item(&self, item: &V) -> Option<&'a V> {
        if self.schema.list_type() != "map" {
            return None;
        }
        let old = self.old.items()?;
        let list = self
            .old_items
            .get_or_init(|| MapList::new(self.schema, old));
        list.get(self.schema, item)
    }

    /// Whether the node equals its old value (`CachedDeepEqual`), computed once.
    pub(crate) fn unchanged(&self) -> bool {
        if let Some(u) = self.unchanged.get() {
            return u;
        }
        let u = self.compute_unchanged(0);
        self.unchanged.set(Some(u));
        u
    }

    fn compute_unchanged(&self, depth: usize) -> bool {
        if depth > MAX_EQUALITY_DEPTH {
            return false;
        }
        let (new, old) = (self.new, self.old);
        if new.is_null() || old.is_null() {
            return new.is_null() && old.is_null();
        }
        match (new.items(), old.items()) {
            (Some(n), Some(o)) => {
                if n.len() != o.len() {
                    return false;
                }
                if self.schema.list_type() != "map" {
                    return new.deep_equal(old);
                }
                (0..n.len()).all(|i| {
                    self.index(i)
                        .is_some_and(|c| c.compute_unchanged(depth + 1))
                })
            }
            (None, None) => match (new.object_len(), old.object_len()) {
                (Some(n), Some(o)) => {
                    n == o
                        && new.all_keys(|k| {
                            self.key(k).is_some_and(|c| c.compute_unchanged(depth + 1))
                        })
                }
                (None, None) => new.deep_equal(old),
                _ => false,
            },
            _ => false,
        }
    }
}

/// The items of an `x-kubernetes-list-type: map` list by key (`MapList`): [`MapList::get`]
/// finds the first item with the key of a given one.
pub(crate) struct MapList<'a, V> {
    by_key: HashMap<String, &'a V>,
}

impl<'a, V: JsonNode> MapList<'a, V> {
    /// Indexes `items` by the key fields of the list schema `schema` (`MakeMapList`: empty unless
    /// the schema is an array of list type `map` with keys).
    pub(crate) fn new<S: SchemaNode>(schema: &S, items: &'a [V]) -> Self {
        let mut by_key = HashMap::new();
        if schema.type_name() == "array"
            && schema.list_type() == "map"
            && !schema.list_map_keys().is_empty()
        {
            by_key.reserve(items.len());
            for item in items {
                if let Some(k) = composite_key(schema, item) {
                    by_key.entry(k).or_insert(item);
                }
            }
        }
        MapList { by_key }
    }

    /// The first item with `item`'s key (`None` when `item` has no key).
    pub(crate) fn get<S: SchemaNode>(&self, schema: &S, item: &V) -> Option<&'a V> {
        if self.by_key.is_empty() {
            return None;
        }
        self.by_key.get(&composite_key(schema, item)?).copied()
    }
}

/// `keyStrategy.CompositeKeyFor`: `None` when a key field is missing or not a scalar. One key
/// field is compared as the Go value itself (types apart, floats exactly, `-0 == 0`); several are
/// rendered as Go's `"\x00%t"`, `"\x00%f"`, `"\x00%d"`, `"\x00%q"` and concatenated.
fn composite_key<V: JsonNode, S: SchemaNode>(schema: &S, item: &V) -> Option<String> {
    let keys = schema.list_map_keys();
    if let [key] = keys {
        return Some(match item.field(key)?.key_scalar()? {
            KeyScalar::Bool(b) => format!("b{b}"),
            KeyScalar::Int(n) => format!("i{n}"),
            KeyScalar::Double(d) => format!("f{:x}", (d + 0.0).to_bits()),
            KeyScalar::String(s) => format!("s{s}"),
        });
    }
    let mut out = String::new();
    for key in keys {
        out.push('\0');
        match item.field(key)?.key_scalar()? {
            KeyScalar::Bool(b) => out.push_str(if b { "true" } else { "false" }),
            KeyScalar::Int(n) => out.push_str(&n.to_string()),
            KeyScalar::Double(d) => out.push_str(&format!("{d:.6}")),
            KeyScalar::String(s) => out.push_str(&quote(s)),
        }
    }
    Some(out)
}

impl JsonNode for Json {
    fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    fn field(&self, k: &str) -> Option<&Json> {
        match self {
            Json::Object(o) => o.get(k),
            _ => None,
        }
    }

    fn object_len(&self) -> Option<usize> {
        match self {
            Json::Object(o) => Some(o.len()),
            _ => None,
        }
    }

    fn all_keys(&self, mut f: impl FnMut(&str) -> bool) -> bool {
        match self {
            Json::Object(o) => o.keys().all(|k| f(k)),
            _ => false,
        }
    }

    fn items(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    fn key_scalar(&self) -> Option<KeyScalar<'_>> {
        match self {
            Json::Bool(b) => Some(KeyScalar::Bool(*b)),
            Json::Int(n) => Some(KeyScalar::Int(*n)),
            Json::Double(d) => Some(KeyScalar::Double(*d)),
            Json::String(s) => Some(KeyScalar::String(s)),
            _ => None,
        }
    }

    fn deep_equal(&self, other: &Json) -> bool {
        // `Int` and `Double` are different variants, as `int64` and `float64` are Go types.
        self == other
    }
}

impl SchemaNode for Structural {
    fn property(&self, k: &str) -> Option<&Structural> {
        self.properties
            .get(k)
            .or_else(|| self.additional_properties_schema())
            .map(|s| &**s)
    }

    fn items(&self) -> Option<&Structural> {
        self.items.as_deref()
    }

    fn type_name(&self) -> &str {
        &self.generic.type_
    }

    fn list_type(&self) -> &str {
        self.extensions.list_type.as_deref().unwrap_or("")
    }

    fn list_map_keys(&self) -> &[String] {
        &self.extensions.list_map_keys
    }
}

impl SchemaNode for JsonSchemaProps {
    fn property(&self, k: &str) -> Option<&JsonSchemaProps> {
        self.properties
            .get(k)
            .or(match &self.additional_properties {
                Some(SchemaOrBool::Schema(s)) => Some(&**s),
                _ => None,
            })
    }

    fn items(&self) -> Option<&JsonSchemaProps> {
        match &self.items {
            Some(SchemaOrArray::Schema(s)) => Some(&**s),
            _ => None,
        }
    }

    fn type_name(&self) -> &str {
        self.type_.as_deref().unwrap_or("")
    }

    fn list_type(&self) -> &str {
        self.x_list_type.as_deref().unwrap_or("")
    }

    fn list_map_keys(&self) -> &[String] {
        &self.x_list_map_keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn props(v: Value) -> JsonSchemaProps {
        serde_json::from_value(v).expect("schema")
    }

    fn structural(v: Value) -> Structural {
        Structural::from_props(&props(v)).expect("structural")
    }

    fn j(v: Value) -> Json {
        Json::from_serde(&v).expect("json")
    }

    fn list_schema() -> Value {
        json!({"type": "object", "properties": {
            "a": {"type": "integer"},
            "l": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
                  "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}}}
        }})
    }

    #[test]
    fn map_lists_correlate_by_key_in_both_representations() {
        let (new, old) = (
            json!({"l": [{"k": "b", "v": 2}, {"k": "a", "v": 1}]}),
            json!({"l": [{"k": "a", "v": 1}, {"k": "b", "v": 3}]}),
        );
        let p = props(list_schema());
        let (jn, jo) = (j(new), j(old));
        let root = Correlation::new(&jn, &jo, &p);
        let l = root.key("l").expect("both have l");
        assert!(l.index(1).is_some_and(|c| c.unchanged()));
        assert!(l.index(0).is_some_and(|c| !c.unchanged()));
        assert!(!root.unchanged());

        let s = structural(list_schema());
        let root = Correlation::new(&jn, &jo, &s);
        let l = root.key("l").expect("both have l");
        assert!(l.index(1).is_some_and(|c| c.unchanged()));
        assert!(l.index(0).is_some_and(|c| !c.unchanged()));
        assert!(!root.unchanged());
    }

    #[test]
    fn unchanged_follows_cached_deep_equal() {
        let p = props(list_schema());
        let same = |a: Value, b: Value| {
            let (a, b) = (j(a), j(b));
            Correlation::new(&a, &b, &p).unchanged()
        };
        assert!(same(json!({"a": 1}), json!({"a": 1})));
        assert!(
            !same(json!({"a": 1}), json!({"a": 1.0})),
            "int64 and float64 differ"
        );
        assert!(
            !same(json!({"x": 1}), json!({"x": 1})),
            "undescribed keys are changed"
        );
        assert!(same(
            json!({"l": [{"k": "a", "v": 1}, {"k": "b"}]}),
            json!({"l": [{"k": "b"}, {"k": "a", "v": 1}]})
        ));
        assert!(
            !same(json!({"l": [{"v": 1}]}), json!({"l": [{"v": 1}]})),
            "an item without its key correlates with nothing"
        );
        assert!(same(json!(null), json!(null)));
        assert!(!same(json!({"a": null}), json!({"a": 1})));
    }

    #[test]
    fn composite_keys_are_gos() {
        let one = props(json!({"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["k"], "items": {"type": "object"}}));
        let two = props(json!({"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["k", "n"], "items": {"type": "object"}}));
        let key = |s: &JsonSchemaProps, v: Value| composite_key(s, &j(v));
        // One key: the value itself, floats exactly and types apart.
        assert_ne!(
            key(&one, json!({"k": 1.0000001})),
            key(&one, json!({"k": 1.0000002}))
        );
        assert_ne!(key(&one, json!({"k": 1})), key(&one, json!({"k": "1"})));
        assert_eq!(key(&one, json!({"k": -0.0})), key(&one, json!({"k": 0.0})));
        assert_eq!(key(&one, json!({"k": [1]})), None);
        // Several keys: Go's `%f` rounds to six decimals.
        assert_eq!(
            key(&two, json!({"k": 1.0000001, "n": "x"})),
            key(&two, json!({"k": 1.0000002, "n": "x"}))
        );
        assert_eq!(
            key(&two, json!({"k": true, "n": 2})).as_deref(),
            Some("\u{0}true\u{0}2")
        );
        assert_eq!(key(&two, json!({"k": true})), None);
    }

    #[test]
    fn first_item_of_a_key_wins() {
        let s = props(json!({"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["k"], "items": {"type": "object"}}));
        let old = [j(json!({"k": "a", "v": 1})), j(json!({"k": "a", "v": 2}))];
        let list = MapList::new(&s, &old);
        assert_eq!(list.get(&s, &j(json!({"k": "a"}))), Some(&old[0]));
        let atomic = props(json!({"type": "array", "items": {"type": "object"}}));
        assert!(MapList::new(&atomic, &old).get(&atomic, &old[0]).is_none());
    }
}
