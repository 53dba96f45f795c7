//! Compiling a MutatingAdmissionPolicy (`mutating/compilation.go`: `compilePolicy`) with the
//! admission compiler ([`Compiler`], `plugincel.NewCompositedCompiler` over the base
//! environment of the release, stored-expressions view): `object` and `oldObject` `dyn`,
//! `request` and `namespaceObject` typed (`BuildRequestType`, `BuildNamespaceType`), `params`
//! when the policy has a `paramKind`, `authorizer` always, and `variables`. Variables and match
//! conditions are compiled without the patch types; mutations with them (`HasPatchTypes`:
//! `JSONPatch`, `Object...` and the `jsonpatch` library).
//!
//! As the server does, a compilation error is kept and reported when the expression would be
//! evaluated, not when the policy is read.

use std::sync::Arc;

use super::model::{MutatingAdmissionPolicy, PatchType};
use crate::admission::environment::{CompileError, Compiled, Compiler, Optional, ReturnTypes};
use crate::admission::evaluate::{Expression, Variable};
use crate::rules::EnvKind;
use crate::version::KubeVersion;

/// A compiled mutation.
#[derive(Clone, Debug)]
pub struct CompiledMutation {
    /// `patchType` (`admissionregistration/v1beta1 types.go Mutation.PatchType`).
    pub patch_type: PatchType,
    /// The mutation's expression (`applyConfiguration` or `jsonPatch`), compiled.
    pub expression: Expression,
}

/// A compiled policy (`PolicyEvaluator`): its variables, match conditions and mutations, in
/// the policy's order. Mutations without their expression object are absent, as
/// `compilePolicy` skips them (the dispatcher then reports the count mismatch).
#[derive(Clone, Debug)]
pub struct CompiledPolicy {
    /// The policy as decoded.
    pub policy: MutatingAdmissionPolicy,
    /// The Kubernetes version whose environment compiled it.
    pub version: KubeVersion,
    /// `spec.variables`, compiled.
    pub variables: Arc<[Variable]>,
    /// `spec.matchConditions`, compiled (every entry present: the list is evaluated as one
    /// list of expressions, `ForInput`).
    pub match_conditions: Vec<Option<Expression>>,
    /// `spec.mutations`, compiled (those without an expression object skipped).
    pub mutations: Vec<CompiledMutation>,
}

/// `CompileCELExpression` of one mutation's expression with the patch types
/// (`HasPatchTypes`), which must evaluate to what `patch_type` applies (`list(JSONPatch)` or
/// `Object`). `optional` is the policy's (params, authorizer); the patch types are added. API
/// validation (`validateApplyConfiguration`, `validateJSONPatch`) checks with it too.
pub(crate) fn compile_mutation(
    compiler: &Compiler,
    patch_type: PatchType,
    expression: &str,
    optional: Optional,
) -> Result<Compiled, CompileError> {
    let returns = match patch_type {
        PatchType::JsonPatch => ReturnTypes::JsonPatches,
        PatchType::ApplyConfiguration => ReturnTypes::Object,
    };
    let optional = Optional {
        patch_types: true,
        ..optional
    };
    compiler.compile(expression, returns, optional)
}

impl CompiledPolicy {
    /// `compilePolicy` for the release `version`.
    pub fn compile(policy: &MutatingAdmissionPolicy, version: KubeVersion) -> CompiledPolicy {
        let mut compiler = Compiler::new(version, EnvKind::StoredExpressions);
        let optional = Optional {
            params: policy.spec.param_kind.is_some(),
            authorizer: true,
            patch_types: false,
        };
        let variables = Variable::compile_all(&mut compiler, &policy.spec.variables, optional);
        let match_conditions = policy
            .spec
            .match_conditions
            .iter()
            .map(|m| {
                Some(Expression::compile(
                    &compiler,
                    &m.expression,
                    ReturnTypes::Bool,
                    optional,
                ))
            })
            .collect();
        let mutations = policy
            .spec
            .mutations
            .iter()
            .filter_map(|m| {
                let e = match m.patch_type {
                    PatchType::JsonPatch => m.json_patch.as_ref()?,
                    PatchType::ApplyConfiguration => m.apply_configuration.as_ref()?,
                };
                Some(CompiledMutation {
                    patch_type: m.patch_type,
                    expression: Expression {
                        text: e.expression.clone(),
                        compiled: compile_mutation(
                            &compiler,
                            m.patch_type,
                            &e.expression,
                            optional,
                        ),
                    },
                })
            })
            .collect();
        CompiledPolicy {
            policy: policy.clone(),
            version,
            variables,
            match_conditions,
            mutations,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn compile(mutation: serde_json::Value) -> CompiledPolicy {
        let doc = json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "p"},
            "spec": {
                "variables": [{"name": "escaped", "expression": "jsonpatch.escapeKey('a/b')"}],
                "mutations": [mutation],
            },
        });
        let policy: MutatingAdmissionPolicy = serde_json::from_value(doc).expect("policy");
        CompiledPolicy::compile(&policy, KubeVersion::NEWEST)
    }

    fn error(mutation: &CompiledMutation) -> String {
        match &mutation.expression.compiled {
            Ok(_) => "compiles".into(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn request_is_typed_as_the_server_declares_it() {
        let p = compile(json!({"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'add', path: '/metadata/labels/u', value: request.userInfo.username}]"}}));
        assert_eq!(error(&p.mutations[0]), "compiles");
        let p = compile(json!({"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'add', path: '/metadata/labels/u', value: request.user}]"}}));
        assert_eq!(
            error(&p.mutations[0]),
            "compilation failed: ERROR: <input>:1:65: undefined field 'user'\n | [JSONPatch{op: 'add', path: '/metadata/labels/u', value: request.user}]\n | ................................................................^"
        );
    }

    #[test]
    fn mutations_must_evaluate_to_their_patch_type() {
        let p = compile(
            json!({"patchType": "ApplyConfiguration", "applyConfiguration":
            {"expression": "[JSONPatch{op: 'remove', path: '/spec'}]"}}),
        );
        assert_eq!(
            error(&p.mutations[0]),
            "must evaluate to Object but got list(JSONPatch)"
        );
        let p = compile(json!({"patchType": "JSONPatch", "jsonPatch": {"expression": "Object{}"}}));
        assert_eq!(
            error(&p.mutations[0]),
            "must evaluate to list(JSONPatch) but got Object"
        );
    }

    #[test]
    fn patch_types_and_the_jsonpatch_library_are_for_mutations_only() {
        let p = compile(json!({"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b'), value: 'x'}]"}}));
        assert_eq!(error(&p.mutations[0]), "compiles");
        let variable = p.variables[0].compiled.as_ref().map(|_| ()).unwrap_err();
        assert!(
            variable
                .to_string()
                .contains("undeclared reference to 'jsonpatch'"),
            "{variable}"
        );
    }
}
