//! Conversion of the conformance suite's protobuf-JSON forms into kcel values,
//! types and declarations.
//!
//! The suite (`cel-spec/json/*.json`, schema in `cel-spec/README.md`) stores
//! `cel.expr.Value`, `cel.expr.Type` and `cel.expr.Decl` messages in protobuf's
//! canonical JSON with the original field names: 64-bit integers as strings,
//! doubles as numbers or `"NaN"`/`"Infinity"`/`"-Infinity"`, bytes in base64,
//! and `google.protobuf.Timestamp`/`Duration` as `Any` objects under
//! `object_value`. Anything else under `object_value` is a protobuf message,
//! which kcel does not model; converting one is an error naming its type.

use std::sync::Arc;

use base64::Engine as _;
use cel::value::{Duration, Key, Timestamp};
use cel::{Function, Overload};
use cel::{Type, Value};
use indexmap::IndexMap;
use serde_json::Value as Json;

/// Protobuf messages nest; real values are shallow. Deeper input is refused.
const MAX_DEPTH: usize = 200;

/// How the suite's enum values convert: cel-spec's legacy enums (`int`s)
/// or strong enums (values of the enum's own type; feature `proto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enums {
    Legacy,
    Strong,
}

/// Converts a `cel.expr.Value` in protobuf JSON (legacy enums).
pub fn value(json: &Json) -> Result<Value, String> {
    value_with(json, Enums::Legacy)
}

/// Converts a `cel.expr.Value` in protobuf JSON, enums and messages' enum
/// fields as `enums` says.
pub fn value_with(json: &Json, enums: Enums) -> Result<Value, String> {
    value_at(json, 0, enums)
}

fn value_at(json: &Json, depth: usize, enums: Enums) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err("value nested too deeply".into());
    }
    let obj = json
        .as_object()
        .ok_or_else(|| format!("a Value must be an object: {json}"))?;
    let mut fields = obj.iter();
    let (kind, body) = match (fields.next(), fields.next()) {
        (Some(kv), None) => kv,
        _ => return Err(format!("a Value must have exactly one field: {json}")),
    };
    match kind.as_str() {
        "null_value" => Ok(Value::Null),
        "bool_value" => body
            .as_bool()
            .map(Value::Bool)
            .ok_or_else(|| bad("bool_value", body)),
        "int64_value" => int64(body).map(Value::Int),
        "uint64_value" => uint64(body).map(Value::Uint),
        "double_value" => double(body).map(Value::Double),
        "string_value" => body
            .as_str()
            .map(Value::string)
            .ok_or_else(|| bad("string_value", body)),
        "bytes_value" => bytes(body).map(Value::bytes),
        "list_value" => {
            let values = match body.get("values") {
                None => Vec::new(),
                Some(Json::Array(items)) => items
                    .iter()
                    .map(|v| value_at(v, depth + 1, enums))
                    .collect::<Result<_, _>>()?,
                Some(other) => return Err(bad("list_value.values", other)),
            };
            Ok(Value::list(values))
        }
        "map_value" => {
            let mut map = IndexMap::new();
            match body.get("entries") {
                None => {}
                Some(Json::Array(entries)) => {
                    for e in entries {
                        let k = e.get("key").ok_or_else(|| bad("map entry", e))?;
                        let v = e.get("value").ok_or_else(|| bad("map entry", e))?;
                        let key = key(&value_at(k, depth + 1, enums)?)?;
                        map.insert(key, value_at(v, depth + 1, enums)?);
                    }
                }
                Some(other) => return Err(bad("map_value.entries", other)),
            }
            Ok(Value::Map(map.into()))
        }
        "enum_value" => {
            let v = body.get("value").map_or(Ok(0), int64)?;
            match enums {
                // Legacy enums are ints at runtime (cel-go's only semantics).
                Enums::Legacy => Ok(Value::Int(v)),
                Enums::Strong => strong_enum(body, v),
            }
        }
        "type_value" => {
            let name = body.as_str().ok_or_else(|| bad("type_value", body))?;
            Ok(Value::type_value(type_from_name(name)))
        }
        "object_value" => any(body, enums),
        other => Err(format!("unsupported Value kind `{other}`")),
    }
}

