//! The errors of the [`crate::Validator`] facade: requests that cannot be answered at all (as
//! opposed to objects that are invalid, which are answers).

use crate::builtins::BuiltinError;
use crate::documents::DocumentError;
use crate::load::LoadError;
use crate::pipeline::PipelineError;
use crate::rules::RuleStepError;
use crate::validator::CrdId;

/// Why a request (or loading its CRDs) failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A CRD file could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// Input documents could not be read.
    #[error(transparent)]
    Documents(#[from] DocumentError),
    /// Neither a CRD given nor a built-in kind of the selected release (nor an OpenAPI
    /// document given) serves the object's `apiVersion` and `kind`.
    #[error(
        "no matches for kind {kind:?} in version {api_version:?} (neither a CustomResourceDefinition given nor a built-in kind serves it)"
    )]
    NoMatchingCrd {
        /// The object's `apiVersion`.
        api_version: String,
        /// The object's `kind`.
        kind: String,
    },
    /// The CEL rules of a CRD version cannot be compiled (or the version has no schema).
    #[error("{source}")]
    Rules {
        /// The CRD's name.
        crd: String,
        /// The version.
        version: String,
        /// What is wrong, naming the CRD and version.
        source: RuleStepError,
    },
    /// The CRD has no such version.
    #[error("CRD {crd} has no version {version:?}")]
    NoSuchVersion {
        /// The CRD's name.
        crd: String,
        /// The version asked for.
        version: String,
    },
    /// The CRD version cannot run the pipeline (it does not exist).
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// Built-in schemas cannot be read (a `--schemas` file, or damaged shipped data).
    #[error(transparent)]
    Builtin(#[from] BuiltinError),
    /// A [`CrdId`] of another validator.
    #[error("no CRD {0} in this validator")]
    UnknownCrd(CrdId),
}
