//! JSON documents as CEL values, typed by their structural schema (Kubernetes
//! `apiserver/pkg/cel/common/values.go`, `valuesunstructured.go`, `maplist.go`).
//!
//! A document is one [`Json`] tree whose containers sit behind `Arc`. The pipeline changes it
//! in place while it owns it alone (decoding, pruning, defaulting, preparation: `as_object_mut`
//! and `as_array_mut` go through `Arc::make_mut`, which copies nothing for a container no one
//! else holds); from validation on it is only read. [`to_value`] then wraps a node and its
//! schema in a cheap view: scalars become CEL scalars (formats converted on access), objects
//! become [`ObjectView`]s, maps [`MapView`]s, lists [`ListView`]s (plain, set or map lists).
//! Views clone two `Arc`s; nothing is copied per rule or per access.
//!
//! Semantics (k8s-cel.md §6, §6.1):
//! * object fields are found by CEL (escaped) name; a field that is absent **or null** is not
//!   set (`has()` false), while `size()` counts every key of the JSON object;
//! * numbers: `type: number` gives `double` (JSON integers converted), `type: integer` gives
//!   `int`; a JSON integer outside the int64 range is a double, as the API server decodes it;
//! * equality and `+` of set lists and map lists follow the left operand's list type.
//!
//! Data that does not fit its schema (a string where the schema says integer, null where the
//! schema is not nullable) is reported by [`to_value`] as a [`ValueError`] with Kubernetes'
//! text. Inside views such a member is an error value, as in Kubernetes: reading it (field
//! selection, `has()`, index, `in`) fails with that text through the providers' `try_*`
//! methods, while the infallible `get`/`field` read it as absent (equality, iteration).

pub(crate) mod build;
pub(crate) mod formats;
mod json_object;
mod lists;
mod objects;

use std::fmt;
use std::sync::Arc;

use cel::Value;
use cel::value::{List, Map, Opaque};

pub use build::JsonBody;
pub use formats::go_parse_duration;
pub(crate) use formats::{parse_byte, parse_date, parse_date_time, parse_duration};
pub use json_object::JsonObject;
pub use lists::{ListKind, ListView};
pub use objects::{MapView, ObjectView};

use crate::structural::{CelKind, Structural};

/// The deepest nesting of a document turned into CEL values ([`Json::from_serde`]).
pub const MAX_CEL_DOCUMENT_DEPTH: usize = 1000;

/// A JSON document. Cloning is cheap (containers are shared); changing a shared container
/// copies that container first (`Arc::make_mut`), never the others.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer that fits `int64`.
    Int(i64),
    /// Any other number.
    Double(f64),
    /// A string.
    String(Arc<str>),
    /// An array.
    Array(Arc<[Json]>),
    /// An object.
    Object(Arc<JsonObject>),
}

/// Why a JSON value could not be read with its schema, printed with Kubernetes' texts
/// (apiserver `pkg/cel/common/values.go` `UnstructuredToVal` and its list and map views).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// The document nests deeper than [`MAX_CEL_DOCUMENT_DEPTH`] (kcel's own limit).
    #[error("document nests deeper than {MAX_CEL_DOCUMENT_DEPTH} levels")]
    TooDeep,
    /// `null` where the schema is not nullable.
    #[error("invalid data, got null for schema with nullable=false")]
    NullNotNullable,
    /// An `x-kubernetes-int-or-string` value that is neither.
    #[error("invalid data, expected XIntOrString value to be either a string or integer")]
    NotIntOrString,
    /// Not an object where the schema says `type: object`.
    #[error("invalid data, expected a map for the provided schema with type=object")]
    NotAnObject,
    /// Not an array where the schema says `type: array`.
    #[error("invalid data, expected an array for the provided schema with type=array")]
    NotAnArray,
    /// An array schema without `items`.
    #[error("invalid data, expected schema with items")]
    NoItemsSchema,
    /// A scalar of the wrong type.
    #[error("invalid data, expected {expected}, got {got}")]
    WrongType {
        /// The Go type expected (`string`, `float`, `int`, `bool`).
        expected: &'static str,
        /// The Go type of the value (`float64`, `[]interface {}`, ...).
        got: &'static str,
    },
    /// A string that does not parse in its schema's `format`.
    #[error("Invalid {format} {value}: {reason}")]
    Format {
        /// The format as the message names it (`duration`, `date formatted string`, ...).
        format: &'static str,
        /// The string.
        value: String,
        /// The parser's error text.
        reason: String,
    },
    /// A schema `type` CEL does not know.
    #[error("unsupported type: {0:?}")]
    UnsupportedType(String),
    /// An `x-kubernetes-list-type` other than `atomic`, `set` and `map`.
    #[error("invalid x-kubernetes-list-type, expected 'map', 'set' or 'atomic' but got {0}")]
    ListType(String),
}

