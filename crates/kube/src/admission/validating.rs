//! ValidatingAdmissionPolicy: compiling a policy (`policy/validating/plugin.go`
//! `compilePolicy`), evaluating it for one request and binding (`validator.go` `Validate`), and
//! combining the decisions of every policy and binding into the server's answer
//! (`dispatcher.go` `Dispatch`).

use std::sync::Arc;

use cel::Value as CelValue;
use serde_json::Value;

use super::environment::{
    Compiler, Optional, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS, ReturnTypes,
};
use super::evaluate::{Bindings, Expression, Outcome, Variable, for_input};
use super::matching::{Cluster, binding_matches, definition_matches};
use super::model::{
    FailurePolicy, ParamKind, ParamRef, ParameterNotFoundAction, ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding, ValidationAction,
};
use super::request::{Attributes, namespace_json, request_json};
use super::selector::{Selector, SelectorError};
use crate::field::go_json;
use crate::pipeline::status::{Cause, Details, Status};
use crate::rules::EnvKind;
use crate::rules::env::{MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES, RUNTIME_CEL_COST_BUDGET};
use crate::version::KubeVersion;

/// `maxAuditAnnotationValueLength`.
pub const MAX_AUDIT_ANNOTATION_VALUE_LENGTH: usize = 10 * 1024;
/// `maxValidationFailures`: validation failures kept in the audit annotation.
pub const MAX_VALIDATION_FAILURES: usize = 50;
/// The audit annotation listing validation failures under the `Audit` action.
pub const VALIDATION_FAILURE_ANNOTATION: &str =
    "validation.policy.admission.k8s.io/validation_failure";

/// A policy with its expressions compiled as the plugin compiles them (stored expressions).
#[derive(Clone, Debug)]
pub(crate) struct CompiledPolicy {
    /// The policy as decoded.
    pub policy: ValidatingAdmissionPolicy,
    variables: Arc<[Variable]>,
    match_conditions: Vec<(String, Option<Expression>)>,
    validations: Vec<Option<Expression>>,
    messages: Vec<Option<Expression>>,
    audit_annotations: Vec<Option<Expression>>,
}

impl CompiledPolicy {
    /// `compilePolicy` for Kubernetes `version`.
    pub fn new(policy: ValidatingAdmissionPolicy, version: KubeVersion) -> CompiledPolicy {
        let optional = Optional {
            params: policy.spec.param_kind.is_some(),
            authorizer: true,
            patch_types: false,
        };
        let message_optional = Optional {
            authorizer: false,
            ..optional
        };
        let mut compiler = Compiler::new(version, EnvKind::StoredExpressions);
        let variables = Variable::compile_all(&mut compiler, &policy.spec.variables, optional);
        let expression = |text: &str, returns: ReturnTypes, optional: Optional| {
            Some(Expression::compile(&compiler, text, returns, optional))
        };
        let match_conditions = policy
            .spec
            .match_conditions
            .iter()
            .map(|m| {
                (
                    m.name.clone(),
                    expression(&m.expression, ReturnTypes::Bool, optional),
                )
            })
            .collect();
        let validations = policy
            .spec
            .validations
            .iter()
            .map(|v| expression(&v.expression, ReturnTypes::Bool, optional))
            .collect();
        let messages = policy
            .spec
            .validations
            .iter()
            .map(|v| {
                (!v.message_expression.is_empty())
                    .then(|| {
                        expression(&v.message_expression, ReturnTypes::String, message_optional)
                    })
                    .flatten()
            })
            .collect();
        let audit_annotations = policy
            .spec
            .audit_annotations
            .iter()
            .map(|a| expression(&a.value_expression, ReturnTypes::StringOrNull, optional))
            .collect();
        CompiledPolicy {
            policy,
            variables,
            match_conditions,
            validations,
            messages,
            audit_annotations,
        }
    }

    fn failure_policy(&self) -> FailurePolicy {
        self.policy
            .spec
            .failure_policy
            .unwrap_or(FailurePolicy::Fail)
    }
}

