//! What the server checks when a MutatingAdmissionPolicy or its binding is created or updated
//! (`pkg/apis/admissionregistration/validation/validation.go`: `ValidateMutatingAdmissionPolicy`,
//! `ValidateMutatingAdmissionPolicyUpdate`, `validateMutatingAdmissionPolicySpec`,
//! `validateMutation`, `validateApplyConfiguration`, `validateJSONPatch`,
//! `ValidateMutatingAdmissionPolicyBinding`, `ValidateMutatingAdmissionPolicyBindingUpdate`),
//! over the document's JSON after the server's defaults ([`default_policy`]; bindings take
//! [`crate::admission::api_validation::default_binding`]).
//!
//! What it shares with ValidatingAdmissionPolicy (metadata, `paramKind`, `matchResources`,
//! `paramRef`, matchConditions, variables) is [`crate::admission::api_validation`]'s. A mutating
//! policy always compiles with `variables` declared (`createCompiler(true)`); its mutations with
//! the patch types (`HasPatchTypes`). Only `CREATE`, `UPDATE`, `CONNECT` and `*` may be matched
//! (`supportedMutatingOperations`: a deletion cannot be mutated).

use serde_json::Value;

use super::compile::compile_mutation;
use super::model::PatchType;
use crate::admission::api_validation::{
    Compilers, Environments, Options, Preexisting, binding_spec_common, compile_error,
    failure_policy, field, items, match_conditions, match_resources, match_resources_path,
    not_supported, param_kind, text, update_options, variable, with_metadata,
};
use crate::admission::environment::Optional;
use crate::field::{BadValue, FieldError, Path};
use crate::version::KubeVersion;

/// `supportedMutatingOperations`, as `sets.List` sorts it.
const MUTATING_OPERATIONS: [&str; 4] = ["*", "CONNECT", "CREATE", "UPDATE"];
/// `supportedReinvocationPolicies`.
const REINVOCATION_POLICIES: [&str; 2] = ["IfNeeded", "Never"];
/// `supportedPatchType`.
const PATCH_TYPES: [&str; 2] = ["ApplyConfiguration", "JSONPatch"];

/// `ValidateMutatingAdmissionPolicy`: a policy being created.
pub fn validate_policy(policy: &Value, envs: &Environments) -> Vec<FieldError> {
    with_metadata(policy, None, policy_spec(policy, envs, Options::default()))
}

/// `ValidateMutatingAdmissionPolicyUpdate`: `policy` replacing `old`.
pub fn validate_policy_update(policy: &Value, old: &Value, envs: &Environments) -> Vec<FieldError> {
    let options = update_options(policy, old, preexisting);
    with_metadata(policy, Some(old), policy_spec(policy, envs, options))
}

/// `findMutatingPolicyPreexistingExpressions` (its jsonPatch expressions are collected but never
/// looked up: `validateJSONPatch` looks among the applyConfiguration expressions).
fn preexisting(spec: &Value) -> Preexisting {
    let mut p = Preexisting::default();
    for m in items(spec, "matchConditions") {
        p.match_conditions.insert(text(m, "expression").to_string());
    }
    for m in items(spec, "mutations") {
        if let Some(a) = field(m, "applyConfiguration") {
            p.apply_configurations
                .insert(text(a, "expression").to_string());
        }
    }
    p
}

/// The operations check of a mutating policy's or binding's resource rules: each operation of
/// `resourceRules` one that can be mutated (reported at `<path>.resourceRules.operations`,
/// without indexes, as the server does).
fn mutating_operations(resources: &Value, path: &Path) -> Vec<FieldError> {
    let at = path.child("resourceRules").child("operations");
    items(resources, "resourceRules")
        .iter()
        .flat_map(|r| items(r, "operations"))
        .map(|op| op.as_str().unwrap_or(""))
        .filter(|op| !MUTATING_OPERATIONS.contains(op))
        .map(|op| not_supported(at.clone(), op, &MUTATING_OPERATIONS))
        .collect()
}

