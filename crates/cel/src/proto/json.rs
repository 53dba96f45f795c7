//! Protobuf JSON → messages (the proto3 JSON mapping): fields by proto or
//! JSON name, proto2 extensions as `"[full.name]"`, 64-bit integers as
//! numbers or strings, enums by name or number, bytes in base64, the
//! well-known types in their JSON forms and `Any` with `@type`.

use std::collections::HashMap;

use prost::Message as _;
use prost_reflect::{DynamicMessage, Kind, MapKey, MessageDescriptor, Value as PValue};
use serde_json::Value as Json;

use super::ProtoError;
use super::convert::{is_json_value, set};
use super::provider::Field;
use crate::value::{Duration, Timestamp};

/// `google.protobuf.Any`.
pub(super) const ANY: &str = "google.protobuf.Any";
/// How deeply messages may nest in the JSON read.
const MAX_DEPTH: usize = 100;

fn bad(what: impl std::fmt::Display) -> ProtoError {
    ProtoError::Json(what.to_string())
}

/// A message of type `desc` from its JSON form.
pub(super) fn message(
    desc: &MessageDescriptor,
    json: &Json,
    depth: usize,
) -> Result<DynamicMessage, ProtoError> {
    if depth > MAX_DEPTH {
        return Err(bad("messages nested too deeply"));
    }
    let mut m = DynamicMessage::new(desc.clone());
    let name = desc.full_name();
    let scalar_field = |m: &mut DynamicMessage, field: &str, v: PValue| -> Result<(), ProtoError> {
        let f = desc
            .get_field_by_name(field)
            .ok_or_else(|| bad(format!("{name} has no field {field}")))?;
        set(m, &Field::Plain(f), v).map_err(|e| bad(e.message()))
    };
    match name {
        ANY => return any(desc, json, depth),
        "google.protobuf.Timestamp" => {
            let s = json
                .as_str()
                .ok_or_else(|| bad(format!("{name}: {json}")))?;
            let t =
                Timestamp::parse(s).map_err(|e| bad(format!("{name} {s:?}: {}", e.message())))?;
            scalar_field(&mut m, "seconds", PValue::I64(t.seconds))?;
            scalar_field(&mut m, "nanos", PValue::I32(t.nanos as i32))?;
            return Ok(m);
        }
        "google.protobuf.Duration" => {
            let s = json
                .as_str()
                .ok_or_else(|| bad(format!("{name}: {json}")))?;
            let d =
                Duration::parse(s).map_err(|e| bad(format!("{name} {s:?}: {}", e.message())))?;
            scalar_field(&mut m, "seconds", PValue::I64(d.nanos / 1_000_000_000))?;
            scalar_field(
                &mut m,
                "nanos",
                PValue::I32((d.nanos % 1_000_000_000) as i32),
            )?;
            return Ok(m);
        }
        "google.protobuf.Struct" => {
            return field_json(&mut m, desc, "fields", json, depth).map(|()| m);
        }
        "google.protobuf.ListValue" => {
            return field_json(&mut m, desc, "values", json, depth).map(|()| m);
        }
        "google.protobuf.Value" => {
            let field = match json {
                Json::Null => "null_value",
                Json::Bool(_) => "bool_value",
                Json::Number(_) => "number_value",
                Json::String(_) => "string_value",
                Json::Array(_) => "list_value",
                Json::Object(_) => "struct_value",
            };
            if json.is_null() {
                scalar_field(&mut m, field, PValue::EnumNumber(0))?;
                return Ok(m);
            }
            return field_json(&mut m, desc, field, json, depth).map(|()| m);
        }
        "google.protobuf.FieldMask" => {
            let s = json
                .as_str()
                .ok_or_else(|| bad(format!("{name}: {json}")))?;
            let paths = s
                .split(',')
                .filter(|p| !p.is_empty())
                .map(|p| PValue::String(p.to_string()))
                .collect();
            scalar_field(&mut m, "paths", PValue::List(paths))?;
            return Ok(m);
        }
        n if n.starts_with("google.protobuf.") && n.ends_with("Value") => {
            return field_json(&mut m, desc, "value", json, depth).map(|()| m);
        }
        _ => {}
    }
    let Json::Object(obj) = json else {
        return Err(bad(format!("{name}: expected an object, got {json}")));
    };
    for (key, v) in obj {
        let field = if let Some(ext) = key.strip_prefix('[').and_then(|k| k.strip_suffix(']')) {
            let e = desc
                .parent_pool()
                .get_extension_by_name(ext)
                .filter(|e| e.containing_message().full_name() == name)
                .ok_or_else(|| bad(format!("{name} has no extension {ext}")))?;
            Field::Extension(e)
        } else {
            let f = desc
                .get_field_by_name(key)
                .or_else(|| desc.fields().find(|f| f.json_name() == key))
                .ok_or_else(|| bad(format!("{name} has no field {key}")))?;
            Field::Plain(f)
        };
        if let Some(pv) = value(&field, v, depth)? {
            set(&mut m, &field, pv).map_err(|e| bad(e.message()))?;
        }
    }
    Ok(m)
}

