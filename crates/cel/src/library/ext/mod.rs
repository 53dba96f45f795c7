//! cel-go's extension libraries (`ext.Strings`, `ext.Math`, `ext.Encoders`,
//! `ext.Lists`, `ext.Sets`, the optional-value functions and `ext.Network`),
//! each a [`crate::Library`] with cel-go's function names, overload ids,
//! signatures, versions and error texts.
//!
//! Costs: the libraries whose cel-go versions attach per-overload cost
//! estimators and trackers (ext.Lists v3, ext.Sets) expose them as plain
//! functions in [`cost`]; the planner's cost hook calls them by overload id.

pub(crate) mod bindings;
pub(crate) mod comprehensions;
pub mod cost;
pub(crate) mod encoders;
pub(crate) mod format;
pub(crate) mod lists;
pub(crate) mod math;
pub(crate) mod network;
pub(crate) mod optionals;
pub(crate) mod protos;
pub(crate) mod sets;
pub(crate) mod strings;

pub use bindings::Bindings;
pub use comprehensions::TwoVarComprehensions;
pub use encoders::Encoders;
pub use lists::Lists;
pub use math::Math;
pub use network::{Cidr, Ip, IpParseError, MappedIpv4, Network, parse_ip_with};
pub use optionals::Optionals;
pub use protos::Protos;
pub use sets::Sets;
pub use strings::Strings;

use crate::error::{EvalError, EvalResult};
use crate::value::{List, Value};

/// The version every versioned library uses when none is given: all functions
/// (cel-go's `math.MaxUint32` default).
pub const LATEST: u32 = u32::MAX;

/// cel-go's `no such overload` error for arguments of unexpected types.
fn no_overload() -> EvalError {
    EvalError::no_such_overload()
}

fn as_str(v: &Value) -> EvalResult<&str> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(no_overload()),
    }
}

fn as_int(v: &Value) -> EvalResult<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        _ => Err(no_overload()),
    }
}

fn as_list(v: &Value) -> EvalResult<&List> {
    match v {
        Value::List(l) => Ok(l),
        _ => Err(no_overload()),
    }
}

/// The argument at `i`, or `no such overload` when the call has fewer.
fn arg(args: &[Value], i: usize) -> EvalResult<&Value> {
    args.get(i).ok_or_else(no_overload)
}