impl ValueError {
    /// The error as a CEL evaluation error.
    pub fn to_eval_error(&self) -> cel::EvalError {
        cel::EvalError::msg(self.to_string())
    }
}

impl Json {
    /// Converts a `serde_json` document. Integers outside int64 become doubles (as the API
    /// server's decoder reads them).
    pub fn from_serde(v: &serde_json::Value) -> Result<Json, ValueError> {
        Converter::new(MAX_CEL_DOCUMENT_DEPTH).convert(v, 0)
    }

    /// [`Json::from_serde`] with nodes allowed down to `depth_limit` (`None` beyond it): the
    /// pipeline's decoding takes request bodies as deep as the API server's decoder does.
    pub(crate) fn from_serde_within(v: &serde_json::Value, depth_limit: usize) -> Option<Json> {
        Json::from_serde_noting_nulls(v, depth_limit).map(|(j, _)| j)
    }

    /// [`Json::from_serde_within`], and whether the document holds a `null` anywhere.
    pub(crate) fn from_serde_noting_nulls(
        v: &serde_json::Value,
        depth_limit: usize,
    ) -> Option<(Json, bool)> {
        let mut c = Converter::new(depth_limit);
        let j = c.convert(v, 0).ok()?;
        Some((j, c.saw_null))
    }

    /// A document taken over and converted in one pass, with nodes allowed down to
    /// `depth_limit` (`None` beyond it, the document dropped), and whether it holds a `null`
    /// anywhere.
    pub(crate) fn from_serde_owned_noting_nulls(
        v: serde_json::Value,
        depth_limit: usize,
    ) -> Option<(Json, bool)> {
        let mut c = Converter::new(depth_limit);
        let j = c.convert_owned_at(v, 0)?;
        Some((j, c.saw_null))
    }

