//! Function declarations and their implementations.
//!
//! A [`Function`] is a name with overloads. Each [`Overload`] has cel-go's
//! overload id (`add_int64`, `string_to_timestamp`, ...), a signature used by the
//! checker and by runtime dispatch, and an implementation. Libraries add
//! functions to an [`crate::EnvBuilder`]; the same function name may receive
//! overloads from several libraries.

use std::fmt;
use std::sync::Arc;

use crate::error::EvalResult;
use crate::types::Type;
use crate::value::Value;

/// A stateful implementation.
pub type ClosureFn = Arc<dyn Fn(&[Value]) -> EvalResult + Send + Sync>;

/// An implementation of one overload.
#[derive(Clone)]
pub enum FnImpl {
    /// A plain function of one argument.
    Unary(fn(&Value) -> EvalResult),
    /// A plain function of two arguments.
    Binary(fn(&Value, &Value) -> EvalResult),
    /// Any arity; the receiver of a member call comes first.
    Nary(fn(&[Value]) -> EvalResult),
    /// A closure, for implementations that carry state (configuration, caches).
    Closure(ClosureFn),
}

impl FnImpl {
    /// Calls the implementation. Arity is checked by dispatch beforehand.
    #[inline]
    pub fn call(&self, args: &[Value]) -> EvalResult {
        match self {
            FnImpl::Unary(f) => f(&args[0]),
            FnImpl::Binary(f) => f(&args[0], &args[1]),
            FnImpl::Nary(f) => f(args),
            FnImpl::Closure(f) => f(args),
        }
    }
}

impl fmt::Debug for FnImpl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FnImpl::Unary(_) => "Unary",
            FnImpl::Binary(_) => "Binary",
            FnImpl::Nary(_) => "Nary",
            FnImpl::Closure(_) => "Closure",
        })
    }
}

/// One overload: signature and implementation.
#[derive(Clone, Debug)]
pub struct Overload {
    /// cel-go's overload id, e.g. `add_int64` (shared: checked references
    /// name overloads by it without copying).
    pub id: Arc<str>,
    /// Member (receiver) style: `target.f(args)`; the receiver is `params[0]`.
    pub member: bool,
    /// Parameter types, receiver first for member overloads.
    pub params: Vec<Type>,
    /// The result type.
    pub result: Type,
    /// Names of the type parameters used in `params` and `result`.
    pub type_params: Vec<String>,
    /// `None` for declarations without implementation (checker only), and for
    /// the special forms (`_&&_`, `_||_`, `_?_:_`, `@not_strictly_false`) that the
    /// planner evaluates itself.
    pub imp: Option<FnImpl>,
    /// cel-go's `DisableTypeGuards(true)`: when a call is bound to this
    /// overload alone, its arguments are passed without checking they fit the
    /// parameter types at runtime (ext.Lists' `flatten` accepts any list).
    /// Dispatch among several candidates still checks.
    pub disable_type_guards: bool,
}

impl Overload {
    /// A global overload.
    pub fn global(id: &str, params: Vec<Type>, result: Type, imp: Option<FnImpl>) -> Self {
        Overload {
            id: id.into(),
            member: false,
            params,
            result,
            type_params: Vec::new(),
            imp,
            disable_type_guards: false,
        }
        .with_inferred_type_params()
    }

    /// This overload without runtime type guards (see
    /// [`Overload::disable_type_guards`]).
    pub fn without_type_guards(mut self) -> Self {
        self.disable_type_guards = true;
        self
    }

    /// A member overload; `params[0]` is the receiver.
    pub fn member(id: &str, params: Vec<Type>, result: Type, imp: Option<FnImpl>) -> Self {
        Overload {
            member: true,
            ..Self::global(id, params, result, imp)
        }
    }

    fn with_inferred_type_params(mut self) -> Self {
        let mut names = Vec::new();
        for t in self.params.iter().chain(std::iter::once(&self.result)) {
            collect_type_params(t, &mut names);
        }
        self.type_params = names;
        self
    }
}

fn collect_type_params(t: &Type, out: &mut Vec<String>) {
    match t {
        Type::TypeParam(n) if !out.iter().any(|x| x == &**n) => out.push(n.to_string()),
        Type::List(e) => collect_type_params(e, out),
        Type::Map(k, v) => {
            collect_type_params(k, out);
            collect_type_params(v, out);
        }
        Type::Type(Some(t)) | Type::Wrapper(t) => collect_type_params(t, out),
        Type::Opaque(_, ps) => ps.iter().for_each(|p| collect_type_params(p, out)),
        _ => {}
    }
}

/// The runtime cost of one overload call, attached by the library that
/// defines the overload (cel-go's per-overload cost trackers, e.g. ext.Lists'
/// `sort`): given the arguments (receiver first) and the result (`None` when
/// the call failed), the whole cost of the call node. Arguments are charged
/// separately as they are evaluated; an argument that evaluated to an error
/// is passed as `null` (both have size 1 in every cel-go cost function).
/// Register with [`crate::EnvBuilder::add_overload_cost`].
pub type OverloadCostFn = Arc<dyn Fn(&[&Value], Option<&Value>) -> u64 + Send + Sync>;

/// The runtime cost of the calls of one call site, as a [`RuntimeCostHook`]
/// resolved it: given the arguments (receiver first, failed ones as `null`)
/// and the result (`None` when the call failed), the whole cost of the call,
/// or `None` to fall back to the built-in rules for this call.
pub type CallCostFn = Arc<dyn Fn(&[&Value], Option<&Value>) -> Option<u64> + Send + Sync>;

/// A host's runtime call-cost estimator (cel-go's `ActualCostEstimator`, as
/// Kubernetes installs one), resolved once per call site when a program is
/// planned: given the function name and the overload id the call was bound
/// to (the checked reference's single id, or `""` when the call is dispatched
/// dynamically, exactly as cel-go reports it), the [`CallCostFn`] that prices
/// that site's calls, or `None` when the built-in rules price every one of
/// them (the call then takes the engine's paths that never build an argument
/// list). Consulted after the per-overload cost functions.
/// Install with [`crate::EnvBuilder::runtime_cost_hook`].
pub type RuntimeCostHook = Arc<dyn Fn(&str, &str) -> Option<CallCostFn> + Send + Sync>;

/// A function: a name and its overloads.
#[derive(Clone, Debug)]
pub struct Function {
    /// The function's name (`size`, `_+_`, `strings.quote`, ...).
    pub name: String,
    /// Its overloads, in the order declared.
    pub overloads: Vec<Overload>,
}

impl Function {
    /// A function named `name` without overloads.
    pub fn new(name: &str) -> Self {
        Function {
            name: name.to_string(),
            overloads: Vec::new(),
        }
    }

    /// Adds overload `o`.
    pub fn overload(mut self, o: Overload) -> Self {
        self.overloads.push(o);
        self
    }
}
