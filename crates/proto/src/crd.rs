//! A CustomResourceDefinition around generated schemas, shaped as skv2 renders one.

use serde_json::{Map, Value, json};

/// The resource a CRD defines.
#[derive(Clone, Debug)]
pub struct CrdSpec {
    /// API group, e.g. `example.com`.
    pub group: String,
    /// Kind, e.g. `Widget`.
    pub kind: String,
    /// Version, e.g. `v1`.
    pub version: String,
    /// Plural resource name; defaults to the lower-cased kind with an `s`.
    pub plural: Option<String>,
    /// `Namespaced` or `Cluster`.
    pub scope: Scope,
}

/// The scope of a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Namespaced objects.
    Namespaced,
    /// Cluster-scoped objects.
    Cluster,
}

/// A name of a [`CrdSpec`] the API server would reject.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CrdSpecError {
    /// The group is not a DNS subdomain with a dot.
    #[error("group {0:?} must be a DNS subdomain with at least one dot")]
    Group(String),
    /// The kind is not an upper-case alphanumeric name.
    #[error("kind {0:?} must be an alphanumeric name starting with an upper-case letter")]
    Kind(String),
    /// The version is not a DNS label starting with a letter.
    #[error("version {0:?} must be a DNS label starting with a letter (e.g. v1)")]
    Version(String),
    /// The plural is not a lower-case DNS label.
    #[error("plural {0:?} must be a lower-case DNS label")]
    Plural(String),
}

/// Checks names the API server would reject, so that the error comes at generation.
pub fn validate(spec: &CrdSpec) -> Result<(), CrdSpecError> {
    let dns_label = |s: &str| {
        !s.is_empty()
            && s.len() <= 63
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !s.starts_with('-')
            && !s.ends_with('-')
    };
    if spec.group.split('.').count() < 2 || !spec.group.split('.').all(dns_label) {
        return Err(CrdSpecError::Group(spec.group.clone()));
    }
    if !spec.kind.starts_with(|c: char| c.is_ascii_uppercase())
        || !spec.kind.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return Err(CrdSpecError::Kind(spec.kind.clone()));
    }
    if !dns_label(&spec.version) || !spec.version.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(CrdSpecError::Version(spec.version.clone()));
    }
    let plural = plural(spec);
    if !dns_label(&plural) {
        return Err(CrdSpecError::Plural(plural));
    }
    Ok(())
}

fn plural(spec: &CrdSpec) -> String {
    spec.plural
        .clone()
        .unwrap_or_else(|| format!("{}s", spec.kind.to_ascii_lowercase()))
}

/// The CRD whose `spec` (and, if given, `status`) have the given schemas.
pub fn crd(
    spec: &CrdSpec,
    spec_schema: Map<String, Value>,
    status_schema: Option<Map<String, Value>>,
) -> Value {
    let plural = plural(spec);
    let mut properties = Map::new();
    properties.insert("spec".into(), Value::Object(spec_schema));
    let has_status = status_schema.is_some();
    if let Some(s) = status_schema {
        properties.insert("status".into(), Value::Object(s));
    }
    let mut version = json!({
        "name": spec.version,
        "served": true,
        "storage": true,
        "schema": {"openAPIV3Schema": {"type": "object", "properties": properties}},
    });
    if has_status {
        version["subresources"] = json!({"status": {}});
    }
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{}", spec.group)},
        "spec": {
            "group": spec.group,
            "names": {
                "kind": spec.kind,
                "listKind": format!("{}List", spec.kind),
                "plural": plural,
                "singular": spec.kind.to_ascii_lowercase(),
            },
            "scope": match spec.scope { Scope::Namespaced => "Namespaced", Scope::Cluster => "Cluster" },
            "versions": [version],
        },
    })
}
