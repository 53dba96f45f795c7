//! Compiling the rules of one schema node (`schema/cel/compilation.go`, reference §2.1–§2.3).
//!
//! Every rule of a node is compiled against the node's CEL type: `self` is the node's value,
//! `oldSelf` the old value (an `optional_type` of it for `optionalOldSelf: true` rules), and the
//! object types are renamed `selfType<N>…` with a fresh `N` per compilation, as Kubernetes does so
//! that rules cannot depend on the name. Each rule yields a [`CompiledRule`] holding its program,
//! its messageExpression program, or the error Kubernetes reports, with its text. The same rules
//! on a node of the same CEL type compile once per process (`rules/memo.rs`).
//!
//! Which environment view an expression gets ([`EnvKind`]) is decided per expression string by an
//! [`EnvLoader`]: runtime validation uses stored expressions; CRD creation new expressions; CRD
//! update new expressions except for strings already present in the old CRD.
//!
//! Type checking and cost estimation come from the engine: [`check_expression`] and [`plan`]
//! are where an expression is parsed, checked and planned.

use std::collections::HashSet;
use std::sync::Arc;

use cel::checker::CheckedAst;
use cel::syntax::{Expr, ExprKind};
use cel::{Env, Program, Type, cost};

use super::env::{EnvKind, EnvSpec, ExtraLibrary};
use super::estimate;
use super::field_path::valid_field_path;
use super::memo;
use crate::decl::{DeclType, NamedDeclTypes};
use crate::field::ErrorType;
use crate::schema_props::ValidationRule;
use crate::structural::Structural;
use crate::version::KubeVersion;

/// The name of the variable holding the node's value.
pub const SCOPED_VAR_NAME: &str = "self";
/// The name of the variable holding the node's old value.
pub const OLD_SCOPED_VAR_NAME: &str = "oldSelf";

/// Chooses the environment view of each expression.
#[derive(Clone, Debug)]
pub struct EnvLoader {
    /// The Kubernetes release.
    pub version: KubeVersion,
    /// Which expressions count as already stored.
    pub stored: StoredExpressions,
    /// Libraries beyond Kubernetes' own (see [`ExtraLibrary`]).
    pub extra: Vec<ExtraLibrary>,
}

/// Which expressions count as already stored.
#[derive(Clone, Debug)]
pub enum StoredExpressions {
    /// All (runtime validation of custom resources).
    All,
    /// None (CRD creation).
    None,
    /// Those present anywhere in the old CRD (CRD update).
    Preexisting(HashSet<String>),
}

impl std::fmt::Debug for ExtraLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExtraLibrary(1.{})", self.introduced_minor)
    }
}

impl EnvLoader {
    /// Runtime validation: every expression is a stored one.
    pub fn runtime(version: KubeVersion) -> EnvLoader {
        EnvLoader {
            version,
            stored: StoredExpressions::All,
            extra: Vec::new(),
        }
    }

    /// CRD creation: every expression is new.
    pub fn create(version: KubeVersion) -> EnvLoader {
        EnvLoader {
            version,
            stored: StoredExpressions::None,
            extra: Vec::new(),
        }
    }

    /// The view `expression` is compiled with.
    pub fn kind_for(&self, expression: &str) -> EnvKind {
        match &self.stored {
            StoredExpressions::All => EnvKind::StoredExpressions,
            StoredExpressions::None => EnvKind::NewExpressions,
            StoredExpressions::Preexisting(set) if set.contains(expression) => {
                EnvKind::StoredExpressions
            }
            StoredExpressions::Preexisting(_) => EnvKind::NewExpressions,
        }
    }

    fn spec(&self, kind: EnvKind) -> EnvSpec {
        EnvSpec {
            version: self.version,
            kind,
            extra: self.extra.clone(),
        }
    }
}

