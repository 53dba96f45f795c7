//! The generated 3 MiB worst case of issue #14, shared by `benches/validation.rs` and
//! `examples/worst_case_once.rs`: a CRD whose `spec.items` is a list of `{name, value}` maps
//! and a `Widget` of about 3 MiB of compact JSON (the API server's request size limit) whose
//! items all pass the rules.

use kcel_kube::crd::CustomResourceDefinition;
use serde_json::{Value, json};

/// The bounds of the generated schema: enough items for 3 MiB, strings short enough for the
/// static cost limits.
pub const MAX_ITEMS: i64 = 65_536;
pub const MAX_NAME_LENGTH: i64 = 32;
pub const MAX_VALUE_LENGTH: i64 = 64;
/// The generated object's target size in bytes of compact JSON (the API server's limit).
pub const OBJECT_BYTES: usize = 3 * 1024 * 1024;
/// The iterating rule.
pub const ITERATING_RULE: &str = "self.items.all(i, i.name.startsWith('a') && i.value.size() < 64)";
/// The same check on one item.
pub const ITEM_RULE: &str = "self.name.startsWith('a') && self.value.size() < 64";

/// A namespaced CRD `widgets.bench.example.com` whose `spec.items` is a list of `{name,
/// value}` maps; `spec_rule` is a rule on `spec`, `item_rule` one on each item.
pub fn big_crd(
    spec_rule: Option<&str>,
    item_rule: Option<&str>,
) -> Result<CustomResourceDefinition, String> {
    let rules = |r: Option<&str>| match r {
        Some(r) => json!([{ "rule": r }]),
        None => json!([]),
    };
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": { "name": "widgets.bench.example.com" },
        "spec": {
            "group": "bench.example.com",
            "scope": "Namespaced",
            "names": { "plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList" },
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "schema": { "openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "x-kubernetes-validations": rules(spec_rule),
                            "properties": {
                                "items": {
                                    "type": "array",
                                    "maxItems": MAX_ITEMS,
                                    "items": {
                                        "type": "object",
                                        "x-kubernetes-validations": rules(item_rule),
                                        "required": ["name", "value"],
                                        "properties": {
                                            "name": { "type": "string", "maxLength": MAX_NAME_LENGTH },
                                            "value": { "type": "string", "maxLength": MAX_VALUE_LENGTH }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }}
            }]
        }
    });
    let text = serde_json::to_string(&crd).map_err(|e| e.to_string())?;
    let mut loaded = kcel_kube::load::load_json("bench", &text).map_err(|e| e.to_string())?;
    if loaded.len() != 1 {
        return Err("the generated CRD did not load".into());
    }
    Ok(loaded.remove(0).crd)
}

/// A `Widget` of about [`OBJECT_BYTES`] of compact JSON whose items all pass the rules, and its
/// size in bytes.
pub fn big_object() -> Result<(Value, usize), String> {
    let mut object = json!({
        "apiVersion": "bench.example.com/v1",
        "kind": "Widget",
        "metadata": { "name": "big", "namespace": "default" },
        "spec": { "items": [] }
    });
    let base = serde_json::to_string(&object)
        .map_err(|e| e.to_string())?
        .len();
    let mut items = Vec::new();
    let mut size = base;
    for n in 0.. {
        let item = json!({
            "name": format!("a-item-{n:08}"),
            "value": format!("value {n:08} of the generated worst-case object"),
        });
        // The item and its separating comma.
        let item_size = serde_json::to_string(&item)
            .map_err(|e| e.to_string())?
            .len()
            + 1;
        if size + item_size > OBJECT_BYTES || items.len() as i64 >= MAX_ITEMS {
            break;
        }
        size += item_size;
        items.push(item);
    }
    object["spec"]["items"] = Value::Array(items);
    let size = serde_json::to_string(&object)
        .map_err(|e| e.to_string())?
        .len();
    Ok((object, size))
}
