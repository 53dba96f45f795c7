//! Conversion between JSON documents and values.
//!
//! JSON → value: numbers written as integers that fit an `i64` become `int`,
//! every other number `double`; objects become maps with string keys in
//! document order. Value → JSON follows proto3's JSON mapping as cel-go does:
//! bytes as base64, timestamps and durations as their strings, uints and ints
//! as numbers; library values by their own `Opaque::to_json` (protobuf
//! messages in the protobuf JSON mapping).

use base64::Engine;
use indexmap::IndexMap;
use serde_json::Value as Json;

use super::{Key, Value};
use crate::error::{EvalError, EvalResult};

impl Value {
    /// Builds a value from a JSON document.
    pub fn from_json(j: &Json) -> Value {
        match j {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
            },
            Json::String(s) => Value::from(s.as_str()),
            Json::Array(a) => Value::list(a.iter().map(Value::from_json).collect()),
            Json::Object(o) => {
                let m: IndexMap<Key, Value> = o
                    .iter()
                    .map(|(k, v)| (Key::from(k.as_str()), Value::from_json(v)))
                    .collect();
                Value::Map(m.into())
            }
        }
    }

    /// Converts to JSON; fails on values JSON cannot hold (NaN, infinities,
    /// types, library values without a JSON form).
    pub fn to_json(&self) -> EvalResult<Json> {
        Ok(match self {
            Value::Null | Value::Optional(None) => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::Uint(u) => Json::from(*u),
            Value::Double(d) => serde_json::Number::from_f64(*d)
                .map(Json::Number)
                .ok_or_else(|| EvalError::msg(format!("cannot convert {d} to JSON")))?,
            Value::String(s) => Json::String(s.to_string()),
            Value::Bytes(b) => Json::String(base64::engine::general_purpose::STANDARD.encode(b)),
            Value::List(l) => {
                Json::Array(l.iter().map(|v| v.to_json()).collect::<EvalResult<_>>()?)
            }
            Value::Map(m) => {
                let mut o = serde_json::Map::new();
                for (k, v) in m.entries() {
                    let key = match k {
                        Key::String(s) => s.to_string(),
                        Key::Bool(b) => b.to_string(),
                        Key::Int(i) => i.to_string(),
                        Key::Uint(u) => u.to_string(),
                    };
                    o.insert(key, v.to_json()?);
                }
                Json::Object(o)
            }
            Value::Timestamp(t) => Json::String(t.to_string()),
            Value::Duration(d) => Json::String(d.to_string()),
            Value::Optional(Some(v)) => v.to_json()?,
            Value::Opaque(o) if let Some(json) = o.to_json() => json?,
            Value::Type(_) | Value::Opaque(_) => {
                return Err(EvalError::msg(format!(
                    "cannot convert a value of type {} to JSON",
                    self.type_name()
                )));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let j: Json =
            serde_json::from_str(r#"{"a": 1, "b": 1.5, "c": [true, null, "x"], "d": 1.0}"#)
                .unwrap();
        let v = Value::from_json(&j);
        assert_eq!(
            v.to_string(),
            r#"{"a": 1, "b": 1.5, "c": [true, null, "x"], "d": 1.0}"#
        );
        assert_eq!(v.to_json().unwrap(), j);
        assert!(Value::Double(f64::NAN).to_json().is_err());
        assert_eq!(
            Value::bytes(b"hi".to_vec()).to_json().unwrap(),
            Json::from("aGk=")
        );
    }
}
