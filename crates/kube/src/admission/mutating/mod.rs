//! MutatingAdmissionPolicy offline (`k8s.io/apiserver/pkg/admission/plugin/policy/mutating`):
//! compile a policy, run its mutations on an object, return the mutated object or the
//! server's error.
//!
//! * [`model`]: the policy and binding kinds, decoded from documents with defaults.
//! * `compile`: `compilePolicy` with the admission compiler (variables, match conditions,
//!   mutations with the patch types of `types`).
//! * evaluation is the shared admission evaluation ([`crate::admission::evaluate`]): match
//!   conditions as one list, each mutation alone, variables lazy, cost budgets.
//! * [`patch`]: one mutation: JSON Patch ([`json_patch`], evanphx/json-patch v4 semantics) or
//!   ApplyConfiguration ([`smd`], structured-merge-diff's merge).
//! * this module: the dispatcher (`dispatcher.go`: `dispatchInvocations`) with reinvocation
//!   (`reinvocationcontext.go`) and the policy errors as the generic dispatcher turns them into
//!   the request's status (`generic/policy_dispatcher.go`).
//!
//! Matching a policy and binding to a request (`matchConstraints`, `matchResources`,
//! `paramRef`) is the shared admission matching's: [`mutate`] takes the invocations that
//! matched, in the order the server sorts them (policies by name, then bindings).
//!
//! After mutation the server validates the object as usual; callers run the returned object
//! through [`crate::Validator`] and may print it with [`crate::go::fmt`].
//!
//! Use: decode each policy with [`MutatingAdmissionPolicy::from_document`] and compile it once
//! with [`CompiledPolicy::compile`]; per request, build a [`Request`] (the object, the
//! `AdmissionRequest` as JSON for `request`, the namespace, the kind's schema and, for a built-in
//! kind, its Go type in [`Target`], the defaulter to run after each mutation) and call [`mutate`]
//! with the matched [`Invocation`]s. It returns the mutated object ([`Mutated`]) or the status
//! the server answers with ([`StatusError`]).

pub mod api_validation;
mod compile;
pub mod json_patch;
pub mod model;
pub mod patch;
pub mod smd;
pub(crate) mod types;

use std::collections::BTreeSet;

use cel::Value;
use serde_json::Value as Json;

pub use compile::{CompiledMutation, CompiledPolicy};
pub use model::{MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding};
pub use patch::{MutationError, Target};

use super::environment::RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS;
use super::evaluate::{Bindings, Outcome, for_input};
use crate::admission::authorizer::AuthorizerValues;
use crate::rules::env::RUNTIME_CEL_COST_BUDGET;
use model::{FailurePolicy, ReinvocationPolicy};
use patch::Failure;

/// The status the request fails with, as the server returns it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StatusError {
    /// HTTP status code.
    pub code: u16,
    /// `metav1.StatusReason`.
    pub reason: String,
    /// The status message.
    pub message: String,
    /// `details.causes[].message`, in order.
    pub causes: Vec<String>,
}

impl StatusError {
    /// `NewServiceUnavailable` for a kind without a type converter (`dispatchOne`).
    pub fn kind_not_found(object: &Json) -> StatusError {
        let api_version = object
            .get("apiVersion")
            .and_then(Json::as_str)
            .unwrap_or("");
        let kind = object.get("kind").and_then(Json::as_str).unwrap_or("");
        let gv = if api_version.contains('/') {
            api_version.to_string()
        } else {
            format!("/{api_version}")
        };
        StatusError {
            code: 503,
            reason: "ServiceUnavailable".into(),
            message: format!(
                "Resource kind {gv}, Kind={kind} not found. There can be a delay between when CustomResourceDefinitions are created and when they are available."
            ),
            causes: Vec::new(),
        }
    }

    fn internal(message: String) -> StatusError {
        StatusError {
            code: 500,
            reason: "InternalError".into(),
            message: format!("Internal error occurred: {message}"),
            causes: vec![message],
        }
    }
}

