//! Old/new correlation (`apiserver/pkg/cel/common/equality.go` `CorrelatedObject`, reference §3.7,
//! §4) and map-list keys.
//!
//! A [`Correlation`] pairs a node of the new object with its old value: object and map fields by
//! key (only when the key exists in both), list elements only for `x-kubernetes-list-type: map`
//! lists (by their key fields). [`Correlation::deep_equal`] compares the pair as Kubernetes'
//! `CachedDeepEqual` does (objects through their correlated children, so an undeclared field makes
//! an object unequal; non-map lists as a whole). Ratcheting ([`Ratchet`]) turns a failing rule that
//! does not use `oldSelf` into a warning when its node — or, for uncorrelatable nodes, the nearest
//! correlatable ancestor — is unchanged.

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::gofmt::quote;
use crate::structural::Structural;
use crate::values::Json;

/// The key of a map-list element: its key fields rendered and joined (`None` when a key field is
/// missing or not a scalar). One key field keeps its type apart (`1` and `"1"` differ); several
/// are rendered like Go's `%t`/`%d`/`%f`/`%q` and joined with NUL.
pub fn map_list_key(schema: &Structural, item: &Json) -> Option<String> {
    let Json::Object(obj) = item else {
        return None;
    };
    let keys = &schema.extensions.list_map_keys;
    let mut out = String::new();
    for (i, k) in keys.iter().enumerate() {
        if i > 0 {
            out.push('\0');
        }
        match obj.get(k.as_str())? {
            Json::Bool(b) => out.push_str(if *b { "b:true" } else { "b:false" }),
            Json::Int(n) => {
                out.push_str("i:");
                out.push_str(&n.to_string());
            }
            Json::Double(d) => {
                out.push_str("f:");
                out.push_str(&format!("{d:.6}"));
            }
            Json::String(s) => {
                out.push_str("s:");
                out.push_str(&quote(s));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Old map-list elements by key (the first element of a key wins).
pub struct MapListIndex<'a> {
    by_key: HashMap<String, &'a Json>,
}

impl<'a> MapListIndex<'a> {
    /// Indexes the old items `old` of a map-list by the key fields of `schema`.
    pub fn new(schema: &Structural, old: &'a [Json]) -> Self {
        let mut by_key = HashMap::with_capacity(old.len());
        for item in old {
            if let Some(k) = map_list_key(schema, item) {
                by_key.entry(k).or_insert(item);
            }
        }
        MapListIndex { by_key }
    }

    /// The old element with the same key as `item`.
    pub fn get(&self, schema: &Structural, item: &Json) -> Option<&'a Json> {
        self.by_key.get(&map_list_key(schema, item)?).copied()
    }
}

/// A node of the new object paired with its old value.
pub struct Correlation {
    new: Json,
    old: Json,
    schema: Arc<Structural>,
    equal: Cell<Option<bool>>,
}

impl Correlation {
    /// The root pair.
    pub fn new(new: Json, old: Json, schema: Arc<Structural>) -> Rc<Correlation> {
        Rc::new(Correlation {
            new,
            old,
            schema,
            equal: Cell::new(None),
        })
    }

    /// The child at field or map key `field` (`None` when it is not in both values, or the schema
    /// has no schema for it).
    pub fn key(&self, field: &str) -> Option<Rc<Correlation>> {
        let (Json::Object(new), Json::Object(old)) = (&self.new, &self.old) else {
            return None;
        };
        let new_v = new.get(field)?;
        let old_v = old.get(field)?;
        let schema = self
            .schema
            .properties
            .get(field)
            .or_else(|| self.schema.additional_properties_schema())?;
        Some(Correlation::new(
            new_v.clone(),
            old_v.clone(),
            schema.clone(),
        ))
    }

    /// The child at index `i` of a map list, paired with the old element of the same key.
    pub fn index(&self, i: usize) -> Option<Rc<Correlation>> {
        let (Json::Array(new), Json::Array(old)) = (&self.new, &self.old) else {
            return None;
        };
        let item = new.get(i)?;
        if self.schema.list_type() != "map" {
            return None;
        }
        let items = self.schema.items.as_ref()?;
        let old_item = MapListIndex::new(&self.schema, old).get(&self.schema, item)?;
        Some(Correlation::new(
            item.clone(),
            old_item.clone(),
            items.clone(),
        ))
    }

    /// Whether the node equals its old value (`CachedDeepEqual`).
    pub fn deep_equal(&self) -> bool {
        if let Some(e) = self.equal.get() {
            return e;
        }
        let e = self.compute_equal();
        self.equal.set(Some(e));
        e
    }

    fn compute_equal(&self) -> bool {
        match (&self.new, &self.old) {
            (Json::Null, Json::Null) => true,
            (Json::Null, _) | (_, Json::Null) => false,
            (Json::Array(new), Json::Array(old)) => {
                if new.len() != old.len() {
                    return false;
                }
                if self.schema.list_type() != "map" || self.schema.items.is_none() {
                    return new == old;
                }
                let index = MapListIndex::new(&self.schema, old);
                let items = self.schema.items.as_ref();
                new.iter()
                    .all(|item| match (index.get(&self.schema, item), items) {
                        (Some(o), Some(s)) => {
                            Correlation::new(item.clone(), o.clone(), s.clone()).deep_equal()
                        }
                        _ => false,
                    })
            }
            (Json::Object(new), Json::Object(old)) => {
                new.len() == old.len()
                    && new
                        .keys()
                        .all(|k| self.key(k).is_some_and(|c| c.deep_equal()))
            }
            (Json::Array(_), _) | (_, Json::Array(_)) => false,
            (Json::Object(_), _) | (_, Json::Object(_)) => false,
            (a, b) => a == b,
        }
    }
}

/// Where a node stands for ratcheting: its own correlation, if correlatable, and the nearest
/// correlatable ancestor's.
#[derive(Clone, Default)]
pub struct Ratchet {
    current: Option<Rc<Correlation>>,
    nearest_parent: Option<Rc<Correlation>>,
}

impl Ratchet {
    /// No ratcheting (create, or ratcheting off).
    pub fn none() -> Ratchet {
        Ratchet::default()
    }

    /// The root of an update.
    pub fn root(c: Rc<Correlation>) -> Ratchet {
        Ratchet {
            current: Some(c),
            nearest_parent: None,
        }
    }

    /// Whether errors at this node become warnings.
    pub fn should_ratchet(&self) -> bool {
        match (&self.current, &self.nearest_parent) {
            (Some(c), _) => c.deep_equal(),
            (None, Some(p)) => p.deep_equal(),
            (None, None) => false,
        }
    }

    /// The state an `allOf` branch validates with: not ratcheted at the node itself (as schema
    /// ratcheting does not ratchet `allOf`), only through the nearest correlatable ancestor.
    pub fn for_all_of(&self) -> Ratchet {
        Ratchet {
            current: None,
            nearest_parent: self.nearest_parent.clone(),
        }
    }

    /// The state at field `field`. `apiVersion` and `kind` of the root never ratchet.
    pub fn key(&self, field: &str) -> Ratchet {
        let Some(current) = &self.current else {
            return self.clone();
        };
        if self.nearest_parent.is_none() && (field == "apiVersion" || field == "kind") {
            return Ratchet::none();
        }
        Ratchet {
            current: current.key(field),
            nearest_parent: Some(current.clone()),
        }
    }

    /// The state at index `i`.
    pub fn index(&self, i: usize) -> Ratchet {
        let Some(current) = &self.current else {
            return self.clone();
        };
        Ratchet {
            current: current.index(i),
            nearest_parent: Some(current.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_props::JsonSchemaProps;
    use serde_json::json;

    fn schema(v: serde_json::Value) -> Arc<Structural> {
        let props: JsonSchemaProps = serde_json::from_value(v).expect("props");
        Arc::new(Structural::from_props(&props).expect("structural"))
    }

    fn j(v: serde_json::Value) -> Json {
        Json::from_serde(&v).expect("json")
    }

    #[test]
    fn map_lists_correlate_by_key() {
        let s = schema(json!({"type": "object", "properties": {"l": {
            "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
            "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}}}}}));
        let new = j(json!({"l": [{"k": "b", "v": 2}, {"k": "a", "v": 1}]}));
        let old = j(json!({"l": [{"k": "a", "v": 1}, {"k": "b", "v": 3}]}));
        let root = Correlation::new(new, old, s);
        let l = root.key("l").expect("both have l");
        assert!(l.index(1).is_some_and(|c| c.deep_equal()));
        assert!(l.index(0).is_some_and(|c| !c.deep_equal()));
        assert!(!root.deep_equal());
    }

    #[test]
    fn undeclared_fields_make_objects_unequal_and_atomic_lists_compare_whole() {
        let s = schema(
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"a": {"type": "array", "items": {"type": "integer"}}}}),
        );
        let same = j(json!({"a": [1, 2]}));
        assert!(Correlation::new(same.clone(), same, s.clone()).deep_equal());
        let extra = j(json!({"a": [1, 2], "x": 1}));
        assert!(!Correlation::new(extra.clone(), extra, s.clone()).deep_equal());
        let r = Ratchet::root(Correlation::new(
            j(json!({"a": [1]})),
            j(json!({"a": [1]})),
            s,
        ));
        assert!(
            r.key("a").index(0).should_ratchet(),
            "uncorrelatable item uses the list"
        );
        assert!(!r.key("kind").should_ratchet());
    }
}
