//! Helpers shared by the Kubernetes libraries: their type names, argument
//! extraction with cel-go's `no such overload` behaviour, and downcasting of
//! opaque values.

use cel::value::Opaque;
use cel::{EvalError, EvalResult, Type, Value};

/// `kubernetes.Quantity`.
pub const QUANTITY_TYPE_NAME: &str = "kubernetes.Quantity";
/// `net.IP`.
pub const IP_TYPE_NAME: &str = "net.IP";
/// `net.CIDR`.
pub const CIDR_TYPE_NAME: &str = "net.CIDR";
/// `kubernetes.URL`.
pub const URL_TYPE_NAME: &str = "kubernetes.URL";
/// `kubernetes.Semver`.
pub const SEMVER_TYPE_NAME: &str = "kubernetes.Semver";
/// `kubernetes.NamedFormat`.
pub const FORMAT_TYPE_NAME: &str = "kubernetes.NamedFormat";

/// The checker type of quantities.
pub fn quantity_type() -> Type {
    Type::opaque(QUANTITY_TYPE_NAME, vec![])
}

/// The checker type of IP addresses.
pub fn ip_type() -> Type {
    Type::opaque(IP_TYPE_NAME, vec![])
}

/// The checker type of CIDRs.
pub fn cidr_type() -> Type {
    Type::opaque(CIDR_TYPE_NAME, vec![])
}

/// The checker type of URLs.
pub fn url_type() -> Type {
    Type::opaque(URL_TYPE_NAME, vec![])
}

/// The checker type of semantic versions.
pub fn semver_type() -> Type {
    Type::opaque(SEMVER_TYPE_NAME, vec![])
}

/// The checker type of named formats.
pub fn format_type() -> Type {
    Type::opaque(FORMAT_TYPE_NAME, vec![])
}

/// The string inside `v`, or cel-go's `no such overload`.
pub(crate) fn string_arg(v: &Value) -> EvalResult<&str> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// The int inside `v`, or `no such overload`.
pub(crate) fn int_arg(v: &Value) -> EvalResult<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// The opaque value of Rust type `T` inside `v`, if it is one.
pub(crate) fn downcast<T: Opaque>(v: &Value) -> Option<&T> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<T>(),
        _ => None,
    }
}

/// Like [`downcast`], failing with `no such overload`.
pub(crate) fn opaque_arg<T: Opaque>(v: &Value) -> EvalResult<&T> {
    downcast::<T>(v).ok_or_else(EvalError::no_such_overload)
}

/// The receiver-and-arguments slice element `i`, or `no such overload` when
/// the arity is wrong (dispatch normally guarantees it).
pub(crate) fn arg(args: &[Value], i: usize) -> EvalResult<&Value> {
    args.get(i).ok_or_else(EvalError::no_such_overload)
}
