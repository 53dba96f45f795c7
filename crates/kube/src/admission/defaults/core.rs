//! The defaulters of `core/v1` the admission path runs (`k8s.io/kubernetes`
//! `pkg/apis/core/v1/defaults.go` and the walk of `zz_generated.defaults.go`): pod specs and
//! what they hold (containers, ports, probes, environment, volumes), Pods, Services, Secrets.

use serde_json::{Map, Value, json};

use super::image::image_tag;
use super::{child, default_if_absent, default_if_empty, default_if_zero, each, struct_field};
use crate::version::KubeVersion;

/// `DefaultTerminationGracePeriodSeconds`.
const TERMINATION_GRACE_PERIOD_SECONDS: i64 = 30;
/// The file modes of secret, config map, downward API and projected volumes (`0644`).
const VOLUME_DEFAULT_MODE: i64 = 0o644;

/// `SetDefaults_Container` and the generated walk of one container: ports, environment,
/// probes and lifecycle handlers.
fn container(c: &mut Map<String, Value>) {
    if c.get("imagePullPolicy")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        let image = c.get("image").and_then(Value::as_str).unwrap_or("");
        let policy = match image_tag(image).as_deref() {
            Some("latest") => "Always",
            _ => "IfNotPresent",
        };
        c.insert("imagePullPolicy".into(), policy.into());
    }
    default_if_empty(c, "terminationMessagePath", "/dev/termination-log");
    default_if_empty(c, "terminationMessagePolicy", "File");
    each(c, "ports", |p| default_if_empty(p, "protocol", "TCP"));
    each(c, "env", |e| {
        if let Some(r) = child(e, "valueFrom").and_then(|v| child(v, "fieldRef")) {
            default_if_empty(r, "apiVersion", "v1");
        }
    });
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(p) = child(c, probe) {
            // SetDefaults_Probe.
            default_if_zero(p, "timeoutSeconds", 1);
            default_if_zero(p, "periodSeconds", 10);
            default_if_zero(p, "successThreshold", 1);
            default_if_zero(p, "failureThreshold", 3);
            http_get(p);
        }
    }
    if let Some(l) = child(c, "lifecycle") {
        for handler in ["postStart", "preStop"] {
            if let Some(h) = child(l, handler) {
                http_get(h);
            }
        }
    }
}

/// `SetDefaults_HTTPGetAction` of a handler's `httpGet`.
fn http_get(handler: &mut Map<String, Value>) {
    if let Some(h) = child(handler, "httpGet") {
        default_if_empty(h, "path", "/");
        default_if_empty(h, "scheme", "HTTP");
    }
}

/// The volume sources a volume may set (`VolumeSource`'s pointer fields).
const VOLUME_SOURCES: [&str; 29] = [
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "ephemeral",
];

/// `SetDefaults_Volume` and the generated defaults of its sources.
fn volume(v: &mut Map<String, Value>) {
    // `pointer.AllPtrFieldsNil`: no source set (`image` volumes count from 1.31).
    let set = |v: &Map<String, Value>, k: &str| v.get(k).is_some_and(|x| !x.is_null());
    if !VOLUME_SOURCES.iter().any(|k| set(v, k)) && !set(v, "image") {
        v.insert("emptyDir".into(), json!({}));
    }
    for source in ["secret", "configMap", "downwardAPI", "projected"] {
        if let Some(s) = child(v, source) {
            default_if_absent(s, "defaultMode", json!(VOLUME_DEFAULT_MODE));
        }
    }
    if let Some(p) = child(v, "projected") {
        each(p, "sources", |s| {
            if let Some(t) = child(s, "serviceAccountToken") {
                default_if_absent(t, "expirationSeconds", json!(3600));
            }
            if let Some(d) = child(s, "downwardAPI") {
                each(d, "items", field_ref_items);
            }
        });
    }
    if let Some(d) = child(v, "downwardAPI") {
        each(d, "items", field_ref_items);
    }
    if let Some(h) = child(v, "hostPath") {
        default_if_absent(h, "type", json!(""));
    }
    if let Some(i) = child(v, "iscsi") {
        default_if_empty(i, "iscsiInterface", "default");
    }
    if let Some(r) = child(v, "rbd") {
        default_if_empty(r, "pool", "rbd");
        default_if_empty(r, "user", "admin");
        default_if_empty(r, "keyring", "/etc/ceph/keyring");
    }
    if let Some(a) = child(v, "azureDisk") {
        default_if_absent(a, "cachingMode", json!("ReadWrite"));
        default_if_absent(a, "kind", json!("Shared"));
        default_if_absent(a, "fsType", json!("ext4"));
        default_if_absent(a, "readOnly", json!(false));
    }
    if let Some(s) = child(v, "scaleIO") {
        default_if_empty(s, "storageMode", "ThinProvisioned");
        default_if_empty(s, "fsType", "xfs");
    }
    if let Some(e) = child(v, "ephemeral")
        .and_then(|e| child(e, "volumeClaimTemplate"))
        .and_then(|t| child(t, "spec"))
    {
        persistent_volume_claim_spec(e);
    }
}

/// `SetDefaults_ObjectFieldSelector` of a downward API item's `fieldRef`.
fn field_ref_items(item: &mut Map<String, Value>) {
    if let Some(r) = child(item, "fieldRef") {
        default_if_empty(r, "apiVersion", "v1");
    }
}

