//! CEL types, shared by the checker (static types) and the runtime (type values).

use std::fmt;
use std::sync::Arc;

/// A CEL type.
///
/// Runtime type values (`type(1) == int`) are `Value::Type` and compare by
/// [`Type::runtime_name`], ignoring type parameters, as cel-go does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `dyn`: any type, checked at runtime.
    Dyn,
    /// `null_type`.
    Null,
    /// `bool`.
    Bool,
    /// `int`: signed 64-bit.
    Int,
    /// `uint`: unsigned 64-bit.
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `google.protobuf.Any`.
    Any,
    /// `google.protobuf.Timestamp`.
    Timestamp,
    /// `google.protobuf.Duration`.
    Duration,
    /// `list(T)`.
    List(Arc<Type>),
    /// `map(K, V)`.
    Map(Arc<Type>, Arc<Type>),
    /// The type of a type value; `Type(None)` is the plain `type`.
    Type(Option<Arc<Type>>),
    /// A nullable primitive (`google.protobuf.Int64Value`, ...).
    Wrapper(Arc<Type>),
    /// A message or object type known to a type provider, by full name.
    Object(Arc<str>),
    /// An opaque, parameterized type: `optional_type(T)`, `kubernetes.Quantity`, ...
    Opaque(Arc<str>, Arc<[Type]>),
    /// A type parameter of a function signature.
    TypeParam(Arc<str>),
    /// The type of an expression the checker could not type.
    Error,
}

/// The name of the optional type.
pub const OPTIONAL_TYPE_NAME: &str = "optional_type";

impl Type {
    /// `list(elem)`.
    pub fn list(elem: Type) -> Type {
        Type::List(Arc::new(elem))
    }

    /// `map(key, value)`.
    pub fn map(key: Type, value: Type) -> Type {
        Type::Map(Arc::new(key), Arc::new(value))
    }

    /// `optional_type(inner)`.
    pub fn optional(inner: Type) -> Type {
        Type::Opaque(OPTIONAL_TYPE_NAME.into(), Arc::from([inner]))
    }

    /// `type(t)`: the type of the type value of `t`.
    pub fn type_of(t: Type) -> Type {
        Type::Type(Some(Arc::new(t)))
    }

    /// The type parameter `name` of a function signature.
    pub fn param(name: &str) -> Type {
        Type::TypeParam(name.into())
    }

    /// The opaque type `name(params)`.
    pub fn opaque(name: &str, params: Vec<Type>) -> Type {
        Type::Opaque(name.into(), params.into())
    }

    /// The object (message) type of full name `name`.
    pub fn object(name: &str) -> Type {
        Type::Object(name.into())
    }

    /// The wrapper of primitive `prim` (`google.protobuf.Int64Value` for `int`).
    pub fn wrapper(prim: Type) -> Type {
        Type::Wrapper(Arc::new(prim))
    }

    /// The inner type of `optional_type(T)`.
    pub fn optional_inner(&self) -> Option<&Type> {
        match self {
            Type::Opaque(n, p) if &**n == OPTIONAL_TYPE_NAME && p.len() == 1 => Some(&p[0]),
            _ => None,
        }
    }

    /// The name a runtime type value of this type has: `int`, `list`, `map`,
    /// `google.protobuf.Timestamp`, `optional_type`, the object's name, ...
    pub fn runtime_name(&self) -> &str {
        match self {
            Type::Dyn => "dyn",
            Type::Null => "null_type",
            Type::Bool => "bool",
            Type::Int => "int",
            Type::Uint => "uint",
            Type::Double => "double",
            Type::String => "string",
            Type::Bytes => "bytes",
            Type::Any => "google.protobuf.Any",
            Type::Timestamp => "google.protobuf.Timestamp",
            Type::Duration => "google.protobuf.Duration",
            Type::List(_) => "list",
            Type::Map(_, _) => "map",
            Type::Type(_) => "type",
            Type::Wrapper(p) => match **p {
                Type::Bool => "google.protobuf.BoolValue",
                Type::Int => "google.protobuf.Int64Value",
                Type::Uint => "google.protobuf.UInt64Value",
                Type::Double => "google.protobuf.DoubleValue",
                Type::String => "google.protobuf.StringValue",
                Type::Bytes => "google.protobuf.BytesValue",
                _ => "wrapper",
            },
            Type::Object(n) => n,
            Type::Opaque(n, _) => n,
            Type::TypeParam(n) => n,
            Type::Error => "*error*",
        }
    }

    /// True for `dyn`, type parameters and `Any`, which match any value.
    pub fn is_dyn_like(&self) -> bool {
        matches!(self, Type::Dyn | Type::TypeParam(_) | Type::Any)
    }
}

impl fmt::Display for Type {
    /// Formats as cel-go formats types in messages: `int`, `list(string)`,
    /// `map(string, dyn)`, `type(int)`, `optional_type(int)`, `wrapper(int)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::List(e) => write!(f, "list({e})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Type(Some(t)) => write!(f, "type({t})"),
            Type::Wrapper(p) => write!(f, "wrapper({p})"),
            Type::Opaque(n, p) if !p.is_empty() => {
                write!(f, "{n}(")?;
                for (i, t) in p.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            other => f.write_str(other.runtime_name()),
        }
    }
}
