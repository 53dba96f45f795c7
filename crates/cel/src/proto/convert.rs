//! Protobuf values ↔ CEL values: cel-go's `common/types/pb/type.go`
//! (reading fields, unset wrappers as `null`) and `common/types/provider.go`
//! (`NativeToValue`: well-known types as CEL values, `Any` unpacked; `NewValue`
//! and the values' `ConvertToNative`: CEL values into fields, `Any` packing,
//! JSON `Value`s).

use std::collections::HashMap;
use std::sync::Arc;

use indexmap::IndexMap;
use prost::Message as _;
use prost_reflect::{
    DynamicMessage, Kind, MapKey, MessageDescriptor, ReflectMessage, Value as PValue,
};

use super::EnumMode;
use super::enums::{enum_number, enum_to_cel};
use super::message::{Message, is_message};
use super::provider::{Field, NULL_VALUE};
use crate::error::{EvalError, EvalResult};
use crate::value::{Duration, Key, List, Map, Timestamp, Value};

const NANOS: i64 = 1_000_000_000;
/// cel-go's `maxIntJSON`: integers beyond ±(2^53 - 1) become JSON strings.
const MAX_INT_JSON: i64 = (1 << 53) - 1;
const TYPE_URL_PREFIX: &str = "type.googleapis.com/";
/// How many `Any`s may be nested in one another: each is decoded on its own
/// (protobuf's decoding limit does not see through them), so the nesting of
/// their bytes is bounded here.
const MAX_ANY_DEPTH: usize = 100;

fn err(message: impl Into<String>) -> EvalError {
    EvalError::msg(message)
}

/// `m.f`: the field's value; an unset wrapper, `google.protobuf.Value` or
/// `google.protobuf.Any` field reads `null` (cel-go's `FieldDescription.GetFrom`).
/// Enums read as `enums` says.
pub(super) fn read_field(m: &DynamicMessage, f: &Field, enums: EnumMode) -> EvalResult {
    let kind = f.kind();
    let (set, value) = match f {
        Field::Plain(d) => (m.has_field(d), m.get_field(d)),
        Field::Extension(e) => (m.has_extension(e), m.get_extension(e)),
    };
    if !set
        && !f.is_list()
        && let Kind::Message(md) = &kind
        && (is_wrapper(md.full_name())
            || matches!(
                md.full_name(),
                "google.protobuf.Value" | "google.protobuf.Any"
            ))
    {
        return Ok(Value::Null);
    }
    to_cel(&value, &kind, Ctx { enums, depth: 0 })
}

fn is_wrapper(name: &str) -> bool {
    matches!(
        name,
        "google.protobuf.BoolValue"
            | "google.protobuf.BytesValue"
            | "google.protobuf.DoubleValue"
            | "google.protobuf.FloatValue"
            | "google.protobuf.Int32Value"
            | "google.protobuf.Int64Value"
            | "google.protobuf.UInt32Value"
            | "google.protobuf.UInt64Value"
            | "google.protobuf.StringValue"
    )
}

/// How stored values become CEL values.
#[derive(Clone, Copy)]
struct Ctx {
    enums: EnumMode,
    /// The `Any`s unpacked on the way (see [`MAX_ANY_DEPTH`]).
    depth: usize,
}

/// A stored value of a field of kind `kind` as a CEL value.
fn to_cel(v: &PValue, kind: &Kind, cx: Ctx) -> EvalResult {
    Ok(match v {
        PValue::Bool(b) => Value::Bool(*b),
        PValue::I32(i) => Value::Int(i64::from(*i)),
        PValue::I64(i) => Value::Int(*i),
        PValue::U32(u) => Value::Uint(u64::from(*u)),
        PValue::U64(u) => Value::Uint(*u),
        PValue::F32(d) => Value::Double(f64::from(*d)),
        PValue::F64(d) => Value::Double(*d),
        PValue::String(s) => Value::string(s.as_str()),
        PValue::Bytes(b) => Value::bytes(b.to_vec()),
        PValue::EnumNumber(_) if matches!(kind, Kind::Enum(e) if e.full_name() == NULL_VALUE) => {
            Value::Null
        }
        PValue::EnumNumber(n) => match kind {
            Kind::Enum(e) => enum_to_cel(e, *n, cx.enums),
            _ => Value::Int(i64::from(*n)),
        },
        PValue::Message(m) => message_at(m, cx)?,
        PValue::List(items) => Value::List(List::new(
            items
                .iter()
                .map(|x| to_cel(x, kind, cx))
                .collect::<EvalResult<Vec<_>>>()?,
        )),
        PValue::Map(entries) => {
            let Kind::Message(entry) = kind else {
                return Err(err("map field without an entry type"));
            };
            let vk = entry.map_entry_value_field().kind();
            // Protobuf maps are unordered: entries in key order, so that a
            // map's iteration order never depends on hashing.
            let mut sorted: Vec<_> = entries.iter().collect();
            sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
            let mut out = IndexMap::with_capacity(sorted.len());
            for (k, x) in sorted {
                out.insert(map_key_to_cel(k), to_cel(x, &vk, cx)?);
            }
            Value::Map(Map::new(out))
        }
    })
}

