//! Building an environment: libraries, functions, variables, macros, cost
//! functions and validators gathered before [`crate::Env`] is built (in
//! `env/mod.rs`).

use std::sync::Arc;

use super::decls::AstValidator;
use super::options::EnvOptions;
use crate::checker::TypeProvider;
use crate::cost::hooks::OverloadEstimateFn;
use crate::functions::{FnImpl, Function, Overload, OverloadCostFn, RuntimeCostHook};
use crate::name_hash::NameMap;
use crate::syntax::Macro;
use crate::types::Type;

/// A set of declarations and behaviour added to an environment as a unit
/// (the standard library, the strings extension, Kubernetes' quantity library...).
pub trait Library {
    /// Adds the library's functions, macros, variables and options.
    fn install(&self, env: &mut EnvBuilder);
}

/// Builds an [`Env`](crate::Env).
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
    pub(crate) ast_validators: Vec<Arc<dyn AstValidator>>,
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

    /// Declares a variable (the `&mut` form of [`EnvBuilder::variable`]).
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

    /// Adds an AST validator, run after every successful type check in the
    /// order added (cel-go's `cel.ASTValidators`).
    pub fn add_ast_validator(&mut self, v: Arc<dyn AstValidator>) {
        self.ast_validators.push(v);
    }

    /// Installs the host's runtime call-cost estimator (see [`RuntimeCostHook`]).
    pub fn runtime_cost_hook(mut self, hook: RuntimeCostHook) -> Self {
        self.cost_hook = Some(hook);
        self
    }

    /// Replaces the implementation of overload `id` of `function`, if declared
    /// with one (how `library::adapt` installs an older release's).
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
}

fn add_overload(f: &mut Function, o: Overload) {
    if let Some(existing) = f.overloads.iter_mut().find(|x| x.id == o.id) {
        *existing = o;
    } else {
        f.overloads.push(o);
    }
}
