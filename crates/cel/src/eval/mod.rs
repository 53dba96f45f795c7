//! The planner and the interpreter.
//!
//! [`Plan::new`] turns an AST (checked or not) into a tree of evaluation nodes:
//! names resolved to variables, comprehension slots or constants; calls bound to
//! their overloads; constant parts folded. [`Plan::eval`] walks that tree.

use crate::activation::Activation;
use crate::checker::CheckedAst;
use crate::diagnostics::Issues;
use crate::env::Env;
use crate::error::EvalError;
use crate::program::{EvalOptions, Evaluation};
use crate::syntax::Ast;

/// A planned expression.
pub struct Plan {}

impl Plan {
    pub fn new(env: &Env, ast: &Ast, checked: Option<&CheckedAst>) -> Result<Self, Issues> {
        let _ = (env, ast, checked);
        Ok(Plan {})
    }

    pub fn eval(&self, activation: &dyn Activation, options: &EvalOptions<'_>) -> Evaluation {
        let _ = (activation, options);
        Evaluation {
            value: Err(EvalError::msg("interpreter not implemented yet")),
            cost: None,
        }
    }
}
