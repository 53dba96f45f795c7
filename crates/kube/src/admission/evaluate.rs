//! Evaluating a list of compiled admission expressions for one request
//! (`k8s.io/apiserver/pkg/admission/plugin/cel/condition.go` `ForInput`, `activation.go`
//! `Evaluate`, `composition.go`: variables evaluated lazily, each at most once per list, their
//! cost charged to the expression that first reads them). Shared by validating policies and
//! by mutating ones (match conditions as a list, each mutation alone: [`evaluate_one`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use cel::go::fmt::quote;
use cel::value::{Key, KeyRef, Map, MapProvider};
use cel::{EvalError, EvalOptions, Program, Value};

use super::authorizer::AuthorizerValues;
use super::environment::{
    AUTHORIZER, CompileError, Compiled, Compiler, NAMESPACE_OBJECT, OBJECT, OLD_OBJECT, Optional,
    PARAMS, REQUEST, REQUEST_RESOURCE_AUTHORIZER, ReturnTypes, VARIABLES,
};
use super::model::NamedExpression;
use crate::rules::env::PER_CALL_LIMIT;

/// `validation failed due to running out of cost budget, …` (`ErrOutOfBudget`).
pub const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// The values of the admission variables for one request.
#[derive(Clone, Debug)]
pub struct Bindings {
    /// `object`: the object written (null for DELETE).
    pub object: Value,
    /// `oldObject`: the stored object (null for CREATE).
    pub old_object: Value,
    /// `request`: the `AdmissionRequest` (`CreateAdmissionRequest`).
    pub request: Value,
    /// `namespaceObject`: the namespace of a namespaced object (null otherwise).
    pub namespace: Value,
    /// `params` (null when the binding has no params).
    pub params: Value,
    /// `authorizer` and `authorizer.requestResource` (`None`: unbound).
    pub authorizer: Option<AuthorizerValues>,
}

/// One compiled expression of a list: its text and its program or compile error.
#[derive(Clone, Debug)]
pub struct Expression {
    /// The expression as written.
    pub text: String,
    /// Its program, or why it does not compile.
    pub compiled: Result<Compiled, CompileError>,
}

impl Expression {
    /// `CompileCELExpression` of `text` with `compiler`, the error kept.
    pub fn compile(
        compiler: &Compiler,
        text: &str,
        returns: ReturnTypes,
        optional: Optional,
    ) -> Expression {
        Expression {
            text: text.to_string(),
            compiled: compiler.compile(text, returns, optional),
        }
    }
}

/// A compiled variable.
#[derive(Clone, Debug)]
pub struct Variable {
    /// The variable's name (`variables.<name>`).
    pub name: String,
    /// Its program, or why it does not compile.
    pub compiled: Result<Compiled, CompileError>,
}

impl Variable {
    /// `CompileAndStoreVariables`: each of a policy's `variables` compiled in order, each
    /// declared in `compiler`'s `variables` for the expressions after it.
    pub fn compile_all(
        compiler: &mut Compiler,
        variables: &[NamedExpression],
        optional: Optional,
    ) -> Arc<[Variable]> {
        variables
            .iter()
            .map(|v| Variable {
                name: v.name.clone(),
                compiled: compiler.compile_variable(&v.name, &v.expression, optional),
            })
            .collect()
    }
}

/// The outcome of one expression (`EvaluationResult`): its value or its error text.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// No expression at this index (a validation without messageExpression).
    Absent,
    /// The expression's value (`EvaluationResult.EvalResult`).
    Value(Value),
    /// Why evaluation failed (`EvaluationResult.Error`).
    Error(EvaluationError),
}

/// `ErrOutOfBudget`: a list's evaluations ran out of their cost budget
/// (`k8s.io/apiserver/pkg/admission/plugin/cel/condition.go` `ForInput`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", OUT_OF_BUDGET)]
pub struct OutOfBudget;