/// `PolicyDecisionAction` with its evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// `ActionAdmit`: the validation passed.
    Admit,
    /// `ActionDeny`: the validation failed.
    Deny,
    /// `EvalError`: the validation could not be evaluated.
    Error,
}

/// `PolicyDecision`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Whether the request is denied by this decision (errors deny under `failurePolicy: Fail`).
    pub deny: bool,
    /// What happened (`PolicyDecision.Action`, `PolicyDecision.Evaluation`).
    pub evaluation: Evaluation,
    /// The message (`PolicyDecision.Message`).
    pub message: String,
    /// The `metav1.StatusReason` (empty unless the validation failed).
    pub reason: String,
}

/// `PolicyAuditAnnotationAction`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditAction {
    /// `AuditAnnotationActionPublish`: the value is published under the key.
    Publish,
    /// `AuditAnnotationActionError`: the annotation failed (under `failurePolicy: Fail`, or
    /// with a value of an unsupported type); the request is denied.
    Error,
    /// `AuditAnnotationActionExclude`: nothing is published (null or blank value, or an error
    /// under `failurePolicy: Ignore`).
    Exclude,
}

/// `PolicyAuditAnnotation`: the outcome of one audit annotation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditAnnotationResult {
    /// The annotation's key (`auditAnnotations[i].key`).
    pub key: String,
    /// The value, trimmed (empty unless published).
    pub value: String,
    /// What happens to it.
    pub action: AuditAction,
    /// Why it failed (empty unless its evaluation failed).
    pub error: String,
}

/// `ValidateResult`: what one evaluation of a policy (one binding, one param) decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValidateResult {
    /// One decision per validation, in order; a single error decision when the policy could
    /// not be evaluated; none when a match condition is false.
    pub decisions: Vec<Decision>,
    /// One result per audit annotation, in order.
    pub audit_annotations: Vec<AuditAnnotationResult>,
}

fn error_decision(policy: FailurePolicy, message: String) -> Decision {
    Decision {
        deny: policy == FailurePolicy::Fail,
        evaluation: Evaluation::Error,
        message,
        reason: String::new(),
    }
}

