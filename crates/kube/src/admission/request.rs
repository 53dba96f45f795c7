//! The request being admitted (`admission.Attributes`) and the values the admission environment
//! binds for it: `request` (`CreateAdmissionRequest` in
//! `k8s.io/apiserver/pkg/admission/plugin/cel/condition.go`, as `SchemalessTypedToVal` reads an
//! `admissionv1.AdmissionRequest`: fields tagged `omitempty` absent when empty) and
//! `namespaceObject` (`CreateNamespaceObject`).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// `admission.Operation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    /// `CREATE` (`admission.Create`).
    Create,
    /// `UPDATE` (`admission.Update`).
    Update,
    /// `DELETE` (`admission.Delete`).
    Delete,
    /// `CONNECT` (`admission.Connect`).
    Connect,
}

impl Operation {
    /// `CREATE`, `UPDATE`, `DELETE`, `CONNECT`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Connect => "CONNECT",
        }
    }
}

/// `schema.GroupVersionKind`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GroupVersionKind {
    /// The API group (empty for the core group).
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
}

impl GroupVersionKind {
    /// From an object's `apiVersion` and `kind`.
    pub fn of(api_version: &str, kind: &str) -> GroupVersionKind {
        let (group, version) = match api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        GroupVersionKind {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
        }
    }

    fn to_json(&self) -> Value {
        json!({"group": self.group, "version": self.version, "kind": self.kind})
    }
}

/// `schema.GroupVersionResource`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GroupVersionResource {
    /// The API group (empty for the core group).
    pub group: String,
    /// The version.
    pub version: String,
    /// The resource (plural, lower case).
    pub resource: String,
}

impl GroupVersionResource {
    fn to_json(&self) -> Value {
        json!({"group": self.group, "version": self.version, "resource": self.resource})
    }

    /// `group/version, Resource=resource`, as `schema.GroupVersionResource.String` prints it.
    pub fn go_string(&self) -> String {
        format!(
            "{}/{}, Resource={}",
            self.group, self.version, self.resource
        )
    }
}

/// `user.Info` of the requester.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserInfo {
    /// `user.Info.GetName`.
    pub username: String,
    /// `user.Info.GetUID`.
    pub uid: String,
    /// `user.Info.GetGroups`.
    pub groups: Vec<String>,
    /// `user.Info.GetExtra`.
    pub extra: BTreeMap<String, Vec<String>>,
}

/// `admission.Attributes` of one request.
#[derive(Clone, Debug, PartialEq)]
pub struct Attributes {
    /// The kind of the object as sent.
    pub kind: GroupVersionKind,
    /// The resource written.
    pub resource: GroupVersionResource,
    /// The subresource written (`status`, `scale`, …), empty for the resource itself.
    pub subresource: String,
    /// The object's name.
    pub name: String,
    /// Empty for cluster-scoped resources.
    pub namespace: String,
    /// The operation (`admission.Attributes.GetOperation`).
    pub operation: Operation,
    /// The object written (absent for DELETE).
    pub object: Option<Value>,
    /// The stored object (UPDATE, DELETE).
    pub old_object: Option<Value>,
    /// The requester (`admission.Attributes.GetUserInfo`).
    pub user: UserInfo,
    /// Whether the request is a dry run (`admission.Attributes.IsDryRun`).
    pub dry_run: bool,
}

impl Attributes {
    /// The labels of the object, or of the old object.
    pub fn labels_of(object: Option<&Value>) -> Option<BTreeMap<String, String>> {
        let o = object?;
        Some(labels(o))
    }
}