/// A policy and binding that matched the request, with the param object they bind (if any).
#[derive(Clone, Copy, Debug)]
pub struct Invocation<'a> {
    /// The compiled policy.
    pub policy: &'a CompiledPolicy,
    /// The binding's name.
    pub binding: &'a str,
    /// The param (`paramRef` resolved by the matching), as JSON.
    pub params: Option<&'a Json>,
}

/// What the server runs on an object after each mutation (`dispatchOne`:
/// `ObjectInterfaces.GetObjectDefaulter().Default`): Go defaulting for built-in kinds, the
/// schema's defaults for custom resources.
pub trait Defaulter: std::fmt::Debug + Sync {
    /// Defaults `object` in place.
    fn default(&self, object: &mut Json);
}

/// A request to mutate.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The object (`None`: a delete, nothing is patched).
    pub object: Option<Json>,
    /// The stored object (`None` for CREATE).
    pub old_object: Option<Json>,
    /// The `AdmissionRequest` bound to `request`, as JSON.
    pub request: Json,
    /// The namespace of a namespaced object (`namespaceObject`).
    pub namespace_object: Option<Json>,
    /// The kind's schema, or its Go type for a built-in kind.
    pub target: Target<'a>,
    /// Run after each successful mutation, if any.
    pub defaulter: Option<&'a dyn Defaulter>,
    /// `authorizer` and `authorizer.requestResource` (`None`: unbound).
    pub authorizer: Option<AuthorizerValues>,
}

/// The result of the mutating admission policies.
#[derive(Clone, Debug)]
pub struct Mutated {
    /// The object after every mutation (`None` for a delete).
    pub object: Option<Json>,
    /// The policy errors the failure policy `Ignore` swallowed.
    pub ignored: Vec<PolicyError>,
    /// Whether the reinvocation pass ran.
    pub reinvoked: bool,
}

/// `key`: what reinvocation tracks a policy invocation by.
type InvocationKey = (String, String, String, String, String);

fn key_for(inv: &Invocation<'_>) -> InvocationKey {
    let meta = &inv.policy.policy.metadata;
    let (param_ns, param_name) = inv.params.map_or((String::new(), String::new()), |p| {
        let s = |k: &str| {
            p.pointer(k)
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_string()
        };
        (s("/metadata/namespace"), s("/metadata/name"))
    });
    (
        meta.namespace.clone(),
        meta.name.clone(),
        inv.binding.to_string(),
        param_ns,
        param_name,
    )
}

/// `policyReinvokeContext`.
#[derive(Default)]
struct ReinvokeContext {
    previously_invoked: BTreeSet<InvocationKey>,
    reinvoke: BTreeSet<InvocationKey>,
}

impl ReinvokeContext {
    fn require_reinvoking_previously_invoked(&mut self) {
        let previous = std::mem::take(&mut self.previously_invoked);
        self.reinvoke.extend(previous);
    }
}

/// A policy's error for one binding (`generic.PolicyError`, as the dispatcher words it:
/// `policy '<p>' with binding '<b>' denied request: <error>`).
#[derive(Clone, Debug, thiserror::Error)]
#[error("policy '{policy}' with binding '{binding}' denied request: {error}")]
pub struct PolicyError {
    /// The policy's name.
    pub policy: String,
    /// The binding's name.
    pub binding: String,
    /// The policy's failure policy: `Ignore` swallows the error.
    pub failure_policy: FailurePolicy,
    /// What failed.
    pub error: MutationError,
}

