//! The admission CEL environment (`k8s.io/apiserver/pkg/admission/plugin/cel/compile.go`,
//! `composition.go`), shared by validating and mutating policies.
//!
//! On top of the Kubernetes base environment of the release and view ([`EnvSpec`]: the same
//! libraries and options as CRD rules), `createEnvForOpts` declares
//!
//! | variable | type |
//! |---|---|
//! | `object`, `oldObject` | `dyn` |
//! | `namespaceObject` | `kubernetes.Namespace` ([`namespace_type`], `BuildNamespaceType`) |
//! | `request` | `kubernetes.AdmissionRequest` ([`request_type`], `BuildRequestType`) |
//! | `params` | `dyn`, when the policy has a `paramKind` |
//! | `authorizer`, `authorizer.requestResource` | `kubernetes.authorization.Authorizer`, `…ResourceCheck`, except for messageExpressions |
//! | `variables` | `kubernetes.variables`, one field per variable compiled so far (`NewCompositedCompiler`) |
//!
//! With [`Optional::patch_types`] (`HasPatchTypes`: a MutatingAdmissionPolicy's mutations), the
//! `JSONPatch` and `Object...` types (`mutating::types`) and the `jsonpatch` library
//! are added (`hasPatchTypes`).
//!
//! [`Compiler::compile`] is `CompileCELExpression`: compile, then the result type must be one of
//! the expression's return types, with the server's texts.

use std::sync::{Arc, OnceLock};

use cel::checker::TypeProvider;
use cel::{Env, Program, Type};
use indexmap::IndexMap;

use super::mutating::types::{JSON_PATCH_TYPE, OBJECT_TYPE, PatchTypes};
use crate::decl::{DeclField, DeclKind, DeclType, DeclTypeProvider, ObjectType};
use crate::library::authz;
use crate::library::jsonpatch::JsonPatch;
use crate::rules::compile::{ExpressionError, check_expression, plan};
use crate::rules::{EnvKind, EnvSpec};
use crate::version::KubeVersion;

/// `ObjectVarName`.
pub const OBJECT: &str = "object";
/// `OldObjectVarName`.
pub const OLD_OBJECT: &str = "oldObject";
/// `ParamsVarName`.
pub const PARAMS: &str = "params";
/// `RequestVarName`.
pub const REQUEST: &str = "request";
/// `NamespaceVarName`.
pub const NAMESPACE_OBJECT: &str = "namespaceObject";
/// `AuthorizerVarName`.
pub const AUTHORIZER: &str = "authorizer";
/// `RequestResourceAuthorizerVarName`.
pub const REQUEST_RESOURCE_AUTHORIZER: &str = "authorizer.requestResource";
/// `VariableVarName`.
pub const VARIABLES: &str = "variables";
/// `variablesTypeName`.
pub const VARIABLES_TYPE: &str = "kubernetes.variables";

/// `celconfig.RuntimeCELCostBudgetMatchConditions` (`k8s.io/apiserver/pkg/apis/cel/config.go`,
/// 2,500,000 since it was introduced in 1.27): the runtime budget of a policy's matchConditions
/// together (`matchconditions.matcher.Match`).
pub const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS: i64 = 2_500_000;

fn simple(kind: DeclKind) -> Arc<DeclType> {
    Arc::new(DeclType {
        kind,
        min_serialized_size: 0,
        max_elements: 0,
    })
}

fn string() -> Arc<DeclType> {
    simple(DeclKind::String)
}

fn list_of(t: Arc<DeclType>) -> Arc<DeclType> {
    simple(DeclKind::List(t))
}

fn map_of(t: Arc<DeclType>) -> Arc<DeclType> {
    simple(DeclKind::Map(t))
}

/// `apiservercel.NewObjectType(name, fields)`; each field `(name, type, required)`.
fn object(name: &str, fields: Vec<(&str, Arc<DeclType>, bool)>) -> Arc<DeclType> {
    let fields = fields
        .into_iter()
        .map(|(n, ty, required)| {
            (
                n.to_string(),
                DeclField {
                    name: n.to_string(),
                    property: n.to_string(),
                    ty,
                    required,
                    enum_values: Vec::new(),
                    default: None,
                },
            )
        })
        .collect();
    simple(DeclKind::Object(ObjectType {
        name: name.into(),
        fields,
    }))
}

