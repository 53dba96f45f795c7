//! Pruning, null pruning and embedded-resource coercion (apiextensions `schema/pruning`,
//! `schema/defaulting/prunenulls.go`, `schema/objectmeta/coerce.go`; reference §7), in place on
//! the request's [`Json`]. Defaulting is `defaults.rs`.

use std::sync::Arc;

use super::decode::decode_object_meta;
use super::trail::Trail;
use crate::field::{BadValue, FieldError, Path};
use crate::schema_props::SchemaLookup;
use crate::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};
use crate::values::{Json, JsonObject};

/// How deep the walks descend (deeper content is left alone).
pub(super) const MAX_PRUNE_DEPTH: usize = 1000;

fn preserves(s: &JsonSchemaProps) -> bool {
    s.x_preserve_unknown_fields == Some(true)
}

pub(super) fn items(s: &JsonSchemaProps) -> Option<&JsonSchemaProps> {
    match &s.items {
        Some(SchemaOrArray::Schema(i)) => Some(i),
        _ => None,
    }
}

/// The schema of an `additionalProperties` member: `Some(None)` for the bool forms (no schema,
/// but the key is kept), `None` when there is no `additionalProperties`.
pub(super) fn additional(s: &JsonSchemaProps) -> Option<Option<&JsonSchemaProps>> {
    match &s.additional_properties {
        None => None,
        Some(SchemaOrBool::Bool(_)) => Some(None),
        Some(SchemaOrBool::Schema(ap)) => Some(Some(ap)),
    }
}

/// Removes every field the schema does not describe; returns the pruned paths, sorted.
/// `root`: the resource root (`apiVersion`, `kind`, `metadata` are kept).
pub fn prune(v: &mut Json, s: &JsonSchemaProps, root: bool) -> Vec<String> {
    let mut pruned = Vec::new();
    let base = Path::root();
    prune_node(v, Some(s), root, &Trail::Base(&base), &mut pruned, 0);
    pruned.sort();
    pruned
}

/// The paths [`prune`] would remove from a `serde_json` value (the CRD review's `default`
/// values, a mutated object's strict decoding): the boundary for callers holding `serde_json`.
/// A value nested deeper than the walk descends (deeper than the CRD loader and the typed
/// decoder let through) reports none.
pub fn unknown_fields(v: &serde_json::Value, s: &JsonSchemaProps, root: bool) -> Vec<String> {
    Json::from_serde_within(v, MAX_PRUNE_DEPTH + 1)
        .map(|mut j| prune(&mut j, s, root))
        .unwrap_or_default()
}

fn prune_node(
    v: &mut Json,
    s: Option<&JsonSchemaProps>,
    resource_root: bool,
    path: &Trail<'_>,
    pruned: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_PRUNE_DEPTH {
        return;
    }
    if let Some(s) = s
        && preserves(s)
    {
        skip_prune(v, s, resource_root, path, pruned, depth);
        return;
    }
    match v {
        Json::Object(_) => {
            let Some(m) = v.as_object_mut() else { return };
            let Some(s) = s else {
                for k in m.keys() {
                    pruned.push(path.child(k).text());
                }
                m.clear();
                return;
            };
            let meta_node = resource_root || s.x_embedded_resource;
            m.retain(|k, child| {
                if meta_node && is_type_or_object_meta(k) {
                    return true;
                }
                if let Some(prop) = s.properties.lookup(k) {
                    if is_container(child) {
                        prune_node(child, Some(prop), false, &path.child(k), pruned, depth + 1);
                    }
                } else if let Some(ap) = additional(s) {
                    if is_container(child) {
                        prune_node(child, ap, false, &path.key(k), pruned, depth + 1);
                    }
                } else {
                    pruned.push(path.child(k).text());
                    return false;
                }
                true
            });
        }
        Json::Array(a) if a.iter().any(is_container) => {
            let item_schema = s.and_then(items);
            for (i, x) in v.as_array_mut().into_iter().flatten().enumerate() {
                prune_node(x, item_schema, false, &path.index(i), pruned, depth + 1);
            }
        }
        _ => {}
    }
}

/// Whether pruning can change anything in `v`: objects and arrays (a scalar has nothing to
/// prune, whatever its schema).
fn is_container(v: &Json) -> bool {
    matches!(v, Json::Object(_) | Json::Array(_))
}

/// `apiVersion`, `kind` and `metadata`, which a resource root keeps whatever its schema says.
fn is_type_or_object_meta(k: &str) -> bool {
    matches!(k, "apiVersion" | "kind" | "metadata")
}