/// Why one expression of a list has no value: the `apiservercel.Error` that
/// `condition.go` `ForInput` records; Display is its `Detail`.
#[derive(Clone, Debug, thiserror::Error)]
pub enum EvaluationError {
    /// The expression did not compile.
    #[error("compilation error: {0}")]
    Compilation(CompileError),
    /// The expression failed at run time.
    #[error("expression '{expression}' resulted in error: {error}")]
    Evaluation {
        /// The expression as written.
        expression: String,
        /// The evaluation error.
        error: cel::EvalError,
    },
}

/// The lazily evaluated `variables` of one list evaluation.
struct LazyVariables {
    variables: Arc<[Variable]>,
    bindings: Bindings,
    values: Vec<OnceLock<cel::EvalResult>>,
    /// The runtime cost limit of one evaluation (the environment's `CostLimit`).
    per_call_limit: u64,
    /// Cost of the variables evaluated since the last expression (`GetAndResetCost`).
    cost: AtomicU64,
    this: Weak<LazyVariables>,
}

impl std::fmt::Debug for LazyVariables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyVariables")
            .field("count", &self.variables.len())
            .finish()
    }
}

impl LazyVariables {
    fn new(
        variables: Arc<[Variable]>,
        bindings: Bindings,
        per_call_limit: u64,
    ) -> Arc<LazyVariables> {
        let values = variables.iter().map(|_| OnceLock::new()).collect();
        Arc::new_cyclic(|this| LazyVariables {
            variables,
            bindings,
            values,
            per_call_limit,
            cost: AtomicU64::new(0),
            this: this.clone(),
        })
    }

    fn index(&self, name: &str) -> Option<usize> {
        // A later variable of the same name shadows an earlier one, as map keys do.
        self.variables.iter().rposition(|v| v.name == name)
    }

    /// `variableAccessor.Callback`.
    fn value(&self, i: usize) -> cel::EvalResult {
        self.values[i]
            .get_or_init(|| {
                let v = &self.variables[i];
                let compiled = match &v.compiled {
                    Ok(c) => c,
                    Err(e) => {
                        return Err(EvalError::msg(format!(
                            "composited variable {} fails to compile: {e}",
                            quote(&v.name)
                        )));
                    }
                };
                let Some(this) = self.this.upgrade() else {
                    return Err(EvalError::msg(format!(
                        "unable to get evaluation details of variable {}",
                        quote(&v.name)
                    )));
                };
                let activation = Activation {
                    bindings: &self.bindings,
                    variables: this,
                };
                let (value, cost) = eval(&compiled.program, &activation, self.per_call_limit);
                self.cost.fetch_add(cost, Ordering::Relaxed);
                value.map_err(|e| {
                    EvalError::msg(format!(
                        "composited variable {} fails to evaluate: {e}",
                        quote(&v.name)
                    ))
                })
            })
            .clone()
    }
}

impl MapProvider for LazyVariables {
    fn len(&self) -> usize {
        self.variables.len()
    }

    fn get(&self, key: KeyRef<'_>) -> Option<Value> {
        self.try_get(key).ok().flatten()
    }

    fn keys(&self) -> Box<dyn Iterator<Item = Key> + '_> {
        Box::new(self.variables.iter().map(|v| Key::from(v.name.as_str())))
    }

    fn try_get(&self, key: KeyRef<'_>) -> cel::EvalResult<Option<Value>> {
        let KeyRef::String(name) = key else {
            return Ok(None);
        };
        self.try_field(name)
    }

    fn try_field(&self, name: &str) -> cel::EvalResult<Option<Value>> {
        match self.index(name) {
            None => Ok(None),
            Some(i) => self.value(i).map(Some),
        }
    }
}

/// `evaluationActivation`: the variables of one list evaluation.
struct Activation<'b> {
    bindings: &'b Bindings,
    variables: Arc<LazyVariables>,
}

impl cel::Activation for Activation<'_> {
    fn resolve(&self, name: &str) -> Option<Value> {
        let b = self.bindings;
        Some(match name {
            OBJECT => b.object.clone(),
            OLD_OBJECT => b.old_object.clone(),
            PARAMS => b.params.clone(),
            REQUEST => b.request.clone(),
            NAMESPACE_OBJECT => b.namespace.clone(),
            VARIABLES => Value::Map(Map::Provided(self.variables.clone())),
            AUTHORIZER => b.authorizer.as_ref()?.authorizer.clone(),
            REQUEST_RESOURCE_AUTHORIZER => b.authorizer.as_ref()?.request_resource.clone(),
            _ => return None,
        })
    }
}