/// `SetDefaults_PersistentVolumeClaimSpec`.
pub(super) fn persistent_volume_claim_spec(spec: &mut Map<String, Value>) {
    default_if_absent(spec, "volumeMode", json!("Filesystem"));
}

/// `SetDefaults_PodSpec` and the generated walk of a pod spec (volumes, init, regular and
/// ephemeral containers), as every kind with a pod template runs it.
pub(super) fn pod_spec(spec: &mut Map<String, Value>) {
    default_if_empty(spec, "dnsPolicy", "ClusterFirst");
    default_if_empty(spec, "restartPolicy", "Always");
    default_if_absent(spec, "securityContext", json!({}));
    default_if_absent(
        spec,
        "terminationGracePeriodSeconds",
        json!(TERMINATION_GRACE_PERIOD_SECONDS),
    );
    default_if_empty(spec, "schedulerName", "default-scheduler");
    each(spec, "volumes", volume);
    each(spec, "initContainers", container);
    each(spec, "containers", container);
    each(spec, "ephemeralContainers", container);
}

/// The pod spec of the `PodTemplateSpec` at `key` of `parent` (a struct field: the typed
/// object always has one).
pub(super) fn template(parent: &mut Map<String, Value>, key: &str) {
    if let Some(spec) = struct_field(parent, key).and_then(|t| struct_field(t, "spec")) {
        pod_spec(spec);
    }
}

/// `SetDefaults_Pod`: requests from limits, service links, host ports of host-network pods;
/// then the pod spec. (Resize policies were defaulted only under `InPlacePodVerticalScaling`,
/// off by default until its defaulting was removed in 1.33, kubernetes/kubernetes#128920.)
pub(super) fn pod(pod: &mut Map<String, Value>) {
    let Some(spec) = struct_field(pod, "spec") else {
        return;
    };
    each(spec, "containers", requests_from_limits);
    each(spec, "initContainers", requests_from_limits);
    default_if_absent(spec, "enableServiceLinks", json!(true));
    if spec.get("hostNetwork").and_then(Value::as_bool) == Some(true) {
        for list in ["containers", "initContainers"] {
            each(spec, list, |c| {
                each(c, "ports", |p| {
                    if p.get("hostPort").and_then(Value::as_i64).unwrap_or(0) == 0
                        && let Some(port) = p.get("containerPort").cloned()
                    {
                        p.insert("hostPort".into(), port);
                    }
                });
            });
        }
    }
    pod_spec(spec);
}

/// Requests default to limits, resource by resource.
fn requests_from_limits(c: &mut Map<String, Value>) {
    let Some(r) = child(c, "resources") else {
        return;
    };
    let Some(limits) = r.get("limits").and_then(Value::as_object).cloned() else {
        return;
    };
    if !r.get("requests").is_some_and(Value::is_object) {
        r.insert("requests".into(), json!({}));
    }
    if let Some(requests) = child(r, "requests") {
        for (k, v) in limits {
            requests.entry(k).or_insert(v);
        }
    }
}

/// `SetDefaults_Service` (`LoadBalancerIPMode` on from 1.30).
pub(super) fn service(svc: &mut Map<String, Value>, version: KubeVersion) {
    let Some(spec) = struct_field(svc, "spec") else {
        return;
    };
    default_if_empty(spec, "sessionAffinity", "None");
    match spec.get("sessionAffinity").and_then(Value::as_str) {
        Some("None") => {
            spec.remove("sessionAffinityConfig");
        }
        Some("ClientIP") => {
            let has_timeout = spec
                .get("sessionAffinityConfig")
                .and_then(|c| c.get("clientIP"))
                .and_then(|c| c.get("timeoutSeconds"))
                .is_some_and(|t| !t.is_null());
            if !has_timeout {
                spec.insert(
                    "sessionAffinityConfig".into(),
                    json!({"clientIP": {"timeoutSeconds": 10800}}),
                );
            }
        }
        _ => {}
    }
    default_if_empty(spec, "type", "ClusterIP");
    each(spec, "ports", |p| {
        default_if_empty(p, "protocol", "TCP");
        let unset = match p.get("targetPort") {
            None | Some(Value::Null) => true,
            Some(Value::Number(n)) => n.as_i64() == Some(0),
            Some(Value::String(s)) => s.is_empty(),
            _ => false,
        };
        if unset && let Some(port) = p.get("port").cloned() {
            p.insert("targetPort".into(), port);
        }
    });
    let kind = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    // `service.ExternallyAccessible`.
    let external_ips = spec
        .get("externalIPs")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    let externally_accessible =
        kind == "LoadBalancer" || kind == "NodePort" || (kind == "ClusterIP" && external_ips);
    if externally_accessible {
        default_if_empty(spec, "externalTrafficPolicy", "Cluster");
    }
    if matches!(kind.as_str(), "NodePort" | "LoadBalancer" | "ClusterIP") {
        default_if_absent(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if kind == "LoadBalancer" {
        default_if_absent(spec, "allocateLoadBalancerNodePorts", json!(true));
        if version.at_least(30)
            && let Some(ingress) = child(svc, "status").and_then(|s| child(s, "loadBalancer"))
        {
            each(ingress, "ingress", |i| {
                if i.get("ip")
                    .and_then(Value::as_str)
                    .is_some_and(|ip| !ip.is_empty())
                {
                    default_if_absent(i, "ipMode", json!("VIP"));
                }
            });
        }
    }
}

/// `SetDefaults_Secret`.
pub(super) fn secret(secret: &mut Map<String, Value>) {
    default_if_empty(secret, "type", "Opaque");
}
