#![deny(missing_docs)]
#![doc = include_str!("../README.md")]
//!
//! ## Layers
//!
//! The layers, bottom up:
//!
//! * [`yaml`]: YAML → JSON exactly as Kubernetes tooling converts it (go-yaml v2 scalars,
//!   string keys, a repeated key keeps its last value and is listed), with line numbers.
//! * [`crd`], [`schema_props`]: the `apiextensions.k8s.io/v1` CRD model and `JSONSchemaProps`
//!   with every field, decoded with serde; [`load`] reads files (multi-document YAML, JSON
//!   streams, `kind: List`) with `file:line:column` errors.
//! * [`structural`]: structural schemas, including the resource-root view (`apiVersion`, `kind`,
//!   `metadata.name`/`generateName`).
//! * [`escaping`], [`decl`]: schema → CEL types (object types named like Kubernetes names them,
//!   a [`cel::checker::TypeProvider`]) with the size bounds the cost estimator needs.
//! * [`values`]: JSON documents as lazy CEL values with Kubernetes' semantics (null fields
//!   absent, set/map-list equality and `+`, formats).
//! * [`field`]: field paths and field errors rendered as Kubernetes renders them.
//! * [`library`]: Kubernetes' CEL function libraries.
//! * [`go`]: ports of Go code (`resource.Quantity`, `net/url`, `encoding/json` floats, RFC 3339
//!   time errors) whose exact texts and results Kubernetes exposes.
//!
//! [`Validator`] (the facade above) sits on top of [`pipeline`] and [`rules`]: per CRD
//! version, `Structural::from_props` once, then per schema node with rules a `DeclType` (named `selfType<N>…`) registered in a `DeclTypeProvider`; per request,
//! the pipeline moves the object into a `values::Json` tree when validation starts (the
//! `serde_json` tree is freed as it converts; every validation walk and the rule step read that
//! tree, and the verdict's object is it, `pipeline::StoredObject`), and `values::to_value` /
//! `root_value` hand each node's rules cheap views of it.

pub mod admission;
pub mod builtins;
pub mod case_compare;
pub mod cases;
mod correlation;
pub mod crd;
pub mod crd_review;
pub mod decl;
pub mod documents;
mod error;
pub mod escaping;
pub mod field;
pub mod gate;
pub mod go;
#[cfg(feature = "k8s-openapi")]
pub mod k8s_openapi_interop;
pub mod kubectl;
pub mod library;
pub mod load;
pub mod name_validation;
pub mod pipeline;
pub mod report;
pub mod rule_review;
pub mod rules;
pub mod schema_props;
pub mod structural;
pub mod test_suite;
pub mod validator;
pub mod values;
pub mod version;
pub mod yaml;
mod yaml_events;
mod yaml_fast;

pub use error::Error;
pub use pipeline::FieldValidation;
pub use validator::{CrdId, Request, Validator, ValidatorBuilder, Verdict};
pub use version::KubeVersion;