    /// [`Json::from_serde`] of a document it takes over: each container of `v` is freed as soon
    /// as its entries moved, so the two trees never both exist whole. A document nested deeper
    /// than [`MAX_CEL_DOCUMENT_DEPTH`] is given back untouched with the error.
    #[expect(
        clippy::result_large_err,
        reason = "the document is given back whole, not boxed, on the rare failure"
    )]
    pub fn from_serde_owned(v: serde_json::Value) -> Result<Json, (ValueError, serde_json::Value)> {
        if nests_deeper(&v, MAX_CEL_DOCUMENT_DEPTH, 0) {
            return Err((ValueError::TooDeep, v));
        }
        // The depth was checked: the conversion cannot stop half-way.
        Converter::new(MAX_CEL_DOCUMENT_DEPTH)
            .convert_owned_at(v, 0)
            .ok_or((ValueError::TooDeep, serde_json::Value::Null))
    }

    /// Whether a node lies deeper than [`MAX_CEL_DOCUMENT_DEPTH`] (the rules then answer
    /// [`ValueError::TooDeep`]).
    pub fn nests_deeper_than_cel_reads(&self) -> bool {
        /// Whether a child of `v`, at `depth + 1`, or a node below lies too deep; only
        /// containers are descended into (most nodes are scalars).
        fn deeper(v: &Json, depth: usize) -> bool {
            let child =
                |x: &Json| matches!(x, Json::Array(_) | Json::Object(_)) && deeper(x, depth + 1);
            match v {
                Json::Array(items) => {
                    (depth >= MAX_CEL_DOCUMENT_DEPTH && !items.is_empty())
                        || items.iter().any(child)
                }
                Json::Object(o) => {
                    (depth >= MAX_CEL_DOCUMENT_DEPTH && !o.is_empty())
                        || o.iter().any(|(_, x)| child(x))
                }
                _ => false,
            }
        }
        deeper(self, 0)
    }

    /// The document as `serde_json` holds it: keys in document order, `Int`s as integers and
    /// `Double`s as floats (so `1.0` stays a float), the inverse of [`Json::from_serde`] on
    /// decoded documents (whose integers fit int64).
    pub fn to_serde(&self) -> serde_json::Value {
        match self {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Int(i) => serde_json::Value::Number((*i).into()),
            Json::Double(d) => serde_json::Number::from_f64(*d)
                .map_or(serde_json::Value::Null, serde_json::Value::Number),
            Json::String(s) => serde_json::Value::String(s.to_string()),
            Json::Array(items) => {
                serde_json::Value::Array(items.iter().map(Json::to_serde).collect())
            }
            Json::Object(o) => serde_json::Value::Object(
                o.iter()
                    .map(|(k, v)| (k.to_string(), v.to_serde()))
                    .collect(),
            ),
        }
    }

    /// The object, when `self` is one.
    pub fn as_object(&self) -> Option<&JsonObject> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The object, to change in place (copied first when shared), when `self` is one.
    pub fn as_object_mut(&mut self) -> Option<&mut JsonObject> {
        match self {
            Json::Object(o) => Some(Arc::make_mut(o)),
            _ => None,
        }
    }

    /// The array's items, when `self` is one.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The array's items, to change in place (copied first when shared), when `self` is one.
    pub fn as_array_mut(&mut self) -> Option<&mut [Json]> {
        match self {
            Json::Array(a) => Some(Arc::make_mut(a)),
            _ => None,
        }
    }

    /// The string, when `self` is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// Whether `self` is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// The value under `key` of an object (`None` when absent or `self` is not an object).
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.as_object()?.get(key)
    }

    /// The string under `key` of an object (`None` when absent, not a string, or `self` is not
    /// an object).
    pub fn str_field(&self, key: &str) -> Option<&str> {
        match self {
            Json::Object(o) => match o.get(key) {
                Some(Json::String(s)) => Some(s),
                _ => None,
            },
            _ => None,
        }
    }

    /// Go's `%T` of the value as the API server holds it (for error messages).
    pub fn go_type_name(&self) -> &'static str {
        match self {
            Json::Null => "<nil>",
            Json::Bool(_) => "bool",
            Json::Int(_) => "int64",
            Json::Double(_) => "float64",
            Json::String(_) => "string",
            Json::Array(_) => "[]interface {}",
            Json::Object(_) => "map[string]interface {}",
        }
    }

    /// Deep equality of JSON values (Go's `reflect.DeepEqual` on unstructured data: an int and
    /// a float are different).
    pub fn deep_equals(&self, other: &Json) -> bool {
        self == other
    }
}

/// Converts `serde_json` documents, sharing the key strings of objects of one shape.
struct Converter {
    /// The keys of the objects converted, shared by objects of one shape.
    keys: build::KeyCache,
    /// The deepest node converted ([`ValueError::TooDeep`] beyond).
    depth_limit: usize,
    /// Whether a `null` was converted.
    saw_null: bool,
}

impl Converter {
    fn new(depth_limit: usize) -> Converter {
        Converter {
            keys: build::KeyCache::default(),
            depth_limit,
            saw_null: false,
        }
    }

    fn key(&mut self, depth: usize, position: usize, key: &str) -> Arc<str> {
        self.keys.key(depth, position, key)
    }