/// `validator.Validate` for one param.
fn validate(p: &CompiledPolicy, bindings: &Bindings) -> ValidateResult {
    let f = p.failure_policy();
    let single = |message: String| ValidateResult {
        decisions: vec![error_decision(f, message)],
        audit_annotations: Vec::new(),
    };
    if !p.match_conditions.is_empty() {
        // matchconditions.Matcher.Match: no namespaceObject, its own budget.
        let conditions: Vec<Option<Expression>> =
            p.match_conditions.iter().map(|(_, e)| e.clone()).collect();
        let no_namespace = Bindings {
            namespace: CelValue::Null,
            ..bindings.clone()
        };
        match for_input(
            &conditions,
            &p.variables,
            &no_namespace,
            RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
        ) {
            Err(e) => {
                if f == FailurePolicy::Fail {
                    return single(e.to_string());
                }
                return ValidateResult::default();
            }
            Ok((outcomes, _)) => {
                let mut errors: Vec<String> = Vec::new();
                for o in outcomes {
                    match o {
                        Outcome::Error(e) => errors.push(e.to_string()),
                        Outcome::Value(CelValue::Bool(false)) => return ValidateResult::default(),
                        _ => {}
                    }
                }
                if !errors.is_empty() {
                    if f == FailurePolicy::Fail {
                        return single(aggregate(errors));
                    }
                    return ValidateResult::default();
                }
            }
        }
    }
    let (outcomes, remaining) = match for_input(
        &p.validations,
        &p.variables,
        bindings,
        RUNTIME_CEL_COST_BUDGET,
    ) {
        Ok(r) => r,
        Err(e) => return single(e.to_string()),
    };
    let messages = for_input(&p.messages, &p.variables, bindings, remaining);
    let (messages, message_error) = match messages {
        Ok((m, _)) => (m, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let mut decisions = Vec::with_capacity(outcomes.len());
    for (i, outcome) in outcomes.into_iter().enumerate() {
        let v = &p.policy.spec.validations[i];
        decisions.push(match outcome {
            Outcome::Error(e) => error_decision(f, e.to_string()),
            _ if message_error.is_some() => error_decision(
                f,
                format!(
                    "failed messageExpression: {}",
                    message_error.clone().unwrap_or_default()
                ),
            ),
            Outcome::Value(CelValue::Bool(true)) => Decision {
                deny: false,
                evaluation: Evaluation::Admit,
                message: String::new(),
                reason: String::new(),
            },
            _ => {
                let mut message = match messages.get(i) {
                    Some(Outcome::Value(CelValue::String(s))) => {
                        let m = s.trim();
                        if m.len() > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || m.contains('\n')
                        {
                            String::new()
                        } else {
                            m.to_string()
                        }
                    }
                    _ => String::new(),
                };
                if message.is_empty() && !v.message.is_empty() {
                    message = v.message.trim().to_string();
                }
                if message.is_empty() {
                    message = format!("failed expression: {}", v.expression.trim());
                }
                Decision {
                    deny: true,
                    evaluation: Evaluation::Deny,
                    message,
                    reason: v.reason.clone().unwrap_or_else(|| "Invalid".into()),
                }
            }
        });
    }
    let audit = match for_input(&p.audit_annotations, &p.variables, bindings, RUNTIME_CEL_COST_BUDGET) {
        Ok((outcomes, _)) => outcomes
            .into_iter()
            .enumerate()
            .map(|(i, o)| {
                let a = &p.policy.spec.audit_annotations[i];
                let result = |action: AuditAction, value: &str, error: String| AuditAnnotationResult {
                    key: a.key.clone(),
                    value: value.to_string(),
                    action,
                    error,
                };
                match o {
                    Outcome::Error(e) => {
                        // auditAnnotationEvaluationForError
                        let action = if f == FailurePolicy::Ignore {
                            AuditAction::Exclude
                        } else {
                            AuditAction::Error
                        };
                        result(action, "", e.to_string())
                    }
                    Outcome::Value(CelValue::String(s)) if s.trim().is_empty() => {
                        result(AuditAction::Exclude, "", String::new())
                    }
                    Outcome::Value(CelValue::String(s)) => {
                        result(AuditAction::Publish, s.trim(), String::new())
                    }
                    Outcome::Value(CelValue::Null) | Outcome::Absent => {
                        result(AuditAction::Exclude, "", String::new())
                    }
                    Outcome::Value(other) => result(AuditAction::Error, "", format!(
                        "valueExpression '{}' resulted in unsupported return type: {}. Return type must be either string or null.",
                        a.value_expression,
                        other.type_name()
                    )),
                }
            })
            .collect(),
        Err(e) => return single(e.to_string()),
    };
    ValidateResult {
        decisions,
        audit_annotations: audit,
    }
}

/// `utilerrors.NewAggregate(errs).Error()`.
fn aggregate(errors: Vec<String>) -> String {
    let mut unique: Vec<String> = Vec::new();
    for e in errors {
        if !unique.contains(&e) {
            unique.push(e);
        }
    }
    match unique.as_slice() {
        [one] => one.clone(),
        _ => format!("[{}]", unique.join(", ")),
    }
}

/// A policy's binding and where it was read.
#[derive(Clone, Debug)]
pub struct Binding {
    /// The binding as decoded.
    pub binding: ValidatingAdmissionPolicyBinding,
}

/// What one binding of one policy decided for a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingResult {
    /// The policy's name.
    pub policy: String,
    /// Empty for an error of the policy itself (no binding evaluated).
    pub binding: String,
    /// What each evaluation decided, one per param the binding selects (one for a binding
    /// without params), in param order.
    pub results: Vec<ValidateResult>,
}

/// The denial that answers the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// The policy's name.
    pub policy: String,
    /// Absent for an error of the policy itself.
    pub binding: Option<String>,
    /// The decision that denied.
    pub decision: Decision,
}

