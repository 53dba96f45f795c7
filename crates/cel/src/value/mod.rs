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

pub use key::{Key, KeyRef};
pub use list::{List, ListProvider};
pub use map::{Map, MapProvider, names_equal};
pub use opaque::Opaque;
pub use time::{Civil, Duration, Timestamp};

use crate::types::Type;

/// A CEL value.
///
/// The tag is a full word (`repr(u64)`, same 24 bytes as a one-byte tag and
/// its padding): with a one-byte tag, moving a value copies the bytes after
/// the tag as overlapping partial words, which the processor cannot forward
/// from the stores that wrote them, and every move of a result through
/// memory stalls. Values outside the tag's range still hold `Result` and
/// `Option` around a value (no size change).
#[derive(Clone, Debug)]
#[repr(u64)]
pub enum Value {
    /// `null`.
    Null,
    /// A `bool`.
    Bool(bool),
    /// An `int`.
    Int(i64),
    /// A `uint`.
    Uint(u64),
    /// A `double`.
    Double(f64),
    /// A `string`.
    String(Arc<str>),
    /// A `bytes` value.
    Bytes(Arc<[u8]>),
    /// A list.
    List(List),
    /// A map.
    Map(Map),
    /// A `google.protobuf.Timestamp`.
    Timestamp(Timestamp),
    /// A `google.protobuf.Duration`.
    Duration(Duration),
    /// A type value (`int`, `type(x)`).
    Type(Arc<Type>),
    /// `optional.of(v)` (`Some`) or `optional.none()` (`None`).
    Optional(Option<Arc<Value>>),
    /// A value of a type defined by a library (Kubernetes' Quantity, IP, ...).
    Opaque(Arc<dyn Opaque>),
}

// Three words, a result or an option of a value too.
const _: () = assert!(
    size_of::<Value>() == 24
        && size_of::<Option<Value>>() == 24
        && size_of::<crate::error::EvalResult>() == 24
);

impl Value {
    /// A string value.
    pub fn string(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    /// A bytes value.
    pub fn bytes(b: impl Into<Arc<[u8]>>) -> Value {
        Value::Bytes(b.into())
    }

    /// A list value of `values`.
    pub fn list(values: Vec<Value>) -> Value {
        Value::List(List::from(values))
    }

    /// The type value of `t` (`type(x)`).
    pub fn type_value(t: Type) -> Value {
        Value::Type(Arc::new(t))
    }

    /// `optional.of(v)`.
    pub fn optional_of(v: Value) -> Value {
        Value::Optional(Some(Arc::new(v)))
    }

    /// `optional.none()`.
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

/// Strings up to this many bytes are built on the stack and copied into
/// their shared allocation once (a `String` would be a second allocation).
const STACK_STRING: usize = 128;

/// The concatenation of `parts` as a shared string, allocated once when short.
pub(crate) fn concat_str(parts: &[&str]) -> Arc<str> {
    let len = parts.iter().map(|p| p.len()).sum::<usize>();
    if len <= STACK_STRING {
        let mut buf = [0u8; STACK_STRING];
        let mut at = 0;
        for p in parts {
            if let Some(dst) = buf.get_mut(at..at + p.len()) {
                dst.copy_from_slice(p.as_bytes());
            }
            at += p.len();
        }
        // Concatenated UTF-8 is UTF-8; the check only keeps this safe code.
        if let Some(Ok(s)) = buf.get(..len).map(std::str::from_utf8) {
            return Arc::from(s);
        }
    }
    Arc::from(parts.concat())
}

/// The decimal digits of `n` (with `-` when `negative`) at the end of `buf`;
/// returns where they start.
pub(crate) fn decimal(mut n: u64, negative: bool, buf: &mut [u8; 20]) -> usize {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        at -= 1;
        buf[at] = b'-';
    }
    at
}

/// An integer in decimal as a shared string (one allocation, no formatter).
pub(crate) fn int_str(n: i64) -> Arc<str> {
    decimal_str(n.unsigned_abs(), n < 0)
}

/// An unsigned integer in decimal as a shared string.
pub(crate) fn uint_str(n: u64) -> Arc<str> {
    decimal_str(n, false)
}

fn decimal_str(n: u64, negative: bool) -> Arc<str> {
    let mut buf = [0u8; 20];
    let at = decimal(n, negative, &mut buf);
    // Digits and '-' are ASCII.
    Arc::from(std::str::from_utf8(&buf[at..]).unwrap_or_default())
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