/// A compile error of a rule or of its messageExpression (`CompilationResult.Error` of
/// apiextensions-apiserver's `cel/compilation.go`), printed with the server's detail text.
#[derive(Clone, Debug, thiserror::Error)]
pub enum RuleError {
    /// The rule does not parse or type-check.
    #[error("compilation failed: {0}")]
    Compile(ExpressionError),
    /// The rule's type is not `bool`.
    #[error("cel expression must evaluate to a bool")]
    NotBool,
    /// The rule does not plan (`env.Program`).
    #[error("program instantiation failed: {0}")]
    Instantiation(ExpressionError),
    /// The cost estimator failed on the rule (an "impossible" case: `Internal`).
    #[error("cost estimation failed: {0}")]
    CostEstimation(cost::EstimateError),
    /// The messageExpression does not parse or type-check.
    #[error("messageExpression compilation failed: {0}")]
    MessageCompile(ExpressionError),
    /// The messageExpression's type is not `string`.
    #[error("messageExpression must evaluate to a string")]
    MessageNotString,
    /// The messageExpression does not plan.
    #[error("messageExpression instantiation failed: {0}")]
    MessageInstantiation(ExpressionError),
    /// The cost estimator failed on the messageExpression (`Internal`).
    #[error("cost estimation failed for messageExpression: {0}")]
    MessageCostEstimation(cost::EstimateError),
}

impl RuleError {
    /// The error type Kubernetes reports it with: `Internal` for the cases it treats as
    /// impossible (cost estimation), `Invalid` otherwise.
    pub fn error_type(&self) -> ErrorType {
        match self {
            RuleError::CostEstimation(_) | RuleError::MessageCostEstimation(_) => {
                ErrorType::Internal
            }
            _ => ErrorType::Invalid,
        }
    }
}

/// One compiled rule (`CompilationResult`).
#[derive(Clone)]
pub struct CompiledRule {
    /// The rule as written.
    pub rule: ValidationRule,
    /// The program; `None` when the rule is empty or failed to compile.
    pub program: Option<Program>,
    /// Why the rule did not compile, if it did not.
    pub error: Option<RuleError>,
    /// Whether the rule refers to `oldSelf` (a transition rule).
    pub uses_old_self: bool,
    /// The estimated worst-case cost (`None` while no estimate is available).
    pub max_cost: Option<u64>,
    /// How many times the node could occur in one request, from its minimal size (§8.4).
    pub max_cardinality: u64,
    /// The planned messageExpression, if any.
    pub message_expression: Option<Program>,
    /// Why the messageExpression did not compile, if it did not.
    pub message_expression_error: Option<RuleError>,
    /// The messageExpression's estimated maximal cost.
    pub message_expression_max_cost: Option<u64>,
    /// The rendered `fieldPath` (empty when unset or invalid).
    pub normalized_field_path: String,
}

impl std::fmt::Debug for CompiledRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledRule")
            .field("rule", &self.rule.rule)
            .field("compiled", &self.program.is_some())
            .field("error", &self.error)
            .field("uses_old_self", &self.uses_old_self)
            .field("max_cost", &self.max_cost)
            .field("message_expression_error", &self.message_expression_error)
            .finish()
    }
}

impl CompiledRule {
    fn empty(rule: &ValidationRule, max_cardinality: u64) -> Self {
        CompiledRule {
            rule: rule.clone(),
            program: None,
            error: None,
            uses_old_self: false,
            max_cost: None,
            max_cardinality,
            message_expression: None,
            message_expression_error: None,
            message_expression_max_cost: None,
            normalized_field_path: String::new(),
        }
    }
}

/// Why a node's rules could not be compiled at all (Kubernetes' "rule compiler initialization
/// error", `schema/cel/compilation.go` `Compile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NodeError {
    /// The node's structural schema has no CEL type (`SchemaDeclType` returned nil).
    #[error("unable to convert structural schema to CEL declarations")]
    NoDeclType,
}

/// Why an expression did not compile (parse, check — with the environment's AST validators — or
/// planning), printed as
/// cel-go prints it; the caller prefixes what failed (`compilation failed: `, ...).
#[derive(Clone, Debug, thiserror::Error)]
pub enum ExpressionError {
    /// Parse or type-check issues (cel-go's `Issues.Err()`).
    #[error("{0}")]
    Issues(cel::Issues),
    /// A constant pattern of Kubernetes' `find`/`findAll` that does not compile
    /// (`library/regex.go`'s compile-time check): Go's regexp error text.
    #[error("{0}")]
    Pattern(cel::go::regexp::RegexError),
    /// The planner's issues (cel-go's `env.Program` error): messages sorted, joined by `; `.
    #[error("{}", planner_messages(.0))]
    Plan(cel::Issues),
    /// A [`CheckedExpression`] holding neither a parsed nor a checked tree.
    #[error("the expression has no parsed form")]
    NoParsedForm,
}

