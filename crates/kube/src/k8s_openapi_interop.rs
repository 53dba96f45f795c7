//! Conversions from the `k8s-openapi` crate's types (feature `k8s-openapi`; its `v1_35` API),
//! for embedders that already hold Kubernetes objects as k8s-openapi values (kube-rs clients,
//! controllers).
//!
//! Both directions go through serde JSON, the wire form both models agree on: a k8s-openapi
//! value serializes as the API server would send it (`apiVersion` and `kind` included, unset
//! fields omitted), and kcel's [`crate::crd`] model decodes that JSON as [`crate::load`] decodes a
//! CRD file (same depth limit, same field-path errors).
//!
//! * `CustomResourceDefinition` → [`crate::crd::CustomResourceDefinition`] with `TryFrom`;
//! * any resource (`ValidatingAdmissionPolicy`, `ValidatingAdmissionPolicyBinding`, a built-in
//!   kind to validate) → its JSON document with [`to_document`].

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use serde_json::Value;

use crate::crd::CustomResourceDefinition;
use crate::load::{MAX_CRD_DEPTH, depth_exceeds};

/// Why a k8s-openapi value could not be converted.
#[derive(Debug, thiserror::Error)]
pub enum ConversionError {
    /// The value does not serialize to JSON (a map with non-string keys, a float that is not
    /// finite, ...).
    #[error("{kind} does not serialize to JSON: {source}")]
    Serialize {
        /// The value's kind (`CustomResourceDefinition`, ...).
        kind: &'static str,
        /// serde_json's error.
        source: serde_json::Error,
    },
    /// The CRD's schema nests deeper than kcel reads CRDs ([`MAX_CRD_DEPTH`]).
    #[error("CustomResourceDefinition {name:?} nests deeper than {MAX_CRD_DEPTH} levels")]
    TooDeep {
        /// The CRD's `metadata.name`.
        name: String,
    },
    /// The CRD's JSON does not decode as kcel's model.
    #[error("CustomResourceDefinition {name:?}: {field}: {message}")]
    Decode {
        /// The CRD's `metadata.name`.
        name: String,
        /// The field path (`spec.versions[0].schema`).
        field: String,
        /// serde's error text.
        message: String,
    },
}

/// `object` as the JSON document kcel reads: the wire form, `apiVersion` and `kind` included.
/// For `ValidatingAdmissionPolicy` and `ValidatingAdmissionPolicyBinding` (until kcel has
/// typed policy models), and for objects of built-in kinds to hand to
/// [`crate::Request::create`].
pub fn to_document<T>(object: &T) -> Result<Value, ConversionError>
where
    T: k8s_openapi::Resource + serde::Serialize,
{
    serde_json::to_value(object).map_err(|source| ConversionError::Serialize {
        kind: T::KIND,
        source,
    })
}

impl TryFrom<&apiextensions::CustomResourceDefinition> for CustomResourceDefinition {
    type Error = ConversionError;

    fn try_from(crd: &apiextensions::CustomResourceDefinition) -> Result<Self, ConversionError> {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let document = to_document(crd)?;
        if depth_exceeds(&document, MAX_CRD_DEPTH) {
            return Err(ConversionError::TooDeep { name });
        }
        serde_path_to_error::deserialize(&document).map_err(|e| ConversionError::Decode {
            name,
            field: e.path().to_string(),
            message: e.inner().to_string(),
        })
    }
}

impl TryFrom<apiextensions::CustomResourceDefinition> for CustomResourceDefinition {
    type Error = ConversionError;

    fn try_from(crd: apiextensions::CustomResourceDefinition) -> Result<Self, ConversionError> {
        CustomResourceDefinition::try_from(&crd)
    }
}