/// What the validating policies answer for one request (`Dispatch`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// Every denied decision, in policy and binding order; the first answers the request.
    pub denied: Vec<Denial>,
    /// Warnings (`Warn` action), each text once, in the order first given.
    pub warnings: Vec<String>,
    /// Audit annotations (`Audit` action failures and audit annotation values), key and value.
    pub audit_annotations: Vec<(String, String)>,
    /// The results of every binding that matched.
    pub bindings: Vec<BindingResult>,
}

impl Answer {
    /// The message of the first denial (`ValidatingAdmissionPolicy '<p>' with binding '<b>'
    /// denied request: <message>`).
    pub fn message(&self) -> Option<String> {
        let d = self.denied.first()?;
        Some(match &d.binding {
            Some(b) => format!(
                "ValidatingAdmissionPolicy '{}' with binding '{b}' denied request: {}",
                d.policy, d.decision.message
            ),
            None => format!(
                "ValidatingAdmissionPolicy '{}' denied request: {}",
                d.policy, d.decision.message
            ),
        })
    }

    /// The server's error status for a denied request of `attr`
    /// (`admission.NewForbidden` with the reason and code of the first denial).
    pub fn status(&self, attr: &Attributes) -> Option<Status> {
        let message = self.message()?;
        let reason = match self.denied.first().map(|d| d.decision.reason.as_str()) {
            Some("") | None => "Invalid",
            Some(r) => r,
        };
        let code = match reason {
            "Forbidden" => 403,
            "Unauthorized" => 401,
            "RequestEntityTooLarge" => 413,
            _ => 422,
        };
        let group_resource = if attr.resource.group.is_empty() {
            attr.resource.resource.clone()
        } else {
            format!("{}.{}", attr.resource.resource, attr.resource.group)
        };
        let text = if attr.name.is_empty() {
            format!("{group_resource} is forbidden: {message}")
        } else {
            format!("{group_resource} {:?} is forbidden: {message}", attr.name)
        };
        let mut status = Status::failure(code, reason, text);
        status.details = Some(Details {
            name: attr.name.clone(),
            group: attr.resource.group.clone(),
            kind: attr.resource.resource.clone(),
            causes: vec![Cause {
                reason: String::new(),
                message,
                field: String::new(),
            }],
        });
        Some(status)
    }
}

/// The objects a binding's `paramRef` can select, and their scope.
pub trait Params {
    /// Whether the kind `api_version`/`kind` is known, and if so whether it is namespaced.
    fn param_scope(&self, api_version: &str, kind: &str) -> Option<bool>;
    /// The objects of `api_version`/`kind` (in `namespace` when given).
    fn param_objects(&self, api_version: &str, kind: &str, namespace: Option<&str>) -> Vec<Value>;
}

/// Why a binding's params cannot be collected (`generic.CollectParams`,
/// `apiserver/pkg/admission/plugin/policy/generic/policy_dispatcher.go`), with its texts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    /// The policy's `paramKind` names no known kind.
    #[error("paramKind kind `&ParamKind{{APIVersion:{api_version},Kind:{kind},}}` not known")]
    UnknownKind {
        /// `paramKind.apiVersion`.
        api_version: String,
        /// `paramKind.kind`.
        kind: String,
    },
    /// A namespaced `paramKind` with neither `paramRef.namespace` nor a namespaced request.
    #[error(
        "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
    )]
    NoNamespace,
    /// `paramRef.namespace` for a cluster-scoped `paramKind`.
    #[error("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")]
    ClusterScopedNamespace,
    /// Both `paramRef.name` and `paramRef.selector`.
    #[error("paramRef.name and paramRef.selector are mutually exclusive")]
    NameAndSelector,
    /// A `paramRef.selector` that does not parse.
    #[error("{0}")]
    Selector(SelectorError),
    /// Neither `paramRef.name` nor `paramRef.selector`.
    #[error("one of name or selector must be provided")]
    NoNameOrSelector,
    /// No param found under `parameterNotFoundAction: Deny`.
    #[error("no params found for policy binding with `Deny` parameterNotFoundAction")]
    NotFound,
}