/// `BuildRequestType`: `kubernetes.AdmissionRequest` (no `uid`, `object`, `oldObject`).
pub fn request_type() -> Arc<DeclType> {
    let gvk = || {
        object(
            "kubernetes.GroupVersionKind",
            vec![
                ("group", string(), true),
                ("version", string(), true),
                ("kind", string(), true),
            ],
        )
    };
    let gvr = || {
        object(
            "kubernetes.GroupVersionResource",
            vec![
                ("group", string(), true),
                ("version", string(), true),
                ("resource", string(), true),
            ],
        )
    };
    let user_info = object(
        "kubernetes.UserInfo",
        vec![
            ("username", string(), false),
            ("uid", string(), false),
            ("groups", list_of(string()), false),
            ("extra", map_of(list_of(string())), false),
        ],
    );
    object(
        "kubernetes.AdmissionRequest",
        vec![
            ("kind", gvk(), true),
            ("resource", gvr(), true),
            ("subResource", string(), false),
            ("requestKind", gvk(), true),
            ("requestResource", gvr(), true),
            ("requestSubResource", string(), false),
            ("name", string(), true),
            ("namespace", string(), false),
            ("operation", string(), true),
            ("userInfo", user_info, true),
            ("dryRun", simple(DeclKind::Bool), false),
            ("options", simple(DeclKind::IntOrString), false),
        ],
    )
}

/// `BuildNamespaceType`: `kubernetes.Namespace` with the metadata fields the plugin keeps.
pub fn namespace_type() -> Arc<DeclType> {
    let ts = || simple(DeclKind::Timestamp);
    let spec = object(
        "kubernetes.NamespaceSpec",
        vec![("finalizers", list_of(string()), true)],
    );
    let condition = object(
        "kubernetes.NamespaceCondition",
        vec![
            ("status", string(), true),
            ("type", string(), true),
            ("lastTransitionTime", ts(), true),
            ("message", string(), true),
            ("reason", string(), true),
        ],
    );
    let status = object(
        "kubernetes.NamespaceStatus",
        vec![
            ("conditions", list_of(condition), true),
            ("phase", string(), true),
        ],
    );
    let metadata = object(
        "kubernetes.NamespaceMetadata",
        vec![
            ("name", string(), true),
            ("generateName", string(), true),
            ("namespace", string(), true),
            ("labels", map_of(string()), true),
            ("annotations", map_of(string()), true),
            ("UID", string(), true),
            ("creationTimestamp", ts(), true),
            ("deletionGracePeriodSeconds", simple(DeclKind::Int), true),
            ("deletionTimestamp", ts(), true),
            ("generation", simple(DeclKind::Int), true),
            ("resourceVersion", string(), true),
            ("finalizers", list_of(string()), true),
        ],
    );
    object(
        "kubernetes.Namespace",
        vec![
            ("metadata", metadata, true),
            ("spec", spec, true),
            ("status", status, true),
        ],
    )
}

/// The object types of the admission environment: the request and namespace types, the
/// `kubernetes.variables` object of the variables compiled so far and, for mutations, the
/// patch types.
#[derive(Clone, Debug)]
struct AdmissionTypes {
    declared: Arc<DeclTypeProvider>,
    variables: IndexMap<String, Type>,
    patch_types: bool,
}

impl AdmissionTypes {
    fn patch_type(&self, name: &str) -> bool {
        self.patch_types && PatchTypes::declares(name)
    }
}

impl TypeProvider for AdmissionTypes {
    fn find_type(&self, name: &str) -> Option<Type> {
        if name == VARIABLES_TYPE {
            return Some(Type::Object(VARIABLES_TYPE.into()));
        }
        if self.patch_type(name) {
            return PatchTypes.find_type(name);
        }
        self.declared.find_type(name)
    }

    fn field_type(&self, type_name: &str, field: &str) -> Option<Type> {
        if type_name == VARIABLES_TYPE {
            return self.variables.get(field).cloned();
        }
        if self.patch_type(type_name) {
            return PatchTypes.field_type(type_name, field);
        }
        self.declared.field_type(type_name, field)
    }

    fn field_names(&self, type_name: &str) -> Vec<String> {
        if type_name == VARIABLES_TYPE {
            return self.variables.keys().cloned().collect();
        }
        if self.patch_type(type_name) {
            return PatchTypes.field_names(type_name);
        }
        self.declared.field_names(type_name)
    }

