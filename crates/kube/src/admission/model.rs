//! ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
//! (`admissionregistration.k8s.io` v1, v1beta1, v1alpha1: `k8s.io/api/admissionregistration/*/types.go`)
//! as typed values, decoded from input documents with the server's defaults applied
//! (`pkg/apis/admissionregistration/v1/defaults.go`: `SetDefaults_ValidatingAdmissionPolicySpec`
//! — failurePolicy `Fail` —, `SetDefaults_MatchResources` — matchPolicy `Equivalent`, empty
//! namespace and object selectors —, `SetDefaults_NamedRuleWithOperations`/`SetDefaults_Rule` —
//! scope `*` —, `SetDefaults_ParamRef` — parameterNotFoundAction `Deny`).
//!
//! The three versions share one field layout for what the plugin reads, so one set of types
//! decodes all of them; v1alpha1's and v1beta1's extra fields are ignored.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::documents::Document;

/// The API group of admission policies.
pub const GROUP: &str = "admissionregistration.k8s.io";
/// The kind of a validating policy.
pub const POLICY_KIND: &str = "ValidatingAdmissionPolicy";
/// The kind of a validating policy's binding.
pub const BINDING_KIND: &str = "ValidatingAdmissionPolicyBinding";
/// The versions of the group that serve validating policies, newest first.
pub const VERSIONS: [&str; 3] = ["v1", "v1beta1", "v1alpha1"];

/// `metadata` as far as policies use it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    #[serde(default)]
    /// `metadata.name`.
    pub name: String,
    #[serde(default)]
    /// `metadata.namespace` (empty for these cluster-scoped kinds).
    pub namespace: String,
    #[serde(default)]
    /// `metadata.labels`.
    pub labels: BTreeMap<String, String>,
}

/// `ValidatingAdmissionPolicy`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ValidatingAdmissionPolicy {
    #[serde(default)]
    /// `metadata`.
    pub metadata: Metadata,
    #[serde(default)]
    /// `spec` (`admissionregistration/v1 types.go ValidatingAdmissionPolicy.Spec`).
    pub spec: PolicySpec,
}

/// `ValidatingAdmissionPolicySpec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PolicySpec {
    /// `paramKind` (`admissionregistration/v1 types.go ValidatingAdmissionPolicySpec.ParamKind`).
    pub param_kind: Option<ParamKind>,
    /// `matchConstraints` (`admissionregistration/v1 types.go ValidatingAdmissionPolicySpec.MatchConstraints`).
    pub match_constraints: Option<MatchResources>,
    #[serde(default)]
    /// `validations` (`admissionregistration/v1 types.go ValidatingAdmissionPolicySpec.Validations`).
    pub validations: Vec<Validation>,
    /// `failurePolicy` (`admissionregistration/v1 types.go ValidatingAdmissionPolicySpec.FailurePolicy`), defaulted to `Fail`.
    pub failure_policy: Option<FailurePolicy>,
    #[serde(default)]
    /// `auditAnnotations` (`admissionregistration/v1 types.go ValidatingAdmissionPolicySpec.AuditAnnotations`).
    pub audit_annotations: Vec<AuditAnnotation>,
    #[serde(default)]
    /// `matchConditions` (`admissionregistration/v1 types.go ValidatingAdmissionPolicySpec.MatchConditions`).
    pub match_conditions: Vec<NamedExpression>,
    #[serde(default)]
    /// `variables` (`admissionregistration/v1 types.go ValidatingAdmissionPolicySpec.Variables`).
    pub variables: Vec<NamedExpression>,
}

/// `ParamKind`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ParamKind {
    #[serde(default)]
    /// `apiVersion` of the params (`admissionregistration/v1 types.go ParamKind.APIVersion`).
    pub api_version: String,
    #[serde(default)]
    /// `kind` of the params (`admissionregistration/v1 types.go ParamKind.Kind`).
    pub kind: String,
}