fn map_key_to_cel(k: &MapKey) -> Key {
    match k {
        MapKey::Bool(b) => Key::Bool(*b),
        MapKey::I32(i) => Key::Int(i64::from(*i)),
        MapKey::I64(i) => Key::Int(*i),
        MapKey::U32(u) => Key::Uint(u64::from(*u)),
        MapKey::U64(u) => Key::Uint(*u),
        MapKey::String(s) => Key::String(s.as_str().into()),
    }
}

fn field_of<'a>(m: &'a DynamicMessage, name: &str) -> Option<std::borrow::Cow<'a, PValue>> {
    m.get_field_by_name(name)
}

/// A message as a CEL value (cel-go's `NativeToValue`): well-known types
/// become CEL's own values, `Any` is unpacked, others are [`Message`]s
/// whose enums read as `enums` says.
pub(super) fn message_to_cel(m: &DynamicMessage, enums: EnumMode) -> EvalResult {
    message_at(m, Ctx { enums, depth: 0 })
}

fn message_at(m: &DynamicMessage, cx: Ctx) -> EvalResult {
    let desc = m.descriptor();
    let name = desc.full_name();
    let get = |field: &str| -> EvalResult {
        match desc.get_field_by_name(field) {
            Some(f) => to_cel(&m.get_field(&f), &f.kind(), cx),
            None => Err(err(format!("no such field '{field}'"))),
        }
    };
    Ok(match name {
        n if is_wrapper(n) => get("value")?,
        "google.protobuf.Timestamp" => {
            let (Value::Int(s), Value::Int(n)) = (get("seconds")?, get("nanos")?) else {
                return Err(err("invalid timestamp"));
            };
            let nanos = u32::try_from(n).map_err(|_| err("invalid timestamp"))?;
            Value::Timestamp(Timestamp::new(s, nanos)?)
        }
        "google.protobuf.Duration" => {
            let (Value::Int(s), Value::Int(n)) = (get("seconds")?, get("nanos")?) else {
                return Err(err("invalid duration"));
            };
            let total = s
                .checked_mul(NANOS)
                .and_then(|x| x.checked_add(n))
                .ok_or_else(|| err("duration out of range"))?;
            Value::Duration(Duration::from_nanos(total))
        }
        "google.protobuf.Any" => unpack_any(
            m,
            Ctx {
                depth: cx.depth + 1,
                ..cx
            },
        )?,
        "google.protobuf.Value" => match m.fields().next() {
            Some((f, v)) => to_cel(v, &f.kind(), cx)?,
            None => Value::Null,
        },
        "google.protobuf.Struct" | "google.protobuf.ListValue" => {
            get(if name.ends_with("Struct") {
                "fields"
            } else {
                "values"
            })?
        }
        _ => Value::Opaque(Arc::new(Message::with_enum_mode(m.clone(), cx.enums))),
    })
}