/// `generic.CollectParams` for a policy's `paramKind` and a binding's `paramRef` (shared with
/// mutating policies): `Ok(None)` stands for the single nil param.
pub fn collect_params(
    param_kind: Option<&ParamKind>,
    param_ref: Option<&ParamRef>,
    namespace: &str,
    params: &dyn Params,
) -> Result<Vec<Option<Value>>, ParamsError> {
    let (Some(kind), Some(r)) = (param_kind, param_ref) else {
        return Ok(vec![None]);
    };
    let Some(namespaced) = params.param_scope(&kind.api_version, &kind.kind) else {
        return Err(ParamsError::UnknownKind {
            api_version: kind.api_version.clone(),
            kind: kind.kind.clone(),
        });
    };
    let store_namespace = if namespaced {
        let ns = if r.namespace.is_empty() {
            namespace
        } else {
            &r.namespace
        };
        if ns.is_empty() {
            return Err(ParamsError::NoNamespace);
        }
        Some(ns)
    } else {
        None
    };
    if !r.namespace.is_empty() && !namespaced {
        return Err(ParamsError::ClusterScopedNamespace);
    }
    let candidates = params.param_objects(&kind.api_version, &kind.kind, store_namespace);
    let found: Vec<Value> = if !r.name.is_empty() {
        if r.selector.is_some() {
            return Err(ParamsError::NameAndSelector);
        }
        candidates
            .into_iter()
            .filter(|o| o.pointer("/metadata/name").and_then(Value::as_str) == Some(&r.name))
            .take(1)
            .collect()
    } else if let Some(sel) = &r.selector {
        let s = Selector::parse(sel).map_err(ParamsError::Selector)?;
        candidates
            .into_iter()
            .filter(|o| s.matches(&super::request::labels(o)))
            .collect()
    } else {
        return Err(ParamsError::NoNameOrSelector);
    };
    if found.is_empty() && r.parameter_not_found_action == Some(ParameterNotFoundAction::Deny) {
        return Err(ParamsError::NotFound);
    }
    Ok(found.into_iter().map(Some).collect())
}

/// `schema.ParseGroupVersion` accepts `apiVersion` (at most one `/`): a policy whose
/// `paramKind` does not parse gets no hook at all (`generic/policy_source.go`
/// `calculatePolicyData`).
fn param_kind_parses(param_kind: Option<&ParamKind>) -> bool {
    param_kind.is_none_or(|k| k.api_version.matches('/').count() <= 1)
}

/// The configuration error of a policy whose `paramKind` names no known resource
/// (`generic/policy_source.go` `ensureParamsForPolicyLocked`, reported once the policy
/// matches: `failed to configure policy: ...`). The kind prints as `schema.GroupVersionKind`
/// does: `<group>/<version>, Kind=<kind>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("failed to find resource referenced by paramKind: '{group}/{version}, Kind={kind}'")]
pub(crate) struct ParamKindNotFound {
    group: String,
    version: String,
    kind: String,
}

/// The [`ParamKindNotFound`] of a policy whose `paramKind` `params` do not know.
pub(crate) fn param_kind_error(
    param_kind: Option<&ParamKind>,
    params: &dyn Params,
) -> Option<ParamKindNotFound> {
    let kind = param_kind?;
    if params.param_scope(&kind.api_version, &kind.kind).is_some() {
        return None;
    }
    let (group, version) = kind
        .api_version
        .split_once('/')
        .unwrap_or(("", &kind.api_version));
    Some(ParamKindNotFound {
        group: group.to_string(),
        version: version.to_string(),
        kind: kind.kind.clone(),
    })
}