/// `Validation`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Validation {
    #[serde(default)]
    /// `expression` (`admissionregistration/v1 types.go Validation.Expression`).
    pub expression: String,
    #[serde(default)]
    /// `message` (`admissionregistration/v1 types.go Validation.Message`).
    pub message: String,
    /// A `metav1.StatusReason` (`Unauthorized`, `Forbidden`, `Invalid`, `RequestEntityTooLarge`).
    pub reason: Option<String>,
    #[serde(default)]
    /// `messageExpression` (`admissionregistration/v1 types.go Validation.MessageExpression`).
    pub message_expression: String,
}

/// `AuditAnnotation`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AuditAnnotation {
    #[serde(default)]
    /// `key` (`admissionregistration/v1 types.go AuditAnnotation.Key`).
    pub key: String,
    #[serde(default)]
    /// `valueExpression` (`admissionregistration/v1 types.go AuditAnnotation.ValueExpression`).
    pub value_expression: String,
}

/// `MatchCondition` and `Variable`: a name and an expression.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NamedExpression {
    #[serde(default)]
    /// `name` (`MatchCondition.Name`, `Variable.Name`).
    pub name: String,
    #[serde(default)]
    /// `expression` (`MatchCondition.Expression`, `Variable.Expression`).
    pub expression: String,
}

/// `FailurePolicyType`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum FailurePolicy {
    /// `Ignore` (`admissionregistration/v1 types.go Ignore`): errors admit.
    Ignore,
    /// `Fail` (`admissionregistration/v1 types.go Fail`): errors deny.
    Fail,
}

/// `MatchPolicyType`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum MatchPolicy {
    /// `Exact` (`admissionregistration/v1 types.go Exact`): only the rules' own resources match.
    Exact,
    /// `Equivalent` (`admissionregistration/v1 types.go Equivalent`): other versions and groups of the same resource match too.
    Equivalent,
}

/// `MatchResources`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MatchResources {
    /// `namespaceSelector` (`admissionregistration/v1 types.go MatchResources.NamespaceSelector`).
    pub namespace_selector: Option<LabelSelector>,
    /// `objectSelector` (`admissionregistration/v1 types.go MatchResources.ObjectSelector`).
    pub object_selector: Option<LabelSelector>,
    #[serde(default)]
    /// `resourceRules` (`admissionregistration/v1 types.go MatchResources.ResourceRules`).
    pub resource_rules: Vec<NamedRuleWithOperations>,
    #[serde(default)]
    /// `excludeResourceRules` (`admissionregistration/v1 types.go MatchResources.ExcludeResourceRules`).
    pub exclude_resource_rules: Vec<NamedRuleWithOperations>,
    /// `matchPolicy` (`admissionregistration/v1 types.go MatchResources.MatchPolicy`), defaulted to `Equivalent`.
    pub match_policy: Option<MatchPolicy>,
}

/// `NamedRuleWithOperations`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NamedRuleWithOperations {
    #[serde(default)]
    /// `resourceNames` (`admissionregistration/v1 types.go NamedRuleWithOperations.ResourceNames`).
    pub resource_names: Vec<String>,
    #[serde(default)]
    /// `operations` (`admissionregistration/v1 types.go RuleWithOperations.Operations`).
    pub operations: Vec<String>,
    #[serde(default)]
    /// `apiGroups` (`admissionregistration/v1 types.go Rule.APIGroups`).
    pub api_groups: Vec<String>,
    #[serde(default)]
    /// `apiVersions` (`admissionregistration/v1 types.go Rule.APIVersions`).
    pub api_versions: Vec<String>,
    #[serde(default)]
    /// `resources` (`admissionregistration/v1 types.go Rule.Resources`).
    pub resources: Vec<String>,
    /// `*` (the default), `Cluster` or `Namespaced`.
    pub scope: Option<String>,
}

