//! Everything kube-apiserver checks when a CRD is written
//! (apiextensions-apiserver `pkg/apis/apiextensions/validation`), in one place:
//!
//! * [`schema`]: the structural, placement and default rules of the schemas
//!   (`ValidateCustomResourceDefinition`, `validateCustomResourceDefinitionOpenAPISchema`), with
//!   `go_struct_json.rs` printing a schema as Go's JSON of the internal struct for error values;
//! * `spec.rs`: names, versions, scope, subresources and the rest of the spec, and what an update
//!   may not change; `conversion.rs`: `spec.conversion`;
//! * [`rules`]: the CEL rules of `x-kubernetes-validations` with their cost budgets;
//! * this module: [`review_crd`] runs them all, in the server's order.

use crate::crd::{CRD_GROUP, CRD_KIND, CustomResourceDefinition};
use crate::field::FieldError;
use crate::pipeline::KubeVersion;
use crate::pipeline::status::Status;

mod conversion;
mod go_struct_json;
pub mod rules;
pub mod schema;
mod spec;

pub use crate::rules::env::{STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT};
pub use crate::rules::unbounded::{MissingBound, Unbounded};
pub use rules::ExpressionCost;
use rules::{CheckOptions, check_crd};

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

    /// The errors about the expression at `path` (a rule's or messageExpression's field path,
    /// [`ExpressionCost::path`]): its compile errors and its cost over the per-expression limit.
    pub fn errors_at<'r>(&'r self, path: &'r str) -> impl Iterator<Item = &'r FieldError> + 'r {
        self.errors
            .iter()
            .filter(move |e| e.path.to_string() == path)
    }

    /// The errors not about one expression: the schema's own, and the per-CRD cost total.
    pub fn crd_errors(&self) -> impl Iterator<Item = &FieldError> + '_ {
        let expressions: std::collections::HashSet<&str> =
            self.costs.iter().map(|c| c.path.as_str()).collect();
        self.errors
            .iter()
            .filter(move |e| !expressions.contains(e.path.to_string().as_str()))
    }

    /// The estimated cost total of each schema's rules, which Kubernetes compares with
    /// [`STATIC_ESTIMATED_CRD_COST_LIMIT`]: one total when every version shares the schema
    /// (version `None`), else one per version, in the order of the costs.
    pub fn schema_totals(&self) -> Vec<(Option<&str>, u64)> {
        let mut totals: Vec<(Option<&str>, u64)> = Vec::new();
        for c in &self.costs {
            let version = c.version.as_deref();
            let add = c.total.unwrap_or(0);
            match totals.iter_mut().find(|(v, _)| *v == version) {
                Some((_, t)) => *t = t.saturating_add(add),
                None => totals.push((version, add)),
            }
        }
        totals
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
        Some(o) => schema::validate_crd_update(crd, o, version),
        None => schema::validate_crd(crd, version),
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
