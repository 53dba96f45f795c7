//! The defaulters of `apps/v1` (`k8s.io/kubernetes` `pkg/apis/apps/v1/defaults.go`), each
//! followed by its pod template's (`zz_generated.defaults.go`).

use serde_json::{Map, Value, json};

use super::core::{persistent_volume_claim_spec, template};
use super::{child, default_if_absent, default_if_empty, each, struct_field};

/// `SetDefaults_Deployment`.
pub(super) fn deployment(d: &mut Map<String, Value>) {
    let Some(spec) = struct_field(d, "spec") else {
        return;
    };
    default_if_absent(spec, "replicas", json!(1));
    if let Some(s) = struct_field(spec, "strategy") {
        default_if_empty(s, "type", "RollingUpdate");
        if s.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
            default_if_absent(s, "rollingUpdate", json!({}));
            if let Some(r) = child(s, "rollingUpdate") {
                default_if_absent(r, "maxUnavailable", json!("25%"));
                default_if_absent(r, "maxSurge", json!("25%"));
            }
        }
    }
    default_if_absent(spec, "revisionHistoryLimit", json!(10));
    default_if_absent(spec, "progressDeadlineSeconds", json!(600));
    template(spec, "template");
}

/// `SetDefaults_DaemonSet`.
pub(super) fn daemon_set(d: &mut Map<String, Value>) {
    let Some(spec) = struct_field(d, "spec") else {
        return;
    };
    if let Some(s) = struct_field(spec, "updateStrategy") {
        default_if_empty(s, "type", "RollingUpdate");
        if s.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
            default_if_absent(s, "rollingUpdate", json!({}));
            if let Some(r) = child(s, "rollingUpdate") {
                default_if_absent(r, "maxUnavailable", json!(1));
                default_if_absent(r, "maxSurge", json!(0));
            }
        }
    }
    default_if_absent(spec, "revisionHistoryLimit", json!(10));
    template(spec, "template");
}

/// `SetDefaults_StatefulSet` (`StatefulSetAutoDeletePVC` is on in every release served),
/// then its volume claim templates (`SetDefaults_PersistentVolumeClaim`, `…ClaimSpec`).
pub(super) fn stateful_set(s: &mut Map<String, Value>) {
    let Some(spec) = struct_field(s, "spec") else {
        return;
    };
    default_if_empty(spec, "podManagementPolicy", "OrderedReady");
    if let Some(u) = struct_field(spec, "updateStrategy") {
        if u.get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty()
        {
            u.insert("type".into(), "RollingUpdate".into());
            default_if_absent(u, "rollingUpdate", json!({}));
        }
        if u.get("type").and_then(Value::as_str) == Some("RollingUpdate")
            && let Some(r) = child(u, "rollingUpdate")
        {
            default_if_absent(r, "partition", json!(0));
        }
    }
    default_if_absent(spec, "persistentVolumeClaimRetentionPolicy", json!({}));
    if let Some(p) = child(spec, "persistentVolumeClaimRetentionPolicy") {
        default_if_empty(p, "whenDeleted", "Retain");
        default_if_empty(p, "whenScaled", "Retain");
    }
    default_if_absent(spec, "replicas", json!(1));
    default_if_absent(spec, "revisionHistoryLimit", json!(10));
    template(spec, "template");
    each(spec, "volumeClaimTemplates", |claim| {
        default_if_absent(claim, "status", json!({}));
        if let Some(status) = child(claim, "status") {
            default_if_empty(status, "phase", "Pending");
        }
        if let Some(spec) = child(claim, "spec") {
            persistent_volume_claim_spec(spec);
        }
    });
}

/// `SetDefaults_ReplicaSet`.
pub(super) fn replica_set(r: &mut Map<String, Value>) {
    let Some(spec) = struct_field(r, "spec") else {
        return;
    };
    default_if_absent(spec, "replicas", json!(1));
    template(spec, "template");
}