/// `metadata.labels` of an object (string values only).
pub(crate) fn labels(object: &Value) -> BTreeMap<String, String> {
    object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// The `request` variable for `attr` matched as `kind`/`resource` (the equivalent kind and
/// resource a rule matched; the request's own are `requestKind`/`requestResource`).
pub fn request_json(
    attr: &Attributes,
    resource: &GroupVersionResource,
    kind: &GroupVersionKind,
) -> Value {
    let mut m = Map::new();
    m.insert("uid".into(), json!(""));
    m.insert("kind".into(), kind.to_json());
    m.insert("resource".into(), resource.to_json());
    if !attr.subresource.is_empty() {
        m.insert("subResource".into(), json!(attr.subresource));
    }
    m.insert("requestKind".into(), attr.kind.to_json());
    m.insert("requestResource".into(), attr.resource.to_json());
    if !attr.subresource.is_empty() {
        m.insert("requestSubResource".into(), json!(attr.subresource));
    }
    if !attr.name.is_empty() {
        m.insert("name".into(), json!(attr.name));
    }
    if !attr.namespace.is_empty() {
        m.insert("namespace".into(), json!(attr.namespace));
    }
    m.insert("operation".into(), json!(attr.operation.as_str()));
    let mut user = Map::new();
    let u = &attr.user;
    if !u.username.is_empty() {
        user.insert("username".into(), json!(u.username));
    }
    if !u.uid.is_empty() {
        user.insert("uid".into(), json!(u.uid));
    }
    if !u.groups.is_empty() {
        user.insert("groups".into(), json!(u.groups));
    }
    if !u.extra.is_empty() {
        user.insert("extra".into(), json!(u.extra));
    }
    m.insert("userInfo".into(), Value::Object(user));
    m.insert("object".into(), Value::Null);
    m.insert("oldObject".into(), Value::Null);
    m.insert("dryRun".into(), json!(attr.dry_run));
    m.insert("options".into(), json!({}));
    Value::Object(m)
}

/// The label every namespace carries (`kubernetes.io/metadata.name`, set by the server's
/// Namespace strategy since 1.21).
pub const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// A Namespace document as the server stores it: the name label, `spec.finalizers`
/// `[kubernetes]` and `status.phase` `Active` when absent (`pkg/registry/core/namespace`).
pub(crate) fn stored_namespace(doc: &Value) -> Value {
    let mut ns = doc.clone();
    let name = ns
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if let Some(o) = ns.as_object_mut() {
        let meta = o.entry("metadata").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            let labels = meta.entry("labels").or_insert_with(|| json!({}));
            if let Some(l) = labels.as_object_mut() {
                l.insert(NAMESPACE_NAME_LABEL.into(), json!(name));
            }
        }
        let spec = o.entry("spec").or_insert_with(|| json!({}));
        if let Some(s) = spec.as_object_mut() {
            s.entry("finalizers")
                .or_insert_with(|| json!(["kubernetes"]));
        }
        let status = o.entry("status").or_insert_with(|| json!({}));
        if let Some(s) = status.as_object_mut() {
            s.entry("phase").or_insert_with(|| json!("Active"));
        }
    }
    ns
}

/// A namespace known only by name: what the server stores for `Namespace{name}`.
pub(crate) fn namespace_named(name: &str) -> Value {
    stored_namespace(&json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}))
}

/// The `namespaceObject` variable (`CreateNamespaceObject`): the stored namespace with only
/// the metadata fields the plugin copies.
pub fn namespace_json(namespace: &Value) -> Value {
    const KEPT: [&str; 12] = [
        "name",
        "generateName",
        "namespace",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "finalizers",
    ];
    let mut meta = Map::new();
    if let Some(m) = namespace.get("metadata").and_then(Value::as_object) {
        for k in KEPT {
            if let Some(v) = m.get(k) {
                meta.insert(k.into(), v.clone());
            }
        }
    }
    meta.entry("creationTimestamp").or_insert(Value::Null);
    let part = |k: &str| namespace.get(k).cloned().unwrap_or_else(|| json!({}));
    json!({"metadata": meta, "spec": part("spec"), "status": part("status")})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_fields_follow_omitempty() {
        let attr = Attributes {
            kind: GroupVersionKind::of("apps/v1", "Deployment"),
            resource: GroupVersionResource {
                group: "apps".into(),
                version: "v1".into(),
                resource: "deployments".into(),
            },
            subresource: String::new(),
            name: "web".into(),
            namespace: String::new(),
            operation: Operation::Create,
            object: None,
            old_object: None,
            user: UserInfo {
                username: "alice".into(),
                ..Default::default()
            },
            dry_run: false,
        };
        let r = request_json(&attr, &attr.resource, &attr.kind);
        assert_eq!(r["requestKind"]["kind"], "Deployment");
        assert_eq!(r["userInfo"], json!({"username": "alice"}));
        assert!(r.get("namespace").is_none() && r.get("subResource").is_none());
        assert_eq!(r["dryRun"], false);
    }

    #[test]
    fn stored_namespaces_carry_the_name_label() {
        let ns = namespace_json(&namespace_named("prod"));
        assert_eq!(ns["metadata"]["labels"][NAMESPACE_NAME_LABEL], "prod");
        assert_eq!(ns["status"]["phase"], "Active");
        assert_eq!(ns["metadata"]["creationTimestamp"], Value::Null);
    }
}