/// Runs the matched invocations on the request as the mutating admission plugin does: each
/// policy's match conditions, then its mutations in order; then, when the object changed and a
/// policy with `reinvocationPolicy: IfNeeded` ran before the change, one reinvocation pass of
/// those policies. Policy errors become the request's error unless the policy's failure policy
/// is `Ignore`.
pub fn mutate(
    invocations: &[Invocation<'_>],
    request: &Request<'_>,
) -> Result<Mutated, StatusError> {
    let mut object = request.object.clone();
    let shared = Shared {
        old_object: cel_value(request.old_object.as_ref()),
        request: Value::from_json(&request.request),
        namespace: cel_value(request.namespace_object.as_ref()),
    };
    let mut ctx = ReinvokeContext::default();
    let mut errors = Vec::new();
    let should_reinvoke = dispatch(
        invocations,
        request,
        &shared,
        &mut object,
        &mut ctx,
        false,
        &mut errors,
    )?;
    if should_reinvoke {
        dispatch(
            invocations,
            request,
            &shared,
            &mut object,
            &mut ctx,
            true,
            &mut errors,
        )?;
    }
    let (ignored, failed): (Vec<PolicyError>, Vec<PolicyError>) = errors
        .into_iter()
        .partition(|e| e.failure_policy == FailurePolicy::Ignore);
    let failed: Vec<String> = failed.iter().map(ToString::to_string).collect();
    if let Some(first) = failed.first() {
        return Err(StatusError {
            code: 403,
            reason: "Invalid".into(),
            message: first.clone(),
            causes: failed,
        });
    }
    Ok(Mutated {
        object,
        ignored,
        reinvoked: should_reinvoke,
    })
}

/// The values bound alike for every policy of one request: one `request` value per request.
struct Shared {
    old_object: Value,
    request: Value,
    namespace: Value,
}

fn cel_value(json: Option<&Json>) -> Value {
    json.map_or(Value::Null, Value::from_json)
}

/// One pass of `dispatchInvocations`; returns whether a reinvocation is needed.
fn dispatch(
    invocations: &[Invocation<'_>],
    request: &Request<'_>,
    shared: &Shared,
    object: &mut Option<Json>,
    ctx: &mut ReinvokeContext,
    reinvoke: bool,
    errors: &mut Vec<PolicyError>,
) -> Result<bool, StatusError> {
    let mut should_reinvoke = false;
    let mut dirty = false;
    for inv in invocations {
        let policy = inv.policy;
        let spec = &policy.policy.spec;
        if policy.mutations.len() != spec.mutations.len() {
            return Err(StatusError::internal(format!(
                "expected {} compiled evaluators for policy {}, got {}",
                spec.mutations.len(),
                policy.policy.metadata.name,
                policy.mutations.len()
            )));
        }
        let policy_error = |error: MutationError| PolicyError {
            policy: policy.policy.metadata.name.clone(),
            binding: inv.binding.to_string(),
            failure_policy: spec.failure_policy,
            error,
        };
        let params = cel_value(inv.params);
        let bindings = |object: &Option<Json>| Bindings {
            object: cel_value(object.as_ref()),
            old_object: shared.old_object.clone(),
            request: shared.request.clone(),
            namespace: shared.namespace.clone(),
            params: params.clone(),
            authorizer: request.authorizer.clone(),
        };
        if !policy.match_conditions.is_empty() {
            match match_conditions(policy, &bindings(object)) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    errors.push(policy_error(e));
                    continue;
                }
            }
        }
        let key = key_for(inv);
        if reinvoke && !ctx.reinvoke.contains(&key) {
            continue;
        }
        let before = object.clone();
        for mutation in &policy.mutations {
            let Some(current) = object.as_ref() else {
                continue;
            };
            let mut budget = RUNTIME_CEL_COST_BUDGET;
            match patch::apply(
                mutation,
                &policy.variables,
                &bindings(object),
                current,
                request.target,
                &mut budget,
            ) {
                Ok(mut new) => {
                    if let Some(d) = request.defaulter {
                        d.default(&mut new);
                    }
                    *object = Some(new);
                    dirty = true;
                }
                Err(Failure::Status(s)) => return Err(s),
                Err(Failure::Policy(e)) => errors.push(policy_error(e)),
            }
        }
        if before != *object {
            ctx.require_reinvoking_previously_invoked();
            should_reinvoke = true;
        }
        if spec.reinvocation_policy == ReinvocationPolicy::IfNeeded {
            ctx.previously_invoked.insert(key);
        }
    }
    if dirty && object.is_some() {
        ctx.require_reinvoking_previously_invoked();
        should_reinvoke = true;
    }
    Ok(should_reinvoke && !reinvoke)
}

