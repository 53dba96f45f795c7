//! Kubernetes' CEL libraries, as kube-apiserver declares them
//! (`k8s.io/apiserver/pkg/cel/library`): the same function names, overload ids,
//! signatures, semantics and error texts.
//!
//! Each library is a [`cel::Library`]; the Kubernetes base environment installs
//! them by compatibility version (reference §9):
//!
//! | library | type(s) | since |
//! |---|---|---|
//! | [`lists::Lists`] (v0, v1 adds `includes`) | — | 1.0 / 1.37 |
//! | [`regex::RegexLib`] | — | 1.0 |
//! | [`urls::Urls`] | `kubernetes.URL` | 1.0 |
//! | [`authz::Authz`], [`authz::AuthzSelectors`] | `kubernetes.authorization.*` | 1.27 / 1.31 |
//! | [`quantity::QuantityLib`] | `kubernetes.Quantity` | 1.28 |
//! | [`ip::Ip`], [`cidr::Cidr`] | `net.IP`, `net.CIDR` | 1.30 |
//! | [`format::FormatLib`] | `kubernetes.NamedFormat` | 1.31 |
//! | [`semver::SemverLib`] (v0, v1 adds normalization) | `kubernetes.Semver` | 1.33 |
//! | [`jsonpatch::JsonPatch`] (MutatingAdmissionPolicy only) | — | — |
//!
//! [`cost`] holds Kubernetes' cost functions (`library/cost.go`) as plain
//! functions for the engine's cost hooks.

pub mod authz;
pub mod cidr;
mod common;
pub mod cost;
pub mod format;
pub mod ip;
pub mod jsonpatch;
pub mod lists;
pub mod quantity;
pub mod regex;
pub mod semver;
pub mod urls;

pub use common::{
    CIDR_TYPE_NAME, FORMAT_TYPE_NAME, IP_TYPE_NAME, QUANTITY_TYPE_NAME, SEMVER_TYPE_NAME,
    URL_TYPE_NAME, cidr_type, format_type, ip_type, quantity_type, semver_type, url_type,
};
