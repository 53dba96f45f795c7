//! Estimated worst-case cost of a rule (`env.EstimateCost` with Kubernetes' `CostEstimator`,
//! reference §8, §10.11, §11.1).
//!
//! Kubernetes estimates every rule and messageExpression with cel-go's static estimator
//! ([`cel::cost::estimate`]), presence tests costing 0, its size estimator answering from the
//! node's [`DeclType`] ([`DeclType::estimate_size`]: the first path element — the variable — is
//! ignored, the answer is `{0, MaxElements}`), and its call estimator
//! ([`crate::library::cost::estimate_call`]).

use std::sync::Arc;

use cel::checker::CheckedAst;
use cel::cost::{
    self, AstNode, CallCostEstimator, CallEstimate, EstimateOptions, Hooks, SizeEstimate,
    SizeEstimator,
};
use cel::syntax::{ExprKind, Literal};
use cel::{Env, Type};

use crate::decl::DeclType;
use crate::library::cost::{Operand, UNKNOWN, estimate_call};
use crate::version::KubeVersion;

/// Kubernetes' size estimator over the node's declared type.
struct DeclSizes<'a> {
    root: &'a DeclType,
}

impl DeclSizes<'_> {
    fn at<'p>(&self, path: impl IntoIterator<Item = &'p str>) -> Option<SizeEstimate> {
        let max = self.root.estimate_size(path)?;
        Some(SizeEstimate::new(0, u64::try_from(max).unwrap_or(0)))
    }
}

impl SizeEstimator for DeclSizes<'_> {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        self.at(node.path().iter().map(String::as_str))
    }
}

/// Kubernetes' call estimator (`library.CostEstimator.EstimateCallCost`)
/// over a host size estimator (its `SizeEstimator` field): CRD rules use the
/// schema's sizes, Kubernetes' library cost tests a `{0, 12}` estimate for
/// every string.
pub struct KubeCalls<'a> {
    sizes: &'a dyn SizeEstimator,
}

impl<'a> KubeCalls<'a> {
    /// An estimator answering sizes from `sizes`.
    pub fn new(sizes: &'a dyn SizeEstimator) -> Self {
        KubeCalls { sizes }
    }

    fn operand<'n>(&self, n: &AstNode<'n>) -> Operand<'n> {
        let size = cost::size_of(self.sizes, n);
        // Kubernetes' `listElementNode`: an element node at `path + @items`
        // with the element type, sized by the host estimator alone.
        let elem_size = match n.ty() {
            Type::List(elem) => {
                let mut elem_path = n.path().to_vec();
                elem_path.push("@items".to_string());
                let node = AstNode::new(&elem_path, elem, n.expr(), None);
                self.sizes.estimate_size(&node).map_or(UNKNOWN, Into::into)
            }
            _ => UNKNOWN,
        };
        let int_literal = match &n.expr().kind {
            ExprKind::Literal(Literal::Int(i)) => Some(*i),
            _ => None,
        };
        Operand {
            ty: n.ty(),
            size: size.into(),
            computed_size: n.computed_size().map(Into::into),
            elem_size,
            int_literal,
        }
    }
}

impl CallCostEstimator for KubeCalls<'_> {
    fn estimate_call_cost(
        &self,
        function: &str,
        overload_id: &str,
        target: Option<&AstNode<'_>>,
        args: &[AstNode<'_>],
    ) -> Option<CallEstimate> {
        let target = target.map(|t| self.operand(t));
        let args: Vec<Operand<'_>> = args.iter().map(|a| self.operand(a)).collect();
        let e = estimate_call(function, overload_id, target.as_ref(), &args)?;
        Some(CallEstimate {
            cost: e.cost.into(),
            result_size: e.result_size.map(Into::into),
        })
    }
}

/// The estimated maximal cost of `checked` (`None` for expressions the engine could not type
/// check, which have no types to estimate with), or the estimator's error.
pub fn max_cost(
    env: &Env,
    checked: Option<&CheckedAst>,
    decl: &Arc<DeclType>,
    version: KubeVersion,
) -> Result<Option<u64>, cost::EstimateError> {
    let Some(checked) = checked else {
        return Ok(None);
    };
    estimate_with_sizes(env, checked, &DeclSizes { root: decl }, version).map(|c| Some(c.max))
}

/// cel-go's estimate with Kubernetes' options and call estimator over `sizes`.
fn estimate_with_sizes(
    env: &Env,
    checked: &CheckedAst,
    sizes: &dyn SizeEstimator,
    version: KubeVersion,
) -> Result<cost::CostEstimate, cost::EstimateError> {
    let calls = KubeCalls::new(sizes);
    let options = EstimateOptions {
        presence_test_cost: 0,
        version: version.cel_go(),
    };
    let hooks = Hooks {
        size: sizes,
        calls: &calls,
    };
    cost::estimate(checked, env, &options, hooks)
}

/// The estimated cost range of `checked` in a Kubernetes environment without a schema: Kubernetes'
/// call estimator ([`KubeCalls`]) with no size knowledge of the variables (cel-go's defaults), as
/// `kcel eval --kube --cost` reports it.
pub fn estimate_unsized(
    env: &Env,
    checked: &CheckedAst,
    version: KubeVersion,
) -> Result<cost::CostEstimate, cost::EstimateError> {
    estimate_with_sizes(env, checked, &cost::NoEstimates, version)
}