/// `metav1.LabelSelector`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(default)]
    /// `matchLabels` (`metav1.LabelSelector.MatchLabels`).
    pub match_labels: BTreeMap<String, String>,
    #[serde(default)]
    /// `matchExpressions` (`metav1.LabelSelector.MatchExpressions`).
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// `metav1.LabelSelectorRequirement`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelectorRequirement {
    #[serde(default)]
    /// `key` (`metav1.LabelSelectorRequirement.Key`).
    pub key: String,
    #[serde(default)]
    /// `operator`: `In`, `NotIn`, `Exists` or `DoesNotExist` (`metav1.LabelSelectorRequirement.Operator`).
    pub operator: String,
    #[serde(default)]
    /// `values` (`metav1.LabelSelectorRequirement.Values`).
    pub values: Vec<String>,
}

/// `ValidatingAdmissionPolicyBinding`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ValidatingAdmissionPolicyBinding {
    #[serde(default)]
    /// `metadata`.
    pub metadata: Metadata,
    #[serde(default)]
    /// `spec` (`admissionregistration/v1 types.go ValidatingAdmissionPolicyBinding.Spec`).
    pub spec: BindingSpec,
}

/// `ValidatingAdmissionPolicyBindingSpec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BindingSpec {
    #[serde(default)]
    /// `policyName` (`admissionregistration/v1 types.go ValidatingAdmissionPolicyBindingSpec.PolicyName`).
    pub policy_name: String,
    /// `paramRef` (`admissionregistration/v1 types.go ValidatingAdmissionPolicyBindingSpec.ParamRef`).
    pub param_ref: Option<ParamRef>,
    /// `matchResources` (`admissionregistration/v1 types.go ValidatingAdmissionPolicyBindingSpec.MatchResources`).
    pub match_resources: Option<MatchResources>,
    #[serde(default)]
    /// `validationActions` (`admissionregistration/v1 types.go ValidatingAdmissionPolicyBindingSpec.ValidationActions`).
    pub validation_actions: Vec<ValidationAction>,
}

/// `ParamRef`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ParamRef {
    #[serde(default)]
    /// `name` (`admissionregistration/v1 types.go ParamRef.Name`).
    pub name: String,
    #[serde(default)]
    /// `namespace` (`admissionregistration/v1 types.go ParamRef.Namespace`).
    pub namespace: String,
    /// `selector` (`admissionregistration/v1 types.go ParamRef.Selector`).
    pub selector: Option<LabelSelector>,
    /// `parameterNotFoundAction` (`admissionregistration/v1 types.go ParamRef.ParameterNotFoundAction`).
    pub parameter_not_found_action: Option<ParameterNotFoundAction>,
}

/// `ParameterNotFoundActionType`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum ParameterNotFoundAction {
    /// `Allow` (`admissionregistration/v1 types.go AllowAction`): no params found admits.
    Allow,
    /// `Deny` (`admissionregistration/v1 types.go DenyAction`): no params found denies.
    Deny,
}

/// `ValidationAction`.
#[derive(Clone, Copy, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
pub enum ValidationAction {
    /// `Deny` (`admissionregistration/v1 types.go Deny`): a failed validation denies the request.
    Deny,
    /// `Warn` (`admissionregistration/v1 types.go Warn`): a failed validation is returned as a warning.
    Warn,
    /// `Audit` (`admissionregistration/v1 types.go Audit`): a failed validation is recorded in the audit annotations.
    Audit,
}

impl MatchResources {
    /// `SetDefaults_MatchResources` and the rules' `SetDefaults_Rule`.
    pub fn set_defaults(&mut self) {
        self.namespace_selector.get_or_insert_with(Default::default);
        self.object_selector.get_or_insert_with(Default::default);
        self.match_policy.get_or_insert(MatchPolicy::Equivalent);
        for r in self
            .resource_rules
            .iter_mut()
            .chain(&mut self.exclude_resource_rules)
        {
            r.scope.get_or_insert_with(|| "*".to_string());
        }
    }
}

impl ValidatingAdmissionPolicy {
    /// Applies the server's defaults.
    pub fn set_defaults(&mut self) {
        self.spec.failure_policy.get_or_insert(FailurePolicy::Fail);
        if let Some(m) = &mut self.spec.match_constraints {
            m.set_defaults();
        }
    }
}

