//! Environments: what expressions may use (libraries, functions, variables,
//! macros, options), and the compile pipeline parse → check → plan.

use crate::name_hash::{NameMap, NameSet};
use std::sync::{Arc, OnceLock};

use crate::cel_go::CelGoVersion;
use crate::checker::{CheckedAst, TypeProvider};
use crate::cost::OverloadEstimateFn;
use crate::diagnostics::Issues;
use crate::functions::{FnImpl, Function, Overload, OverloadCostFn, RuntimeCostHook};
use crate::program::Program;
use crate::syntax::{self, Ast, Macro, ParserOptions};
use crate::types::Type;

/// A set of declarations and behaviour added to an environment as a unit
/// (the standard library, the strings extension, Kubernetes' quantity library...).
pub trait Library {
    /// Adds the library's functions, macros, variables and options.
    fn install(&self, env: &mut EnvBuilder);
}

/// Options that change what compiles and how.
#[derive(Clone, Debug)]
pub struct EnvOptions {
    pub parser: ParserOptions,
    /// Type-check before planning (cel-go's `Compile`). Off: parse only.
    pub check: bool,
    /// Require list and map literals to have one element type (cel-go's
    /// `HomogeneousAggregateLiterals`, a validator run after the check).
    pub homogeneous_aggregate_literals: bool,
    /// Functions whose arguments' list and map literals are exempt from the
    /// homogeneous literal check (cel-go's
    /// `HomogeneousAggregateLiteralExemptFunctions`; the strings extension
    /// adds `format`).
    pub homogeneous_literal_exempt_functions: Vec<String>,
    /// Allow `<`, `<=`, `>`, `>=` across int, uint and double (checker side;
    /// the runtime always supports them).
    pub cross_type_numeric_comparisons: bool,
    /// cel-go's `OptOptimize`: constant list and map literals built once,
    /// conversions of constants folded at plan time.
    pub optimize: bool,
    /// The container (namespace) names are resolved in.
    pub container: String,
    /// Runtime cost of a presence test `has(a.f)` beyond its operand: 1 in
    /// cel-go by default, 0 with Kubernetes' `PresenceTestHasCost(false)`.
    pub presence_test_cost: u64,
    /// Largest list, map (entries) or string/bytes (bytes) evaluation may
    /// build; `None`: unbounded. Exceeding it stops evaluation with an error of
    /// kind `LimitExceeded`.
    pub max_value_size: Option<usize>,
    /// The cel-go release reproduced where releases differ (declarations,
    /// results, error texts; see [`crate::cel_go`]). Applied when the
    /// environment is built.
    pub cel_go: CelGoVersion,
}

impl Default for EnvOptions {
    fn default() -> Self {
        EnvOptions {
            parser: ParserOptions::default(),
            check: true,
            homogeneous_aggregate_literals: false,
            homogeneous_literal_exempt_functions: Vec::new(),
            cross_type_numeric_comparisons: false,
            optimize: false,
            container: String::new(),
            presence_test_cost: 1,
            max_value_size: None,
            cel_go: CelGoVersion::default(),
        }
    }
}

/// Builds an [`Env`].
#[derive(Default)]
pub struct EnvBuilder {
    pub(crate) options: EnvOptions,
    pub(crate) functions: NameMap<String, Function>,
    pub(crate) variables: NameMap<String, Type>,
    pub(crate) type_provider: Option<Arc<dyn TypeProvider>>,
    pub(crate) overload_costs: NameMap<String, OverloadCostFn>,
    pub(crate) cost_hook: Option<RuntimeCostHook>,
    pub(crate) overload_estimators: NameMap<String, OverloadEstimateFn>,
    pub(crate) type_identifiers: NameMap<String, Type>,
}

impl EnvBuilder {
    /// An empty environment: no functions, no macros.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a library.
    pub fn library(mut self, lib: impl Library) -> Self {
        lib.install(&mut self);
        self
    }

    /// Adds a function, merging its overloads into any function of that name.
    /// An overload whose id exists already replaces the earlier one.
    pub fn add_function(&mut self, f: Function) {
        let entry = self
            .functions
            .entry(f.name.clone())
            .or_insert_with(|| Function::new(&f.name));
        for o in f.overloads {
            add_overload(entry, o);
        }
    }

    /// Adds a macro (replacing one of the same name, style and arity).
    pub fn add_macro(&mut self, m: Macro) {
        let macros = &mut self.options.parser.macros;
        macros.retain(|x| {
            !(x.name == m.name
                && x.receiver_style == m.receiver_style
                && x.arg_count == m.arg_count)
        });
        macros.push(m);
    }

    /// Declares a variable.
    pub fn variable(mut self, name: &str, t: Type) -> Self {
        self.add_variable(name, t);
        self
    }

    pub fn add_variable(&mut self, name: &str, t: Type) {
        self.variables.insert(name.to_string(), t);
    }