/// `ValidationFailureValue`: one failure under the `Audit` action.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ValidationFailure {
    message: String,
    policy: String,
    binding: String,
    expression_index: usize,
    actions: Vec<ValidationAction>,
}

impl ValidationFailure {
    /// As `json.Marshal` writes the Go struct: fields in declaration order, strings escaped as
    /// Go escapes them.
    fn to_go_json(&self) -> String {
        let s = |v: &str| go_json(&Value::String(v.to_string()));
        let actions: Vec<String> = self.actions.iter().map(|a| s(&format!("{a:?}"))).collect();
        format!(
            "{{\"message\":{},\"policy\":{},\"binding\":{},\"expressionIndex\":{},\"validationActions\":[{}]}}",
            s(&self.message),
            s(&self.policy),
            s(&self.binding),
            self.expression_index,
            actions.join(",")
        )
    }
}

/// Whether the plugins leave a request alone (`IsExemptAdmissionConfigurationResource`).
pub(crate) fn is_exempt(attr: &Attributes) -> bool {
    attr.kind.group == super::model::GROUP
        && matches!(
            attr.kind.kind.as_str(),
            "ValidatingWebhookConfiguration"
                | "MutatingWebhookConfiguration"
                | "ValidatingAdmissionPolicy"
                | "ValidatingAdmissionPolicyBinding"
                | "MutatingAdmissionPolicy"
                | "MutatingAdmissionPolicyBinding"
        )
}