/// The planner's messages in source order, joined as [`ExpressionError::Plan`] prints them.
fn planner_messages(issues: &cel::Issues) -> String {
    issues
        .sorted()
        .iter()
        .map(|x| x.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// A fresh `selfType<N>` name (Kubernetes uses the nanoseconds of the clock).
pub fn unique_self_type_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("selfType{nanos}")
}

/// The environments of one node: up to four, derived on first use (view × optional `oldSelf`)
/// from the shared base environment of the view.
struct NodeEnvs<'a> {
    loader: &'a EnvLoader,
    self_type: Type,
    provider: Arc<NamedDeclTypes>,
    built: [[Option<Env>; 2]; 2],
}

impl NodeEnvs<'_> {
    fn get(&mut self, kind: EnvKind, optional_old_self: bool) -> &Env {
        let k = usize::from(kind == EnvKind::StoredExpressions);
        let o = usize::from(optional_old_self);
        let slot = &mut self.built[k][o];
        slot.get_or_insert_with(|| {
            let old_type = if optional_old_self {
                Type::optional(self.self_type.clone())
            } else {
                self.self_type.clone()
            };
            let provider: Arc<dyn cel::checker::TypeProvider> = self.provider.clone();
            self.loader.spec(kind).env().with_declarations(
                [
                    (SCOPED_VAR_NAME, self.self_type.clone()),
                    (OLD_SCOPED_VAR_NAME, old_type),
                ],
                Some(provider),
            )
        })
    }
}

/// Compiles `rules` against the node `schema` (whose CEL type is built as a resource root when
/// `is_resource_root`; the rules are usually the node's own, or those of one of its `allOf`
/// entries). Fails (Kubernetes' "rule compiler initialization error") when the node has rules
/// but no CEL type.
pub fn compile_node(
    schema: &Arc<Structural>,
    rules: &[ValidationRule],
    is_resource_root: bool,
    loader: &EnvLoader,
) -> Result<Vec<CompiledRule>, NodeError> {
    compile_node_with_type(schema, rules, is_resource_root, None, loader)
}

/// [`compile_node`] with the node's CEL type already at hand: `decl`, when given, must be what
/// `DeclType::from_schema(schema, is_resource_root, _)` returns (under any name; the rules see
/// its object types under a fresh `selfType<N>` name all the same). Validators built for a whole
/// schema pass the subtrees of one type built at the root instead of rebuilding one per node.
pub fn compile_node_with_type(
    schema: &Arc<Structural>,
    rules: &[ValidationRule],
    is_resource_root: bool,
    decl: Option<&Arc<DeclType>>,
    loader: &EnvLoader,
) -> Result<Vec<CompiledRule>, NodeError> {
    if rules.is_empty() {
        return Ok(Vec::new());
    }
    let self_type_name = unique_self_type_name();
    let decl = match decl {
        Some(d) => d.clone(),
        None => DeclType::from_schema(schema, is_resource_root, &self_type_name)
            .ok_or(NodeError::NoDeclType)?,
    };
    let key = memo::Key::new(&decl, rules, is_resource_root, loader);
    if let Some(compiled) = key.as_ref().and_then(memo::get) {
        return Ok(compiled);
    }
    let max_cardinality = decl.max_cardinality();
    let types = NamedDeclTypes::new(decl.clone(), &self_type_name);
    let mut envs = NodeEnvs {
        loader,
        self_type: types.root_type(),
        provider: Arc::new(types),
        built: Default::default(),
    };
    let compiled: Vec<CompiledRule> = rules
        .iter()
        .map(|rule| compile_rule(schema, rule, &decl, &mut envs, max_cardinality))
        .collect();
    if let Some(key) = key {
        memo::put(key, &compiled);
    }
    Ok(compiled)
}