/// The message an `Any` holds, as a CEL value.
fn unpack_any(m: &DynamicMessage, cx: Ctx) -> EvalResult {
    if cx.depth > MAX_ANY_DEPTH {
        return Err(err("Any values nested too deeply"));
    }
    let url = match field_of(m, "type_url").as_deref() {
        Some(PValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    let bytes = match field_of(m, "value").as_deref() {
        Some(PValue::Bytes(b)) => b.clone(),
        _ => Default::default(),
    };
    let name = url.rsplit_once('/').map_or(url.as_str(), |(_, n)| n);
    let desc = m
        .descriptor()
        .parent_pool()
        .get_message_by_name(name)
        .ok_or_else(|| err(format!("unknown type: '{name}'")))?;
    let inner = DynamicMessage::decode(desc, bytes)
        .map_err(|e| err(format!("cannot unpack '{name}': {e}")))?;
    message_at(&inner, cx)
}

/// `T{f: v, ...}` as a message (cel-go's `NewValue`).
pub(super) fn new_message(
    desc: &MessageDescriptor,
    fields: &[(&str, Value)],
) -> EvalResult<DynamicMessage> {
    let mut m = DynamicMessage::new(desc.clone());
    for (name, v) in fields {
        let f = super::provider::find_field(desc, name)
            .ok_or_else(|| err(format!("no such field '{name}'")))?;
        let Some(pv) = field_value(&f, v)? else {
            continue;
        };
        set(&mut m, &f, pv)?;
    }
    Ok(m)
}

/// Sets field `f` of `m`, checking the value's kind (never panics).
pub(super) fn set(m: &mut DynamicMessage, f: &Field, v: PValue) -> EvalResult<()> {
    match f {
        Field::Plain(d) => m
            .try_set_field(d, v)
            .map_err(|e| err(format!("field '{}': {e}", d.name()))),
        Field::Extension(e) => {
            if !v.is_valid_for_extension(e) {
                return Err(err(format!(
                    "invalid value for extension '{}'",
                    e.full_name()
                )));
            }
            m.set_extension(e, v);
            Ok(())
        }
    }
}

/// The stored form of CEL value `v` for field `f`; `None` leaves the field
/// unset (`null` for a message field).
fn field_value(f: &Field, v: &Value) -> EvalResult<Option<PValue>> {
    let kind = f.kind();
    if f.is_map() {
        let (Value::Map(m), Kind::Message(entry)) = (v, &kind) else {
            return Err(mismatch(v, "map"));
        };
        let (kk, vk) = (
            entry.map_entry_key_field().kind(),
            entry.map_entry_value_field().kind(),
        );
        let mut out = HashMap::with_capacity(m.len());
        for (k, x) in m.entries() {
            if !pruned(&vk, &x) {
                out.insert(map_key(&kk, &k)?, single(&vk, &x)?);
            }
        }
        return Ok(Some(PValue::Map(out)));
    }
    if f.is_list() {
        let Value::List(l) = v else {
            return Err(mismatch(v, "list"));
        };
        let items = l
            .iter()
            .filter(|x| !pruned(&kind, x))
            .map(|x| single(&kind, &x))
            .collect::<EvalResult<Vec<_>>>()?;
        return Ok(Some(PValue::List(items)));
    }
    // `null` leaves a message field unset (a `google.protobuf.Value` holds
    // it); scalars, `Struct` and `ListValue` do not take it.
    if matches!(v, Value::Null) && !is_json_value(&kind) {
        return match &kind {
            Kind::Message(md)
                if !matches!(
                    md.full_name(),
                    "google.protobuf.Struct" | "google.protobuf.ListValue"
                ) =>
            {
                Ok(None)
            }
            _ => Err(err("unsupported field type")),
        };
    }
    single(&kind, v).map(Some)
}

/// A `null` element of a repeated or map field of message kind (other than
/// `google.protobuf.Value` and `Any`, which hold it) is left out.
fn pruned(kind: &Kind, v: &Value) -> bool {
    matches!(v, Value::Null)
        && matches!(kind, Kind::Message(md)
            if !matches!(md.full_name(), "google.protobuf.Value" | "google.protobuf.Any"))
}

fn mismatch(v: &Value, want: &str) -> EvalError {
    err(format!(
        "type conversion error from '{}' to '{want}'",
        v.type_name()
    ))
}

fn map_key(kind: &Kind, k: &Key) -> EvalResult<MapKey> {
    Ok(match (kind, k) {
        (Kind::Bool, Key::Bool(b)) => MapKey::Bool(*b),
        (Kind::String, Key::String(s)) => MapKey::String(s.to_string()),
        (Kind::Int32 | Kind::Sint32 | Kind::Sfixed32, Key::Int(i)) => {
            MapKey::I32(i32::try_from(*i).map_err(|_| err("integer overflow"))?)
        }
        (Kind::Int64 | Kind::Sint64 | Kind::Sfixed64, Key::Int(i)) => MapKey::I64(*i),
        (Kind::Uint32 | Kind::Fixed32, Key::Uint(u)) => {
            MapKey::U32(u32::try_from(*u).map_err(|_| err("unsigned integer overflow"))?)
        }
        (Kind::Uint64 | Kind::Fixed64, Key::Uint(u)) => MapKey::U64(*u),
        _ => return Err(mismatch(&k.to_value(), "map key")),
    })
}

/// One (non-repeated) value of kind `kind` from CEL value `v`.
fn single(kind: &Kind, v: &Value) -> EvalResult<PValue> {
    Ok(match (kind, v) {
        (Kind::Double, Value::Double(d)) => PValue::F64(*d),
        (Kind::Float, Value::Double(d)) => PValue::F32(*d as f32),
        (Kind::Int32 | Kind::Sint32 | Kind::Sfixed32, Value::Int(i)) => {
            PValue::I32(i32::try_from(*i).map_err(|_| err("integer overflow"))?)
        }
        (Kind::Int64 | Kind::Sint64 | Kind::Sfixed64, Value::Int(i)) => PValue::I64(*i),
        (Kind::Uint32 | Kind::Fixed32, Value::Uint(u)) => {
            PValue::U32(u32::try_from(*u).map_err(|_| err("unsigned integer overflow"))?)
        }
        (Kind::Uint64 | Kind::Fixed64, Value::Uint(u)) => PValue::U64(*u),
        (Kind::Bool, Value::Bool(b)) => PValue::Bool(*b),
        (Kind::String, Value::String(s)) => PValue::String(s.to_string()),
        (Kind::Bytes, Value::Bytes(b)) => PValue::Bytes(b.to_vec().into()),
        (Kind::Enum(e), Value::Null) if e.full_name() == NULL_VALUE => PValue::EnumNumber(0),
        (Kind::Enum(e), v) if let Some(n) = enum_number(e, v) => PValue::EnumNumber(n?),
        (Kind::Message(md), v) => PValue::Message(to_message(md, v)?),
        (k, v) => return Err(mismatch(v, &format!("{k:?}"))),
    })
}

/// A message of type `md` holding CEL value `v`: well-known types from CEL
/// values (`Any` packs any value), other messages from a [`Message`] of
/// that type.
pub(super) fn to_message(md: &MessageDescriptor, v: &Value) -> EvalResult<DynamicMessage> {
    let name = md.full_name();
    let mut m = DynamicMessage::new(md.clone());
    let put = |m: &mut DynamicMessage, field: &str, x: &Value| -> EvalResult<()> {
        let f = md
            .get_field_by_name(field)
            .ok_or_else(|| err(format!("no such field '{field}'")))?;
        let f = Field::Plain(f);
        if let Some(pv) = field_value(&f, x)? {
            set(m, &f, pv)?;
        }
        Ok(())
    };
    match (name, v) {
        (n, _) if is_wrapper(n) => {
            let ok = matches!(
                (n, v),
                ("google.protobuf.BoolValue", Value::Bool(_))
                    | ("google.protobuf.BytesValue", Value::Bytes(_))
                    | (
                        "google.protobuf.DoubleValue" | "google.protobuf.FloatValue",
                        Value::Double(_)
                    )
                    | (
                        "google.protobuf.Int32Value" | "google.protobuf.Int64Value",
                        Value::Int(_)
                    )
                    | (
                        "google.protobuf.UInt32Value" | "google.protobuf.UInt64Value",
                        Value::Uint(_)
                    )
                    | ("google.protobuf.StringValue", Value::String(_))
            );
            if !ok {
                return Err(mismatch(v, n));
            }
            put(&mut m, "value", v)?;
        }
        ("google.protobuf.Timestamp", Value::Timestamp(t)) => {
            put(&mut m, "seconds", &Value::Int(t.seconds))?;
            put(&mut m, "nanos", &Value::Int(i64::from(t.nanos)))?;
        }
        ("google.protobuf.Duration", Value::Duration(d)) => {
            put(&mut m, "seconds", &Value::Int(d.nanos / NANOS))?;
            put(&mut m, "nanos", &Value::Int(d.nanos % NANOS))?;
        }
        ("google.protobuf.Any", v) => {
            let inner = pack_source(md, v)?;
            let url = format!("{TYPE_URL_PREFIX}{}", inner.descriptor().full_name());
            put(&mut m, "type_url", &Value::string(url))?;
            put(&mut m, "value", &Value::bytes(inner.encode_to_vec()))?;
        }
        ("google.protobuf.Value", v) => json_value(&mut m, md, v)?,
        ("google.protobuf.Struct", Value::Map(_)) => put(&mut m, "fields", &struct_fields(v)?)?,
        ("google.protobuf.ListValue", Value::List(_)) => put(&mut m, "values", v)?,
        (_, Value::Opaque(o)) => match o.as_any().downcast_ref::<Message>() {
            Some(x) if x.full_name() == name => return Ok(x.message().clone()),
            _ => return Err(mismatch(v, name)),
        },
        _ => return Err(mismatch(v, name)),
    }
    Ok(m)
}

/// A map with string keys (a `Struct`'s fields); others are an error.
fn struct_fields(v: &Value) -> EvalResult {
    if let Value::Map(m) = v
        && m.keys().any(|k| !matches!(k, Key::String(_)))
    {
        return Err(err("bad key type"));
    }
    Ok(v.clone())
}

/// The message an `Any` holding `v` packs: the message itself, or the
/// well-known type of a CEL value.
fn pack_source(any: &MessageDescriptor, v: &Value) -> EvalResult<DynamicMessage> {
    if let Value::Opaque(o) = v
        && let Some(x) = o.as_any().downcast_ref::<Message>()
    {
        return Ok(x.message().clone());
    }
    let wkt = match v {
        Value::Bool(_) => "google.protobuf.BoolValue",
        Value::Int(_) => "google.protobuf.Int64Value",
        Value::Uint(_) => "google.protobuf.UInt64Value",
        Value::Double(_) => "google.protobuf.DoubleValue",
        Value::String(_) => "google.protobuf.StringValue",
        Value::Bytes(_) => "google.protobuf.BytesValue",
        Value::Timestamp(_) => "google.protobuf.Timestamp",
        Value::Duration(_) => "google.protobuf.Duration",
        Value::Null => "google.protobuf.Value",
        Value::List(_) => "google.protobuf.ListValue",
        Value::Map(_) => "google.protobuf.Struct",
        other => return Err(mismatch(other, "google.protobuf.Any")),
    };
    let desc = any
        .parent_pool()
        .get_message_by_name(wkt)
        .ok_or_else(|| err(format!("unknown type: '{wkt}'")))?;
    to_message(&desc, v)
}

/// `v` as a `google.protobuf.Value` (cel-go's `ConvertToNative(jsonValueType)`).
fn json_value(m: &mut DynamicMessage, md: &MessageDescriptor, v: &Value) -> EvalResult<()> {
    let (field, x) = match v {
        Value::Null => ("null_value", Value::Null),
        Value::Bool(_) => ("bool_value", v.clone()),
        Value::Int(i) if i.unsigned_abs() <= MAX_INT_JSON as u64 => {
            ("number_value", Value::Double(*i as f64))
        }
        Value::Int(i) => ("string_value", Value::string(i.to_string())),
        Value::Uint(u) if *u <= MAX_INT_JSON as u64 => ("number_value", Value::Double(*u as f64)),
        Value::Uint(u) => ("string_value", Value::string(u.to_string())),
        Value::Double(_) => ("number_value", v.clone()),
        Value::String(_) => ("string_value", v.clone()),
        Value::Bytes(b) => {
            use base64::Engine as _;
            let s = base64::engine::general_purpose::STANDARD.encode(b);
            ("string_value", Value::string(s))
        }
        Value::Timestamp(t) => ("string_value", Value::string(t.to_string())),
        Value::Duration(d) => ("string_value", Value::string(d.to_string())),
        Value::List(_) => ("list_value", v.clone()),
        Value::Map(_) => ("struct_value", struct_fields(v)?),
        Value::Opaque(o) => match o.as_any().downcast_ref::<Message>() {
            Some(x) => ("", message_json(x)?),
            None => return Err(mismatch(v, "google.protobuf.Value")),
        },
        other => return Err(mismatch(other, "google.protobuf.Value")),
    };
    if field.is_empty() {
        // A message's JSON form, itself a JSON value.
        return json_value(m, md, &x);
    }
    let f = md
        .get_field_by_name(field)
        .ok_or_else(|| err(format!("no such field '{field}'")))?;
    let f = Field::Plain(f);
    let pv = if matches!(x, Value::Null) {
        PValue::EnumNumber(0)
    } else {
        single(&f.kind(), &x)?
    };
    set(m, &f, pv)
}

/// The JSON form (as a CEL value) of the messages whose JSON is not an
/// object of their fields: `Empty` is `{}`, `FieldMask` its paths joined
/// with commas. Others are not converted.
fn message_json(m: &Message) -> EvalResult {
    match m.full_name() {
        "google.protobuf.Empty" => Ok(Value::Map(Map::new(IndexMap::new()))),
        "google.protobuf.FieldMask" => {
            let paths = match field_of(m.message(), "paths").as_deref() {
                Some(PValue::List(items)) => items
                    .iter()
                    .filter_map(|p| p.as_str().map(str::to_string))
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            };
            Ok(Value::string(paths.join(",")))
        }
        other => Err(err(format!(
            "type conversion error from '{other}' to 'google.protobuf.Value'"
        ))),
    }
}

/// True when `kind` is `google.protobuf.Value` (JSON `null` sets it).
pub(super) fn is_json_value(kind: &Kind) -> bool {
    is_message(kind, "google.protobuf.Value")
}
