//! Pruning, null pruning, embedded-resource coercion and defaulting (apiextensions
//! `schema/pruning`, `schema/defaulting`, `schema/objectmeta/coerce.go`; reference §7).

use serde_json::{Map, Value};

use super::decode::decode_object_meta;
use super::trail::Trail;
use crate::field::{BadValue, FieldError, Path};
use crate::schema_props::SchemaLookup;
use crate::schema_props::{JsonSchemaProps, SchemaOrArray, SchemaOrBool};

/// How deep the walks descend (deeper content is left alone).
const MAX_PRUNE_DEPTH: usize = 1000;

fn preserves(s: &JsonSchemaProps) -> bool {
    s.x_preserve_unknown_fields == Some(true)
}

fn items(s: &JsonSchemaProps) -> Option<&JsonSchemaProps> {
    match &s.items {
        Some(SchemaOrArray::Schema(i)) => Some(i),
        _ => None,
    }
}

/// The schema of an `additionalProperties` member: `Some(None)` for the bool forms (no schema,
/// but the key is kept), `None` when there is no `additionalProperties`.
fn additional(s: &JsonSchemaProps) -> Option<Option<&JsonSchemaProps>> {
    match &s.additional_properties {
        None => None,
        Some(SchemaOrBool::Bool(_)) => Some(None),
        Some(SchemaOrBool::Schema(ap)) => Some(Some(ap)),
    }
}

/// Removes every field the schema does not describe; returns the pruned paths, sorted.
/// `root`: the resource root (`apiVersion`, `kind`, `metadata` are kept).
pub fn prune(v: &mut Value, s: &JsonSchemaProps, root: bool) -> Vec<String> {
    let mut pruned = Vec::new();
    let base = Path::root();
    prune_node(v, Some(s), root, &Trail::Base(&base), &mut pruned, 0);
    pruned.sort();
    pruned
}

fn prune_node(
    v: &mut Value,
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
        Value::Object(m) => {
            let Some(s) = s else {
                for k in m.keys() {
                    pruned.push(path.child(k).text());
                }
                m.clear();
                return;
            };
            let meta_node = resource_root || s.x_embedded_resource;
            let mut remove = Vec::new();
            for (k, child) in m.iter_mut() {
                if meta_node && matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                if let Some(prop) = s.properties.lookup(k) {
                    prune_node(child, Some(prop), false, &path.child(k), pruned, depth + 1);
                } else if let Some(ap) = additional(s) {
                    prune_node(child, ap, false, &path.key(k), pruned, depth + 1);
                } else {
                    pruned.push(path.child(k).text());
                    remove.push(k.clone());
                }
            }
            for k in remove {
                m.shift_remove(&k);
            }
        }
        Value::Array(a) => {
            let item_schema = s.and_then(items);
            for (i, x) in a.iter_mut().enumerate() {
                prune_node(x, item_schema, false, &path.index(i), pruned, depth + 1);
            }
        }
        _ => {}
    }
}

