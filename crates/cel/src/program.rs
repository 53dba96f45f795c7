//! Programs: planned expressions, ready to evaluate many times, from many threads.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::activation::Activation;
use crate::checker::CheckedAst;
use crate::diagnostics::Issues;
use crate::env::Env;
use crate::error::EvalResult;
use crate::eval::Plan;
use crate::syntax::Ast;
use crate::value::Value;

/// A compiled expression. `Send + Sync`; evaluate it as often as needed.
#[derive(Clone)]
pub struct Program {
    plan: Arc<Plan>,
}

/// Limits and hooks of one evaluation.
#[derive(Clone, Copy, Default)]
pub struct EvalOptions<'a> {
    /// Track the runtime cost as cel-go does; reported in [`Evaluation::cost`].
    pub track_cost: bool,
    /// Stop with `operation cancelled: actual cost limit exceeded` past this cost
    /// (implies tracking).
    pub cost_limit: Option<u64>,
    /// Stop when this flag becomes true (checked at least every 100 iterations).
    pub cancel: Option<&'a AtomicBool>,
    /// Stop at this instant (checked at least every 100 iterations).
    pub deadline: Option<Instant>,
}

/// The outcome of [`Program::eval_with`].
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub value: EvalResult,
    /// The runtime cost, when tracked.
    pub cost: Option<u64>,
}

impl Program {
    pub(crate) fn plan(env: &Env, ast: &Ast, checked: Option<&CheckedAst>) -> Result<Self, Issues> {
        Ok(Program {
            plan: Arc::new(Plan::new(env, ast, checked)?),
        })
    }

    /// Evaluates with no limits.
    #[inline]
    pub fn eval(&self, activation: &dyn Activation) -> EvalResult<Value> {
        self.plan.eval(activation, &EvalOptions::default()).value
    }

    /// Evaluates with limits, cancellation and cost tracking as `options` says.
    #[inline]
    pub fn eval_with(&self, activation: &dyn Activation, options: &EvalOptions<'_>) -> Evaluation {
        self.plan.eval(activation, options)
    }
}
