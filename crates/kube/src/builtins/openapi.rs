//! Reading kube-apiserver's published OpenAPI v3 documents (`/openapi/v3/api/v1`,
//! `/openapi/v3/apis/<group>/<version>`): the kinds a group-version serves, each with its
//! definition and scope, and its definitions stripped to what validation reads.
//!
//! Used when the shipped schemas are regenerated (`examples/builtin_schemas.rs`) and for
//! `--schemas DIR` ([`crate::ValidatorBuilder::schemas_dir`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The schema keys validation never reads (documentation, strategic-merge-patch hints, unions,
/// and the kinds, which [`GroupVersion::kinds`] holds).
const DROPPED_KEYS: &[&str] = &[
    "description",
    "example",
    "externalDocs",
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-unions",
    "x-kubernetes-group-version-kind",
    "x-kubernetes-validations",
];

/// A kind a group-version serves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindEntry {
    /// `Deployment`.
    pub kind: String,
    /// The definition of its objects (`io.k8s.api.apps.v1.Deployment`).
    pub definition: String,
    /// Whether its objects live in namespaces (a path `/namespaces/{namespace}/<resource>`
    /// serves it).
    pub namespaced: bool,
}

/// One group-version of an OpenAPI v3 document: its kinds and definitions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupVersion {
    /// `apps/v1`, or `v1` for the core group.
    pub api_version: String,
    /// Kinds by name.
    pub kinds: BTreeMap<String, KindEntry>,
    /// Definitions by name (`components.schemas`), stripped ([`strip`]).
    pub definitions: BTreeMap<String, Value>,
}

/// Why an OpenAPI v3 document cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpenApiDocumentError {
    /// The document has no `components.schemas` object.
    #[error("OpenAPI v3 document: no components.schemas")]
    NoSchemas,
}

/// `value` without the keys validation never reads, at every level (property names are kept:
/// a property called `description` is a property, not documentation).
pub fn strip(value: &Value) -> Value {
    strip_at(value, false)
}

fn strip_at(value: &Value, names: bool) -> Value {
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| names || !DROPPED_KEYS.contains(&k.as_str()))
                .map(|(k, v)| {
                    // The values of `properties` are schemas keyed by field names.
                    let v = if !names && k == "properties" {
                        strip_at(v, true)
                    } else {
                        strip_at(v, false)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| strip_at(x, false)).collect()),
        other => other.clone(),
    }
}

/// The group-version a resource path belongs to, whether it is namespaced, and whether it
/// names a resource itself (a collection or an item, not a subresource).
fn resource_path(path: &str) -> Option<(String, bool)> {
    let (api_version, rest) = if let Some(rest) = path.strip_prefix("/api/") {
        let (v, rest) = rest.split_once('/')?;
        (v.to_string(), rest)
    } else {
        let rest = path.strip_prefix("/apis/")?;
        let mut it = rest.splitn(3, '/');
        let (g, v, rest) = (it.next()?, it.next()?, it.next()?);
        (format!("{g}/{v}"), rest)
    };
    let segments: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let (namespaced, resource) = match segments.as_slice() {
        ["namespaces", "{namespace}", resource @ ..] if !resource.is_empty() => (true, resource),
        resource => (false, resource),
    };
    // `<resource>` or `<resource>/{name}`; `watch/...` paths are deprecated duplicates.
    let top_level = matches!(resource, [r] | [r, "{name}"] if *r != "watch");
    top_level.then_some((api_version, namespaced))
}

/// The group-versions of an OpenAPI v3 document (one, as kube-apiserver publishes them; a
/// document without paths yields the group-versions its definitions name, every kind
/// namespaced unless a path says otherwise).
pub fn group_versions(doc: &Value) -> Result<Vec<GroupVersion>, OpenApiDocumentError> {
    let schemas = doc
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .ok_or(OpenApiDocumentError::NoSchemas)?;
    // Kinds each definition declares, for its own group-version.
    let mut declared: BTreeMap<(String, String), String> = BTreeMap::new();
    for (name, schema) in schemas {
        let gvks = schema
            .get("x-kubernetes-group-version-kind")
            .and_then(Value::as_array);
        for gvk in gvks.into_iter().flatten() {
            let s = |k: &str| gvk.get(k).and_then(Value::as_str).unwrap_or("");
            let (group, version, kind) = (s("group"), s("version"), s("kind"));
            if version.is_empty() || kind.is_empty() {
                continue;
            }
            let api_version = if group.is_empty() {
                version.to_string()
            } else {
                format!("{group}/{version}")
            };
            // A definition declaring a single kind is that kind's own (`DeleteOptions`
            // declares every group's).
            let single = gvks.is_some_and(|g| g.len() == 1);
            let key = (api_version, kind.to_string());
            if single || !declared.contains_key(&key) {
                declared.insert(key, name.clone());
            }
        }
    }
    // Kinds served by a resource path, with their scope.
    let mut served: BTreeMap<(String, String), bool> = BTreeMap::new();
    let paths = doc.get("paths").and_then(Value::as_object);
    for (path, item) in paths.into_iter().flatten() {
        let Some((api_version, namespaced)) = resource_path(path) else {
            continue;
        };
        let Some(ops) = item.as_object() else {
            continue;
        };
        for op in ops.values() {
            let Some(gvk) = op.get("x-kubernetes-group-version-kind") else {
                continue;
            };
            let kind = gvk.get("kind").and_then(Value::as_str).unwrap_or("");
            if kind.is_empty() {
                continue;
            }
            let scope = served.entry((api_version.clone(), kind.to_string()));
            let was = *scope.or_insert(namespaced);
            served.insert((api_version.clone(), kind.to_string()), was || namespaced);
        }
    }
    let stripped: BTreeMap<String, Value> =
        schemas.iter().map(|(k, v)| (k.clone(), strip(v))).collect();
    let mut out: BTreeMap<String, GroupVersion> = BTreeMap::new();
    let kinds: Vec<((String, String), bool)> = if served.is_empty() {
        declared.keys().map(|k| (k.clone(), true)).collect()
    } else {
        served.into_iter().collect()
    };
    for ((api_version, kind), namespaced) in kinds {
        let Some(definition) = declared.get(&(api_version.clone(), kind.clone())) else {
            continue;
        };
        let gv = out
            .entry(api_version.clone())
            .or_insert_with(|| GroupVersion {
                api_version: api_version.clone(),
                kinds: BTreeMap::new(),
                definitions: stripped.clone(),
            });
        gv.kinds.insert(
            kind.clone(),
            KindEntry {
                kind,
                definition: definition.clone(),
                namespaced,
            },
        );
    }
    Ok(out.into_values().collect())
}

/// The definitions a kind's schema reaches through `$ref`s, the kind's own first.
pub fn reachable(definitions: &BTreeMap<String, Value>, root: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut stack = vec![root.to_string()];
    while let Some(name) = stack.pop() {
        if seen.contains(&name) {
            continue;
        }
        let Some(def) = definitions.get(&name) else {
            continue;
        };
        seen.push(name);
        let mut refs = Vec::new();
        collect_refs(def, &mut refs);
        stack.extend(refs.into_iter().rev());
    }
    seen
}

fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str)
                && let Some(name) = ref_name(r)
            {
                out.push(name.to_string());
            }
            m.values().for_each(|x| collect_refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_refs(x, out)),
        _ => {}
    }
}

/// The definition a `$ref` names (`#/components/schemas/<name>`).
pub fn ref_name(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/components/schemas/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
}