fn skip_prune(
    v: &mut Value,
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
        Value::Object(m) => {
            let meta_node = resource_root || s.x_embedded_resource;
            for (k, child) in m.iter_mut() {
                if meta_node && matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                if let Some(prop) = s.properties.lookup(k) {
                    prune_node(child, Some(prop), false, &path.child(k), pruned, depth + 1);
                } else if let Some(ap) = additional(s) {
                    prune_node(child, ap, false, &path.key(k), pruned, depth + 1);
                }
            }
        }
        Value::Array(a) => {
            if let Some(item_schema) = items(s) {
                for (i, x) in a.iter_mut().enumerate() {
                    skip_prune(x, item_schema, false, &path.index(i), pruned, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Removes `null` members whose schema is not nullable and has no default.
pub fn prune_nulls(v: &mut Value, s: &JsonSchemaProps, depth: usize) {
    if depth > MAX_PRUNE_DEPTH {
        return;
    }
    match v {
        Value::Object(m) => {
            let mut remove = Vec::new();
            for (k, child) in m.iter_mut() {
                let cs = s.properties.lookup(k).or_else(|| additional(s).flatten());
                let Some(cs) = cs else { continue };
                if child.is_null() {
                    if !cs.nullable && cs.default.is_none() {
                        remove.push(k.clone());
                    }
                } else {
                    prune_nulls(child, cs, depth + 1);
                }
            }
            for k in remove {
                m.shift_remove(&k);
            }
        }
        Value::Array(a) => {
            if let Some(is) = items(s) {
                for x in a.iter_mut() {
                    prune_nulls(x, is, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn is_non_nullable_null(v: &Value, s: &JsonSchemaProps) -> bool {
    v.is_null() && !s.nullable
}

/// A default value as served: pruned against its own schema (`PruneDefaults`).
fn served_default(s: &JsonSchemaProps) -> Option<Value> {
    let mut d = s.default.clone()?;
    if d.is_null() {
        return None;
    }
    let base = Path::root();
    prune_node(
        &mut d,
        Some(s),
        false,
        &Trail::Base(&base),
        &mut Vec::new(),
        0,
    );
    Some(d)
}

/// Applies defaults top-down (`structuraldefaulting.Default`).
pub fn apply_defaults(v: &mut Value, s: &JsonSchemaProps, depth: usize) {
    if depth > MAX_PRUNE_DEPTH {
        return;
    }
    match v {
        Value::Object(m) => {
            for (k, prop) in &s.properties {
                if prop.default.as_ref().is_none_or(Value::is_null) {
                    continue;
                }
                let absent = m.get(k).is_none_or(|x| is_non_nullable_null(x, prop));
                if absent && let Some(d) = served_default(prop) {
                    m.insert(k.clone(), d);
                }
            }
            let ap = additional(s).flatten();
            for (k, child) in m.iter_mut() {
                if let Some(prop) = s.properties.lookup(k) {
                    apply_defaults(child, prop, depth + 1);
                } else if let Some(ap) = ap {
                    if is_non_nullable_null(child, ap)
                        && let Some(d) = served_default(ap)
                    {
                        *child = d;
                    }
                    apply_defaults(child, ap, depth + 1);
                }
            }
        }
        Value::Array(a) => {
            if let Some(is) = items(s) {
                for x in a.iter_mut() {
                    if is_non_nullable_null(x, is)
                        && let Some(d) = served_default(is)
                    {
                        *x = d;
                    }
                    apply_defaults(x, is, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Coerces embedded resources: `apiVersion`/`kind` must be strings, `metadata` goes through
/// `ObjectMeta` (unknown keys appended to `unknown`). Errors are decode errors.
pub fn coerce_embedded(
    v: &mut Value,
    s: &JsonSchemaProps,
    path: &Trail<'_>,
    unknown: &mut Vec<String>,
    depth: usize,
) -> Result<(), Box<FieldError>> {
    if depth > MAX_PRUNE_DEPTH {
        return Ok(());
    }
    match v {
        Value::Object(m) => {
            if s.x_embedded_resource {
                coerce_embedded_meta(m, path, unknown)?;
            }
            for (k, child) in m.iter_mut() {
                if s.x_embedded_resource && matches!(k.as_str(), "apiVersion" | "kind" | "metadata")
                {
                    continue;
                }
                if let Some(prop) = s.properties.lookup(k) {
                    coerce_embedded(child, prop, &path.child(k), unknown, depth + 1)?;
                } else if let Some(Some(ap)) = additional(s) {
                    coerce_embedded(child, ap, &path.key(k), unknown, depth + 1)?;
                }
            }
        }
        Value::Array(a) => {
            if let Some(is) = items(s) {
                for (i, x) in a.iter_mut().enumerate() {
                    coerce_embedded(x, is, &path.index(i), unknown, depth + 1)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn coerce_embedded_meta(
    m: &mut Map<String, Value>,
    path: &Trail<'_>,
    unknown: &mut Vec<String>,
) -> Result<(), Box<FieldError>> {
    for k in ["apiVersion", "kind"] {
        if let Some(x) = m.get(k)
            && !x.is_string()
        {
            return Err(Box::new(FieldError::invalid(
                path.to_path().child(k),
                super::openapi::bad_value_of(x),
                "must be a string",
            )));
        }
    }
    if let Some(meta) = m.get("metadata") {
        match decode_object_meta(meta, &path.text()) {
            Ok(d) => {
                unknown.extend(d.unknown);
                m.insert("metadata".into(), Value::Object(d.meta));
            }
            Err(e) => {
                return Err(Box::new(FieldError::invalid(
                    path.to_path().child("metadata"),
                    BadValue::Json(meta.clone()),
                    e.to_string(),
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> JsonSchemaProps {
        serde_json::from_value(v).expect("schema")
    }

    #[test]
    fn prunes_and_defaults() {
        let s = schema(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "a": {"type": "string", "default": "d"},
                "n": {"type": "string"},
                "items": {"type": "array", "items": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }}
        }}));
        let mut v = json!({"apiVersion": "x", "kind": "K", "metadata": {}, "bogus": 1,
            "spec": {"n": null, "x": 1, "items": [{"y": 1}], "free": {"k": 1}}});
        let pruned = prune(&mut v, &s, true);
        assert_eq!(pruned, ["bogus", "spec.items[0].y", "spec.x"]);
        prune_nulls(&mut v, &s, 0);
        apply_defaults(&mut v, &s, 0);
        assert_eq!(
            v,
            json!({"apiVersion": "x", "kind": "K", "metadata": {},
                   "spec": {"a": "d", "items": [{}], "free": {"k": 1}}})
        );
    }
}
