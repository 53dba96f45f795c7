//! The MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding kinds
//! (`k8s.io/api/admissionregistration/{v1alpha1,v1beta1,v1}`, `types.go`), decoded from input
//! documents with the server's defaults (`pkg/apis/admissionregistration/*/defaults.go`:
//! `SetDefaults_MutatingAdmissionPolicySpec` sets `failurePolicy: Fail`).
//!
//! `matchConstraints`, the binding's `matchResources` and `paramRef` are the types (and
//! defaults: `SetDefaults_MatchResources`, `SetDefaults_ParamRef`) ValidatingAdmissionPolicy
//! shares with them in `k8s.io/api/admissionregistration`, matched by the shared matching.

use serde::Deserialize;
use serde_json::Value;

pub use crate::admission::model::{MatchResources, NamedExpression, ParamKind, ParamRef};
use crate::documents::Document;
use crate::version::KubeVersion;

/// The API group of admission policies.
pub const GROUP: &str = "admissionregistration.k8s.io";
/// The policy kind.
pub const POLICY_KIND: &str = "MutatingAdmissionPolicy";
/// The binding kind.
pub const BINDING_KIND: &str = "MutatingAdmissionPolicyBinding";

/// The `admissionregistration.k8s.io` versions serving MutatingAdmissionPolicy in a release:
/// `v1alpha1` from 1.32 (alpha, behind its feature gate), `v1beta1` from 1.34, `v1` from 1.36
/// (k8s.io/apiserver commit b591307e4 "promote MutatingAdmissionPolicy to v1").
pub fn served_versions(version: KubeVersion) -> &'static [&'static str] {
    match version.minor() {
        ..=31 => &[],
        32 | 33 => &["v1alpha1"],
        34 | 35 => &["v1alpha1", "v1beta1"],
        _ => &["v1alpha1", "v1beta1", "v1"],
    }
}

/// A MutatingAdmissionPolicy.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MutatingAdmissionPolicy {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    #[serde(default)]
    /// `metadata`.
    pub metadata: Metadata,
    #[serde(default)]
    /// `spec` (`admissionregistration/v1beta1 types.go MutatingAdmissionPolicy.Spec`).
    pub spec: PolicySpec,
}

/// The part of `metadata` policies use.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct Metadata {
    #[serde(default)]
    /// `metadata.name`.
    pub name: String,
    #[serde(default)]
    /// `metadata.namespace` (empty for these cluster-scoped kinds).
    pub namespace: String,
}

/// `MutatingAdmissionPolicySpec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PolicySpec {
    #[serde(default)]
    /// `paramKind` (`admissionregistration/v1beta1 types.go MutatingAdmissionPolicySpec.ParamKind`).
    pub param_kind: Option<ParamKind>,
    #[serde(default)]
    /// `matchConstraints` (`MutatingAdmissionPolicySpec.MatchConstraints`), decoded as
    /// ValidatingAdmissionPolicy's with its defaults.
    pub match_constraints: Option<MatchResources>,
    #[serde(default)]
    /// `variables` (`admissionregistration/v1beta1 types.go MutatingAdmissionPolicySpec.Variables`).
    pub variables: Vec<NamedExpression>,
    #[serde(default)]
    /// `mutations` (`admissionregistration/v1beta1 types.go MutatingAdmissionPolicySpec.Mutations`).
    pub mutations: Vec<Mutation>,
    /// Defaulted to `Fail`.
    #[serde(default)]
    pub failure_policy: FailurePolicy,
    #[serde(default)]
    /// `matchConditions` (`admissionregistration/v1beta1 types.go MutatingAdmissionPolicySpec.MatchConditions`).
    pub match_conditions: Vec<NamedExpression>,
    /// Empty means `Never` (no default is set).
    #[serde(default)]
    pub reinvocation_policy: ReinvocationPolicy,
}

/// `Mutation`: one patch, of the type `patchType` names.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Mutation {
    /// `patchType` (`admissionregistration/v1beta1 types.go Mutation.PatchType`).
    pub patch_type: PatchType,
    #[serde(default)]
    /// `applyConfiguration` (`admissionregistration/v1beta1 types.go Mutation.ApplyConfiguration`).
    pub apply_configuration: Option<Expression>,
    #[serde(default, rename = "jsonPatch")]
    /// `jsonPatch` (`admissionregistration/v1beta1 types.go Mutation.JSONPatch`).
    pub json_patch: Option<Expression>,
}

/// `ApplyConfiguration` and `JSONPatch`: each holds one expression.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct Expression {
    #[serde(default)]
    /// `expression` (`admissionregistration/v1beta1 types.go ApplyConfiguration.Expression`, `JSONPatch.Expression`).
    pub expression: String,
}

/// `PatchType`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum PatchType {
    /// `ApplyConfiguration` (`admissionregistration/v1beta1 types.go PatchTypeApplyConfiguration`).
    ApplyConfiguration,
    #[serde(rename = "JSONPatch")]
    /// `JSONPatch` (`admissionregistration/v1beta1 types.go PatchTypeJSONPatch`).
    JsonPatch,
}

/// `FailurePolicyType`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum FailurePolicy {
    #[default]
    /// `Fail` (`admissionregistration/v1beta1 types.go Fail`): errors deny.
    Fail,
    /// `Ignore` (`admissionregistration/v1beta1 types.go Ignore`): errors admit.
    Ignore,
}

/// `ReinvocationPolicyType`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum ReinvocationPolicy {
    #[default]
    /// `Never` (`admissionregistration/v1beta1 types.go NeverReinvocationPolicy`).
    Never,
    /// `IfNeeded` (`admissionregistration/v1beta1 types.go IfNeededReinvocationPolicy`).
    IfNeeded,
}