    fn convert(&mut self, v: &serde_json::Value, depth: usize) -> Result<Json, ValueError> {
        if depth > self.depth_limit {
            return Err(ValueError::TooDeep);
        }
        Ok(match v {
            serde_json::Value::Null => {
                self.saw_null = true;
                Json::Null
            }
            serde_json::Value::Bool(b) => Json::Bool(*b),
            serde_json::Value::Number(n) => number(n),
            serde_json::Value::String(s) => Json::String(s.as_str().into()),
            serde_json::Value::Array(a) => {
                // Collected straight into the shared slice (one allocation of the exact size);
                // the first error ends the conversion.
                let mut failed = None;
                let items: Arc<[Json]> = a
                    .iter()
                    .map(|x| {
                        if failed.is_some() {
                            return Json::Null;
                        }
                        self.convert(x, depth + 1).unwrap_or_else(|e| {
                            failed = Some(e);
                            Json::Null
                        })
                    })
                    .collect();
                if let Some(e) = failed {
                    return Err(e);
                }
                Json::Array(items)
            }
            serde_json::Value::Object(m) => {
                let mut entries = json_object::Entries::with_capacity(m.len());
                for (position, (k, x)) in m.iter().enumerate() {
                    let key = self.key(depth, position, k);
                    entries.push((key, self.convert(x, depth + 1)?));
                }
                Json::Object(Arc::new(JsonObject::new(entries)))
            }
        })
    }

    /// [`Converter::convert`] of a document it takes over: each container is freed as soon as
    /// its entries moved; `None` when a node lies deeper than the limit.
    fn convert_owned_at(&mut self, v: serde_json::Value, depth: usize) -> Option<Json> {
        if depth > self.depth_limit {
            return None;
        }
        Some(match v {
            serde_json::Value::Null => {
                self.saw_null = true;
                Json::Null
            }
            serde_json::Value::Bool(b) => Json::Bool(b),
            serde_json::Value::Number(n) => number(&n),
            serde_json::Value::String(s) => Json::String(s.into()),
            serde_json::Value::Array(a) => {
                // Collected straight into the shared slice (one allocation of the exact size);
                // the first node too deep ends the conversion.
                let mut too_deep = false;
                let items: Arc<[Json]> = a
                    .into_iter()
                    .map(|x| {
                        if too_deep {
                            return Json::Null;
                        }
                        self.convert_owned_at(x, depth + 1).unwrap_or_else(|| {
                            too_deep = true;
                            Json::Null
                        })
                    })
                    .collect();
                if too_deep {
                    return None;
                }
                Json::Array(items)
            }
            serde_json::Value::Object(m) => {
                let mut entries = json_object::Entries::with_capacity(m.len());
                for (position, (k, x)) in m.into_iter().enumerate() {
                    let key = self.key(depth, position, &k);
                    entries.push((key, self.convert_owned_at(x, depth + 1)?));
                }
                Json::Object(Arc::new(JsonObject::new(entries)))
            }
        })
    }
}