fn compile_rule(
    schema: &Arc<Structural>,
    rule: &ValidationRule,
    decl: &Arc<DeclType>,
    envs: &mut NodeEnvs<'_>,
    max_cardinality: u64,
) -> CompiledRule {
    let mut out = CompiledRule::empty(rule, max_cardinality);
    if rule.rule.trim().is_empty() {
        return out;
    }
    let optional_old_self = rule.optional_old_self == Some(true);
    let version = envs.loader.version;
    let kind = envs.loader.kind_for(&rule.rule);
    let env = envs.get(kind, optional_old_self);
    let checked = match check_expression(env, &rule.rule) {
        Ok(c) => c,
        Err(text) => {
            out.error = Some(RuleError::Compile(text));
            return out;
        }
    };
    if checked
        .result_type
        .as_ref()
        .is_some_and(|t| *t != Type::Bool)
    {
        out.error = Some(RuleError::NotBool);
        return out;
    }
    out.uses_old_self = checked.uses_old_self;
    let program = match plan(env, &checked) {
        Ok(p) => p,
        Err(text) => {
            out.error = Some(RuleError::Instantiation(text));
            return out;
        }
    };
    match estimate::max_cost(env, checked.checked.as_ref(), decl, version) {
        Ok(c) => out.max_cost = c,
        Err(e) => {
            out.error = Some(RuleError::CostEstimation(e));
            return out;
        }
    }
    out.program = Some(program);

    if !rule.message_expression.is_empty() {
        let kind = envs.loader.kind_for(&rule.message_expression);
        let env = envs.get(kind, optional_old_self);
        let checked = match check_expression(env, &rule.message_expression) {
            Ok(c) => c,
            Err(text) => {
                out.message_expression_error = Some(RuleError::MessageCompile(text));
                return out;
            }
        };
        if checked
            .result_type
            .as_ref()
            .is_some_and(|t| *t != Type::String)
        {
            out.message_expression_error = Some(RuleError::MessageNotString);
            return out;
        }
        let program = match plan(env, &checked) {
            Ok(p) => p,
            Err(text) => {
                out.message_expression_error = Some(RuleError::MessageInstantiation(text));
                return out;
            }
        };
        match estimate::max_cost(env, checked.checked.as_ref(), decl, version) {
            Ok(c) => out.message_expression_max_cost = c,
            Err(e) => {
                out.message_expression_error = Some(RuleError::MessageCostEstimation(e));
                return out;
            }
        }
        out.message_expression = Some(program);
    }
    if !rule.field_path.is_empty()
        && let Ok((path, _)) = valid_field_path(&rule.field_path, schema)
    {
        out.normalized_field_path = path.to_string();
    }
    out
}

/// A parsed and (when the engine has a type checker) checked expression.
pub struct CheckedExpression {
    /// The parsed expression when it has no checked form (`None` when `checked` holds it).
    pub ast: Option<cel::syntax::Ast>,
    /// The checked expression (`None` without a type checker).
    pub checked: Option<CheckedAst>,
    /// The checked result type (`None` without a type checker).
    pub result_type: Option<Type>,
    /// Whether the expression refers to the variable `oldSelf`.
    pub uses_old_self: bool,
}

/// Parses and type-checks `text` with `env`, which runs the environment's literal validators
/// ([`EnvSpec::has_literal_validators`]; cel-go's `env.Compile`) — with [`plan`], the single
/// place expressions are compiled.
///
/// The engine's checker records a type for every node it checks; while it is not available
/// (`Env::check` returns no types), there is no result type, and `oldSelf` use is found
/// syntactically.
pub fn check_expression(env: &Env, text: &str) -> Result<CheckedExpression, ExpressionError> {
    let ast = env.parse(text).map_err(ExpressionError::Issues)?;
    // The tree is checked in place, not copied.
    let checked = env.check_owned(ast).map_err(ExpressionError::Issues)?;
    if checked.types.is_empty() {
        let uses_old_self = refers_to(&checked.ast.expr, OLD_SCOPED_VAR_NAME);
        return Ok(CheckedExpression {
            ast: Some(checked.ast),
            checked: None,
            result_type: None,
            uses_old_self,
        });
    }
    let uses_old_self = checked
        .references
        .values()
        .any(|r| r.name == OLD_SCOPED_VAR_NAME);
    Ok(CheckedExpression {
        result_type: Some(checked.result_type().clone()),
        ast: None,
        checked: Some(checked),
        uses_old_self,
    })
}

/// Plans a checked expression into a program (cel-go's `env.Program` with Kubernetes' options,
/// which the environment carries).
pub fn plan(env: &Env, e: &CheckedExpression) -> Result<Program, ExpressionError> {
    let ast = match (&e.checked, &e.ast) {
        (Some(c), _) => &c.ast,
        (None, Some(a)) => a,
        (None, None) => return Err(ExpressionError::NoParsedForm),
    };
    if env.function("find").is_some()
        && let Some(err) = crate::library::regex::constant_pattern_error(&ast.expr)
    {
        return Err(ExpressionError::Pattern(err));
    }
    let planned = match &e.checked {
        Some(c) => env.program_checked(c),
        None => env.program(ast),
    };
    planned.map_err(ExpressionError::Plan)
}

