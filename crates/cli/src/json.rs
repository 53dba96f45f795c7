//! JSON in and out: `--var name=<json>` values and `-o json` results.
//!
//! Input: JSON integers become CEL `int` (`uint` past `i64::MAX`), other
//! numbers `double`, arrays lists, objects maps with string keys.
//! Output: the result as JSON; values JSON has no form for are written as
//! protobuf's JSON mapping writes them (bytes in base64, timestamps in RFC 3339,
//! durations as `"1.5s"`, non-finite doubles as `"NaN"`, `"Infinity"`).

use base64::Engine as _;
use cel::Value;
use cel::value::{Duration, Key, Timestamp};
use indexmap::IndexMap;
use serde_json::Value as Json;

/// Output nesting limit (values built by expressions are shallow in practice).
const MAX_DEPTH: usize = 1000;

/// Converts parsed JSON to a CEL value. (serde_json refuses input nested deeper
/// than 128 levels, which bounds the recursion.)
pub fn to_value(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else if let Some(u) = n.as_u64() {
                Value::Uint(u)
            } else {
                Value::Double(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Json::String(s) => Value::string(s.as_str()),
        Json::Array(items) => Value::list(items.iter().map(to_value).collect()),
        Json::Object(fields) => {
            let map: IndexMap<Key, Value> = fields
                .iter()
                .map(|(k, v)| (Key::from(k.as_str()), to_value(v)))
                .collect();
            Value::Map(map.into())
        }
    }
}

/// Converts a CEL value to JSON.
pub fn from_value(v: &Value) -> Result<Json, String> {
    from_value_at(v, 0)
}

fn from_value_at(v: &Value, depth: usize) -> Result<Json, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "the result is nested deeper than {MAX_DEPTH} levels"
        ));
    }
    Ok(match v {
        Value::Null | Value::Optional(None) => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Uint(u) => Json::from(*u),
        Value::Double(d) => match serde_json::Number::from_f64(*d) {
            Some(n) => Json::Number(n),
            None if d.is_nan() => Json::from("NaN"),
            None if *d > 0.0 => Json::from("Infinity"),
            None => Json::from("-Infinity"),
        },
        Value::String(s) => Json::from(&**s),
        Value::Bytes(b) => Json::from(base64::engine::general_purpose::STANDARD.encode(b)),
        Value::List(l) => Json::Array(
            l.iter()
                .map(|x| from_value_at(&x, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => {
            let mut out = serde_json::Map::new();
            for (k, x) in m.entries() {
                out.insert(key_string(&k), from_value_at(&x, depth + 1)?);
            }
            Json::Object(out)
        }
        Value::Timestamp(t) => Json::from(timestamp_string(*t)),
        Value::Duration(d) => Json::from(duration_string(*d)),
        Value::Type(t) => Json::from(t.runtime_name()),
        Value::Optional(Some(x)) => from_value_at(x, depth + 1)?,
        Value::Opaque(o) => Json::from(crate::literal::opaque_string(&**o)),
    })
}

fn key_string(k: &Key) -> String {
    match k {
        Key::Bool(b) => b.to_string(),
        Key::Int(i) => i.to_string(),
        Key::Uint(u) => u.to_string(),
        Key::String(s) => s.to_string(),
    }
}

/// RFC 3339, as `string(timestamp)` prints it.
pub fn timestamp_string(t: Timestamp) -> String {
    let nanos = i32::try_from(t.nanos).unwrap_or(0);
    match jiff::Timestamp::new(t.seconds, nanos) {
        Ok(ts) => ts.to_string(),
        Err(_) => format!("{}s+{}ns since the epoch", t.seconds, t.nanos),
    }
}

/// Seconds with up to nine fraction digits and an `s` suffix, as
/// `string(duration)` prints it (`1.5s`, `-0.000000001s`, `3600s`).
pub fn duration_string(d: Duration) -> String {
    let sign = if d.nanos < 0 { "-" } else { "" };
    let abs = d.nanos.unsigned_abs();
    let (secs, frac) = (abs / 1_000_000_000, abs % 1_000_000_000);
    if frac == 0 {
        format!("{sign}{secs}s")
    } else {
        let digits = format!("{frac:09}");
        format!("{sign}{secs}.{}s", digits.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_json() {
        let text = r#"{"a":[1,-2,18446744073709551615,1.5,"x",null,true],"b":{}}"#;
        let json: Json = serde_json::from_str(text).unwrap();
        let v = to_value(&json);
        assert!(matches!(v.clone(), Value::Map(m) if m.len() == 2));
        assert_eq!(
            serde_json::to_string(&from_value(&v).unwrap()).unwrap(),
            text
        );
    }

    #[test]
    fn writes_special_values() {
        let out = |v: Value| serde_json::to_string(&from_value(&v).unwrap()).unwrap();
        assert_eq!(out(Value::Double(f64::NAN)), r#""NaN""#);
        assert_eq!(out(Value::Double(f64::NEG_INFINITY)), r#""-Infinity""#);
        assert_eq!(out(Value::bytes(vec![0u8, 255])), r#""AP8=""#);
        assert_eq!(
            out(Value::Duration(Duration {
                nanos: -1_500_000_000
            })),
            r#""-1.5s""#
        );
        assert_eq!(
            out(Value::Timestamp(Timestamp {
                seconds: 1_234_567_890,
                nanos: 0
            })),
            r#""2009-02-13T23:31:30Z""#
        );
        assert_eq!(out(Value::optional_none()), "null");
    }
}
