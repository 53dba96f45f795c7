//! Go defaulting of built-in kinds, as kube-apiserver applies it when it decodes a request,
//! before admission (`k8s.io/kubernetes` `pkg/apis/{core,apps,batch}/v1/defaults.go`, in the
//! order of their `zz_generated.defaults.go`): a policy reading `object.spec.replicas` of a
//! Deployment that omits it sees 1.
//!
//! Ported: `apps/v1` Deployment, StatefulSet, DaemonSet, ReplicaSet; `batch/v1` Job, CronJob;
//! `v1` Pod, PodTemplate, ReplicationController, Service, Secret; every pod template's spec
//! (`SetDefaults_PodSpec`, containers, ports, probes, environment, volumes). Feature-gated
//! defaults follow the selected release's gate defaults. Not ported: resource quantities'
//! rounding to milli-units (`SetDefaults_ResourceList`), the other kinds'.
//!
//! Objects are JSON as decoded; a field of the wrong type is left alone (the typed decoder
//! reports it before admission). The walk is bounded by the kinds' fixed nesting.

mod apps;
mod batch;
mod core;
mod image;

use serde_json::{Map, Value, json};

use super::mutating::Defaulter;
use crate::version::KubeVersion;

/// Applies the Go defaults of `object`'s kind (a built-in kind of `apiVersion` `v1`,
/// `apps/v1` or `batch/v1`) in place; other kinds are left as they are. Returns whether the
/// kind has defaults here.
pub fn apply(object: &mut Value, version: KubeVersion) -> bool {
    let api_version = object["apiVersion"].as_str().unwrap_or("").to_string();
    let kind = object["kind"].as_str().unwrap_or("").to_string();
    let Some(o) = object.as_object_mut() else {
        return false;
    };
    match (api_version.as_str(), kind.as_str()) {
        ("apps/v1", "Deployment") => apps::deployment(o),
        ("apps/v1", "StatefulSet") => apps::stateful_set(o),
        ("apps/v1", "DaemonSet") => apps::daemon_set(o),
        ("apps/v1", "ReplicaSet") => apps::replica_set(o),
        ("batch/v1", "Job") => batch::job(o, version),
        ("batch/v1", "CronJob") => batch::cron_job(o),
        ("v1", "Pod") => core::pod(o),
        ("v1", "PodTemplate") => core::template(o, "template"),
        ("v1", "ReplicationController") => replication_controller(o),
        ("v1", "Service") => core::service(o, version),
        ("v1", "Secret") => core::secret(o),
        _ => return false,
    }
    true
}

/// `SetDefaults_ReplicationController`: selector and labels from the template's labels,
/// one replica; then the template.
fn replication_controller(rc: &mut Map<String, Value>) {
    let labels = template_labels(rc);
    let empty = |v: Option<&Value>| v.and_then(Value::as_object).is_none_or(Map::is_empty);
    if let Some(labels) = labels {
        if let Some(spec) = child(rc, "spec")
            && empty(spec.get("selector"))
        {
            spec.insert("selector".into(), labels.clone());
        }
        let metadata = rc.entry("metadata").or_insert_with(|| json!({}));
        if let Some(m) = metadata.as_object_mut()
            && empty(m.get("labels"))
        {
            m.insert("labels".into(), labels);
        }
    }
    if let Some(spec) = struct_field(rc, "spec") {
        default_if_absent(spec, "replicas", json!(1));
        if spec.get("template").is_some_and(|t| !t.is_null()) {
            core::template(spec, "template");
        }
    }
}

/// The defaulter the mutating admission plugin runs after each mutation
/// (`ObjectInterfaces.GetObjectDefaulter`), for built-in kinds.
#[derive(Clone, Copy, Debug, Default)]
pub struct BuiltinDefaulter {
    /// The release whose defaults apply.
    pub version: KubeVersion,
}

impl Defaulter for BuiltinDefaulter {
    fn default(&self, object: &mut Value) {
        apply(object, self.version);
    }
}

/// The object at `key` of `m`, if it is one.
fn child<'m>(m: &'m mut Map<String, Value>, key: &str) -> Option<&'m mut Map<String, Value>> {
    m.get_mut(key).and_then(Value::as_object_mut)
}

/// The labels of the pod template of `object` (`spec.template.metadata.labels`), if set.
fn template_labels(object: &Map<String, Value>) -> Option<Value> {
    object
        .get("spec")
        .and_then(|s| s.get("template"))
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("labels"))
        .filter(|l| l.is_object())
        .cloned()
}

/// The struct (non-pointer) field `key` of `m`: absent or `null` reads as the zero struct
/// `{}` the typed object always has; a value of another type is left alone (`None`).
fn struct_field<'m>(
    m: &'m mut Map<String, Value>,
    key: &str,
) -> Option<&'m mut Map<String, Value>> {
    let v = m.entry(key).or_insert_with(|| json!({}));
    if v.is_null() {
        *v = json!({});
    }
    v.as_object_mut()
}

/// Each object of the list at `key` of `m`.
fn each(m: &mut Map<String, Value>, key: &str, mut f: impl FnMut(&mut Map<String, Value>)) {
    if let Some(items) = m.get_mut(key).and_then(Value::as_array_mut) {
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            f(item);
        }
    }
}

/// A pointer field left nil (absent or `null`) gets `value`.
fn default_if_absent(m: &mut Map<String, Value>, key: &str, value: Value) {
    if m.get(key).is_none_or(Value::is_null) {
        m.insert(key.into(), value);
    }
}

/// A string field left empty (absent, `null` or `""`) gets `value`.
fn default_if_empty(m: &mut Map<String, Value>, key: &str, value: &str) {
    let empty = match m.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        _ => false,
    };
    if empty {
        m.insert(key.into(), value.into());
    }
}

/// An integer field left zero (absent, `null` or `0`) gets `value`.
fn default_if_zero(m: &mut Map<String, Value>, key: &str, value: i64) {
    let zero = match m.get(key) {
        None | Some(Value::Null) => true,
        Some(v) => v.as_i64() == Some(0),
    };
    if zero {
        m.insert(key.into(), value.into());
    }
}
