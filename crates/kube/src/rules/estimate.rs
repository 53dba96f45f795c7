//! Estimated worst-case cost of a rule (`env.EstimateCost` with Kubernetes' `CostEstimator`,
//! reference §8, §10.11, §11.1).
//!
//! Kubernetes estimates every rule and messageExpression with cel-go's static estimator,
//! presence tests costing 0, its size estimator answering from the node's [`DeclType`]
//! ([`DeclType::estimate_size`]: the first path element — the variable — ignored, `{0,
//! MaxElements}`), and its call estimator (`crate::library::cost::estimate_call`).
//!
//! The engine's static estimator needs checked expressions; until the engine has both a type
//! checker and an estimator this module reports "no estimate" (`Ok(None)`), which callers show
//! as such rather than as a cost.

use std::sync::Arc;

use cel::Env;
use cel::checker::CheckedAst;

use super::env::KubeVersion;
use crate::decl::DeclType;

/// The estimated maximal cost of `checked` (`None` when no estimate can be made yet), or the
/// estimator's error text.
pub fn max_cost(
    _env: &Env,
    checked: Option<&CheckedAst>,
    _decl: &Arc<DeclType>,
    _version: KubeVersion,
) -> Result<Option<u64>, String> {
    match checked {
        // Unchecked expressions have no types to estimate with.
        None => Ok(None),
        // The engine has no static cost estimator yet.
        Some(_) => Ok(None),
    }
}