/// `validateMutatingAdmissionPolicySpec`.
fn policy_spec(policy: &Value, envs: &Environments, mut options: Options) -> Vec<FieldError> {
    let path = Path::new("spec");
    let spec = policy.get("spec").unwrap_or(&Value::Null);
    let mut compilers = Compilers::new(envs, true);
    let mut errs: Vec<FieldError> = failure_policy(spec, &path).into_iter().collect();
    let kind = field(spec, "paramKind");
    if let Some(k) = kind {
        options.params_in_match_conditions = true;
        errs.extend(param_kind(k, &path.child("paramKind")));
    }
    let has_params = kind.is_some();
    match field(spec, "matchConstraints") {
        None => errs.push(FieldError::required(path.child("matchConstraints"), "")),
        Some(mc) => {
            let at = path.child("matchConstraints");
            errs.extend(match_resources(Some(mc), &at));
            if items(mc, "resourceRules").is_empty() {
                errs.push(FieldError::required(at.child("resourceRules"), ""));
            }
            errs.extend(mutating_operations(mc, &at));
        }
    }
    if !options.ignore_match_conditions {
        errs.extend(match_conditions(
            items(spec, "matchConditions"),
            envs,
            &options,
            &path.child("matchConditions"),
        ));
    }
    for (i, v) in items(spec, "variables").iter().enumerate() {
        errs.extend(variable(
            &mut compilers,
            v,
            has_params,
            envs,
            &options,
            &path.child("variables").index(i),
        ));
    }
    let mutations = items(spec, "mutations");
    if mutations.is_empty() {
        errs.push(FieldError::required(
            path.child("mutations"),
            "mutations must contain at least one item",
        ));
    } else {
        let checker = MutationChecker {
            compilers: &compilers,
            optional: Optional {
                params: has_params,
                authorizer: true,
                patch_types: true,
            },
            preexisting: &options.preexisting,
        };
        for (i, m) in mutations.iter().enumerate() {
            errs.extend(checker.mutation(m, &path.child("mutations").index(i)));
        }
    }
    let reinvocation = text(spec, "reinvocationPolicy");
    if reinvocation.is_empty() {
        errs.push(FieldError::required(path.child("reinvocationPolicy"), ""));
    } else if !REINVOCATION_POLICIES.contains(&reinvocation) {
        errs.push(not_supported(
            path.child("reinvocationPolicy"),
            reinvocation,
            &REINVOCATION_POLICIES,
        ));
    }
    errs
}

/// What checking a policy's mutations needs.
struct MutationChecker<'a> {
    /// The policy's compilers, its variables declared in both views.
    compilers: &'a Compilers,
    optional: Optional,
    preexisting: &'a Preexisting,
}

impl MutationChecker<'_> {
    /// `validateMutation`.
    fn mutation(&self, m: &Value, path: &Path) -> Vec<FieldError> {
        let patch_type = text(m, "patchType");
        let apply = field(m, "applyConfiguration");
        let json_patch = field(m, "jsonPatch");
        let mut errs = Vec::new();
        let (this, this_name, other, other_name, parsed) = match patch_type {
            "" => return vec![FieldError::required(path.child("patchType"), "")],
            "JSONPatch" => (
                json_patch,
                "jsonPatch",
                apply,
                "applyConfiguration",
                PatchType::JsonPatch,
            ),
            "ApplyConfiguration" => (
                apply,
                "applyConfiguration",
                json_patch,
                "jsonPatch",
                PatchType::ApplyConfiguration,
            ),
            other => return vec![not_supported(path.child("patchType"), other, &PATCH_TYPES)],
        };
        match this {
            None => errs.push(FieldError::required(
                path.child(this_name),
                format!("must be specified when patchType is {patch_type}"),
            )),
            Some(e) => errs.extend(self.expression(e, parsed, &path.child(this_name))),
        }
        if other.is_some() {
            errs.push(FieldError::invalid(
                path.child(other_name),
                BadValue::String(format!("{{{other_name}}}")),
                format!("must not be specified when patchType is {patch_type}"),
            ));
        }
        errs
    }

    /// `validateApplyConfiguration` and `validateJSONPatch` (both look the expression up among
    /// the old object's applyConfiguration expressions, as the server does).
    fn expression(&self, e: &Value, patch_type: PatchType, path: &Path) -> Vec<FieldError> {
        let expression = text(e, "expression");
        let trimmed = expression.trim();
        if trimmed.is_empty() {
            return vec![FieldError::required(path.child("expression"), "")];
        }
        let stored = self.preexisting.apply_configurations.contains(expression);
        let compiler = self.compilers.view(stored);
        match compile_mutation(compiler, patch_type, trimmed, self.optional) {
            Ok(_) => Vec::new(),
            Err(e) => vec![compile_error(path.child("expression"), trimmed, e)],
        }
    }
}

