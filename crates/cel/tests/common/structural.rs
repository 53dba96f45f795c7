//! Structural comparison and display of values, as the conformance suite
//! compares results: the way cel-go compares `cel.expr.Value` protos.
//!
//! This is not CEL equality: `1` and `1u` and `1.0` differ here, map entries are
//! compared without regard to order, and `NaN` matches `NaN` (the expected value
//! of a computation that yields NaN).

use std::fmt::Write as _;

use cel::Value;
use cel::value::Key;

/// Nesting limit of comparison and display (results built by CEL may nest
/// deeply; past this the values are reported as different).
const MAX_DEPTH: usize = 500;

/// True when `got` has the same type and value as `want`.
pub fn same(want: &Value, got: &Value) -> bool {
    same_at(want, got, 0)
}

fn same_at(want: &Value, got: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match (want, got) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Uint(a), Value::Uint(b)) => a == b,
        (Value::Double(a), Value::Double(b)) => a == b || (a.is_nan() && b.is_nan()),
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Bytes(a), Value::Bytes(b)) => a == b,
        (Value::Timestamp(a), Value::Timestamp(b)) => a == b,
        (Value::Duration(a), Value::Duration(b)) => a == b,
        (Value::Type(a), Value::Type(b)) => a.runtime_name() == b.runtime_name(),
        (Value::List(a), Value::List(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|(x, y)| same_at(&x, &y, depth + 1))
        }
        (Value::Map(a), Value::Map(b)) => {
            a.len() == b.len()
                && a.entries().all(|(k, v)| {
                    b.entries()
                        .any(|(k2, v2)| same_key(&k, &k2) && same_at(&v, &v2, depth + 1))
                })
        }
        (Value::Optional(a), Value::Optional(b)) => match (a, b) {
            (None, None) => true,
            (Some(x), Some(y)) => same_at(x, y, depth + 1),
            _ => false,
        },
        // Messages: protobuf equality (`proto.Equal`).
        (Value::Opaque(a), Value::Opaque(b)) => a.equals(&**b),
        _ => false,
    }
}

/// Keys compare with their types: `1` and `1u` are different keys here.
fn same_key(a: &Key, b: &Key) -> bool {
    match (a, b) {
        (Key::Bool(x), Key::Bool(y)) => x == y,
        (Key::Int(x), Key::Int(y)) => x == y,
        (Key::Uint(x), Key::Uint(y)) => x == y,
        (Key::String(x), Key::String(y)) => x == y,
        _ => false,
    }
}

/// Shows a value in CEL literal syntax, for failure messages (independent of
/// the engine's own `Display`, so a bug there cannot hide a mismatch).
pub fn show(v: &Value) -> String {
    let mut out = String::new();
    show_at(v, &mut out, 0);
    out
}

fn show_at(v: &Value, out: &mut String, depth: usize) {
    if depth > MAX_DEPTH {
        out.push_str("...");
        return;
    }
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Uint(u) => {
            let _ = write!(out, "{u}u");
        }
        Value::Double(d) => {
            if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e16 {
                let _ = write!(out, "{d:.1}");
            } else {
                let _ = write!(out, "{d:?}");
            }
        }
        Value::String(s) => {
            let _ = write!(out, "{:?}", &**s);
        }
        Value::Bytes(b) => {
            out.push_str("b\"");
            for &c in b.iter() {
                if c.is_ascii_graphic() && c != b'"' && c != b'\\' || c == b' ' {
                    out.push(char::from(c));
                } else {
                    let _ = write!(out, "\\x{c:02x}");
                }
            }
            out.push('"');
        }
        Value::List(l) => {
            out.push('[');
            for (i, x) in l.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                show_at(&x, out, depth + 1);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push('{');
            for (i, (k, x)) in m.entries().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                show_at(&k.to_value(), out, depth + 1);
                out.push_str(": ");
                show_at(&x, out, depth + 1);
            }
            out.push('}');
        }
        Value::Timestamp(t) => {
            let _ = write!(out, "timestamp({}s+{}ns)", t.seconds, t.nanos);
        }
        Value::Duration(d) => {
            let _ = write!(out, "duration({}ns)", d.nanos);
        }
        Value::Type(t) => out.push_str(t.runtime_name()),
        Value::Optional(None) => out.push_str("optional.none()"),
        Value::Optional(Some(x)) => {
            out.push_str("optional.of(");
            show_at(x, out, depth + 1);
            out.push(')');
        }
        Value::Opaque(o) => {
            let _ = write!(out, "<{} {o:?}>", o.type_name());
        }
    }
}
