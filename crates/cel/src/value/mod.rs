//! Runtime values.
//!
//! [`Value`] is cheap to clone: scalars are inline, everything else sits behind
//! an `Arc`. Lists and maps are either plain (built by CEL or by a caller) or
//! provided by the caller through [`ListProvider`] / [`MapProvider`], which lets
//! a host expose its own documents (JSON, Kubernetes objects) without converting
//! them first.

mod compare;
mod display;
mod json;
mod key;
mod list;
mod map;
mod opaque;
mod time;

use std::sync::Arc;

pub use compare::numeric_cmp;
pub use key::{Key, KeyRef};
pub use list::{List, ListProvider};
pub use map::{Map, MapProvider};
pub use opaque::Opaque;
pub use time::{Civil, Duration, Timestamp};

use crate::types::Type;

/// A CEL value.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
    List(List),
    Map(Map),
    Timestamp(Timestamp),
    Duration(Duration),
    /// A type value (`int`, `type(x)`).
    Type(Arc<Type>),
    /// `optional.of(v)` (`Some`) or `optional.none()` (`None`).
    Optional(Option<Arc<Value>>),
    /// A value of a type defined by a library (Kubernetes' Quantity, IP, ...).
    Opaque(Arc<dyn Opaque>),
}

impl Value {
    pub fn string(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    pub fn bytes(b: impl Into<Arc<[u8]>>) -> Value {
        Value::Bytes(b.into())
    }

    pub fn list(values: Vec<Value>) -> Value {
        Value::List(List::from(values))
    }

    pub fn type_value(t: Type) -> Value {
        Value::Type(Arc::new(t))
    }

    pub fn optional_of(v: Value) -> Value {
        Value::Optional(Some(Arc::new(v)))
    }

    pub fn optional_none() -> Value {
        Value::Optional(None)
    }

    /// The runtime type of the value, as `type(v)` returns it.
    pub fn runtime_type(&self) -> Type {
        match self {
            Value::Null => Type::Null,
            Value::Bool(_) => Type::Bool,
            Value::Int(_) => Type::Int,
            Value::Uint(_) => Type::Uint,
            Value::Double(_) => Type::Double,
            Value::String(_) => Type::String,
            Value::Bytes(_) => Type::Bytes,
            Value::List(_) => Type::list(Type::Dyn),
            Value::Map(_) => Type::map(Type::Dyn, Type::Dyn),
            Value::Timestamp(_) => Type::Timestamp,
            Value::Duration(_) => Type::Duration,
            Value::Type(_) => Type::Type(None),
            Value::Optional(_) => Type::optional(Type::Dyn),
            Value::Opaque(o) => o.runtime_type(),
        }
    }

    /// The name of the runtime type (`int`, `list`, `google.protobuf.Duration`, ...).
    pub fn type_name(&self) -> &str {
        match self {
            Value::Null => "null_type",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Uint(_) => "uint",
            Value::Double(_) => "double",
            Value::String(_) => "string",
            Value::Bytes(_) => "bytes",
            Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Timestamp(_) => "google.protobuf.Timestamp",
            Value::Duration(_) => "google.protobuf.Duration",
            Value::Type(_) => "type",
            Value::Optional(_) => "optional_type",
            Value::Opaque(o) => o.type_name(),
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}

impl From<u64> for Value {
    fn from(u: u64) -> Self {
        Value::Uint(u)
    }
}

impl From<f64> for Value {
    fn from(d: f64) -> Self {
        Value::Double(d)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s.into())
    }
}

impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Self {
        Value::list(v)
    }
}
