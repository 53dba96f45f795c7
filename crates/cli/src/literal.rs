//! Results printed in CEL literal syntax: what one would type in an expression
//! to get the value back (`1u`, `"a\n"`, `b"\x00"`, `[1, 2.0]`,
//! `timestamp("2009-02-13T23:31:30Z")`, `optional.of(1)`).

use std::fmt::{self, Write as _};

use cel::Value;
use cel::value::{Key, Opaque};

use crate::json::{duration_string, timestamp_string};

/// Output nesting limit.
const MAX_DEPTH: usize = 1000;

/// Formats `v` as a CEL literal.
pub fn to_literal(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    write_value(&mut out, v, 0)?;
    Ok(out)
}

fn write_value(out: &mut String, v: &Value, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "the result is nested deeper than {MAX_DEPTH} levels"
        ));
    }
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => push(out, format_args!("{b}")),
        Value::Int(i) => push(out, format_args!("{i}")),
        Value::Uint(u) => push(out, format_args!("{u}u")),
        Value::Double(d) => write_double(out, *d),
        Value::String(s) => write_string(out, s),
        Value::Bytes(b) => write_bytes(out, b),
        Value::List(l) => {
            out.push('[');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, &x, depth + 1)?;
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push('{');
            for (i, (k, x)) in m.entries().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_key(out, &k);
                out.push_str(": ");
                write_value(out, &x, depth + 1)?;
            }
            out.push('}');
        }
        Value::Timestamp(t) => push(out, format_args!("timestamp(\"{}\")", timestamp_string(*t))),
        Value::Duration(d) => push(out, format_args!("duration(\"{}\")", duration_string(*d))),
        // Type values print as their runtime names (`list`, not `list(int)`), as
        // cel-go compares and prints them.
        Value::Type(t) => out.push_str(t.runtime_name()),
        Value::Optional(None) => out.push_str("optional.none()"),
        Value::Optional(Some(x)) => {
            out.push_str("optional.of(");
            write_value(out, x, depth + 1)?;
            out.push(')');
        }
        Value::Opaque(o) => out.push_str(&opaque_string(&**o)),
    }
    Ok(())
}

fn push(out: &mut String, args: fmt::Arguments<'_>) {
    // Writing to a String cannot fail.
    let _ = out.write_fmt(args);
}

fn write_key(out: &mut String, k: &Key) {
    match k {
        Key::Bool(b) => push(out, format_args!("{b}")),
        Key::Int(i) => push(out, format_args!("{i}")),
        Key::Uint(u) => push(out, format_args!("{u}u")),
        Key::String(s) => write_string(out, s),
    }
}

/// A double that reads back as a double: `1.0`, `1e+100` style exponents as
/// Rust prints them (`1e100`), non-finite values through `double("...")`.
fn write_double(out: &mut String, d: f64) {
    if d.is_nan() {
        out.push_str("double(\"NaN\")");
    } else if d.is_infinite() {
        out.push_str(if d > 0.0 {
            "double(\"Infinity\")"
        } else {
            "double(\"-Infinity\")"
        });
    } else {
        // `{:?}` always keeps a `.` or an exponent: `1.0`, `1.5`, `1e100`.
        push(out, format_args!("{d:?}"));
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => push(out, format_args!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_bytes(out: &mut String, b: &[u8]) {
    out.push_str("b\"");
    for &c in b {
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b' '..=b'~' => out.push(char::from(c)),
            _ => push(out, format_args!("\\x{c:02x}")),
        }
    }
    out.push('"');
}

/// An opaque value as its library prints it.
pub fn opaque_string(o: &dyn Opaque) -> String {
    struct Shown<'a>(&'a dyn Opaque);
    impl fmt::Display for Shown<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.display(f)
        }
    }
    Shown(o).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cel::value::Duration;

    #[test]
    fn prints_literals() {
        let lit = |v: Value| to_literal(&v).unwrap();
        assert_eq!(lit(Value::Uint(3)), "3u");
        assert_eq!(lit(Value::Double(2.0)), "2.0");
        assert_eq!(lit(Value::Double(1e100)), "1e100");
        assert_eq!(lit(Value::Double(f64::NAN)), "double(\"NaN\")");
        assert_eq!(lit(Value::string("a\"\n\u{1}é")), r#""a\"\n\u0001é""#);
        assert_eq!(lit(Value::bytes(b"a\x00\xff".to_vec())), r#"b"a\x00\xff""#);
        assert_eq!(
            lit(Value::list(vec![
                Value::Null,
                Value::optional_of(Value::Bool(true))
            ])),
            "[null, optional.of(true)]"
        );
        assert_eq!(
            lit(Value::Duration(Duration { nanos: 1 })),
            "duration(\"0.000000001s\")"
        );
        assert_eq!(
            lit(Value::type_value(cel::Type::list(cel::Type::Int))),
            "list"
        );
    }
}
