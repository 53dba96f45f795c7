//! `x-kubernetes-list-type` `set` and `map` uniqueness (apiextensions
//! `schema/listtype/validation.go`, reference §2.6). Walks only schema-described structure,
//! and of it only the parts on the way to a `set` or `map` list ([`ListTypePlan`], built once
//! per schema).
//!
//! Elements are told apart as Go's `validateListSetsAndMaps` does: scalars by Go equality (an
//! int and a float differ), compound values by their JSON encoding with sorted keys. Scalars
//! are compared as they are, without building a string; only compound elements (rare in sets
//! and map keys) are encoded.

use std::collections::HashSet;

use serde_json::{Map, Value};
use smallvec::SmallVec;

use super::trail::Trail;
use crate::field::{BadValue, FieldError, Path, go_json};
use crate::schema_props::{JsonSchemaProps, SchemaLookup, SchemaOrArray, SchemaOrBool};
use crate::values::Json;

/// How deep the walk descends.
const MAX_LIST_TYPE_DEPTH: usize = 1000;

/// Up to how many elements a list's identities are compared pairwise (no hash set built).
const LINEAR_MAX: usize = 16;

/// The schema nodes on the way to a `set` or `map` list: the walk descends only into them.
#[derive(Debug)]
pub struct ListTypePlan {
    /// The plans of `properties`, by position (`None`: no list type below).
    properties: Vec<Option<ListTypePlan>>,
    /// The names and positions of the properties with a plan: without `additional`, the
    /// fields the walk descends into are found among these alone.
    planned: Vec<(String, usize)>,
    /// The plan of `items` (a single schema).
    items: Option<Box<ListTypePlan>>,
    /// The plan of `additionalProperties` (a schema).
    additional: Option<Box<ListTypePlan>>,
}

impl ListTypePlan {
    /// The plan of `schema`; `None` when it has no `set` or `map` list.
    pub fn new(schema: &JsonSchemaProps) -> Option<ListTypePlan> {
        Self::build(schema, 0)
    }

    fn build(s: &JsonSchemaProps, depth: usize) -> Option<ListTypePlan> {
        if depth > MAX_LIST_TYPE_DEPTH {
            return None;
        }
        let items = match &s.items {
            Some(SchemaOrArray::Schema(i)) => Self::build(i, depth + 1).map(Box::new),
            _ => None,
        };
        let additional = match &s.additional_properties {
            Some(SchemaOrBool::Schema(a)) => Self::build(a, depth + 1).map(Box::new),
            _ => None,
        };
        let properties: Vec<Option<ListTypePlan>> = s
            .properties
            .values()
            .map(|p| Self::build(p, depth + 1))
            .collect();
        let planned: Vec<(String, usize)> = s
            .properties
            .keys()
            .zip(&properties)
            .enumerate()
            .filter(|(_, (_, p))| p.is_some())
            .map(|(i, (k, _))| (k.clone(), i))
            .collect();
        let here = matches!(s.x_list_type.as_deref(), Some("set" | "map"));
        (here || items.is_some() || additional.is_some() || !planned.is_empty()).then_some(
            ListTypePlan {
                properties,
                planned,
                items,
                additional,
            },
        )
    }
}

/// Every set and list-map uniqueness error in `value`, whose schema is `schema`, planned as
/// `plan`.
pub fn validate(
    path: &Path,
    schema: &JsonSchemaProps,
    plan: &ListTypePlan,
    value: &Json,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    walk(&Trail::Base(path), schema, plan, value, &mut errs, 0);
    errs
}