    fn new_object(
        &self,
        type_name: &str,
        fields: &[(&str, cel::Value)],
    ) -> Option<cel::EvalResult> {
        if self.patch_type(type_name) {
            return PatchTypes.new_object(type_name, fields);
        }
        self.declared.new_object(type_name, fields)
    }
}

/// The types an expression must evaluate to (`ExpressionAccessor.ReturnTypes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnTypes {
    /// Validations and matchConditions.
    Bool,
    /// messageExpressions.
    String,
    /// Audit annotation values.
    StringOrNull,
    /// Variables (`AnyType`, `DynType`: anything).
    Any,
    /// JSON Patch mutations: `list(JSONPatch)` (`JSONPatchCondition.ReturnTypes`).
    JsonPatches,
    /// ApplyConfiguration mutations: `Object` (`ApplyConfigurationCondition.ReturnTypes`).
    Object,
}

impl ReturnTypes {
    fn accepts(self, t: &Type) -> bool {
        match self {
            ReturnTypes::Bool => *t == Type::Bool,
            ReturnTypes::String => *t == Type::String,
            ReturnTypes::StringOrNull => *t == Type::String || *t == Type::Null,
            ReturnTypes::Any => true,
            ReturnTypes::JsonPatches => *t == Type::list(Type::Object(JSON_PATCH_TYPE.into())),
            ReturnTypes::Object => *t == Type::Object(OBJECT_TYPE.into()),
        }
    }

    /// The types named in `CompileCELExpression`'s reason when the result has another type
    /// (`must evaluate to <this> but got …`).
    fn expected(self) -> &'static str {
        match self {
            ReturnTypes::Bool => "bool",
            ReturnTypes::String => "string",
            ReturnTypes::StringOrNull => "one of [string null_type]",
            ReturnTypes::Any => "any",
            ReturnTypes::JsonPatches => "list(JSONPatch)",
            ReturnTypes::Object => "Object",
        }
    }
}

/// Which optional variables an expression sees (`OptionalVariableDeclarations`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Optional {
    /// `params` (the policy has a `paramKind`).
    pub params: bool,
    /// `authorizer` and `authorizer.requestResource`.
    pub authorizer: bool,
    /// The mutation types `JSONPatch` and `Object...` and the `jsonpatch` library
    /// (`HasPatchTypes`: a MutatingAdmissionPolicy's mutations).
    pub patch_types: bool,
}

/// Why an expression does not compile: the `apiservercel.Error` of `CompileCELExpression`
/// (`k8s.io/apiserver/pkg/admission/plugin/cel/compile.go`); Display is its `Detail`.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CompileError {
    /// Parse or type-check issues (`ErrorTypeInvalid`, `compilation failed: ERROR: <input>:…`).
    #[error("compilation failed: {0}")]
    Compilation(ExpressionError),
    /// The result type is not one of the expression's return types (`ErrorTypeInvalid`).
    #[error("must evaluate to {} but got {got}", .expected.expected())]
    ReturnType {
        /// The types the expression must evaluate to.
        expected: ReturnTypes,
        /// The type it evaluates to.
        got: Type,
    },
    /// The program could not be planned (`ErrorTypeInternal`).
    #[error("program instantiation failed: {0}")]
    Instantiation(ExpressionError),
}

/// A compiled expression and its result type.
#[derive(Clone)]
pub struct Compiled {
    /// The program to evaluate (`CompilationResult.Program`).
    pub program: Program,
    /// The expression's output type (`CompilationResult.OutputType`).
    pub output_type: Type,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("output_type", &self.output_type)
            .finish()
    }
}

/// Compiles the expressions of one policy (`CompositedCompiler`): variables first, each adding a
/// field to `variables`, then the rest.
pub struct Compiler {
    spec: EnvSpec,
    base: Env,
    /// `base` with the `jsonpatch` library (`hasPatchTypes`), built on first use.
    patch_base: OnceLock<Env>,
    types: AdmissionTypes,
    /// Whether `variables` is declared (`NewCompositedCompiler`; API validation compiles
    /// matchConditions with a stateless compiler without it).
    composition: bool,
    /// The types of `object`/`oldObject` and of `params`: `dyn` but for the type checker
    /// ([`Compiler::typed`]).
    object: Type,
    params: Type,
}

