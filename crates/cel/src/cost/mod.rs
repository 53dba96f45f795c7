//! The static cost estimate of a checked expression, as cel-go's
//! `checker.Cost` (v0.29) computes it: a {min, max} range of cost units, the
//! number Kubernetes compares against its per-rule and per-CRD limits.
//!
//! The walk (`coster`) gives every node a cost: literals 0, identifiers 1,
//! selections 1 on maps/objects/type parameters and 0 otherwise, presence tests
//! a configurable cost (Kubernetes: 0) plus the operand, list / map / struct
//! literals 10 / 30 / 40 plus their parts, comprehensions their range,
//! initializer and result plus size(range) × (condition + step), bind-shaped
//! comprehensions their parts once, `dyn(x)` 1 + x, and calls their receiver
//! and arguments plus the widest estimate over the overloads the checker kept.
//! A call's own estimate comes from, in order: the estimator a library
//! attached to the overload ([`OverloadEstimateFn`], e.g. ext.Lists v3 and
//! ext.Sets, see `library`), the host's [`CallCostEstimator`], cel-go's
//! built-in table (`builtins`).
//!
//! Sizes (string code points, bytes, list and map entries) drive the numbers:
//! the expression tells them for literals; calls compute them for
//! concatenations, conversions, comprehension results; the host's
//! [`SizeEstimator`] answers for data reached through a field path from a
//! variable ([`AstNode::path`]); scalar types have size 1; the rest is
//! unknown, `{0, u64::MAX}`.
//!
//! ```ignore
//! let checked = env.check(&env.parse("self.all(x, true)")?)?;
//! let cost = cel::cost::estimate(&checked, &env, &EstimateOptions::default(), Hooks::none())?;
//! ```

mod builtins;
mod coster;
mod estimate;
pub(crate) mod hooks;
pub(crate) mod library;
mod path;

use std::fmt;

pub use builtins::{REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR};
pub use estimate::{CostEstimate, SizeEstimate};
pub use hooks::{
    AstNode, CallCostEstimator, CallEstimate, Hooks, NoEstimates, OverloadEstimateFn,
    SizeEstimator, size_of,
};
pub(crate) use library::{install_lists_estimators, install_sets_estimators};

use crate::checker::CheckedAst;
use crate::env::Env;
use crate::syntax::ExprId;

/// How deep the estimator recurses before giving up with
/// [`EstimateError::NestingTooDeep`] (as the checker: deeper trees are
/// rejected by the parser and the checker before they get here).
pub const MAX_NESTING_DEPTH: usize = 750;

use crate::cel_go::CelGoVersion;

/// Options of one estimate.
#[derive(Clone, Debug)]
pub struct EstimateOptions {
    /// Cost of a presence test `has(a.f)` beyond its operand: 1 in cel-go by
    /// default, 0 with `PresenceTestHasCost(false)` (Kubernetes).
    pub presence_test_cost: u64,
    /// The cel-go release to reproduce.
    pub version: CelGoVersion,
}

impl Default for EstimateOptions {
    fn default() -> Self {
        EstimateOptions {
            presence_test_cost: 1,
            version: CelGoVersion::default(),
        }
    }
}

/// Why an estimate could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EstimateError {
    /// The expression nests deeper than [`MAX_NESTING_DEPTH`].
    NestingTooDeep {
        /// The node where the estimator stopped.
        expr_id: ExprId,
        /// The nesting depth allowed.
        limit: usize,
    },
}

impl fmt::Display for EstimateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EstimateError::NestingTooDeep { expr_id, limit } => write!(
                f,
                "cost estimation: expression nested more than {limit} levels deep (at node {expr_id})"
            ),
        }
    }
}

impl std::error::Error for EstimateError {}

/// The estimated cost range of `checked` in `env` (cel-go's `checker.Cost`).
///
/// `env` supplies the per-overload estimators its libraries attached; `hooks`
/// the host's size and call-cost estimators.
pub fn estimate(
    checked: &CheckedAst,
    env: &Env,
    options: &EstimateOptions,
    hooks: Hooks<'_>,
) -> Result<CostEstimate, EstimateError> {
    coster::Coster::new(checked, env, options, hooks).cost(&checked.ast.expr)
}

#[cfg(test)]
mod tests;