/// A MutatingAdmissionPolicyBinding.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MutatingAdmissionPolicyBinding {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    #[serde(default)]
    /// `metadata`.
    pub metadata: Metadata,
    #[serde(default)]
    /// `spec` (`admissionregistration/v1beta1 types.go MutatingAdmissionPolicyBinding.Spec`).
    pub spec: BindingSpec,
}

/// `MutatingAdmissionPolicyBindingSpec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BindingSpec {
    #[serde(default)]
    /// `policyName` (`admissionregistration/v1beta1 types.go MutatingAdmissionPolicyBindingSpec.PolicyName`).
    pub policy_name: String,
    #[serde(default)]
    /// `paramRef` (`MutatingAdmissionPolicyBindingSpec.ParamRef`).
    pub param_ref: Option<ParamRef>,
    #[serde(default)]
    /// `matchResources` (`MutatingAdmissionPolicyBindingSpec.MatchResources`).
    pub match_resources: Option<MatchResources>,
}

/// A policy or binding document that cannot be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {kind}{}: {message}", field_suffix(.field))]
pub struct ModelError {
    /// The file.
    pub file: String,
    /// The line the document starts at.
    pub line: usize,
    /// The kind decoded.
    pub kind: &'static str,
    /// The field at fault (`spec.mutations[0].patchType`), empty for the document.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

fn field_suffix(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!(" {field}")
    }
}

/// Whether `doc` is of `kind` in `admissionregistration.k8s.io`, any version.
pub fn is_kind(doc: &Value, kind: &str) -> bool {
    doc.get("kind").and_then(Value::as_str) == Some(kind)
        && doc
            .get("apiVersion")
            .and_then(Value::as_str)
            .and_then(|v| v.split_once('/'))
            .is_some_and(|(g, _)| g == GROUP)
}

impl MutatingAdmissionPolicy {
    /// Decodes a policy document served by `version`.
    pub fn from_document(doc: &Document, version: KubeVersion) -> Result<Self, ModelError> {
        let mut p: Self = decode(doc, version, POLICY_KIND)?;
        if let Some(m) = &mut p.spec.match_constraints {
            m.set_defaults();
        }
        Ok(p)
    }
}

impl MutatingAdmissionPolicyBinding {
    /// Decodes a binding document served by `version`.
    pub fn from_document(doc: &Document, version: KubeVersion) -> Result<Self, ModelError> {
        let mut b: Self = decode(doc, version, BINDING_KIND)?;
        if let Some(m) = &mut b.spec.match_resources {
            m.set_defaults();
        }
        if let Some(r) = &mut b.spec.param_ref {
            r.set_defaults();
        }
        Ok(b)
    }
}

fn decode<T: serde::de::DeserializeOwned>(
    doc: &Document,
    version: KubeVersion,
    kind: &'static str,
) -> Result<T, ModelError> {
    let error = |field: String, message: String| ModelError {
        file: doc.source.clone(),
        line: doc.line,
        kind,
        field,
        message,
    };
    let api_version = doc.value.get("apiVersion").and_then(Value::as_str);
    let served = api_version
        .and_then(|v| v.strip_prefix(GROUP))
        .and_then(|v| v.strip_prefix('/'))
        .is_some_and(|v| served_versions(version).contains(&v));
    if !served {
        return Err(error(
            String::new(),
            format!(
                "no matches for kind \"{kind}\" in version \"{}\" (Kubernetes 1.{} serves {})",
                api_version.unwrap_or(""),
                version.minor(),
                served_list(version)
            ),
        ));
    }
    if doc.value.get("kind").and_then(Value::as_str) != Some(kind) {
        return Err(error("kind".into(), format!("not {kind}")));
    }
    serde_path_to_error::deserialize(&doc.value).map_err(|e| {
        let field = e.path().to_string();
        let field = if field == "." { String::new() } else { field };
        error(field, e.inner().to_string())
    })
}

fn served_list(version: KubeVersion) -> String {
    let served = served_versions(version);
    if served.is_empty() {
        return "none".into();
    }
    served
        .iter()
        .map(|v| format!("{GROUP}/{v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(value: Value) -> Document {
        Document {
            source: "p.yaml".into(),
            line: 3,
            index: 0,
            item: None,
            value,
        }
    }

    #[test]
    fn decodes_with_defaults() {
        let d = doc(json!({
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "p"},
            "spec": {"mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "[]"}}]}
        }));
        let p = MutatingAdmissionPolicy::from_document(&d, KubeVersion::new(34).unwrap()).unwrap();
        assert_eq!(p.spec.failure_policy, FailurePolicy::Fail);
        assert_eq!(p.spec.reinvocation_policy, ReinvocationPolicy::Never);
        assert_eq!(p.spec.mutations[0].patch_type, PatchType::JsonPatch);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let d = doc(json!({
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "spec": {"mutations": [{"patchType": "Merge"}]}
        }));
        let e =
            MutatingAdmissionPolicy::from_document(&d, KubeVersion::new(35).unwrap()).unwrap_err();
        assert_eq!(e.line, 3);
        assert_eq!(e.field, "spec.mutations[0].patchType");
        assert!(e.to_string().starts_with("p.yaml:3: MutatingAdmissionPolicy spec.mutations[0].patchType: unknown variant `Merge`"), "{e}");
        let e =
            MutatingAdmissionPolicy::from_document(&d, KubeVersion::new(33).unwrap()).unwrap_err();
        assert!(
            e.message
                .contains("serves admissionregistration.k8s.io/v1alpha1"),
            "{e}"
        );
    }
}
