//! CEL validation rules (`x-kubernetes-validations`): compilation at CRD level and evaluation
//! against custom resources, as kube-apiserver does both (reference §2–§4, §9).
//!
//! * [`mod@env`]: the Kubernetes CEL environment by version (1.33–1.37) and view (new or stored
//!   expressions), the limits.
//! * [`compile`]: the rules of one schema node → programs or Kubernetes' compile errors.
//! * [`field_path`]: the `fieldPath` grammar.
//! * [`literals`]: the duration, timestamp and regex literal validators.
//! * [`estimate`]: estimated rule costs.
//! * `memo`: compiled nodes shared between nodes of the same CEL type.
//! * `ratchet`: which failures ratchet (over the crate's one old/new correlation).
//! * [`validator`]: the validator tree and the walk over an object.
//!
//! The checks kube-apiserver makes on the rules when a CRD is written are
//! [`crate::crd_review::rules`].

pub mod compile;
pub mod env;
pub mod estimate;
pub mod field_path;
pub mod literals;
mod memo;
mod ratchet;
pub mod step;
pub mod unbounded;
pub mod validator;

pub use crate::version::KubeVersion;
pub use compile::{CompiledRule, EnvLoader, RuleError, StoredExpressions};
pub use env::{EnvKind, EnvSpec};
pub use step::{CelRuleStep, RuleStepError};
pub use validator::{RuleFindings, SchemaRules};