/// Sets the plain field `field` of a well-known message from `json`.
fn field_json(
    m: &mut DynamicMessage,
    desc: &MessageDescriptor,
    field: &str,
    json: &Json,
    depth: usize,
) -> Result<(), ProtoError> {
    let f = desc
        .get_field_by_name(field)
        .ok_or_else(|| bad(format!("{} has no field {field}", desc.full_name())))?;
    let f = Field::Plain(f);
    if let Some(pv) = value(&f, json, depth)? {
        set(m, &f, pv).map_err(|e| bad(e.message()))?;
    }
    Ok(())
}

/// `{"@type": "type.googleapis.com/T", ...}`: the fields of `T`, or its
/// JSON form under `value` for well-known types.
fn any(desc: &MessageDescriptor, json: &Json, depth: usize) -> Result<DynamicMessage, ProtoError> {
    let Json::Object(obj) = json else {
        return Err(bad(format!("{ANY}: expected an object, got {json}")));
    };
    let url = obj
        .get("@type")
        .and_then(Json::as_str)
        .ok_or_else(|| bad(format!("{ANY} without @type: {json}")))?;
    let type_name = url.rsplit_once('/').map_or(url, |(_, n)| n);
    let inner_desc = desc
        .parent_pool()
        .get_message_by_name(type_name)
        .ok_or_else(|| ProtoError::UnknownType(type_name.to_string()))?;
    let special =
        type_name.starts_with("google.protobuf.") && !matches!(type_name, "google.protobuf.Empty");
    let inner = if special {
        message(
            &inner_desc,
            obj.get("value").unwrap_or(&Json::Null),
            depth + 1,
        )?
    } else {
        let rest: serde_json::Map<String, Json> = obj
            .iter()
            .filter(|(k, _)| *k != "@type")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        message(&inner_desc, &Json::Object(rest), depth + 1)?
    };
    let mut m = DynamicMessage::new(desc.clone());
    for (field, v) in [
        ("type_url", PValue::String(url.to_string())),
        ("value", PValue::Bytes(inner.encode_to_vec().into())),
    ] {
        let f = desc
            .get_field_by_name(field)
            .ok_or_else(|| bad(format!("{ANY} has no field {field}")))?;
        set(&mut m, &Field::Plain(f), v).map_err(|e| bad(e.message()))?;
    }
    Ok(m)
}

