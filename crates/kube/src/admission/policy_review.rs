//! What the server says of an admission policy when it is written: the API validation errors
//! that reject it ([`api_validation::validate_policy`],
//! [`mutating::api_validation::validate_policy`], after the server's defaults) and, for a
//! ValidatingAdmissionPolicy, the type checking warnings it writes into `status.typeChecking`
//! ([`typechecking::check`]), against the kinds the [`Validator`] knows (its CRDs and the
//! built-in kinds).
//!
//! There is no static cost check for policies: the server limits each expression's cost when it
//! runs (`PER_CALL_LIMIT`), not when the policy is written.

use super::api_validation::{self, Environments};
use super::model::{self, ModelError, decode_policy};
use super::mutating::{self, model::is_kind};
use super::typechecking::{self, ExpressionWarning};
use crate::documents::Document;
use crate::field::FieldError;
use crate::validator::Validator;

/// The server's answer to writing one policy.
#[derive(Clone, Debug)]
pub struct PolicyReview {
    /// The policy's kind (`ValidatingAdmissionPolicy` or `MutatingAdmissionPolicy`).
    pub kind: &'static str,
    /// `metadata.name`.
    pub name: String,
    /// The API validation errors (any rejects the policy).
    pub errors: Vec<FieldError>,
    /// `status.typeChecking.expressionWarnings` (none for a MutatingAdmissionPolicy, whose
    /// status has no type checking).
    pub warnings: Vec<ExpressionWarning>,
}

impl PolicyReview {
    /// Whether the server accepts the policy (its warnings do not reject it).
    pub fn accepted(&self) -> bool {
        self.errors.is_empty()
    }
}

/// The policy kind of `doc`, when it is a validating or mutating admission policy.
pub fn policy_kind(doc: &Document) -> Option<&'static str> {
    if model::admission_kind(&doc.value) == Some(model::POLICY_KIND) {
        Some(model::POLICY_KIND)
    } else if is_kind(&doc.value, mutating::model::POLICY_KIND) {
        Some(mutating::model::POLICY_KIND)
    } else {
        None
    }
}

/// Reviews the policy `doc` (`None` when it is no policy) with `validator`'s Kubernetes
/// version and kinds. A ValidatingAdmissionPolicy the server accepts but kcel's model cannot
/// decode is an error.
pub fn review_policy(
    doc: &Document,
    validator: &Validator,
) -> Option<Result<PolicyReview, ModelError>> {
    let kind = policy_kind(doc)?;
    let version = validator.kube_version();
    let envs = Environments::new(version);
    let mut value = doc.value.clone();
    let name = value
        .pointer("/metadata/name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
        .to_string();
    let (errors, warnings) = if kind == model::POLICY_KIND {
        api_validation::default_policy(&mut value);
        let errors = api_validation::validate_policy(&value, &envs);
        let warnings = match decode_policy(doc) {
            Ok(p) => typechecking::check(&p, validator, version),
            Err(e) if errors.is_empty() => return Some(Err(e)),
            Err(_) => Vec::new(),
        };
        (errors, warnings)
    } else {
        mutating::api_validation::default_policy(&mut value);
        (
            mutating::api_validation::validate_policy(&value, &envs),
            Vec::new(),
        )
    };
    Some(Ok(PolicyReview {
        kind,
        name,
        errors,
        warnings,
    }))
}
