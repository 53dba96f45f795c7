//! How values print: CEL literal syntax, as `kcel eval` shows results
//! (`1`, `1u`, `1.5`, `"s"`, `b"\x00"`, `[1, 2]`, `{"a": 1}`,
//! `timestamp("2009-02-13T23:31:30Z")`, `duration("1s")`, `int`,
//! `optional.of(1)`, `optional.none()`).

use std::fmt::{self, Write};

use super::{Key, Value};

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Uint(u) => write!(f, "{u}u"),
            Value::Double(d) => write_double(f, *d),
            Value::String(s) => write_string(f, s),
            Value::Bytes(b) => write_bytes(f, b),
            Value::List(l) => {
                f.write_char('[')?;
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_char(']')
            }
            Value::Map(m) => {
                f.write_char('{')?;
                for (i, (k, v)) in m.entries().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_key(f, &k)?;
                    write!(f, ": {v}")?;
                }
                f.write_char('}')
            }
            Value::Timestamp(t) => write!(f, "timestamp(\"{t}\")"),
            Value::Duration(d) => write!(f, "duration(\"{d}\")"),
            Value::Type(t) => f.write_str(t.runtime_name()),
            Value::Optional(None) => f.write_str("optional.none()"),
            Value::Optional(Some(v)) => write!(f, "optional.of({v})"),
            Value::Opaque(o) => o.display(f),
        }
    }
}

fn write_key(f: &mut fmt::Formatter<'_>, k: &Key) -> fmt::Result {
    match k {
        Key::Bool(b) => write!(f, "{b}"),
        Key::Int(i) => write!(f, "{i}"),
        Key::Uint(u) => write!(f, "{u}u"),
        Key::String(s) => write_string(f, s),
    }
}

/// A double as a CEL literal: always with a `.` or exponent; NaN and the
/// infinities as conversions (`double("NaN")`).
fn write_double(f: &mut fmt::Formatter<'_>, d: f64) -> fmt::Result {
    if d.is_nan() {
        f.write_str("double(\"NaN\")")
    } else if d.is_infinite() {
        f.write_str(if d > 0.0 {
            "double(\"Infinity\")"
        } else {
            "double(\"-Infinity\")"
        })
    } else {
        // Debug prints the shortest round-trip form and keeps `.0` / exponents.
        write!(f, "{d:?}")
    }
}

/// A string literal with CEL escapes.
fn write_string(f: &mut impl Write, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{7}' => f.write_str("\\a")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            '\u{b}' => f.write_str("\\v")?,
            c if c.is_control() => write!(f, "\\u{:04x}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// A bytes literal: printable ASCII as is, everything else as `\xNN`.
fn write_bytes(f: &mut fmt::Formatter<'_>, b: &[u8]) -> fmt::Result {
    f.write_str("b\"")?;
    for &c in b {
        match c {
            b'"' => f.write_str("\\\"")?,
            b'\\' => f.write_str("\\\\")?,
            0x20..=0x7e => f.write_char(c as char)?,
            _ => write!(f, "\\x{c:02x}")?,
        }
    }
    f.write_char('"')
}

#[cfg(test)]
mod tests {
    use indexmap::IndexMap;

    use super::*;
    use crate::types::Type;
    use crate::value::{Duration, Timestamp};

    #[test]
    fn values_print_as_cel_literals() {
        let show = |v: Value| v.to_string();
        assert_eq!(show(Value::Int(1)), "1");
        assert_eq!(show(Value::Uint(1)), "1u");
        assert_eq!(show(Value::Double(1.5)), "1.5");
        assert_eq!(show(Value::Double(2.0)), "2.0");
        assert_eq!(show(Value::Double(f64::NAN)), "double(\"NaN\")");
        assert_eq!(show(Value::from("a\"b\n")), "\"a\\\"b\\n\"");
        assert_eq!(show(Value::bytes(vec![0u8, b'a'])), "b\"\\x00a\"");
        assert_eq!(
            show(Value::list(vec![Value::Int(1), Value::Int(2)])),
            "[1, 2]"
        );
        let mut m = IndexMap::new();
        m.insert(Key::from("a"), Value::Int(1));
        assert_eq!(show(Value::Map(m.into())), "{\"a\": 1}");
        assert_eq!(
            show(Value::Timestamp(Timestamp {
                seconds: 1_234_567_890,
                nanos: 0,
                offset_secs: 0
            })),
            "timestamp(\"2009-02-13T23:31:30Z\")"
        );
        assert_eq!(
            show(Value::Duration(Duration::from_nanos(1_000_000_000))),
            "duration(\"1s\")"
        );
        assert_eq!(show(Value::type_value(Type::Int)), "int");
        assert_eq!(show(Value::optional_of(Value::Int(1))), "optional.of(1)");
        assert_eq!(show(Value::optional_none()), "optional.none()");
        assert_eq!(show(Value::Null), "null");
    }
}
