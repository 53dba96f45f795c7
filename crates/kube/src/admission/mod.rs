//! Admission policies offline: ValidatingAdmissionPolicy and MutatingAdmissionPolicy as
//! kube-apiserver's admission plugins run them (`k8s.io/apiserver/pkg/admission/plugin/policy`).
//!
//! * [`model`]: the policy and binding documents, decoded with the server's defaults.
//! * [`authorizer`]: the offline authorizer behind the `authorizer` variable (rules).
//! * [`defaults`]: Go defaulting of built-in kinds, applied before admission.
//! * [`api_validation`]: what the server checks when a policy or binding is created or updated
//!   (ValidatingAdmissionPolicy's, and what MutatingAdmissionPolicy's
//!   [`mutating::api_validation`] shares with it).
//! * [`environment`]: the admission CEL environment and the compiler of policy expressions
//!   (shared with mutating policies).
//! * `selector`: label selectors (`metav1.LabelSelectorAsSelector`), crate-private.
//! * [`request`]: the request being admitted, and the `request` and `namespaceObject` values.
//! * [`evaluate`]: evaluating a list of compiled expressions with lazy variables and the cost
//!   budget.
//! * [`matching`]: which policies and bindings apply to a request (shared with mutating
//!   policies).
//! * [`policy_review`]: what `kcel check` says of a policy: its API validation errors and type
//!   checking warnings.
//! * [`typechecking`]: the type checking the server writes into a policy's
//!   `status.typeChecking`.
//! * [`validating`]: compiling a validating policy and evaluating it for one request.
//! * [`mutating`]: MutatingAdmissionPolicy: API validation, compiling mutations and applying
//!   them (JSON Patch, ApplyConfiguration) with reinvocation.
//! * `policies`: the facade, [`PolicySet`] with [`RequestOptions`] and [`DecodeError`]: the
//!   policies, bindings, Namespaces and params among the inputs, answering for one object
//!   written.
//!
//! The public API: [`PolicySet`] (with [`RequestOptions`], [`DecodeError`]); the models of the
//! four kinds ([`model`], [`mutating::model`]); the answers ([`validating::Answer`] and its
//! decisions, [`mutating::Mutated`], [`mutating::StatusError`], [`mutating::PolicyError`]) and
//! their errors ([`EvaluationError`], [`OutOfBudget`], [`environment::CompileError`],
//! [`mutating::MutationError`]); [`policy_review`], [`typechecking`], [`api_validation`] and
//! [`mutating::api_validation`] for `kcel check`; the request's attributes ([`request`]), its
//! [`authorizer`] and the built-in kinds' [`defaults`]; and, for embedders and the upstream
//! test tables, the admission [`environment::Compiler`], [`matching`], [`evaluate`],
//! [`validating::collect_params`] and the mutation steps ([`mutating::mutate`],
//! [`mutating::patch`], [`mutating::json_patch`], [`mutating::smd`]). Compiling and
//! dispatching validating policies, API validation's shared checks and selectors are
//! crate-private.

pub use evaluate::{EvaluationError, OutOfBudget};
pub use policies::{DecodeError, PolicySet, RequestOptions};

pub mod api_validation;
pub mod authorizer;
pub mod defaults;
pub mod environment;
pub mod evaluate;
pub mod matching;
pub mod model;
pub mod mutating;
mod policies;
pub mod policy_review;
pub mod request;
pub(crate) mod selector;
pub mod typechecking;
pub mod validating;