/// A map key from a converted value.
fn key(v: &Value) -> Result<Key, String> {
    match v {
        Value::Bool(b) => Ok(Key::Bool(*b)),
        Value::Int(i) => Ok(Key::Int(*i)),
        Value::Uint(u) => Ok(Key::Uint(*u)),
        Value::String(s) => Ok(Key::String(s.clone())),
        other => Err(format!("unsupported map key {other:?}")),
    }
}

/// A `google.protobuf.Any`: Timestamp and Duration are CEL values; other
/// messages are read with the conformance messages' descriptors (feature
/// `proto`), else not supported.
fn any(body: &Json, enums: Enums) -> Result<Value, String> {
    let url = body
        .get("@type")
        .and_then(Json::as_str)
        .ok_or_else(|| bad("object_value", body))?;
    let name = url.rsplit('/').next().unwrap_or(url);
    let inner = body.get("value");
    match (name, inner) {
        ("google.protobuf.Timestamp", Some(Json::String(s))) => timestamp(s).map(Value::Timestamp),
        ("google.protobuf.Duration", Some(Json::String(s))) => duration(s).map(Value::Duration),
        #[cfg(feature = "proto")]
        _ => super::proto_types::conformance(enums)?
            .value_from_any_json(body)
            .map_err(|e| e.to_string()),
        #[cfg(not(feature = "proto"))]
        _ => {
            let _ = enums;
            Err(format!("protobuf message values are not supported: {name}"))
        }
    }
}

/// A strong enum value: `{"type": "pkg.E", "value": n}`.
#[cfg(feature = "proto")]
fn strong_enum(body: &Json, number: i64) -> Result<Value, String> {
    let name = body
        .get("type")
        .and_then(Json::as_str)
        .ok_or_else(|| bad("enum_value.type", body))?;
    let number = i32::try_from(number).map_err(|_| bad("enum_value.value", body))?;
    Ok(cel::proto::EnumValue::new(name, number).into_value())
}

#[cfg(not(feature = "proto"))]
fn strong_enum(body: &Json, _number: i64) -> Result<Value, String> {
    Err(format!("strong enum values need the proto feature: {body}"))
}

fn bad(what: &str, json: &Json) -> String {
    format!("malformed {what}: {json}")
}

/// An int64 in proto JSON: a decimal string (or a number).
pub fn int64(json: &Json) -> Result<i64, String> {
    match json {
        Json::String(s) => s.parse().map_err(|e| format!("bad int64 {s:?}: {e}")),
        Json::Number(n) => n.as_i64().ok_or_else(|| bad("int64", json)),
        _ => Err(bad("int64", json)),
    }
}

fn uint64(json: &Json) -> Result<u64, String> {
    match json {
        Json::String(s) => s.parse().map_err(|e| format!("bad uint64 {s:?}: {e}")),
        Json::Number(n) => n.as_u64().ok_or_else(|| bad("uint64", json)),
        _ => Err(bad("uint64", json)),
    }
}

fn double(json: &Json) -> Result<f64, String> {
    match json {
        Json::Number(n) => n.as_f64().ok_or_else(|| bad("double", json)),
        Json::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            other => other
                .parse()
                .map_err(|e| format!("bad double {other:?}: {e}")),
        },
        _ => Err(bad("double", json)),
    }
}

/// Bytes: base64, standard or URL-safe alphabet, padded or not (all accepted
/// by protobuf JSON parsers).
fn bytes(json: &Json) -> Result<Vec<u8>, String> {
    let s = json.as_str().ok_or_else(|| bad("bytes_value", json))?;
    let trimmed = s.trim_end_matches('=');
    if trimmed.contains(['-', '_']) {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(trimmed)
    } else {
        base64::engine::general_purpose::STANDARD_NO_PAD.decode(trimmed)
    }
    .map_err(|e| format!("bad base64 {s:?}: {e}"))
}

