//! Everything kube-apiserver checks when a CRD is written: the structural,
//! placement and default rules of the schema ([`crate::pipeline::crd_validation`])
//! and the CEL rules with their cost budgets ([`crate::rules::crd_check`]).

use crate::crd::CustomResourceDefinition;
use crate::field::FieldError;
use crate::pipeline::{KubeVersion, crd_validation};
use crate::rules::crd_check::{CheckOptions, check_crd};

/// The errors that would make kube-apiserver reject `crd` (created, or
/// replacing `old`) in Kubernetes `version`. Empty when it is accepted.
pub fn validate_crd(
    crd: &CustomResourceDefinition,
    old: Option<&CustomResourceDefinition>,
    version: KubeVersion,
) -> Vec<FieldError> {
    let mut errors = match old {
        Some(o) => crd_validation::validate_crd_update(crd, o, version),
        None => crd_validation::validate_crd(crd, version),
    };
    let report = check_crd(crd, &CheckOptions { version, old });
    errors.extend(report.errors);
    errors
}