fn walk(
    path: &Trail<'_>,
    schema: &JsonSchemaProps,
    plan: &ListTypePlan,
    value: &Json,
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > MAX_LIST_TYPE_DEPTH {
        return;
    }
    match value {
        Json::Array(items) => {
            match schema.x_list_type.as_deref() {
                Some("set") => set_duplicates(path, items, errs),
                Some("map") => map_duplicates(path, &schema.x_list_map_keys, items, errs),
                _ => {}
            }
            if let (Some(SchemaOrArray::Schema(item_schema)), Some(item_plan)) =
                (&schema.items, &plan.items)
            {
                for (i, item) in items.iter().enumerate() {
                    walk(
                        &path.index(i),
                        item_schema,
                        item_plan,
                        item,
                        errs,
                        depth + 1,
                    );
                }
            }
        }
        Json::Object(map) if plan.additional.is_none() => {
            for (k, v) in map.iter() {
                let Some(&(_, i)) = plan.planned.iter().find(|(name, _)| name == &**k) else {
                    continue;
                };
                if let (Some(Some(p)), Some((_, prop))) =
                    (plan.properties.get(i), schema.properties.get_index(i))
                {
                    walk(&path.child(k), prop, p, v, errs, depth + 1);
                }
            }
        }
        Json::Object(map) => {
            for (k, v) in map.iter() {
                match schema.properties.lookup_index(k) {
                    Some(i) => {
                        if let (Some(Some(p)), Some((_, prop))) =
                            (plan.properties.get(i), schema.properties.get_index(i))
                        {
                            walk(&path.child(k), prop, p, v, errs, depth + 1);
                        }
                    }
                    None => {
                        if let (Some(SchemaOrBool::Schema(ap)), Some(p)) =
                            (&schema.additional_properties, &plan.additional)
                        {
                            walk(&path.key(k), ap, p, v, errs, depth + 1);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// The identity of a set element or of one key of a map-list element.
#[derive(Debug, PartialEq, Eq, Hash)]
enum Identity<'a> {
    /// A map-list element without this key.
    Absent,
    Null,
    Bool(bool),
    Int(i64),
    /// A float by its bits: distinct floats print distinctly, `-0` and `0` included.
    Float(u64),
    String(&'a str),
    /// An array or object: its JSON encoding with sorted keys.
    Compound(String),
}

impl<'a> Identity<'a> {
    fn of(v: &'a Json) -> Identity<'a> {
        match v {
            Json::Null => Identity::Null,
            Json::Bool(b) => Identity::Bool(*b),
            Json::Int(i) => Identity::Int(*i),
            Json::Double(d) => Identity::Float(d.to_bits()),
            Json::String(s) => Identity::String(s),
            Json::Array(_) | Json::Object(_) => Identity::Compound(go_json(&v.to_serde())),
        }
    }
}

/// The position of each element whose identity an earlier element has, the first such
/// element of each identity only.
fn first_duplicates<K: Eq + std::hash::Hash>(keys: &[K]) -> Vec<usize> {
    let mut out = Vec::new();
    if keys.len() <= LINEAR_MAX {
        for (i, k) in keys.iter().enumerate() {
            let seen = keys[..i].contains(k);
            let reported = out.iter().any(|&j: &usize| keys[j] == *k);
            if seen && !reported {
                out.push(i);
            }
        }
        return out;
    }
    let mut seen =
        HashSet::with_capacity_and_hasher(keys.len(), foldhash::fast::RandomState::default());
    let mut reported = HashSet::with_hasher(foldhash::fast::RandomState::default());
    for (i, k) in keys.iter().enumerate() {
        if !seen.insert(k) && reported.insert(k) {
            out.push(i);
        }
    }
    out
}

fn set_duplicates(path: &Trail<'_>, items: &[Json], errs: &mut Vec<FieldError>) {
    let keys: SmallVec<[Identity<'_>; LINEAR_MAX]> = items.iter().map(Identity::of).collect();
    for i in first_duplicates(&keys) {
        errs.push(FieldError::duplicate(
            path.index(i).to_path(),
            BadValue::of_json(&items[i]),
        ));
    }
}

fn map_duplicates(path: &Trail<'_>, keys: &[String], items: &[Json], errs: &mut Vec<FieldError>) {
    for (i, item) in items.iter().enumerate() {
        if !matches!(item, Json::Object(_) | Json::Null) {
            errs.push(FieldError::invalid(
                path.index(i).to_path(),
                BadValue::of_json(item),
                "must be an object for an array of list-type map",
            ));
            return;
        }
    }
    if keys.is_empty() {
        return;
    }
    fn key_values<'j>(keys: &[String], item: &'j Json) -> SmallVec<[Option<&'j Json>; 2]> {
        keys.iter()
            .map(|k| match item {
                Json::Object(o) => o.get(k),
                _ => None,
            })
            .collect()
    }
    let identities: SmallVec<[SmallVec<[Identity<'_>; 2]>; LINEAR_MAX]> = items
        .iter()
        .map(|item| {
            key_values(keys, item)
                .into_iter()
                .map(|v| v.map_or(Identity::Absent, Identity::of))
                .collect()
        })
        .collect();
    for i in first_duplicates(&identities) {
        let mut key_map = Map::new();
        for (k, v) in keys.iter().zip(key_values(keys, &items[i])) {
            if let Some(v) = v {
                key_map.insert(k.clone(), v.to_serde());
            }
        }
        errs.push(FieldError::duplicate(
            path.index(i).to_path(),
            BadValue::Json(Value::Object(key_map)),
        ));
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
        let v = Json::from_serde(&v).expect("json");
        let plan = ListTypePlan::new(&s).expect("lists");
        let mut errs: Vec<String> = validate(&Path::new("spec"), &s, &plan, &v)
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