/// The stored value of `field` from `json` (`None`: `null`, unset).
fn value(field: &Field, json: &Json, depth: usize) -> Result<Option<PValue>, ProtoError> {
    let kind = field.kind();
    if json.is_null() && !is_json_value(&kind) && !is_null_enum(&kind) {
        return Ok(None);
    }
    if field.is_map() {
        let (Json::Object(obj), Kind::Message(entry)) = (json, &kind) else {
            return Err(bad(format!("expected an object for a map, got {json}")));
        };
        let (kk, vk) = (
            entry.map_entry_key_field().kind(),
            entry.map_entry_value_field().kind(),
        );
        let mut out = HashMap::with_capacity(obj.len());
        for (k, v) in obj {
            out.insert(map_key(&kk, k)?, single(&vk, v, depth)?);
        }
        return Ok(Some(PValue::Map(out)));
    }
    if field.is_list() {
        let Json::Array(items) = json else {
            return Err(bad(format!("expected an array, got {json}")));
        };
        let items = items
            .iter()
            .map(|x| single(&kind, x, depth))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Some(PValue::List(items)));
    }
    single(&kind, json, depth).map(Some)
}

fn is_null_enum(kind: &Kind) -> bool {
    matches!(kind, Kind::Enum(e) if e.full_name() == super::provider::NULL_VALUE)
}

fn map_key(kind: &Kind, k: &str) -> Result<MapKey, ProtoError> {
    let num = || bad(format!("bad map key {k:?}"));
    Ok(match kind {
        Kind::Bool => MapKey::Bool(k.parse().map_err(|_| num())?),
        Kind::String => MapKey::String(k.to_string()),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => MapKey::I32(k.parse().map_err(|_| num())?),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => MapKey::I64(k.parse().map_err(|_| num())?),
        Kind::Uint32 | Kind::Fixed32 => MapKey::U32(k.parse().map_err(|_| num())?),
        Kind::Uint64 | Kind::Fixed64 => MapKey::U64(k.parse().map_err(|_| num())?),
        _ => return Err(num()),
    })
}

/// An integer from a JSON number or string.
fn integer<T: TryFrom<i128>>(json: &Json) -> Result<T, ProtoError> {
    let n: Option<i128> = match json {
        Json::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 1e20)
                    .map(|f| f as i128)
            }),
        Json::String(s) => s.parse().ok(),
        _ => None,
    };
    n.and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| bad(format!("bad integer {json}")))
}

fn double(json: &Json) -> Result<f64, ProtoError> {
    match json {
        Json::Number(n) => n.as_f64(),
        Json::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            s => s.parse().ok(),
        },
        _ => None,
    }
    .ok_or_else(|| bad(format!("bad number {json}")))
}

fn bytes(json: &Json) -> Result<Vec<u8>, ProtoError> {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let s = json
        .as_str()
        .ok_or_else(|| bad(format!("bad bytes {json}")))?;
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|e| e.decode(s).ok())
        .ok_or_else(|| bad(format!("bad base64 {s:?}")))
}

/// One (non-repeated) value of kind `kind`.
fn single(kind: &Kind, json: &Json, depth: usize) -> Result<PValue, ProtoError> {
    Ok(match kind {
        Kind::Double => PValue::F64(double(json)?),
        Kind::Float => PValue::F32(double(json)? as f32),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => PValue::I32(integer(json)?),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => PValue::I64(integer(json)?),
        Kind::Uint32 | Kind::Fixed32 => PValue::U32(integer(json)?),
        Kind::Uint64 | Kind::Fixed64 => PValue::U64(integer(json)?),
        Kind::Bool => PValue::Bool(
            json.as_bool()
                .ok_or_else(|| bad(format!("bad bool {json}")))?,
        ),
        Kind::String => PValue::String(
            json.as_str()
                .ok_or_else(|| bad(format!("bad string {json}")))?
                .to_string(),
        ),
        Kind::Bytes => PValue::Bytes(bytes(json)?.into()),
        Kind::Enum(e) => match json {
            Json::Null => PValue::EnumNumber(0),
            Json::String(s) => PValue::EnumNumber(
                e.get_value_by_name(s)
                    .ok_or_else(|| bad(format!("{} has no value {s}", e.full_name())))?
                    .number(),
            ),
            other => PValue::EnumNumber(integer(other)?),
        },
        Kind::Message(md) => PValue::Message(message(md, json, depth + 1)?),
    })
}