impl Compiler {
    /// A compiler for Kubernetes `version` in `kind`'s view (the plugin compiles with
    /// `StoredExpressions`; API validation of a new policy with `NewExpressions`).
    pub fn new(version: KubeVersion, kind: EnvKind) -> Compiler {
        Compiler::with_spec(EnvSpec::new(version, kind))
    }

    /// A compiler over the base environment `spec` (with its extra libraries, if any).
    pub fn with_spec(spec: EnvSpec) -> Compiler {
        let mut declared = DeclTypeProvider::new(&request_type());
        declared.add(&namespace_type());
        Compiler {
            base: spec.env(),
            spec,
            patch_base: OnceLock::new(),
            types: AdmissionTypes {
                declared: Arc::new(declared),
                variables: IndexMap::new(),
                patch_types: false,
            },
            composition: true,
            object: Type::Dyn,
            params: Type::Dyn,
        }
    }

    /// The type checker's compiler (`buildEnvSet`, `validating/typechecking.go`): `object` and
    /// `oldObject` typed by `object`, `params` by `params`, each `dyn` when `None`.
    pub fn typed(
        spec: EnvSpec,
        object: Option<&Arc<DeclType>>,
        params: Option<&Arc<DeclType>>,
    ) -> Compiler {
        let mut c = Compiler::with_spec(spec);
        let mut declared = (*c.types.declared).clone();
        for t in [object, params].into_iter().flatten() {
            declared.add(t);
        }
        c.types.declared = Arc::new(declared);
        c.object = object.map_or(Type::Dyn, |t| t.cel_type());
        c.params = params.map_or(Type::Dyn, |t| t.cel_type());
        c
    }

    /// A compiler without `variables` (`plugincel.NewCompiler`, the stateless compiler API
    /// validation uses for matchConditions).
    pub fn stateless(version: KubeVersion, kind: EnvKind) -> Compiler {
        Compiler::new(version, kind).without_variables()
    }

    /// This compiler without `variables` (`plugincel.NewCompiler` over the same environment).
    pub fn without_variables(self) -> Compiler {
        Compiler {
            composition: false,
            ..self
        }
    }

    fn env(&self, optional: Optional) -> Env {
        let mut vars: Vec<(&str, Type)> = vec![
            (OBJECT, self.object.clone()),
            (OLD_OBJECT, self.object.clone()),
            (
                NAMESPACE_OBJECT,
                Type::Object("kubernetes.Namespace".into()),
            ),
            (REQUEST, Type::Object("kubernetes.AdmissionRequest".into())),
        ];
        if self.composition {
            vars.push((VARIABLES, Type::Object(VARIABLES_TYPE.into())));
        }
        if optional.params {
            vars.push((PARAMS, self.params.clone()));
        }
        if optional.authorizer {
            vars.push((AUTHORIZER, authz::authorizer_type()));
            vars.push((REQUEST_RESOURCE_AUTHORIZER, authz::resource_check_type()));
        }
        let types = AdmissionTypes {
            patch_types: optional.patch_types,
            ..self.types.clone()
        };
        let provider: Arc<dyn TypeProvider> = Arc::new(types);
        let base = if optional.patch_types {
            self.patch_base
                .get_or_init(|| self.spec.builder().library(JsonPatch).build())
        } else {
            &self.base
        };
        base.with_declarations(vars, Some(provider))
    }

    /// `CompileCELExpression`.
    pub fn compile(
        &self,
        expression: &str,
        returns: ReturnTypes,
        optional: Optional,
    ) -> Result<Compiled, CompileError> {
        let env = self.env(optional);
        let checked = check_expression(&env, expression).map_err(CompileError::Compilation)?;
        let output_type = checked.result_type.clone().unwrap_or(Type::Dyn);
        if !returns.accepts(&output_type) {
            return Err(CompileError::ReturnType {
                expected: returns,
                got: output_type,
            });
        }
        let program = plan(&env, &checked).map_err(CompileError::Instantiation)?;
        Ok(Compiled {
            program,
            output_type,
        })
    }

    /// `typeCheckingCompiler.CompileCELExpression`: the expression's type, or the checker's
    /// issues (no result type required, no program planned).
    pub fn type_check(
        &self,
        expression: &str,
        optional: Optional,
    ) -> Result<Type, ExpressionError> {
        let env = self.env(optional);
        let checked = check_expression(&env, expression)?;
        Ok(checked.result_type.unwrap_or(Type::Dyn))
    }

