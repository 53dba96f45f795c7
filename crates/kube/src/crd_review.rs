//! Everything kube-apiserver checks when a CRD is written: the structural,
//! placement and default rules of the schema ([`crate::pipeline::crd_validation`])
//! and the CEL rules with their cost budgets ([`crate::rules::crd_check`]).

use crate::crd::{CRD_GROUP, CRD_KIND, CustomResourceDefinition};
use crate::field::FieldError;
use crate::pipeline::status::Status;
use crate::pipeline::{KubeVersion, crd_validation};
use crate::rules::crd_check::{CheckOptions, ExpressionCost, check_crd};

/// What reviewing a CRD found.
#[derive(Clone, Debug, Default)]
pub struct CrdReview {
    /// Every reason to reject it, in Kubernetes' order: the schema's own problems (structural
    /// rules, placement, defaults, names and versions) first, then the rules'.
    pub errors: Vec<FieldError>,
    /// Every rule and messageExpression with its estimated cost.
    pub costs: Vec<ExpressionCost>,
}

impl CrdReview {
    /// Whether kube-apiserver would accept the CRD.
    pub fn accepted(&self) -> bool {
        self.errors.is_empty()
    }

    /// The 422 `Invalid` status kube-apiserver answers a rejected write of `crd` with.
    pub fn status(&self, crd: &CustomResourceDefinition, version: KubeVersion) -> Status {
        if self.accepted() {
            return Status::success();
        }
        Status::invalid(
            CRD_GROUP,
            CRD_KIND,
            &crd.metadata.name,
            &self.errors,
            version,
        )
    }
}

/// Reviews `crd` (created, or replacing `old`) as Kubernetes `version` does.
pub fn review_crd(
    crd: &CustomResourceDefinition,
    old: Option<&CustomResourceDefinition>,
    version: KubeVersion,
) -> CrdReview {
    let mut errors = match old {
        Some(o) => crd_validation::validate_crd_update(crd, o, version),
        None => crd_validation::validate_crd(crd, version),
    };
    let mut report = check_crd(crd, &CheckOptions { version, old });
    errors.append(&mut report.errors);
    CrdReview {
        errors,
        costs: report.costs,
    }
}

/// The errors that would make kube-apiserver reject `crd` (created, or
/// replacing `old`) in Kubernetes `version`. Empty when it is accepted.
pub fn validate_crd(
    crd: &CustomResourceDefinition,
    old: Option<&CustomResourceDefinition>,
    version: KubeVersion,
) -> Vec<FieldError> {
    review_crd(crd, old, version).errors
}