/// `matchconditions.Matcher.Match` with the policy's failure policy: the conditions evaluated
/// as one list (`ForInput`), `Ok(false)` when one is false, `Err` with the budget error or the
/// aggregated evaluation errors under `Fail`.
fn match_conditions(policy: &CompiledPolicy, bindings: &Bindings) -> Result<bool, MutationError> {
    let fail = policy.policy.spec.failure_policy == FailurePolicy::Fail;
    let outcomes = match for_input(
        &policy.match_conditions,
        &policy.variables,
        bindings,
        RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
    ) {
        Ok((outcomes, _)) => outcomes,
        Err(e) if fail => return Err(MutationError::OutOfBudget(e)),
        Err(_) => return Ok(false),
    };
    let mut errors = Vec::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Error(e) => errors.push(e),
            Outcome::Value(Value::Bool(false)) => return Ok(false),
            Outcome::Value(_) | Outcome::Absent => {}
        }
    }
    match errors.is_empty() {
        true => Ok(true),
        false if fail => Err(MutationError::MatchConditions(errors)),
        false => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::version::KubeVersion;

    fn policy(name: &str, reinvocation: &str, failure: &str, expression: &str) -> CompiledPolicy {
        let doc = json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {
                "reinvocationPolicy": reinvocation,
                "failurePolicy": failure,
                "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}],
            },
        });
        let p: MutatingAdmissionPolicy = serde_json::from_value(doc).unwrap();
        CompiledPolicy::compile(&p, KubeVersion::NEWEST)
    }

    fn run(policies: &[CompiledPolicy]) -> Result<Mutated, StatusError> {
        let invocations: Vec<Invocation<'_>> = policies
            .iter()
            .map(|policy| Invocation {
                policy,
                binding: "b",
                params: None,
            })
            .collect();
        let request = Request {
            object: Some(json!({"metadata": {"labels": {}}})),
            old_object: None,
            request: json!({}),
            namespace_object: None,
            target: Target {
                schema: None,
                go_type: None,
            },
            defaulter: None,
            authorizer: None,
        };
        mutate(&invocations, &request)
    }

    const SEES_B: &str = r#"[JSONPatch{op: "add", path: "/metadata/labels/a",
        value: "b" in object.metadata.labels ? "seen" : "unseen"}]"#;
    const SETS_B: &str = r#"[JSONPatch{op: "add", path: "/metadata/labels/b", value: "1"}]"#;

    #[test]
    fn if_needed_policies_run_again_after_a_later_change() {
        let labels = |reinvocation: &str| {
            let out = run(&[
                policy("a", reinvocation, "Fail", SEES_B),
                policy("b", "Never", "Fail", SETS_B),
            ])
            .unwrap();
            out.object.unwrap()["metadata"]["labels"]["a"].clone()
        };
        assert_eq!(labels("IfNeeded"), json!("seen"));
        assert_eq!(labels("Never"), json!("unseen"));
    }

    #[test]
    fn policy_errors_follow_the_failure_policy() {
        let bad = r#"[JSONPatch{op: "remove", path: "/spec/x"}]"#;
        let e = run(&[policy("p", "Never", "Fail", bad)]).unwrap_err();
        assert_eq!(e.code, 403);
        assert_eq!(e.reason, "Invalid");
        assert_eq!(
            e.message,
            "policy 'p' with binding 'b' denied request: JSON Patch: remove operation does not apply: doc is missing path: \"/spec/x\": missing value"
        );
        let out = run(&[policy("p", "Never", "Ignore", bad)]).unwrap();
        assert_eq!(out.ignored.len(), 1);
        assert_eq!(out.object, Some(json!({"metadata": {"labels": {}}})));
    }
}