/// `ValidateMutatingAdmissionPolicyBinding`: a binding being created.
pub fn validate_binding(binding: &Value, version: KubeVersion) -> Vec<FieldError> {
    with_metadata(binding, None, binding_spec(binding, version))
}

/// `ValidateMutatingAdmissionPolicyBindingUpdate`: `binding` replacing `old`.
pub fn validate_binding_update(
    binding: &Value,
    old: &Value,
    version: KubeVersion,
) -> Vec<FieldError> {
    with_metadata(binding, Some(old), binding_spec(binding, version))
}

/// `validateMutatingAdmissionPolicyBindingSpec`.
fn binding_spec(binding: &Value, version: KubeVersion) -> Vec<FieldError> {
    let spec = binding.get("spec").unwrap_or(&Value::Null);
    let mut errs = binding_spec_common(spec, version);
    if let Some(mc) = field(spec, "matchResources") {
        errs.extend(mutating_operations(mc, &match_resources_path(version)));
    }
    errs
}

/// The server's defaults of a MutatingAdmissionPolicy (`SetDefaults_MutatingAdmissionPolicySpec`:
/// `failurePolicy: Fail`; `SetDefaults_MatchResources`, `SetDefaults_Rule`); `reinvocationPolicy`
/// has no default.
pub fn default_policy(policy: &mut Value) {
    crate::admission::api_validation::default_policy_spec(policy);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn texts(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(ToString::to_string).collect()
    }

    fn policy(mutation: Value) -> Value {
        let mut p = json!({"metadata": {"name": "p"}, "spec": {
            "matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]}]},
            "reinvocationPolicy": "Never",
            "mutations": [mutation],
        }});
        default_policy(&mut p);
        p
    }

    #[test]
    fn mutations_compile_with_the_patch_types() {
        let envs = Environments::new(KubeVersion::NEWEST);
        let ok = policy(
            json!({"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'add', path: '/x', value: 1}]"}}),
        );
        assert_eq!(texts(&validate_policy(&ok, &envs)), Vec::<String>::new());
        let wrong = policy(
            json!({"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "1 < 2"}}),
        );
        assert_eq!(
            texts(&validate_policy(&wrong, &envs)),
            [
                "spec.mutations[0].applyConfiguration.expression: Invalid value: \"1 < 2\": must evaluate to Object but got bool"
            ]
        );
    }

    #[test]
    fn deletions_cannot_be_mutated_and_reinvocation_is_required() {
        let envs = Environments::new(KubeVersion::NEWEST);
        let mut p = policy(
            json!({"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'remove', path: '/x'}]"}}),
        );
        p["spec"]["matchConstraints"]["resourceRules"][0]["operations"] = json!(["DELETE"]);
        p["spec"]
            .as_object_mut()
            .map(|s| s.remove("reinvocationPolicy"));
        assert_eq!(
            texts(&validate_policy(&p, &envs)),
            [
                "spec.matchConstraints.resourceRules.operations: Unsupported value: \"DELETE\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"UPDATE\"",
                "spec.reinvocationPolicy: Required value",
            ]
        );
    }
}
