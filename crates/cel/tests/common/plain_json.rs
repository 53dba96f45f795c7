//! Plain JSON documents (not protobuf JSON) as CEL values, as a host binds a
//! JSON document: integers are `int` (`uint` past `i64::MAX`), other numbers
//! `double`, objects maps with string keys.

use cel::Value;
use cel::value::Key;
use indexmap::IndexMap;
use serde_json::Value as Json;

/// Converts a parsed JSON document (serde_json bounds its nesting at 128).
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