impl ValidatingAdmissionPolicyBinding {
    /// Applies the server's defaults.
    pub fn set_defaults(&mut self) {
        if let Some(m) = &mut self.spec.match_resources {
            m.set_defaults();
        }
        if let Some(p) = &mut self.spec.param_ref {
            p.set_defaults();
        }
    }
}

impl ParamRef {
    /// `SetDefaults_ParamRef`.
    pub fn set_defaults(&mut self) {
        self.parameter_not_found_action
            .get_or_insert(ParameterNotFoundAction::Deny);
    }
}

/// A document that should be a policy or binding and does not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {kind}: {message}")]
pub struct ModelError {
    /// `file:line` of the document.
    pub location: String,
    /// The kind it declares.
    pub kind: String,
    /// What is wrong, with the field path.
    pub message: String,
}

/// Which admission document, if any, `value` is: its kind when `apiVersion` is a served
/// version of the group and the kind a validating policy or binding.
pub fn admission_kind(value: &Value) -> Option<&'static str> {
    let api_version = value.get("apiVersion")?.as_str()?;
    let (group, version) = api_version.split_once('/')?;
    if group != GROUP || !VERSIONS.contains(&version) {
        return None;
    }
    match value.get("kind")?.as_str()? {
        POLICY_KIND => Some(POLICY_KIND),
        BINDING_KIND => Some(BINDING_KIND),
        _ => None,
    }
}

fn decode<T: for<'de> Deserialize<'de>>(doc: &Document, kind: &str) -> Result<T, ModelError> {
    serde_path_to_error::deserialize(&doc.value).map_err(|e| ModelError {
        location: doc.location(),
        kind: kind.to_string(),
        message: match e.path().to_string().as_str() {
            "." => e.inner().to_string(),
            p => format!("{p}: {}", e.inner()),
        },
    })
}

/// Decodes a ValidatingAdmissionPolicy document, defaults applied.
pub fn decode_policy(doc: &Document) -> Result<ValidatingAdmissionPolicy, ModelError> {
    let mut p: ValidatingAdmissionPolicy = decode(doc, POLICY_KIND)?;
    p.set_defaults();
    Ok(p)
}

/// Decodes a ValidatingAdmissionPolicyBinding document, defaults applied.
pub fn decode_binding(doc: &Document) -> Result<ValidatingAdmissionPolicyBinding, ModelError> {
    let mut b: ValidatingAdmissionPolicyBinding = decode(doc, BINDING_KIND)?;
    b.set_defaults();
    Ok(b)
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
    fn defaults_are_applied() {
        let p = decode_policy(&doc(json!({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": POLICY_KIND,
            "metadata": {"name": "p"},
            "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": ["apps"],
                "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}]},
                "validations": [{"expression": "true"}]}
        })))
        .expect("decodes");
        assert_eq!(p.spec.failure_policy, Some(FailurePolicy::Fail));
        let m = p.spec.match_constraints.as_ref().expect("constraints");
        assert_eq!(m.match_policy, Some(MatchPolicy::Equivalent));
        assert_eq!(m.namespace_selector, Some(LabelSelector::default()));
        assert_eq!(m.resource_rules[0].scope.as_deref(), Some("*"));
        let b = decode_binding(&doc(json!({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": BINDING_KIND,
            "metadata": {"name": "b"},
            "spec": {"policyName": "p", "paramRef": {"name": "x"}, "validationActions": ["Deny"]}
        })))
        .expect("decodes");
        assert_eq!(
            b.spec.param_ref.and_then(|r| r.parameter_not_found_action),
            Some(ParameterNotFoundAction::Deny)
        );
    }

    #[test]
    fn bad_documents_name_file_line_and_field() {
        let e = decode_binding(&doc(json!({
            "apiVersion": "admissionregistration.k8s.io/v1", "kind": BINDING_KIND,
            "spec": {"validationActions": ["Reject"]}
        })))
        .expect_err("unknown action");
        assert_eq!(e.location, "p.yaml:3");
        assert!(
            e.message
                .starts_with("spec.validationActions[0]: unknown variant `Reject`"),
            "{}",
            e.message
        );
    }
}
