//! Name resolution: container candidates, declared variables, the built-in
//! type identifiers, object types and enum constants from the type provider.

use std::sync::Arc;

use crate::syntax::{Expr, ExprKind, Name};
use crate::types::Type;
use crate::value::Value;

use super::TypeProvider;

/// Calls `f` with every name `name` may refer to from `container`, most
/// qualified first, as cel-go's `Container.ResolveCandidateNames` orders them:
/// in container `a.b`, `x` may be `a.b.x`, `a.x` or `x`. A leading dot makes the
/// name absolute. Stops at the first `Some`.
pub fn resolve_candidates<R>(
    container: &str,
    name: &str,
    mut f: impl FnMut(&str) -> Option<R>,
) -> Option<R> {
    if let Some(absolute) = name.strip_prefix('.') {
        return f(absolute);
    }
    if container.is_empty() {
        return f(name);
    }
    let mut prefix = container;
    let mut buf = String::with_capacity(container.len() + 1 + name.len());
    loop {
        buf.clear();
        buf.push_str(prefix);
        buf.push('.');
        buf.push_str(name);
        if let Some(r) = f(&buf) {
            return Some(r);
        }
        match prefix.rfind('.') {
            Some(i) => prefix = &prefix[..i],
            None => break,
        }
    }
    f(name)
}

/// Whether two names are equal, compared in place: the names the checker
/// compares (`self`, `_<=_`) are short, and a call to `memcmp` costs more
/// than their comparison.
#[inline]
pub fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Two overlapping words cover a name of one to two words' length.
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or([0; 8]));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap_or([0; 4]));
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

/// The dotted name an identifier or a chain of (non-test) selections spells,
/// as cel-go's `containers.ToQualifiedName`: `a.b.c` for `Select(Select(a, b), c)`.
pub fn qualified_name(e: &Expr) -> Option<String> {
    let mut s = String::new();
    write_qualified_name(e, &mut s).then_some(s)
}

/// [`qualified_name`] appended to `out` (a buffer the caller reuses); false,
/// with `out` unchanged, when `e` is not such a chain. Recursive (no buffer of
/// the fields): selection chains are as deep as the parser's nesting limit allows.
pub fn write_qualified_name(e: &Expr, out: &mut String) -> bool {
    match &e.kind {
        ExprKind::Ident(n) => {
            out.push_str(n);
            true
        }
        ExprKind::Select(sel) if !sel.test_only && !sel.optional => {
            let start = out.len();
            if !write_qualified_name(&sel.operand, out) {
                out.truncate(start);
                return false;
            }
            out.push('.');
            out.push_str(&sel.field);
            true
        }
        _ => false,
    }
}

/// The built-in type identifiers (`int`, `list`, `google.protobuf.Timestamp`,
/// ...) and the type each denotes. `list` and `map` have free parameters, as in
/// cel-go, which the final substitution turns into `dyn`.
pub fn builtin_type_ident(name: &str, optional_syntax: bool) -> Option<Type> {
    Some(match name {
        "bool" => Type::Bool,
        "bytes" => Type::Bytes,
        "double" => Type::Double,
        "int" => Type::Int,
        "uint" => Type::Uint,
        "string" => Type::String,
        "null_type" => Type::Null,
        "type" => Type::Type(None),
        "list" => Type::list(Type::param("A")),
        "map" => Type::map(Type::param("A"), Type::param("B")),
        "google.protobuf.Any" => Type::Any,
        "google.protobuf.Duration" => Type::Duration,
        "google.protobuf.Timestamp" => Type::Timestamp,
        "optional_type" if optional_syntax => Type::optional(Type::param("T")),
        _ => return None,
    })
}

/// The CEL type of a protobuf well-known message type, by full name.
pub fn well_known_type(name: &str) -> Option<Type> {
    let name = name.strip_prefix("google.protobuf.")?;
    Some(match name {
        "Any" => Type::Any,
        "Timestamp" => Type::Timestamp,
        "Duration" => Type::Duration,
        "BoolValue" => Type::wrapper(Type::Bool),
        "BytesValue" => Type::wrapper(Type::Bytes),
        "DoubleValue" | "FloatValue" => Type::wrapper(Type::Double),
        "Int32Value" | "Int64Value" => Type::wrapper(Type::Int),
        "UInt32Value" | "UInt64Value" => Type::wrapper(Type::Uint),
        "StringValue" => Type::wrapper(Type::String),
        "Value" => Type::Dyn,
        "Struct" => Type::map(Type::String, Type::Dyn),
        "ListValue" => Type::list(Type::Dyn),
        _ => return None,
    })
}