fn skip_prune(
    v: &mut Json,
    s: &JsonSchemaProps,
    resource_root: bool,
    path: &Trail<'_>,
    pruned: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_PRUNE_DEPTH {
        return;
    }
    match v {
        Json::Object(_) => {
            let meta_node = resource_root || s.x_embedded_resource;
            for (k, child) in v.as_object_mut().into_iter().flat_map(JsonObject::iter_mut) {
                if meta_node && is_type_or_object_meta(k) {
                    continue;
                }
                if let Some(prop) = s.properties.lookup(k) {
                    prune_node(child, Some(prop), false, &path.child(k), pruned, depth + 1);
                } else if let Some(ap) = additional(s) {
                    prune_node(child, ap, false, &path.key(k), pruned, depth + 1);
                }
            }
        }
        Json::Array(_) => {
            if let Some(item_schema) = items(s) {
                for (i, x) in v.as_array_mut().into_iter().flatten().enumerate() {
                    skip_prune(x, item_schema, false, &path.index(i), pruned, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Removes `null` members whose schema is not nullable and has no default.
pub fn prune_nulls(v: &mut Json, s: &JsonSchemaProps, depth: usize) {
    if depth > MAX_PRUNE_DEPTH {
        return;
    }
    match v {
        Json::Object(_) => {
            let Some(m) = v.as_object_mut() else { return };
            m.retain(|k, child| {
                let cs = s.properties.lookup(k).or_else(|| additional(s).flatten());
                let Some(cs) = cs else { return true };
                if child.is_null() {
                    return cs.nullable || cs.default.is_some();
                }
                prune_nulls(child, cs, depth + 1);
                true
            });
        }
        Json::Array(_) => {
            if let Some(is) = items(s) {
                for x in v.as_array_mut().into_iter().flatten() {
                    prune_nulls(x, is, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Coerces embedded resources: `apiVersion`/`kind` must be strings, `metadata` goes through
/// `ObjectMeta` (unknown keys appended to `unknown`). Errors are decode errors.
pub fn coerce_embedded(
    v: &mut Json,
    s: &JsonSchemaProps,
    path: &Trail<'_>,
    unknown: &mut Vec<String>,
    depth: usize,
) -> Result<(), Box<FieldError>> {
    if depth > MAX_PRUNE_DEPTH {
        return Ok(());
    }
    match v {
        Json::Object(_) => {
            let Some(m) = v.as_object_mut() else {
                return Ok(());
            };
            if s.x_embedded_resource {
                coerce_embedded_meta(m, path, unknown)?;
            }
            for (k, child) in m.iter_mut() {
                if s.x_embedded_resource && is_type_or_object_meta(k) {
                    continue;
                }
                if let Some(prop) = s.properties.lookup(k) {
                    coerce_embedded(child, prop, &path.child(k), unknown, depth + 1)?;
                } else if let Some(Some(ap)) = additional(s) {
                    coerce_embedded(child, ap, &path.key(k), unknown, depth + 1)?;
                }
            }
        }
        Json::Array(_) => {
            if let Some(is) = items(s) {
                for (i, x) in v.as_array_mut().into_iter().flatten().enumerate() {
                    coerce_embedded(x, is, &path.index(i), unknown, depth + 1)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn coerce_embedded_meta(
    m: &mut JsonObject,
    path: &Trail<'_>,
    unknown: &mut Vec<String>,
) -> Result<(), Box<FieldError>> {
    for k in ["apiVersion", "kind"] {
        if let Some(x) = m.get(k)
            && !matches!(x, Json::String(_))
        {
            return Err(Box::new(FieldError::invalid(
                path.to_path().child(k),
                super::openapi::bad_value_of(&x.to_serde()),
                "must be a string",
            )));
        }
    }
    if let Some(meta) = m.get("metadata") {
        match decode_object_meta(meta, &path.text()) {
            Ok(d) => {
                unknown.extend(d.unknown);
                m.insert("metadata".into(), Json::Object(Arc::new(d.meta)));
            }
            Err(e) => {
                return Err(Box::new(FieldError::invalid(
                    path.to_path().child("metadata"),
                    BadValue::Json(meta.to_serde()),
                    e.to_string(),
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::pipeline::tests::{doc, schema};

    #[test]
    fn prunes_unknown_fields_and_nulls_in_order() {
        let s = schema(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "a": {"type": "string", "default": "d"},
                "n": {"type": "string"},
                "items": {"type": "array", "items": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }}
        }}));
        let mut v = doc(
            json!({"apiVersion": "x", "kind": "K", "metadata": {}, "bogus": 1,
            "spec": {"n": null, "a": null, "x": 1, "items": [{"y": 1}], "free": {"k": 1}}}),
        );
        assert_eq!(
            unknown_fields(&v.to_serde(), &s, true),
            ["bogus", "spec.items[0].y", "spec.x"]
        );
        let pruned = prune(&mut v, &s, true);
        assert_eq!(pruned, ["bogus", "spec.items[0].y", "spec.x"]);
        prune_nulls(&mut v, &s, 0);
        assert_eq!(
            v.to_serde().to_string(),
            json!({"apiVersion": "x", "kind": "K", "metadata": {},
                   "spec": {"a": null, "items": [{}], "free": {"k": 1}}})
            .to_string()
        );
    }
}
