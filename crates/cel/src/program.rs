//! Programs: planned expressions, ready to evaluate many times, from many threads.

use std::sync::Arc;

use crate::activation::Activation;
use crate::checker::CheckedAst;
use crate::diagnostics::Issues;
use crate::env::Env;
use crate::error::EvalResult;
use crate::eval::{EvalOptions, Evaluation, Plan};
use crate::syntax::Ast;
use crate::value::Value;

/// A compiled expression. `Send + Sync`; evaluate it as often as needed.
#[derive(Clone)]
pub struct Program {
    plan: Arc<Plan>,
}

impl Program {
    pub(crate) fn plan(env: &Env, ast: &Ast, checked: Option<&CheckedAst>) -> Result<Self, Issues> {
        Ok(Program {
            plan: Arc::new(Plan::new(env, ast, checked)?),
        })
    }

    /// The program of an expression that is one literal.
    pub(crate) fn literal(env: &Env, lit: &crate::syntax::Literal) -> Self {
        Program {
            plan: Arc::new(Plan::literal(env, lit)),
        }
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