/// `Dispatch`: every policy with its bindings (bindings naming the policy, in order) against
/// one request.
pub(crate) fn dispatch(
    policies: &[(&CompiledPolicy, Vec<&ValidatingAdmissionPolicyBinding>)],
    attr: &Attributes,
    cluster: &dyn Cluster,
    params: &dyn Params,
) -> Answer {
    let mut answer = Answer::default();
    if is_exempt(attr) {
        return answer;
    }
    let object = attr
        .object
        .as_ref()
        .map_or(CelValue::Null, CelValue::from_json);
    let old_object = attr
        .old_object
        .as_ref()
        .map_or(CelValue::Null, CelValue::from_json);
    let is_namespace_kind =
        attr.kind.group.is_empty() && attr.kind.version == "v1" && attr.kind.kind == "Namespace";
    let namespace = if attr.namespace.is_empty() || is_namespace_kind {
        CelValue::Null
    } else {
        cluster
            .namespace(&attr.namespace)
            .map_or(CelValue::Null, |ns| {
                CelValue::from_json(&namespace_json(&ns))
            })
    };
    let authorizer = cluster
        .authorizer()
        .map(|a| super::authorizer::AuthorizerValues::new(&a, attr));
    let mut validation_failures: Vec<ValidationFailure> = Vec::new();
    let mut last_request: Option<(super::matching::Matched, CelValue)> = None;
    for (policy, bindings) in policies {
        let name = policy.policy.metadata.name.clone();
        let config_error =
            |answer: &mut Answer, binding: Option<&str>, err: &dyn std::fmt::Display| {
                if policy.failure_policy() == FailurePolicy::Ignore {
                    return;
                }
                let message = match binding {
                    None => format!("failed to configure policy: {err}"),
                    Some(_) => format!("failed to configure binding: {err}"),
                };
                answer.denied.push(Denial {
                    policy: name.clone(),
                    binding: binding.map(str::to_string),
                    decision: Decision {
                        deny: true,
                        evaluation: Evaluation::Error,
                        message,
                        reason: String::new(),
                    },
                });
            };
        if bindings.is_empty() || !param_kind_parses(policy.policy.spec.param_kind.as_ref()) {
            continue;
        }
        let matched = match definition_matches(
            attr,
            policy.policy.spec.match_constraints.as_ref(),
            cluster,
        ) {
            Err(e) => {
                config_error(&mut answer, None, &e);
                continue;
            }
            Ok(None) => continue,
            Ok(Some(m)) => m,
        };
        if let Some(e) = param_kind_error(policy.policy.spec.param_kind.as_ref(), params) {
            config_error(&mut answer, None, &e);
            continue;
        }
        // Policies matching the same resource and kind share one `request` value.
        let request = match &last_request {
            Some((m, r)) if *m == matched => r.clone(),
            _ => {
                let r = CelValue::from_json(&request_json(attr, &matched.resource, &matched.kind));
                last_request = Some((matched.clone(), r.clone()));
                r
            }
        };
        let mut annotations: Vec<(String, Vec<String>)> = Vec::new();
        for binding in bindings {
            let bname = binding.metadata.name.as_str();
            match binding_matches(attr, binding.spec.match_resources.as_ref(), cluster) {
                Err(e) => {
                    config_error(&mut answer, Some(bname), &e);
                    continue;
                }
                Ok(false) => continue,
                Ok(true) => {}
            }
            let params_list = match collect_params(
                policy.policy.spec.param_kind.as_ref(),
                binding.spec.param_ref.as_ref(),
                &attr.namespace,
                params,
            ) {
                Ok(p) => p,
                Err(e) => {
                    config_error(&mut answer, Some(bname), &e);
                    continue;
                }
            };
            let mut result = BindingResult {
                policy: name.clone(),
                binding: bname.to_string(),
                results: Vec::new(),
            };
            for param in params_list {
                let bindings_values = Bindings {
                    object: object.clone(),
                    old_object: old_object.clone(),
                    request: request.clone(),
                    namespace: namespace.clone(),
                    params: param.as_ref().map_or(CelValue::Null, CelValue::from_json),
                    authorizer: authorizer.clone(),
                };
                let r = validate(policy, &bindings_values);
                for (i, d) in r.decisions.iter().enumerate() {
                    if !d.deny {
                        continue;
                    }
                    for action in &binding.spec.validation_actions {
                        match action {
                            ValidationAction::Deny => answer.denied.push(Denial {
                                policy: name.clone(),
                                binding: Some(bname.to_string()),
                                decision: d.clone(),
                            }),
                            ValidationAction::Audit => {
                                validation_failures.push(ValidationFailure {
                                    message: d.message.clone(),
                                    policy: binding.spec.policy_name.clone(),
                                    binding: bname.to_string(),
                                    expression_index: i,
                                    actions: binding.spec.validation_actions.clone(),
                                })
                            }
                            ValidationAction::Warn => {
                                let warning = format!(
                                    "Validation failed for ValidatingAdmissionPolicy '{name}' with binding '{bname}': {}",
                                    d.message
                                );
                                // The request's warning recorder keeps a text once
                                // (`endpoints/filters/warning.go` `recorder.AddWarning`).
                                if !answer.warnings.contains(&warning) {
                                    answer.warnings.push(warning);
                                }
                            }
                        }
                    }
                }
                for a in &r.audit_annotations {
                    match a.action {
                        AuditAction::Publish => {
                            let mut value = a.value.clone();
                            if value.len() > MAX_AUDIT_ANNOTATION_VALUE_LENGTH {
                                let mut cut = MAX_AUDIT_ANNOTATION_VALUE_LENGTH;
                                while !value.is_char_boundary(cut) {
                                    cut -= 1;
                                }
                                value.truncate(cut);
                            }
                            match annotations.iter_mut().find(|(k, _)| *k == a.key) {
                                Some((_, vs)) => {
                                    if !vs.contains(&value) {
                                        vs.push(value);
                                    }
                                }
                                None => annotations.push((a.key.clone(), vec![value])),
                            }
                        }
                        // When failurePolicy=fail, audit annotation errors result in deny.
                        AuditAction::Error => answer.denied.push(Denial {
                            policy: name.clone(),
                            binding: Some(bname.to_string()),
                            decision: Decision {
                                deny: true,
                                evaluation: Evaluation::Error,
                                message: a.error.clone(),
                                reason: String::new(),
                            },
                        }),
                        AuditAction::Exclude => {}
                    }
                }
                result.results.push(r);
            }
            answer.bindings.push(result);
        }
        for (key, values) in annotations {
            answer
                .audit_annotations
                .push((format!("{name}/{key}"), values.join(", ")));
        }
    }
    if !validation_failures.is_empty() {
        validation_failures.truncate(MAX_VALIDATION_FAILURES);
        let items: Vec<String> = validation_failures
            .iter()
            .map(ValidationFailure::to_go_json)
            .collect();
        answer.audit_annotations.push((
            VALIDATION_FAILURE_ANNOTATION.to_string(),
            format!("[{}]", items.join(",")),
        ));
    }
    answer
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::admission::model::{decode_binding, decode_policy};
    use crate::admission::request::{GroupVersionKind, GroupVersionResource, Operation, UserInfo};
    use crate::documents::Document;

    /// A cluster without namespaces whose param kind `example.com/v1 P` is namespaced and has
    /// two objects.
    struct TwoParams;

    impl Cluster for TwoParams {
        fn equivalents(
            &self,
            _: &GroupVersionResource,
            _: &str,
        ) -> Vec<(GroupVersionResource, GroupVersionKind)> {
            Vec::new()
        }

        fn namespace(&self, _: &str) -> Option<Value> {
            None
        }
    }

    impl Params for TwoParams {
        fn param_scope(&self, _: &str, kind: &str) -> Option<bool> {
            (kind == "P").then_some(true)
        }

        fn param_objects(&self, _: &str, _: &str, _: Option<&str>) -> Vec<Value> {
            ["a", "b"]
                .map(|n| {
                    json!({"apiVersion": "example.com/v1", "kind": "P",
                    "metadata": {"name": n, "namespace": "ns"}})
                })
                .to_vec()
        }
    }

    fn doc(value: Value) -> Document {
        Document {
            source: "test".into(),
            line: 1,
            index: 0,
            item: None,
            value,
        }
    }

    fn answer(kind: &str) -> Answer {
        let policy = decode_policy(&doc(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "p"},
            "spec": {
                "paramKind": {"apiVersion": "example.com/v1", "kind": kind},
                "matchConstraints": {"resourceRules": [{"apiGroups": ["*"],
                    "apiVersions": ["*"], "resources": ["*"], "operations": ["*"]}]},
                "validations": [{"expression": "false", "message": "no"}],
            },
        })))
        .expect("policy");
        let binding = decode_binding(&doc(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "b"},
            "spec": {"policyName": "p", "validationActions": ["Warn"],
                "paramRef": {"selector": {}}},
        })))
        .expect("binding");
        let compiled = CompiledPolicy::new(policy, KubeVersion::NEWEST);
        let attr = Attributes {
            kind: GroupVersionKind::of("v1", "ConfigMap"),
            resource: GroupVersionResource {
                group: String::new(),
                version: "v1".into(),
                resource: "configmaps".into(),
            },
            subresource: String::new(),
            name: "c".into(),
            namespace: "ns".into(),
            operation: Operation::Create,
            object: Some(json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "c", "namespace": "ns"}})),
            old_object: None,
            user: UserInfo::default(),
            dry_run: false,
        };
        dispatch(
            &[(&compiled, vec![&binding])],
            &attr,
            &TwoParams,
            &TwoParams,
        )
    }

    /// Two params failing alike give one warning: the warning recorder keeps a text once.
    #[test]
    fn a_warning_is_given_once() {
        let answer = answer("P");
        assert_eq!(answer.bindings[0].results.len(), 2);
        assert_eq!(
            answer.warnings,
            vec!["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': no"]
        );
    }

    /// A `paramKind` no resource serves fails the policy before any binding.
    #[test]
    fn an_unknown_param_kind_is_the_policy_configuration_error() {
        let answer = answer("Q");
        assert!(answer.bindings.is_empty());
        assert_eq!(
            answer.message().as_deref(),
            Some(
                "ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: \
                 failed to find resource referenced by paramKind: 'example.com/v1, Kind=Q'"
            )
        );
    }
}