    /// Supplies object types (fields and their types) from the host.
    pub fn type_provider(mut self, p: Arc<dyn TypeProvider>) -> Self {
        self.type_provider = Some(p);
        self
    }

    /// Attaches a runtime cost function to the overload `id` (see
    /// [`OverloadCostFn`]); it takes precedence over the host hook and the
    /// built-in rules when that overload is called with cost tracking on.
    pub fn add_overload_cost(&mut self, id: &str, f: OverloadCostFn) {
        self.overload_costs.insert(id.to_string(), f);
    }

    /// Attaches a static cost estimator to the overload `id` (cel-go's
    /// `checker.OverloadCostEstimate`, see [`OverloadEstimateFn`]); it takes
    /// precedence over the host's call-cost hook and the built-in estimates in
    /// [`crate::cost::estimate`].
    pub fn add_overload_estimator(&mut self, id: &str, f: OverloadEstimateFn) {
        self.overload_estimators.insert(id.to_string(), f);
    }

    /// Declares a type name usable as an identifier (`net.IP` evaluates to
    /// the type value of `t`); libraries that define opaque types call this.
    pub fn add_type(&mut self, name: &str, t: Type) {
        self.type_identifiers.insert(name.to_string(), t);
    }

    /// Installs the host's runtime call-cost estimator (see [`RuntimeCostHook`]).
    pub fn runtime_cost_hook(mut self, hook: RuntimeCostHook) -> Self {
        self.cost_hook = Some(hook);
        self
    }

    /// Replaces the implementation of overload `id` of `function`, if declared
    /// with one (how [`crate::cel_go::adapt`] installs an older release's).
    pub(crate) fn replace_implementation(&mut self, function: &str, id: &str, imp: FnImpl) {
        let overload = self
            .functions
            .get_mut(function)
            .and_then(|f| f.overloads.iter_mut().find(|o| &*o.id == id));
        if let Some(o) = overload
            && o.imp.is_some()
        {
            o.imp = Some(imp);
        }
    }

    /// Mutable access to the options.
    pub fn options_mut(&mut self) -> &mut EnvOptions {
        &mut self.options
    }

    /// Changes the options.
    pub fn options(mut self, f: impl FnOnce(&mut EnvOptions)) -> Self {
        f(&mut self.options);
        self
    }

    pub fn build(mut self) -> Env {
        crate::cel_go::adapt(&mut self);
        Env {
            inner: Arc::new(EnvInner {
                shared: Arc::new(SharedDecls {
                    options: self.options,
                    functions: self.functions,
                    overload_costs: self.overload_costs,
                    cost_hook: self.cost_hook,
                    overload_estimators: self.overload_estimators,
                    type_identifiers: self.type_identifiers,
                    std_only: OnceLock::new(),
                }),
                variables: self.variables,
                type_provider: self.type_provider,
            }),
        }
    }
}

fn add_overload(f: &mut Function, o: Overload) {
    if let Some(existing) = f.overloads.iter_mut().find(|x| x.id == o.id) {
        *existing = o;
    } else {
        f.overloads.push(o);
    }
}

/// A compile environment. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Env {
    inner: Arc<EnvInner>,
}

pub(crate) struct EnvInner {
    /// What environments derived with [`Env::with_declarations`] share.
    pub(crate) shared: Arc<SharedDecls>,
    pub(crate) variables: NameMap<String, Type>,
    pub(crate) type_provider: Option<Arc<dyn TypeProvider>>,
}

/// The library part of an environment: options, functions and cost settings.
pub(crate) struct SharedDecls {
    pub(crate) options: EnvOptions,
    pub(crate) functions: NameMap<String, Function>,
    pub(crate) overload_costs: NameMap<String, OverloadCostFn>,
    pub(crate) cost_hook: Option<RuntimeCostHook>,
    pub(crate) overload_estimators: NameMap<String, OverloadEstimateFn>,
    pub(crate) type_identifiers: NameMap<String, Type>,
    /// Names of the functions whose overloads all come from the standard
    /// library (computed on first use, see [`Env::has_only_std_overloads`]).
    pub(crate) std_only: OnceLock<NameSet<String>>,
}

impl Env {
    pub fn builder() -> EnvBuilder {
        EnvBuilder::new()
    }

    pub fn options(&self) -> &EnvOptions {
        &self.inner.shared.options
    }