/// An RFC 3339 timestamp (`2009-02-13T23:31:30Z`, with optional fraction and offset).
pub fn timestamp(s: &str) -> Result<Timestamp, String> {
    let ts: jiff::Timestamp = s.parse().map_err(|e| format!("bad timestamp {s:?}: {e}"))?;
    let mut seconds = ts.as_second();
    let mut nanos = ts.subsec_nanosecond();
    if nanos < 0 {
        seconds -= 1;
        nanos += 1_000_000_000;
    }
    let nanos = u32::try_from(nanos).map_err(|_| format!("bad timestamp {s:?}"))?;
    Ok(Timestamp {
        seconds,
        nanos,
        offset_secs: 0,
    })
}

/// A proto JSON duration: decimal seconds with up to nine fraction digits and
/// an `s` suffix (`1000000s`, `-1.5s`, `123.321456789s`).
pub fn duration(s: &str) -> Result<Duration, String> {
    let err = || format!("bad duration {s:?}");
    let body = s.strip_suffix('s').ok_or_else(err)?;
    let (negative, body) = match body.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, body),
    };
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    if whole.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || fraction.len() > 9
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(err());
    }
    let seconds: i64 = whole.parse().map_err(|_| err())?;
    let mut frac_nanos: i64 = 0;
    for (i, b) in fraction.bytes().enumerate() {
        frac_nanos += i64::from(b - b'0') * 10i64.pow(8 - i as u32);
    }
    let nanos = seconds
        .checked_mul(1_000_000_000)
        .and_then(|n| n.checked_add(frac_nanos))
        .ok_or_else(|| format!("duration out of range: {s:?}"))?;
    Ok(Duration {
        nanos: if negative { -nanos } else { nanos },
    })
}

/// The type a `type_value` names (`int`, `list`, `google.protobuf.Timestamp`, ...).
pub fn type_from_name(name: &str) -> Type {
    match name {
        "bool" => Type::Bool,
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "null_type" => Type::Null,
        "dyn" => Type::Dyn,
        "list" => Type::list(Type::Dyn),
        "map" => Type::map(Type::Dyn, Type::Dyn),
        "type" => Type::Type(None),
        "optional_type" => Type::optional(Type::Dyn),
        other => message_type(other),
    }
}

/// The CEL type of a protobuf message type name: well-known types map to CEL
/// types as cel-go maps them, anything else is an object type.
pub fn message_type(name: &str) -> Type {
    match name {
        "google.protobuf.Timestamp" => Type::Timestamp,
        "google.protobuf.Duration" => Type::Duration,
        "google.protobuf.Any" => Type::Any,
        "google.protobuf.Value" => Type::Dyn,
        "google.protobuf.Struct" => Type::map(Type::String, Type::Dyn),
        "google.protobuf.ListValue" => Type::list(Type::Dyn),
        "google.protobuf.BoolValue" => Type::wrapper(Type::Bool),
        "google.protobuf.BytesValue" => Type::wrapper(Type::Bytes),
        "google.protobuf.DoubleValue" | "google.protobuf.FloatValue" => Type::wrapper(Type::Double),
        "google.protobuf.Int32Value" | "google.protobuf.Int64Value" => Type::wrapper(Type::Int),
        "google.protobuf.UInt32Value" | "google.protobuf.UInt64Value" => Type::wrapper(Type::Uint),
        "google.protobuf.StringValue" => Type::wrapper(Type::String),
        other => Type::object(other),
    }
}

/// Converts a `cel.expr.Type` in protobuf JSON.
pub fn cel_type(json: &Json) -> Result<Type, String> {
    type_at(json, 0)
}

