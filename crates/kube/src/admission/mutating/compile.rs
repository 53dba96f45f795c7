//! Compiling a MutatingAdmissionPolicy (`mutating/compilation.go`: `compilePolicy`) in the
//! admission environment (`plugin/cel/compile.go`: `createEnvForOpts`, `CompileCELExpression`;
//! `composition.go`: variables).
//!
//! The environment is Kubernetes' base environment of the release, stored-expressions view,
//! with the variables `object`, `oldObject` (dyn), `namespaceObject`, `request`, `params` (when
//! the policy has a `paramKind`), `authorizer` and `authorizer.requestResource`, and
//! `variables` (one field per policy variable, typed by its expression's output). Variables and
//! match conditions are compiled without the patch types; mutations with them
//! (`HasPatchTypes`: `JSONPatch`, `Object...`, and the `jsonpatch` library).
//!
//! `namespaceObject` and `request` are `dyn` here: the typed declarations
//! (`BuildNamespaceType`, `BuildRequestType`) are the shared admission environment's.
//!
//! As the server does, a compilation error is kept and reported when the expression would be
//! evaluated, not when the policy is read.

use std::collections::BTreeMap;
use std::sync::Arc;

use cel::checker::TypeProvider;
use cel::checker::format_type;
use cel::{Env, Program, Type};

use super::model::{MutatingAdmissionPolicy, PatchType};
use super::types::{
    JSON_PATCH_TYPE, MutationTypes, OBJECT_TYPE, VARIABLES_TYPE, variable_field_type,
};
use crate::library::authz;
use crate::library::jsonpatch::JsonPatch;
use crate::rules::env::{EnvKind, EnvSpec};
use crate::version::KubeVersion;

/// The variable names of admission expressions (`plugin/cel/interface.go`).
pub mod names {
    /// `object` (`ObjectVarName`).
    pub const OBJECT: &str = "object";
    /// `oldObject` (`OldObjectVarName`).
    pub const OLD_OBJECT: &str = "oldObject";
    /// `namespaceObject` (`NamespaceVarName`).
    pub const NAMESPACE: &str = "namespaceObject";
    /// `request` (`RequestVarName`).
    pub const REQUEST: &str = "request";
    /// `params` (`ParamsVarName`).
    pub const PARAMS: &str = "params";
    /// `authorizer` (`AuthorizerVarName`).
    pub const AUTHORIZER: &str = "authorizer";
    /// `authorizer.requestResource` (`RequestResourceAuthorizerVarName`).
    pub const REQUEST_RESOURCE_AUTHORIZER: &str = "authorizer.requestResource";
    /// `variables` (`VariableVarName`).
    pub const VARIABLES: &str = "variables";
}

/// A compiled expression, or the server's compilation error (`apiservercel.Error.Detail`).
#[derive(Clone)]
pub struct Compiled {
    /// The expression as written.
    pub expression: String,
    /// Its program, or the compilation error's detail (`apiservercel.Error.Detail`).
    pub program: Result<Program, String>,
    /// The output type (`dyn` when compilation failed).
    pub output: Type,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("expression", &self.expression)
            .field("error", &self.program.as_ref().err())
            .finish()
    }
}

/// A compiled mutation.
#[derive(Clone, Debug)]
pub struct CompiledMutation {
    /// `patchType` (`admissionregistration/v1beta1 types.go Mutation.PatchType`).
    pub patch_type: PatchType,
    /// The mutation's expression (`applyConfiguration` or `jsonPatch`), compiled.
    pub compiled: Compiled,
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
    /// `spec.variables`: each name with its compiled expression.
    pub variables: Vec<(String, Compiled)>,
    /// `spec.matchConditions`: each name with its compiled expression.
    pub match_conditions: Vec<(String, Compiled)>,
    /// `spec.mutations`, compiled (those without an expression object skipped).
    pub mutations: Vec<CompiledMutation>,
}

/// The environment of one compilation.
fn environment(base: &Env, has_params: bool, types: MutationTypes) -> Env {
    let mut vars: Vec<(&str, Type)> = vec![
        (names::OBJECT, Type::Dyn),
        (names::OLD_OBJECT, Type::Dyn),
        (names::NAMESPACE, Type::Dyn),
        (names::REQUEST, Type::Dyn),
        (names::AUTHORIZER, authz::authorizer_type()),
        (
            names::REQUEST_RESOURCE_AUTHORIZER,
            authz::resource_check_type(),
        ),
        (names::VARIABLES, Type::Object(VARIABLES_TYPE.into())),
    ];
    if has_params {
        vars.push((names::PARAMS, Type::Dyn));
    }
    let provider: Arc<dyn TypeProvider> = Arc::new(types);
    base.with_declarations(vars, Some(provider))
}

