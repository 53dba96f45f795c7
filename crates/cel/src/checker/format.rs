//! Type names as cel-go's checker prints them, in error messages and in the
//! debug form of checked expressions: `int`, `list(string)`, `wrapper(int)`,
//! `timestamp`, `null`, `any`, `!error!`, `optional_type(int)`, `_var0`.
//!
//! This differs from [`Type`]'s `Display` (the runtime type names, such as
//! `google.protobuf.Timestamp` or `null_type`) for the well-known types.

use std::fmt::{self, Write};

use crate::types::Type;

/// A [`Type`] displayed as cel-go's `FormatCelType` formats it.
pub struct CheckedType<'a>(pub &'a Type);

impl fmt::Display for CheckedType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_type(f, self.0)
    }
}

/// Formats `t` as cel-go's checker does.
pub fn format_type(t: &Type) -> String {
    let mut s = String::new();
    let _ = write_type(&mut s, t);
    s
}

fn write_type(out: &mut impl Write, t: &Type) -> fmt::Result {
    match t {
        Type::Dyn => out.write_str("dyn"),
        Type::Null => out.write_str("null"),
        Type::Bool => out.write_str("bool"),
        Type::Int => out.write_str("int"),
        Type::Uint => out.write_str("uint"),
        Type::Double => out.write_str("double"),
        Type::String => out.write_str("string"),
        Type::Bytes => out.write_str("bytes"),
        Type::Any => out.write_str("any"),
        Type::Timestamp => out.write_str("timestamp"),
        Type::Duration => out.write_str("duration"),
        Type::Error => out.write_str("!error!"),
        Type::List(e) => {
            out.write_str("list(")?;
            write_type(out, e)?;
            out.write_str(")")
        }
        Type::Map(k, v) => {
            out.write_str("map(")?;
            write_type(out, k)?;
            out.write_str(", ")?;
            write_type(out, v)?;
            out.write_str(")")
        }
        Type::Type(None) => out.write_str("type"),
        Type::Type(Some(p)) => {
            out.write_str("type(")?;
            write_type(out, p)?;
            out.write_str(")")
        }
        Type::Wrapper(p) => {
            out.write_str("wrapper(")?;
            write_type(out, p)?;
            out.write_str(")")
        }
        Type::Object(n) | Type::TypeParam(n) => out.write_str(n),
        Type::Opaque(n, params) => {
            out.write_str(n)?;
            if params.is_empty() {
                return Ok(());
            }
            out.write_str("(")?;
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    out.write_str(", ")?;
                }
                write_type(out, p)?;
            }
            out.write_str(")")
        }
    }
}

/// cel-go's `DeclaredTypeName`: the type's name without parameters, wrappers
/// as `wrapper(int)` (used by "is not a type" messages).
pub fn declared_type_name(t: &Type) -> String {
    match t {
        Type::Wrapper(_) => format_type(t),
        other => other.runtime_name().to_string(),
    }
}

/// Formats argument types as cel-go's "no matching overload" message does:
/// `(int, string)`, or `int.(string)` for a member call.
pub fn format_call_signature(args: &[Type], member: bool) -> String {
    let mut s = String::new();
    let mut rest = args;
    if member && let Some((target, tail)) = args.split_first() {
        let _ = write_type(&mut s, target);
        s.push('.');
        rest = tail;
    }
    s.push('(');
    for (i, a) in rest.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write_type(&mut s, a);
    }
    s.push(')');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_cel_go() {
        assert_eq!(format_type(&Type::list(Type::Int)), "list(int)");
        assert_eq!(
            format_type(&Type::map(Type::String, Type::Dyn)),
            "map(string, dyn)"
        );
        assert_eq!(format_type(&Type::wrapper(Type::Int)), "wrapper(int)");
        assert_eq!(format_type(&Type::Timestamp), "timestamp");
        assert_eq!(format_type(&Type::Null), "null");
        assert_eq!(format_type(&Type::type_of(Type::Null)), "type(null)");
        assert_eq!(format_type(&Type::Type(None)), "type");
        assert_eq!(
            format_type(&Type::optional(Type::Int)),
            "optional_type(int)"
        );
        assert_eq!(format_type(&Type::Error), "!error!");
        assert_eq!(
            format_call_signature(&[Type::String, Type::Int], true),
            "string.(int)"
        );
        assert_eq!(
            format_call_signature(&[Type::Int, Type::String], false),
            "(int, string)"
        );
    }
}
