//! Decoding a built-in object into its Go types, as kube-apiserver's JSON codec does
//! (`k8s.io/apimachinery` `runtime/serializer/json`, over `sigs.k8s.io/json`, a fork of
//! `encoding/json`): the first value that does not fit its Go type ends decoding with the
//! decoder's error text, before any validation runs.
//!
//! Texts (checked against the real decoder by `tests/gen/builtin_decode`):
//! - `json: cannot unmarshal <what> into Go struct field <Struct>.<path> of type <type>`
//!   (`UnmarshalTypeError.Error`): `<what>` is `string`, `bool`, `array`, `object`, `number`,
//!   or `number <literal>` when a number does not fit an integer type; `<Struct>` is the
//!   innermost struct's unqualified name, `<path>` the JSON field names from the root (list
//!   indexes and map keys left out), `<type>` the Go type of the target;
//! - `intstr.IntOrString` decodes non-strings as `int32` (its `UnmarshalJSON`);
//! - `resource.Quantity` parses the raw value's text (`Quantity.UnmarshalJSON`,
//!   `ParseQuantity`), its errors unwrapped;
//! - `[]byte` is base64 (`illegal base64 data at input byte N`).
//!
//! - `v1.Time` is an RFC 3339 string (`time.Parse` errors, [`crate::go::time`]).
//!
//! Named Go types the definitions do not name (`v1.Protocol`, `v1.ResourceList`) come from a
//! table of Kubernetes 1.35's types ([`GoType::Named`]).

use base64::Engine;
use serde_json::Value;

use super::convert::GoType;
use crate::field::go_json;
use crate::go::quantity::{Quantity, QuantityError};
use crate::go::time::TimeParseError;

/// Nesting beyond which values are not checked (the pipeline's decoding bounds depth first).
const MAX_DECODE_DEPTH: usize = 1000;

/// The typed decoder's first error, printed with Go's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The object itself does not fit its Go type (`UnmarshalTypeError` without a field).
    #[error("json: cannot unmarshal {value} into Go value of type {go_type}")]
    Value {
        /// What the JSON value is (`string`, `array`, `number 1e99`, ...).
        value: String,
        /// The Go type it was decoded into.
        go_type: String,
    },
    /// A field does not fit its Go type (`UnmarshalTypeError.Error` with a struct field).
    #[error(
        "json: cannot unmarshal {value} into Go struct field {struct_name}.{path} of type {go_type}"
    )]
    Field {
        /// What the JSON value is (`string`, `array`, `number 1e99`, ...).
        value: String,
        /// The innermost struct's unqualified name.
        struct_name: String,
        /// The JSON field names from the root, joined by `.` (list indexes and map keys left out).
        path: String,
        /// The Go type of the field.
        go_type: String,
    },
    /// A `metav1.Time` that is not an RFC 3339 time.
    #[error(transparent)]
    Time(#[from] TimeParseError),
    /// A `resource.Quantity` that does not parse.
    #[error(transparent)]
    Quantity(#[from] QuantityError),
    /// A `[]byte` that is not base64 (Go's `base64.CorruptInputError`).
    #[error("illegal base64 data at input byte {offset}")]
    Base64 {
        /// The offset of the first bad byte.
        offset: usize,
    },
}

struct Context<'a> {
    /// JSON field names from the root.
    fields: Vec<&'a str>,
    /// The innermost struct's unqualified name.
    structs: Vec<String>,
}

fn what(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl Context<'_> {
    fn type_error(&self, value: &str, go_type: &str) -> DecodeError {
        if self.fields.is_empty() {
            return DecodeError::Value {
                value: value.to_string(),
                go_type: go_type.to_string(),
            };
        }
        DecodeError::Field {
            value: value.to_string(),
            struct_name: self.structs.last().cloned().unwrap_or_default(),
            path: self.fields.join("."),
            go_type: go_type.to_string(),
        }
    }
}

/// `number` or `number <literal>` for a number an integer type cannot hold.
fn integer_fits(v: &Value, min: i64, max: i64) -> Result<(), String> {
    match v.as_i64() {
        Some(i) if (min..=max).contains(&i) => Ok(()),
        _ => Err(format!("number {}", go_json(v))),
    }
}

/// The unqualified name of a qualified Go struct name.
fn unqualified(name: &str) -> String {
    name.rsplit_once('.').map_or(name, |(_, n)| n).to_string()
}