/// `CompileCELExpression`: compiles `text`; `expected`: the return type it must have
/// (`ReturnTypes`), `None` for any.
fn compile(env: &Env, text: &str, expected: Option<&Type>) -> Compiled {
    let fail = |detail: String| Compiled {
        expression: text.to_string(),
        program: Err(detail),
        output: Type::Dyn,
    };
    let checked = match env.parse(text).and_then(|ast| env.check_owned(ast)) {
        Ok(c) => c,
        Err(issues) => return fail(format!("compilation failed: {issues}")),
    };
    let output = checked.result_type().clone();
    if let Some(expected) = expected
        && output != *expected
    {
        return fail(format!(
            "must evaluate to {} but got {}",
            format_type(expected),
            format_type(&output)
        ));
    }
    match env.program_checked(&checked) {
        Ok(program) => Compiled {
            expression: text.to_string(),
            program: Ok(program),
            output,
        },
        Err(issues) => fail(format!("program instantiation failed: {issues}")),
    }
}

/// The check API validation makes of one mutation's expression (`validateApplyConfiguration`,
/// `validateJSONPatch`: `CompileCELExpression` with `HasPatchTypes`) in `spec`'s environment:
/// `variables` are the policy's variables with their field types; the error is the server's
/// detail (`compilation failed: …`, `must evaluate to …`).
pub(crate) fn check_mutation_expression(
    spec: EnvSpec,
    has_params: bool,
    variables: BTreeMap<String, Type>,
    patch_type: PatchType,
    expression: &str,
) -> Result<(), String> {
    let base = spec.builder().library(JsonPatch).build();
    let types = MutationTypes {
        patch_types: true,
        variables,
        inner: None,
    };
    let env = environment(&base, has_params, types);
    let expected = match patch_type {
        PatchType::JsonPatch => Type::list(Type::Object(JSON_PATCH_TYPE.into())),
        PatchType::ApplyConfiguration => Type::Object(OBJECT_TYPE.into()),
    };
    compile(&env, expression, Some(&expected)).program.map(drop)
}

impl CompiledPolicy {
    /// `compilePolicy` for the release `version`.
    pub fn compile(policy: &MutatingAdmissionPolicy, version: KubeVersion) -> CompiledPolicy {
        let mut builder = EnvSpec::new(version, EnvKind::StoredExpressions).builder();
        builder = builder.library(JsonPatch);
        let base = builder.build();
        let has_params = policy.spec.param_kind.is_some();
        let mut field_types: BTreeMap<String, Type> = BTreeMap::new();
        let plain = |fields: &BTreeMap<String, Type>| MutationTypes {
            patch_types: false,
            variables: fields.clone(),
            inner: None,
        };
        let mut variables = Vec::with_capacity(policy.spec.variables.len());
        for v in &policy.spec.variables {
            let env = environment(&base, has_params, plain(&field_types));
            let c = compile(&env, &v.expression, None);
            field_types.insert(v.name.clone(), variable_field_type(&c.output));
            variables.push((v.name.clone(), c));
        }
        let env = environment(&base, has_params, plain(&field_types));
        let match_conditions = policy
            .spec
            .match_conditions
            .iter()
            .map(|m| {
                (
                    m.name.clone(),
                    compile(&env, &m.expression, Some(&Type::Bool)),
                )
            })
            .collect();
        let patch_env = environment(
            &base,
            has_params,
            MutationTypes {
                patch_types: true,
                ..plain(&field_types)
            },
        );
        let object = Type::Object(OBJECT_TYPE.into());
        let patches = Type::list(Type::Object(JSON_PATCH_TYPE.into()));
        let mutations = policy
            .spec
            .mutations
            .iter()
            .filter_map(|m| {
                let (expression, expected) = match m.patch_type {
                    PatchType::JsonPatch => (m.json_patch.as_ref()?, &patches),
                    PatchType::ApplyConfiguration => (m.apply_configuration.as_ref()?, &object),
                };
                Some(CompiledMutation {
                    patch_type: m.patch_type,
                    compiled: compile(&patch_env, &expression.expression, Some(expected)),
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