/// A JSON number as [`Json`] holds it: integers that fit int64 as `Int`, any other as `Double`.
fn number(n: &serde_json::Number) -> Json {
    match n.as_i64() {
        Some(i) => Json::Int(i),
        None => Json::Double(n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Whether a node of `v` (at `depth`) lies deeper than `limit`: the depth at which
/// [`Json::from_serde`] gives up.
fn nests_deeper(v: &serde_json::Value, limit: usize, depth: usize) -> bool {
    if depth > limit {
        return true;
    }
    match v {
        serde_json::Value::Array(a) => a.iter().any(|x| nests_deeper(x, limit, depth + 1)),
        serde_json::Value::Object(m) => m.values().any(|x| nests_deeper(x, limit, depth + 1)),
        _ => false,
    }
}

/// The CEL value of a custom resource (or any resource root): the schema gets `apiVersion`,
/// `kind` and `metadata.name`/`generateName` injected first.
pub fn root_value(doc: &Json, schema: &Arc<Structural>) -> Result<Value, ValueError> {
    to_value(doc, &schema.with_type_and_object_meta())
}

/// The CEL value of `node` read with `schema`.
pub fn to_value(node: &Json, schema: &Arc<Structural>) -> Result<Value, ValueError> {
    if let Json::Null = node {
        return if schema.generic.nullable {
            Ok(Value::Null)
        } else {
            Err(ValueError::NullNotNullable)
        };
    }
    if schema.extensions.int_or_string {
        return match node {
            Json::String(s) => Ok(Value::String(s.clone())),
            Json::Int(i) => Ok(Value::Int(*i)),
            _ => Err(ValueError::NotIntOrString),
        };
    }
    // The node's type and format, read from the tag computed with the schema (no string
    // comparisons per field).
    match schema.cel_kind() {
        CelKind::Object => {
            let Json::Object(obj) = node else {
                return Err(ValueError::NotAnObject);
            };
            if schema.extensions.embedded_resource {
                let rooted = schema.with_type_and_object_meta();
                return Ok(Value::Map(Map::Provided(Arc::new(ObjectView::new(
                    obj.clone(),
                    rooted,
                )))));
            }
            if schema.properties.is_empty()
                && let Some(values) = schema.additional_properties_schema()
            {
                return Ok(Value::Map(Map::Provided(Arc::new(MapView::new(
                    obj.clone(),
                    values.clone(),
                )))));
            }
            Ok(Value::Map(Map::Provided(Arc::new(ObjectView::new(
                obj.clone(),
                schema.clone(),
            )))))
        }
        CelKind::Array => {
            let Json::Array(items) = node else {
                return Err(ValueError::NotAnArray);
            };
            let Some(item_schema) = schema.items.clone() else {
                return Err(ValueError::NoItemsSchema);
            };
            let kind = ListKind::of(schema)?;
            Ok(Value::List(List::Provided(Arc::new(ListView::from_json(
                items.clone(),
                item_schema,
                kind,
            )))))
        }
        kind @ (CelKind::String
        | CelKind::Duration
        | CelKind::Date
        | CelKind::DateTime
        | CelKind::Byte) => {
            let Json::String(s) = node else {
                return Err(wrong_type("string", node));
            };
            match kind {
                CelKind::Duration => parse_duration(s)
                    .map(Value::Duration)
                    .map_err(|e| bad_format("duration", s, e)),
                CelKind::Date => parse_date(s)
                    .map(Value::Timestamp)
                    .map_err(|e| bad_format("date formatted string", s, e)),
                CelKind::DateTime => parse_date_time(s)
                    .map(Value::Timestamp)
                    .map_err(|e| bad_format("date-time formatted string", s, e)),
                CelKind::Byte => parse_byte(s)
                    .map(Value::bytes)
                    .map_err(|e| bad_format("byte formatted string", s, e)),
                _ => Ok(Value::String(s.clone())),
            }
        }
        CelKind::Number => match node {
            Json::Double(d) => Ok(Value::Double(*d)),
            Json::Int(i) => Ok(Value::Double(*i as f64)),
            _ => Err(wrong_type("float", node)),
        },
        CelKind::Integer => match node {
            Json::Int(i) => Ok(Value::Int(*i)),
            _ => Err(wrong_type("int", node)),
        },
        CelKind::Boolean => match node {
            Json::Bool(b) => Ok(Value::Bool(*b)),
            _ => Err(wrong_type("bool", node)),
        },
        CelKind::Untyped if schema.extensions.preserve_unknown_fields => {
            Ok(Value::Opaque(Arc::new(Unknown(node.clone()))))
        }
        CelKind::Untyped | CelKind::Other => {
            Err(ValueError::UnsupportedType(schema.type_().to_string()))
        }
    }
}

/// [`ValueError::WrongType`] for `node`.
fn wrong_type(expected: &'static str, node: &Json) -> ValueError {
    ValueError::WrongType {
        expected,
        got: node.go_type_name(),
    }
}

/// [`ValueError::Format`] for the string `value`.
fn bad_format(format: &'static str, value: &str, reason: impl fmt::Display) -> ValueError {
    ValueError::Format {
        format,
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

/// A value CEL has no schema for (`x-kubernetes-preserve-unknown-fields` without a type, or an
/// undeclared field of an object): it supports only equality, which is deep JSON equality.
#[derive(Clone, Debug, PartialEq)]
pub struct Unknown(pub Json);

impl Opaque for Unknown {
    fn type_name(&self) -> &str {
        "unknown"
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<Unknown>()
            .is_some_and(|o| self.0.deep_equals(&o.0))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests;