/// Evaluates within `per_call_limit`, returning the value and the runtime cost.
fn eval(
    program: &Program,
    activation: &dyn cel::Activation,
    per_call_limit: u64,
) -> (cel::EvalResult, u64) {
    let options = EvalOptions {
        track_cost: true,
        cost_limit: Some(per_call_limit),
        ..Default::default()
    };
    let e = program.eval_with(activation, &options);
    (e.value, e.cost.unwrap_or(0))
}

/// `condition.ForInput`: evaluates `expressions` in order within `budget`, each evaluation
/// within `celconfig.PerCallLimit` ([`PER_CALL_LIMIT`]); `Err` with the budget error when it
/// runs out. Returns the outcomes and the remaining budget.
pub fn for_input(
    expressions: &[Option<Expression>],
    variables: &Arc<[Variable]>,
    bindings: &Bindings,
    budget: i64,
) -> Result<(Vec<Outcome>, i64), OutOfBudget> {
    for_input_with_limit(expressions, variables, bindings, budget, PER_CALL_LIMIT)
}

/// [`for_input`] with another per-call limit: the `CostLimit` program option of an environment
/// extended as Kubernetes' tests extend it (`condition_test.go` `TestCondition`).
pub fn for_input_with_limit(
    expressions: &[Option<Expression>],
    variables: &Arc<[Variable]>,
    bindings: &Bindings,
    budget: i64,
    per_call_limit: u64,
) -> Result<(Vec<Outcome>, i64), OutOfBudget> {
    if expressions.is_empty() {
        return Ok((Vec::new(), budget));
    }
    let lazy = LazyVariables::new(variables.clone(), bindings.clone(), per_call_limit);
    let mut remaining = budget;
    let mut out = Vec::with_capacity(expressions.len());
    for e in expressions {
        out.push(match e {
            None => Outcome::Absent,
            Some(e) => evaluate_in(e, &lazy, bindings, &mut remaining)?,
        });
    }
    Ok((out, remaining))
}

/// [`for_input`] of one expression (`MutatingEvaluator.ForInput`: a mutation is evaluated
/// alone, with variables of its own).
pub fn evaluate_one(
    expression: &Expression,
    variables: &Arc<[Variable]>,
    bindings: &Bindings,
    budget: &mut i64,
) -> Result<Outcome, OutOfBudget> {
    let lazy = LazyVariables::new(variables.clone(), bindings.clone(), PER_CALL_LIMIT);
    evaluate_in(expression, &lazy, bindings, budget)
}

/// One expression of a list evaluated with the list's variables, charged to `remaining`.
fn evaluate_in(
    e: &Expression,
    lazy: &Arc<LazyVariables>,
    bindings: &Bindings,
    remaining: &mut i64,
) -> Result<Outcome, OutOfBudget> {
    let compiled = match &e.compiled {
        Ok(c) => c,
        Err(err) => return Ok(Outcome::Error(EvaluationError::Compilation(err.clone()))),
    };
    let activation = Activation {
        bindings,
        variables: lazy.clone(),
    };
    let (value, cost) = eval(&compiled.program, &activation, lazy.per_call_limit);
    let composition = i64::try_from(lazy.cost.swap(0, Ordering::Relaxed)).unwrap_or(i64::MAX);
    if composition > *remaining {
        return Err(OutOfBudget);
    }
    *remaining -= composition;
    match i64::try_from(cost) {
        Ok(c) if c <= *remaining => *remaining -= c,
        _ => return Err(OutOfBudget),
    }
    Ok(match value {
        Ok(v) => Outcome::Value(v),
        Err(error) => Outcome::Error(EvaluationError::Evaluation {
            expression: e.text.clone(),
            error,
        }),
    })
}