/// The message name cel-go constructs a well-known type under (by kind, so
/// `Int32Value{}` is built as `Int64Value`), or `None` when `t` is not one.
pub fn well_known_message_name(t: &Type) -> Option<&'static str> {
    Some(match t {
        Type::Any => "google.protobuf.Any",
        Type::Timestamp => "google.protobuf.Timestamp",
        Type::Duration => "google.protobuf.Duration",
        Type::Dyn => "google.protobuf.Value",
        Type::Null => "google.protobuf.NullValue",
        Type::Wrapper(p) => match **p {
            Type::Bool => "google.protobuf.BoolValue",
            Type::Bytes => "google.protobuf.BytesValue",
            Type::Double => "google.protobuf.DoubleValue",
            Type::Int => "google.protobuf.Int64Value",
            Type::Uint => "google.protobuf.UInt64Value",
            Type::String => "google.protobuf.StringValue",
            _ => return None,
        },
        Type::List(e) if **e == Type::Dyn => "google.protobuf.ListValue",
        Type::Map(k, v) if **k == Type::String && **v == Type::Dyn => "google.protobuf.Struct",
        _ => return None,
    })
}

/// The type of field `field` of well-known message `message`.
fn well_known_field(message: &str, field: &str) -> Option<Type> {
    let message = message.strip_prefix("google.protobuf.")?;
    Some(match (message, field) {
        ("Any", "type_url") => Type::String,
        ("Any", "value") => Type::Bytes,
        ("Timestamp" | "Duration", "seconds" | "nanos") => Type::Int,
        ("BoolValue", "value") => Type::Bool,
        ("BytesValue", "value") => Type::Bytes,
        ("DoubleValue" | "FloatValue", "value") => Type::Double,
        ("Int32Value" | "Int64Value", "value") => Type::Int,
        ("UInt32Value" | "UInt64Value", "value") => Type::Uint,
        ("StringValue", "value") => Type::String,
        ("Value", "null_value") => Type::Null,
        ("Value", "number_value") => Type::Double,
        ("Value", "string_value") => Type::String,
        ("Value", "bool_value") => Type::Bool,
        ("Value", "struct_value") => Type::map(Type::String, Type::Dyn),
        ("Value", "list_value") => Type::list(Type::Dyn),
        ("Struct", "fields") => Type::map(Type::String, Type::Dyn),
        ("ListValue", "values") => Type::list(Type::Dyn),
        _ => return None,
    })
}

/// Object types: the host's provider first, then the well-known types.
#[derive(Clone, Copy)]
pub struct Types<'a> {
    /// The host's object types, if any.
    pub provider: Option<&'a dyn TypeProvider>,
}

impl Types<'_> {
    /// The type named `name` (a message, object or well-known type).
    pub fn find_type(&self, name: &str) -> Option<Type> {
        if let Some(p) = self.provider
            && let Some(t) = p.find_type(name)
        {
            return Some(t);
        }
        well_known_type(name)
    }

    /// The type of field `field` of object type `type_name`.
    pub fn field_type(&self, type_name: &str, field: &str) -> Option<Type> {
        if let Some(p) = self.provider
            && let Some(t) = p.field_type(type_name, field)
        {
            return Some(t);
        }
        well_known_field(type_name, field)
    }

    /// The type and value of enum constant `name`.
    pub fn enum_constant(&self, name: &str) -> Option<(Type, Value)> {
        self.provider.and_then(|p| p.enum_constant(name))
    }
}

/// What an identifier resolved to.
#[derive(Clone, Debug)]
pub struct IdentDecl {
    /// The fully qualified name.
    pub name: Name,
    /// The declared type.
    pub ty: Type,
    /// The constant value (enum constants, type names).
    pub value: Option<Value>,
}

impl IdentDecl {
    /// A type name used as an identifier: its value is the type value of `t`.
    pub fn type_ident(name: &str, t: Type) -> IdentDecl {
        let value = Value::Type(Arc::new(t.clone()));
        IdentDecl {
            name: name.into(),
            ty: Type::type_of(t),
            value: Some(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates(container: &str, name: &str) -> Vec<String> {
        let mut v = Vec::new();
        resolve_candidates::<()>(container, name, |c| {
            v.push(c.to_string());
            None
        });
        v
    }

    #[test]
    fn same_text_compares_every_byte() {
        let texts = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcdefg",
            "abcdefgh",
            "abcdefghijklmnop",
        ];
        for t in texts {
            assert!(same_text(t, t));
            assert!(!same_text(t, &format!("{t}x")));
            for i in 0..t.len() {
                let mut other = t.as_bytes().to_vec();
                other[i] = b'_';
                let other = String::from_utf8(other).unwrap_or_default();
                assert!(!same_text(t, &other), "{t} {other}");
            }
        }
        let long = "a".repeat(40);
        assert!(same_text(&long, &long.clone()));
        assert!(!same_text(&long, &"b".repeat(40)));
    }

    #[test]
    fn candidate_names() {
        assert_eq!(candidates("", "x"), ["x"]);
        assert_eq!(candidates("a.b", "x.y"), ["a.b.x.y", "a.x.y", "x.y"]);
        assert_eq!(candidates("a.b", ".x"), ["x"]);
    }
}
