//! What the estimator shows the host, and the host's two hooks (cel-go's
//! `checker.CostEstimator`, split in two traits): a size estimator for nodes
//! whose size the expression does not tell, and a call-cost estimator for
//! functions the host prices itself. Libraries attach per-overload estimators
//! to the environment ([`OverloadEstimateFn`]).

use std::sync::Arc;

use super::estimate::{CostEstimate, SizeEstimate};
use crate::syntax::Expr;
use crate::types::Type;

/// One expression node as the hooks see it (cel-go's `checker.AstNode`).
#[derive(Clone, Copy, Debug)]
pub struct AstNode<'a> {
    pub(crate) path: &'a [String],
    pub(crate) ty: &'a Type,
    pub(crate) expr: &'a Expr,
    pub(crate) computed_size: Option<SizeEstimate>,
}

impl<'a> AstNode<'a> {
    /// A node for hooks called outside the estimator (tests, adapters).
    pub fn new(
        path: &'a [String],
        ty: &'a Type,
        expr: &'a Expr,
        computed_size: Option<SizeEstimate>,
    ) -> Self {
        AstNode {
            path,
            ty,
            expr,
            computed_size,
        }
    }

    /// The field path from a variable to this node: the variable's name, then
    /// field names and `@items` (list elements), `@keys` / `@values` (map keys
    /// and values), `@indices` (list indices of two-variable comprehensions).
    /// Empty when the node is not reachable from a variable, and for nodes
    /// derived from a comprehension accumulator (argument and receiver nodes
    /// of calls).
    pub fn path(&self) -> &'a [String] {
        self.path
    }

    /// The checked type (`dyn` when the checker recorded none).
    pub fn ty(&self) -> &'a Type {
        self.ty
    }

    /// The expression.
    pub fn expr(&self) -> &'a Expr {
        self.expr
    }

    /// The size the estimator derived for the node (literals, literal lists and
    /// maps, concatenations, results of sized calls, sizes the host already
    /// answered, scalar types); `None` when it knows nothing. Always `None` for
    /// the nodes passed to [`SizeEstimator::estimate_size`].
    pub fn computed_size(&self) -> Option<SizeEstimate> {
        self.computed_size
    }
}

/// The host's answer about the sizes of its data (Kubernetes: worst-case
/// sizes from the OpenAPI schema, found by [`AstNode::path`]).
pub trait SizeEstimator {
    /// The size of `node`, or `None` when the host does not know. Called only
    /// for nodes whose size the expression itself does not tell.
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate>;
}

/// The cost of a call and, for calls producing strings, bytes, lists or maps,
/// the size of the result (cel-go's `checker.CallEstimate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallEstimate {
    /// The cost of the call itself.
    pub cost: CostEstimate,
    /// The size of the result, for calls producing strings, bytes, lists or maps.
    pub result_size: Option<SizeEstimate>,
}

impl CallEstimate {
    /// A cost without result size.
    pub fn cost(cost: CostEstimate) -> Self {
        CallEstimate {
            cost,
            result_size: None,
        }
    }
}

/// The host's pricing of calls (Kubernetes' `library.CostEstimator`).
pub trait CallCostEstimator {
    /// The cost of the call itself, excluding its receiver and arguments (the
    /// estimator adds those), or `None` to fall back to cel-go's built-in
    /// estimates. `target` is the receiver of a member call; `args` are the
    /// parenthesised arguments only.
    fn estimate_call_cost(
        &self,
        function: &str,
        overload_id: &str,
        target: Option<&AstNode<'_>>,
        args: &[AstNode<'_>],
    ) -> Option<CallEstimate>;
}

/// A hook that knows nothing: every size is unknown, every call is priced by
/// the library estimators and cel-go's built-ins.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEstimates;

impl SizeEstimator for NoEstimates {
    fn estimate_size(&self, _node: &AstNode<'_>) -> Option<SizeEstimate> {
        None
    }
}

impl CallCostEstimator for NoEstimates {
    fn estimate_call_cost(
        &self,
        _function: &str,
        _overload_id: &str,
        _target: Option<&AstNode<'_>>,
        _args: &[AstNode<'_>],
    ) -> Option<CallEstimate> {
        None
    }
}

/// The host's hooks for one estimate.
#[derive(Clone, Copy)]
pub struct Hooks<'a> {
    /// The host's sizes of data reached from variables.
    pub size: &'a dyn SizeEstimator,
    /// The host's pricing of calls.
    pub calls: &'a dyn CallCostEstimator,
}

impl Hooks<'static> {
    /// No host knowledge at all.
    pub fn none() -> Self {
        Hooks {
            size: &NoEstimates,
            calls: &NoEstimates,
        }
    }
}

impl Default for Hooks<'static> {
    fn default() -> Self {
        Hooks::none()
    }
}

/// A library's estimator for one overload (cel-go's `checker.FunctionEstimator`
/// bound with `checker.OverloadCostEstimate`): given the host's size estimator,
/// the receiver and the arguments, the cost of the call itself (the receiver
/// and arguments are added by the estimator) and its result size, or `None` to
/// fall back to the host hook and the built-ins. Attach with
/// [`crate::EnvBuilder::add_overload_estimator`].
pub type OverloadEstimateFn = Arc<
    dyn Fn(&dyn SizeEstimator, Option<&AstNode<'_>>, &[AstNode<'_>]) -> Option<CallEstimate>
        + Send
        + Sync,
>;

/// The size of `node` as cel-go's library estimators resolve it: the computed
/// size, else the host's answer, else unknown.
pub fn size_of(estimator: &dyn SizeEstimator, node: &AstNode<'_>) -> SizeEstimate {
    node.computed_size
        .or_else(|| estimator.estimate_size(node))
        .unwrap_or(SizeEstimate::UNKNOWN)
}