fn type_at(json: &Json, depth: usize) -> Result<Type, String> {
    if depth > MAX_DEPTH {
        return Err("type nested too deeply".into());
    }
    let obj = json.as_object().ok_or_else(|| bad("Type", json))?;
    let Some((kind, body)) = obj.iter().next() else {
        // An empty Type message: cel-go reads it as dyn.
        return Ok(Type::Dyn);
    };
    if obj.len() != 1 {
        return Err(format!("a Type must have one field: {json}"));
    }
    let sub = |key: &str| -> Result<Type, String> {
        body.get(key)
            .map_or(Ok(Type::Dyn), |t| type_at(t, depth + 1))
    };
    match kind.as_str() {
        "dyn" => Ok(Type::Dyn),
        "null" => Ok(Type::Null),
        "error" => Ok(Type::Error),
        "primitive" => primitive(body),
        "wrapper" => primitive(body).map(Type::wrapper),
        "well_known" => match body.as_str() {
            Some("TIMESTAMP") => Ok(Type::Timestamp),
            Some("DURATION") => Ok(Type::Duration),
            Some("ANY") => Ok(Type::Any),
            _ => Err(bad("well_known", body)),
        },
        "list_type" => Ok(Type::list(sub("elem_type")?)),
        "map_type" => Ok(Type::map(sub("key_type")?, sub("value_type")?)),
        "message_type" => body
            .as_str()
            .map(message_type)
            .ok_or_else(|| bad("message_type", body)),
        "type_param" => body
            .as_str()
            .map(Type::param)
            .ok_or_else(|| bad("type_param", body)),
        "type" => {
            if body.as_object().is_some_and(|o| o.is_empty()) {
                Ok(Type::Type(None))
            } else {
                Ok(Type::type_of(type_at(body, depth + 1)?))
            }
        }
        "abstract_type" => {
            let name = body
                .get("name")
                .and_then(Json::as_str)
                .ok_or_else(|| bad("abstract_type", body))?;
            let params = match body.get("parameter_types") {
                None => Vec::new(),
                Some(Json::Array(ps)) => ps
                    .iter()
                    .map(|p| type_at(p, depth + 1))
                    .collect::<Result<_, _>>()?,
                Some(other) => return Err(bad("abstract_type.parameter_types", other)),
            };
            Ok(Type::Opaque(name.into(), Arc::from(params)))
        }
        other => Err(format!("unsupported Type kind `{other}`")),
    }
}

fn primitive(json: &Json) -> Result<Type, String> {
    match json.as_str() {
        Some("BOOL") => Ok(Type::Bool),
        Some("INT64") => Ok(Type::Int),
        Some("UINT64") => Ok(Type::Uint),
        Some("DOUBLE") => Ok(Type::Double),
        Some("STRING") => Ok(Type::String),
        Some("BYTES") => Ok(Type::Bytes),
        _ => Err(bad("primitive", json)),
    }
}

/// A `cel.expr.Decl`: a variable or a function (declaration only, no implementation).
pub enum Decl {
    Variable(String, Type),
    Function(Function),
}

/// Converts a `cel.expr.Decl` in protobuf JSON.
pub fn decl(json: &Json) -> Result<Decl, String> {
    let name = json
        .get("name")
        .and_then(Json::as_str)
        .ok_or_else(|| bad("Decl", json))?;
    if let Some(ident) = json.get("ident") {
        let t = ident.get("type").map_or(Ok(Type::Dyn), cel_type)?;
        return Ok(Decl::Variable(name.to_string(), t));
    }
    let Some(function) = json.get("function") else {
        return Err(bad("Decl", json));
    };
    let mut f = Function::new(name);
    let overloads = match function.get("overloads") {
        Some(Json::Array(os)) => os.as_slice(),
        None => &[],
        Some(other) => return Err(bad("function.overloads", other)),
    };
    for o in overloads {
        let id = o
            .get("overload_id")
            .and_then(Json::as_str)
            .ok_or_else(|| bad("Overload", o))?;
        let params = match o.get("params") {
            None => Vec::new(),
            Some(Json::Array(ps)) => ps.iter().map(cel_type).collect::<Result<_, _>>()?,
            Some(other) => return Err(bad("Overload.params", other)),
        };
        let result = o.get("result_type").map_or(Ok(Type::Dyn), cel_type)?;
        let member = o
            .get("is_instance_function")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        let overload = if member {
            Overload::member(id, params, result, None)
        } else {
            Overload::global(id, params, result, None)
        };
        f = f.overload(overload);
    }
    Ok(Decl::Function(f))
}
