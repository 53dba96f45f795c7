//! What the server says of a ValidatingAdmissionPolicy when it is written: the API validation
//! errors that reject it ([`api_validation::validate_policy`]) and the type checking warnings it
//! writes into `status.typeChecking` ([`typechecking::check`]), against the kinds the
//! [`Validator`] knows (its CRDs and the built-in kinds).
//!
//! There is no static cost check for policies: the server limits each expression's cost when it
//! runs (`PER_CALL_LIMIT`), not when the policy is written.

use super::api_validation;
use super::model::ValidatingAdmissionPolicy;
use super::typechecking::{self, ExpressionWarning};
use crate::field::FieldError;
use crate::validator::Validator;

/// The server's answer to writing one policy.
#[derive(Clone, Debug)]
pub struct PolicyReview {
    /// The API validation errors (any rejects the policy).
    pub errors: Vec<FieldError>,
    /// `status.typeChecking.expressionWarnings`.
    pub warnings: Vec<ExpressionWarning>,
}

impl PolicyReview {
    /// Whether the server accepts the policy (its warnings do not reject it).
    pub fn accepted(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Reviews `policy` (decoded with the server's defaults) with `validator`'s Kubernetes version
/// and kinds.
pub fn review_policy(policy: &ValidatingAdmissionPolicy, validator: &Validator) -> PolicyReview {
    let version = validator.kube_version();
    PolicyReview {
        errors: api_validation::validate_policy(policy, version),
        warnings: typechecking::check(policy, validator, version),
    }
}