/// Whether `e` refers to the free variable `name` (not shadowed by a comprehension variable).
fn refers_to(e: &Expr, name: &str) -> bool {
    let mut stack: Vec<&Expr> = vec![e];
    // Shadowed subtrees are skipped: a comprehension binding `name` hides it in its condition,
    // step and result (accumulator) or condition and step (iteration variables).
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Ident(n) => {
                if n == name {
                    return true;
                }
            }
            ExprKind::Literal(_) => {}
            ExprKind::Select(s) => stack.push(&s.operand),
            ExprKind::Call(c) => {
                stack.extend(c.target.iter());
                stack.extend(c.args.iter());
            }
            ExprKind::List(l) => stack.extend(l.elements.iter()),
            ExprKind::Map(entries) => {
                for m in entries {
                    stack.push(&m.key);
                    stack.push(&m.value);
                }
            }
            ExprKind::Struct(s) => stack.extend(s.fields.iter().map(|f| &f.value)),
            ExprKind::Comprehension(c) => {
                stack.push(&c.iter_range);
                stack.push(&c.accu_init);
                let iter_shadows = c.iter_var == name || c.iter_var2.as_deref() == Some(name);
                let accu_shadows = c.accu_var == name;
                if !iter_shadows && !accu_shadows {
                    stack.push(&c.loop_condition);
                    stack.push(&c.loop_step);
                }
                if !accu_shadows {
                    stack.push(&c.result);
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema_props::JsonSchemaProps;
    use serde_json::json;

    fn node(v: serde_json::Value) -> Arc<Structural> {
        let props: JsonSchemaProps = serde_json::from_value(v).expect("props");
        Arc::new(Structural::from_props(&props).expect("structural"))
    }

    #[test]
    fn compiles_rules_and_reports_errors() {
        let s = node(json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "m": {"type": "object", "additionalProperties": {"type": "string"}}},
            "x-kubernetes-validations": [
                {"rule": "self.a > 0"},
                {"rule": "  "},
                {"rule": "self.a >"},
                {"rule": "self.a == oldSelf.a", "fieldPath": ".m['k']"},
                {"rule": "true", "messageExpression": "'x' +"},
                {"rule": "self.all(oldSelf, oldSelf != '')"}
            ]
        }));
        let rules = compile_node(
            &s,
            &s.extensions.validations,
            false,
            &EnvLoader::create(KubeVersion::NEWEST),
        )
        .expect("node compiles");
        assert_eq!(rules.len(), 6);
        assert!(rules[0].program.is_some() && rules[0].error.is_none());
        assert!(!rules[0].uses_old_self);
        assert!(rules[1].program.is_none() && rules[1].error.is_none());
        let e = rules[2].error.as_ref().expect("syntax error");
        assert!(
            e.to_string()
                .starts_with("compilation failed: ERROR: <input>:1:9: Syntax error:"),
            "{e}"
        );
        assert!(rules[3].uses_old_self);
        assert_eq!(rules[3].normalized_field_path, "m[k]");
        assert!(rules[4].program.is_some());
        let me = rules[4]
            .message_expression_error
            .as_ref()
            .expect("bad message");
        assert!(
            me.to_string()
                .starts_with("messageExpression compilation failed: ERROR:")
        );
        assert!(
            !rules[5].uses_old_self,
            "shadowed oldSelf is not the variable"
        );
    }

    #[test]
    fn nodes_without_cel_type_fail_to_initialise() {
        let s = node(json!({
            "x-kubernetes-preserve-unknown-fields": true,
            "x-kubernetes-validations": [{"rule": "true"}]
        }));
        let loader = EnvLoader::runtime(KubeVersion::NEWEST);
        assert!(compile_node(&s, &s.extensions.validations, false, &loader).is_err());
    }

    #[test]
    fn self_type_names_are_fresh_looking() {
        let n = unique_self_type_name();
        assert!(n.starts_with("selfType") && n[8..].chars().all(|c| c.is_ascii_digit()));
    }
}