    /// This environment with `variables` declared in addition (replacing any of the same name)
    /// and, when given, `type_provider` instead of its own. The functions, macros, options and
    /// cost settings are shared with this environment, not rebuilt: cheap enough for hosts that
    /// compile against many variable typings with one set of libraries (Kubernetes compiles the
    /// rules of each schema node with its own type of `self`).
    pub fn with_declarations<'a>(
        &self,
        variables: impl IntoIterator<Item = (&'a str, Type)>,
        type_provider: Option<Arc<dyn TypeProvider>>,
    ) -> Env {
        let mut own = self.inner.variables.clone();
        own.extend(variables.into_iter().map(|(n, t)| (n.to_string(), t)));
        Env {
            inner: Arc::new(EnvInner {
                shared: self.inner.shared.clone(),
                variables: own,
                type_provider: type_provider.or_else(|| self.inner.type_provider.clone()),
            }),
        }
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.inner.shared.functions.get(name)
    }

    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.inner.shared.functions.values()
    }

    pub fn variable(&self, name: &str) -> Option<&Type> {
        self.inner.variables.get(name)
    }

    pub fn variables(&self) -> impl Iterator<Item = (&str, &Type)> {
        self.inner.variables.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn type_provider(&self) -> Option<&dyn TypeProvider> {
        self.inner.type_provider.as_deref()
    }

    /// The type provider, shared (object constructions keep it).
    pub(crate) fn shared_type_provider(&self) -> Option<Arc<dyn TypeProvider>> {
        self.inner.type_provider.clone()
    }

    /// A type name declared with [`EnvBuilder::add_type`].
    pub fn type_identifier(&self, name: &str) -> Option<&Type> {
        self.inner.shared.type_identifiers.get(name)
    }

    /// The runtime cost function attached to overload `id`, if any.
    pub fn overload_cost(&self, id: &str) -> Option<&OverloadCostFn> {
        self.inner.shared.overload_costs.get(id)
    }

    /// The static cost estimator attached to overload `id`, if any.
    pub fn overload_estimator(&self, id: &str) -> Option<&OverloadEstimateFn> {
        self.inner.shared.overload_estimators.get(id)
    }

    /// True when function `name` exists and every one of its overloads has a
    /// standard-library overload id, so that the planner may call the
    /// standard implementation directly. Computed once per environment (and
    /// shared by those derived with [`Env::with_declarations`]).
    pub(crate) fn has_only_std_overloads(&self, name: &str) -> bool {
        let shared = &self.inner.shared;
        shared
            .std_only
            .get_or_init(|| {
                let std = crate::library::std::overload_ids_by_function();
                shared
                    .functions
                    .values()
                    .filter(|f| {
                        std.get(f.name.as_str())
                            .is_some_and(|ids| f.overloads.iter().all(|o| ids.contains(&*o.id)))
                    })
                    .map(|f| f.name.clone())
                    .collect()
            })
            .contains(name)
    }

    /// The host's runtime call-cost estimator, if any.
    pub fn cost_hook(&self) -> Option<&RuntimeCostHook> {
        self.inner.shared.cost_hook.as_ref()
    }

    /// Parses (and expands macros).
    pub fn parse(&self, text: &str) -> Result<Ast, Issues> {
        syntax::parse(text, &self.inner.shared.options.parser)
    }

    /// Type-checks a parsed expression.
    pub fn check(&self, ast: &Ast) -> Result<CheckedAst, Issues> {
        crate::checker::check(self, ast)
    }

    /// Parses, checks (when the `check` option is on) and plans.
    pub fn compile(&self, text: &str) -> Result<Program, Issues> {
        let ast = self.parse(text)?;
        if self.inner.shared.options.check {
            let checked = crate::checker::check_owned(self, ast)?;
            self.program_checked(&checked)
        } else {
            self.program(&ast)
        }
    }

    /// Plans an unchecked expression: functions are dispatched on runtime types.
    pub fn program(&self, ast: &Ast) -> Result<Program, Issues> {
        Program::plan(self, ast, None)
    }

    /// Plans a checked expression, using its types and resolved references.
    pub fn program_checked(&self, checked: &CheckedAst) -> Result<Program, Issues> {
        Program::plan(self, &checked.ast, Some(checked))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::Value;
    use crate::library::Std;

    #[test]
    fn derived_environments_add_variables_and_share_functions() {
        let base = EnvBuilder::new()
            .library(Std)
            .variable("a", Type::Int)
            .build();
        let derived = base.with_declarations([("b", Type::String)], None);
        // The base is unchanged; the derived one has both variables and the same functions.
        assert!(base.compile("b == 'x'").is_err());
        assert!(derived.variable("a").is_some());
        assert!(Arc::ptr_eq(&base.inner.shared, &derived.inner.shared));
        let program = derived
            .compile("a + 1 == 2 && b.size() == 1")
            .expect("compiles");
        let vars = HashMap::from([
            ("a".to_string(), Value::Int(1)),
            ("b".to_string(), Value::String("x".into())),
        ]);
        assert!(matches!(program.eval(&vars), Ok(Value::Bool(true))));
        // A redeclared variable takes its new type.
        let retyped = derived.with_declarations([("a", Type::String)], None);
        assert!(retyped.compile("a + 1").is_err());
        assert!(retyped.compile("a + 'x' == b").is_ok());
    }
}