/// Checks `v` against `t`; `named`: the name Go gives the type when it is a named type.
fn check<'a>(
    v: &'a Value,
    t: &'a GoType,
    named: Option<&str>,
    cx: &mut Context<'a>,
    depth: usize,
) -> Result<(), DecodeError> {
    if depth > MAX_DECODE_DEPTH || v.is_null() {
        return Ok(());
    }
    let type_name = || named.map_or_else(|| t.go_name(), str::to_string);
    let mismatch = |cx: &Context<'_>| Err(cx.type_error(what(v), &type_name()));
    match t {
        GoType::Named { name, inner } => check(v, inner, Some(name), cx, depth),
        GoType::Any => Ok(()),
        GoType::Struct { name, fields } => {
            let Value::Object(m) = v else {
                return mismatch(cx);
            };
            if fields.is_empty() {
                // A struct with its own unmarshaller (`FieldsV1`, ...).
                return Ok(());
            }
            cx.structs.push(unqualified(name));
            for (k, x) in m {
                if let Some(ft) = fields.get(k) {
                    cx.fields.push(k);
                    check(x, ft, None, cx, depth + 1)?;
                    cx.fields.pop();
                }
            }
            cx.structs.pop();
            Ok(())
        }
        GoType::Map(elem) => {
            let Value::Object(m) = v else {
                return mismatch(cx);
            };
            m.values()
                .try_for_each(|x| check(x, elem, None, cx, depth + 1))
        }
        GoType::Slice(elem) => {
            let Value::Array(a) = v else {
                return mismatch(cx);
            };
            a.iter()
                .try_for_each(|x| check(x, elem, None, cx, depth + 1))
        }
        GoType::String => match v {
            Value::String(_) => Ok(()),
            _ => mismatch(cx),
        },
        // `metav1.Time.UnmarshalJSON`: a string, parsed as RFC 3339.
        GoType::Time => match v {
            Value::String(s) => Ok(crate::go::time::parse_rfc3339(s)?),
            _ => Err(cx.type_error(what(v), "string")),
        },
        GoType::Bool => match v {
            Value::Bool(_) => Ok(()),
            _ => mismatch(cx),
        },
        GoType::Float64 => match v {
            Value::Number(_) => Ok(()),
            _ => mismatch(cx),
        },
        GoType::Int32 | GoType::Int64 | GoType::IntOrString => {
            let (min, max) = match t {
                GoType::Int64 => (i64::MIN, i64::MAX),
                _ => (i64::from(i32::MIN), i64::from(i32::MAX)),
            };
            // `IntOrString.UnmarshalJSON` decodes anything but a string as its `int32`.
            let name = match t {
                GoType::IntOrString => "int32".to_string(),
                _ => type_name(),
            };
            match v {
                Value::String(_) if matches!(t, GoType::IntOrString) => Ok(()),
                Value::Number(_) => integer_fits(v, min, max).map_err(|w| cx.type_error(&w, &name)),
                _ => Err(cx.type_error(what(v), &name)),
            }
        }
        GoType::Quantity => {
            let text = match v {
                Value::String(s) => s.trim().to_string(),
                other => go_json(other),
            };
            Quantity::parse(&text)
                .map(|_| ())
                .map_err(DecodeError::from)
        }
        GoType::Bytes => match v {
            Value::String(s) => base64::engine::general_purpose::STANDARD
                .decode(s)
                .map(|_| ())
                .map_err(|e| DecodeError::Base64 {
                    offset: corrupt_at(&e, s),
                }),
            _ => mismatch(cx),
        },
    }
}

/// The offset Go's `base64.CorruptInputError` reports.
fn corrupt_at(e: &base64::DecodeError, s: &str) -> usize {
    match e {
        base64::DecodeError::InvalidByte(i, _) | base64::DecodeError::InvalidLastSymbol(i, _) => *i,
        _ => s.trim_end_matches('=').len(),
    }
}

/// Decodes `object` into `go_type`: the decoder's first error, if any.
pub fn decode(object: &Value, go_type: &GoType) -> Result<(), DecodeError> {
    let mut cx = Context {
        fields: Vec::new(),
        structs: Vec::new(),
    };
    check(object, go_type, None, &mut cx, 0)
}