    /// `CompileAndStoreVariable` over the type checker's compiler: the variable's field is typed
    /// by [`Compiler::type_check`] (`dyn` when it does not compile).
    pub fn type_check_variable(&mut self, name: &str, expression: &str, optional: Optional) {
        let t = self
            .type_check(expression, optional)
            .map_or(Type::Dyn, |t| variable_field_type(&t));
        self.types.variables.insert(name.to_string(), t);
    }

    /// The field type of `variables.<name>`, when a variable of that name was compiled or declared.
    pub fn variable_type(&self, name: &str) -> Option<&Type> {
        self.types.variables.get(name)
    }

    /// Declares `variables.<name>` with the field type `t` (a variable the compiler of the other
    /// view compiled: API validation picks the view per expression).
    pub fn declare_variable(&mut self, name: &str, t: Type) {
        self.types.variables.insert(name.to_string(), t);
    }

    /// `CompileAndStoreVariable`: compiles a variable and adds it to `variables` (as `dyn` when
    /// it does not compile, as `convertCelTypeToDeclType` turns a nil type).
    pub fn compile_variable(
        &mut self,
        name: &str,
        expression: &str,
        optional: Optional,
    ) -> Result<Compiled, CompileError> {
        let result = self.compile(expression, ReturnTypes::Any, optional);
        let t = match &result {
            Ok(c) => variable_field_type(&c.output_type),
            Err(_) => Type::Dyn,
        };
        self.types.variables.insert(name.to_string(), t);
        result
    }
}

/// `convertCelTypeToDeclType` and back (`composition.go`): the type a variable's field gets.
/// `any`, scalars, lists and maps keep their types (element types converted likewise);
/// anything else is `dyn`.
fn variable_field_type(t: &Type) -> Type {
    match t {
        Type::Any
        | Type::Bool
        | Type::Bytes
        | Type::Double
        | Type::Duration
        | Type::Int
        | Type::Null
        | Type::String
        | Type::Timestamp
        | Type::Uint => t.clone(),
        Type::List(e) => Type::list(variable_field_type(e)),
        Type::Map(k, v) => Type::map(variable_field_type(k), variable_field_type(v)),
        _ => Type::Dyn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiler() -> Compiler {
        Compiler::new(KubeVersion::NEWEST, EnvKind::StoredExpressions)
    }

    const ALL: Optional = Optional {
        params: true,
        authorizer: true,
        patch_types: false,
    };

    #[test]
    fn admission_variables_are_declared() {
        let c = compiler();
        for e in [
            "object.spec.replicas <= 5",
            "request.operation == 'CREATE' && request.userInfo.username != ''",
            "namespaceObject.metadata.labels['env'] == 'prod'",
            "params.max > 0",
            "has(request.dryRun)",
        ] {
            c.compile(e, ReturnTypes::Bool, ALL)
                .unwrap_or_else(|err| panic!("{e}: {err}"));
        }
    }

    #[test]
    fn result_types_are_checked_with_the_servers_texts() {
        let c = compiler();
        let e = c
            .compile("object.spec", ReturnTypes::Bool, ALL)
            .expect_err("dyn is not bool");
        assert_eq!(e.to_string(), "must evaluate to bool but got dyn");
        let e = c
            .compile("1", ReturnTypes::StringOrNull, ALL)
            .expect_err("int");
        assert_eq!(
            e.to_string(),
            "must evaluate to one of [string null_type] but got int"
        );
        let e = c
            .compile(
                "params.x",
                ReturnTypes::String,
                Optional {
                    params: false,
                    authorizer: false,
                    patch_types: false,
                },
            )
            .expect_err("no params");
        assert!(
            e.to_string().starts_with(
                "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'"
            ),
            "{e}"
        );
    }

    #[test]
    fn variables_are_typed_in_order() {
        let mut c = compiler();
        c.compile_variable("n", "1 + 1", ALL).expect("compiles");
        assert!(c.compile("variables.n > 1", ReturnTypes::Bool, ALL).is_ok());
        let e = c
            .compile("variables.n == 'x'", ReturnTypes::Bool, ALL)
            .expect_err("int == string");
        assert!(
            e.to_string()
                .contains("found no matching overload for '_==_' applied to '(int, string)'"),
            "{e}"
        );
        let e = c
            .compile("variables.later", ReturnTypes::Bool, ALL)
            .expect_err("not yet declared");
        assert!(e.to_string().contains("undefined field 'later'"), "{e}");
    }
}
