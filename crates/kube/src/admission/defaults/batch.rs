//! The defaulters of `batch/v1` (`k8s.io/kubernetes` `pkg/apis/batch/v1/defaults.go`), each
//! followed by its pod template's (`zz_generated.defaults.go`).

use serde_json::{Map, Value, json};

use super::core::template;
use super::{child, default_if_absent, default_if_empty, each, struct_field, template_labels};
use crate::version::KubeVersion;

/// `SetDefaults_Job` (`JobPodReplacementPolicy` on from 1.29).
pub(super) fn job(job: &mut Map<String, Value>, version: KubeVersion) {
    let template_labels = template_labels(job);
    let Some(spec) = struct_field(job, "spec") else {
        return;
    };
    let unset = |s: &Map<String, Value>, k: &str| s.get(k).is_none_or(Value::is_null);
    if unset(spec, "completions") && unset(spec, "parallelism") {
        spec.insert("completions".into(), json!(1));
        spec.insert("parallelism".into(), json!(1));
    }
    default_if_absent(spec, "parallelism", json!(1));
    let backoff = if unset(spec, "backoffLimitPerIndex") {
        6
    } else {
        i64::from(i32::MAX)
    };
    default_if_absent(spec, "backoffLimit", json!(backoff));
    default_if_absent(spec, "completionMode", json!("NonIndexed"));
    default_if_absent(spec, "suspend", json!(false));
    if let Some(policy) = child(spec, "podFailurePolicy") {
        each(policy, "rules", |rule| {
            each(rule, "onPodConditions", |p| {
                default_if_empty(p, "status", "True")
            });
        });
    }
    if version.at_least(29) {
        let replacement = if unset(spec, "podFailurePolicy") {
            "TerminatingOrFailed"
        } else {
            "Failed"
        };
        default_if_absent(spec, "podReplacementPolicy", json!(replacement));
    }
    default_if_absent(spec, "manualSelector", json!(false));
    template(spec, "template");
    if let Some(labels) = template_labels {
        let metadata = job.entry("metadata").or_insert_with(|| json!({}));
        if let Some(m) = metadata.as_object_mut() {
            let empty = m
                .get("labels")
                .and_then(Value::as_object)
                .is_none_or(Map::is_empty);
            if empty {
                m.insert("labels".into(), labels);
            }
        }
    }
}

/// `SetDefaults_CronJob`, then the job template's pod template.
pub(super) fn cron_job(c: &mut Map<String, Value>) {
    let Some(spec) = struct_field(c, "spec") else {
        return;
    };
    default_if_empty(spec, "concurrencyPolicy", "Allow");
    default_if_absent(spec, "suspend", json!(false));
    default_if_absent(spec, "successfulJobsHistoryLimit", json!(3));
    default_if_absent(spec, "failedJobsHistoryLimit", json!(1));
    if let Some(job_spec) = struct_field(spec, "jobTemplate").and_then(|t| struct_field(t, "spec"))
    {
        template(job_spec, "template");
    }
}
