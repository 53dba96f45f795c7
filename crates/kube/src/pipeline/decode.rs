//! Request decoding (reference §1.1): numbers as Kubernetes' unstructured JSON has them, and
//! `metadata` through the typed `ObjectMeta` (unknown keys reported, wrong types rejected with
//! Go's `encoding/json` text).

use std::sync::Arc;

use serde_json::{Number, Value};

use super::PipelineError;
use crate::builtins::decode::DecodeError as UnmarshalError;
use crate::field::FieldError;
use crate::values::{Json, JsonObject};

/// How deep a request body may nest: Go's `encoding/json` `maxNestingDepth`.
pub const MAX_REQUEST_BODY_DEPTH: usize = 10_000;

/// Parses a JSON body: whole numbers that fit `int64` are integers, every other number a float
/// (`1.0`, `1e3`, `9223372036854775808`); a repeated key keeps its last value. Use
/// [`super::json::parse`] to learn about repeated keys.
#[cfg(test)]
pub(crate) fn parse_json(text: &str) -> Result<Value, DecodeError> {
    super::json::parse(text).map(|p| p.value)
}

/// A request body nested deeper than [`MAX_REQUEST_BODY_DEPTH`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("JSON nests deeper than {MAX_REQUEST_BODY_DEPTH} levels")]
pub struct TooDeep;

/// Go's `encoding/json.SyntaxError`: the scanner's message and the number of bytes read before
/// the error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct JsonSyntaxError {
    /// The scanner's text (`invalid character '}' after array element`, ...).
    pub message: String,
    /// Bytes read before the error (Go's `Offset`).
    pub offset: usize,
}

/// Why a request body never reached validation: the 400 BadRequest (or, for the stored object of
/// an update, the 500) the API server answers, printed with the server's text.
#[derive(Clone, Debug, thiserror::Error)]
pub enum DecodeError {
    /// The body is not JSON: `encoding/json` fails reading its kind
    /// (`SimpleMetaFactory.Interpret`).
    #[error("couldn't get version/kind; json parse error: {0}")]
    Syntax(JsonSyntaxError),
    /// Go reads the body but serde_json refuses it (nesting beyond 128 levels, numbers beyond
    /// `float64`): serde_json's error.
    #[error("{0}")]
    Json(Arc<serde_json::Error>),
    /// The body nests deeper than [`MAX_REQUEST_BODY_DEPTH`].
    #[error(transparent)]
    TooDeep(#[from] TooDeep),
    /// The body is not a JSON object (`runtime.NewMissingKindErr` of the unstructured decoder):
    /// the body as Go prints it.
    #[error("Object 'Kind' is missing in '{0}'")]
    KindMissing(String),
    /// A value does not fit the Go type it is decoded into (`metadata` as `ObjectMeta`, or a
    /// built-in kind's typed struct).
    #[error(transparent)]
    Unmarshal(#[from] UnmarshalError),
    /// An embedded resource (`x-kubernetes-embedded-resource`) that does not decode.
    #[error("{0}")]
    Embedded(Box<FieldError>),
    /// The built-in kind's pipeline could not be configured.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// The stored object of an update does not decode (the server's 500).
    #[error("stored object: {0}")]
    Stored(Box<DecodeError>),
}

impl PartialEq for DecodeError {
    /// Equal when they print the same text (serde_json's error has no equality).
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

/// Turns integers beyond `int64` into floats, as Go's unstructured decoding does (the
/// pipeline's decoding gets the same numbers by reading the body into [`Json`]).
pub fn normalize_numbers(v: &mut Value, depth: usize) -> Result<(), TooDeep> {
    if depth > MAX_REQUEST_BODY_DEPTH {
        return Err(TooDeep);
    }
    match v {
        Value::Number(n) if !n.is_f64() && n.as_i64().is_none() => {
            let f = n.as_f64().unwrap_or(0.0);
            *v = Number::from_f64(f).map_or(Value::Null, Value::Number);
        }
        Value::Array(a) => {
            for x in a {
                normalize_numbers(x, depth + 1)?;
            }
        }
        Value::Object(m) => {
            for x in m.values_mut() {
                normalize_numbers(x, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// A body given as `serde_json` as the pipeline reads it: [`Json`], whose numbers are those of
/// Go's unstructured decoding (integers beyond `int64` are floats), and whether it holds a
/// `null` anywhere (the null-pruning walk is skipped for documents without any); [`TooDeep`]
/// when it nests deeper than [`MAX_REQUEST_BODY_DEPTH`]. The boundary for callers that hold
/// `serde_json`.
pub(crate) fn from_serde_owned(v: Value) -> Result<(Json, bool), TooDeep> {
    Json::from_serde_owned_noting_nulls(v, MAX_REQUEST_BODY_DEPTH).ok_or(TooDeep)
}

/// [`from_serde_owned`] of a borrowed body (the stored object of an update).
pub(crate) fn from_serde(v: &Value) -> Result<(Json, bool), TooDeep> {
    Json::from_serde_noting_nulls(v, MAX_REQUEST_BODY_DEPTH).ok_or(TooDeep)
}

/// The Go type of an `ObjectMeta` field.
#[derive(Clone, Copy)]
enum GoType {
    String,
    Int64,
    Time,
    StringMap,
    StringList,
    OwnerRefs,
    ManagedFields,
}

impl GoType {
    fn name(self) -> &'static str {
        match self {
            GoType::String | GoType::Time => "string",
            GoType::Int64 => "int64",
            GoType::StringMap => "map[string]string",
            GoType::StringList => "[]string",
            GoType::OwnerRefs => "[]v1.OwnerReference",
            GoType::ManagedFields => "[]v1.ManagedFieldsEntry",
        }
    }
}

const META_FIELDS: &[(&str, GoType)] = &[
    ("name", GoType::String),
    ("generateName", GoType::String),
    ("namespace", GoType::String),
    ("selfLink", GoType::String),
    ("uid", GoType::String),
    ("resourceVersion", GoType::String),
    ("generation", GoType::Int64),
    ("creationTimestamp", GoType::Time),
    ("deletionTimestamp", GoType::Time),
    ("deletionGracePeriodSeconds", GoType::Int64),
    ("labels", GoType::StringMap),
    ("annotations", GoType::StringMap),
    ("ownerReferences", GoType::OwnerRefs),
    ("finalizers", GoType::StringList),
    ("managedFields", GoType::ManagedFields),
];

const OWNER_REF_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "name",
    "uid",
    "controller",
    "blockOwnerDeletion",
];
const MANAGED_FIELDS_FIELDS: &[&str] = &[
    "manager",
    "operation",
    "apiVersion",
    "time",
    "fieldsType",
    "fieldsV1",
    "subresource",
];

/// Go's `encoding/json` text of a float (`1.5`, `1e+21`), for unmarshal errors.
fn go_float(d: f64) -> String {
    crate::field::go_json(&Json::Double(d).to_serde())
}

/// Go's name for a JSON value kind in unmarshal errors.
fn json_kind(v: &Json) -> String {
    match v {
        Json::Null => "null".into(),
        Json::Bool(_) => "bool".into(),
        Json::Double(d) => format!("number {}", go_float(*d)),
        Json::Int(_) => "number".into(),
        Json::String(_) => "string".into(),
        Json::Array(_) => "array".into(),
        Json::Object(_) => "object".into(),
    }
}

fn unmarshal_error(v: &Json, field: &str, go_type: &str) -> UnmarshalError {
    let value = match v {
        Json::Int(_) | Json::Double(_) => "number".to_string(),
        _ => json_kind(v),
    };
    UnmarshalError::Field {
        value,
        struct_name: "ObjectMeta".into(),
        path: field.into(),
        go_type: go_type.into(),
    }
}

/// The typed `ObjectMeta` decoded from `metadata`: the normalised map (zero values dropped, as
/// a round trip through the Go struct does) and the unknown keys (`<parent>.<key>` paths).
pub(crate) struct DecodedMeta {
    /// The normalised `metadata`.
    pub meta: JsonObject,
    /// The unknown keys (`<parent>.<key>`).
    pub unknown: Vec<String>,
}

/// Decodes `metadata` (`parent` is the path of the object holding it, empty at the root).
pub(crate) fn decode_object_meta(v: &Json, parent: &str) -> Result<DecodedMeta, UnmarshalError> {
    let prefix = if parent.is_empty() {
        "metadata".to_string()
    } else {
        format!("{parent}.metadata")
    };
    let Json::Object(m) = v else {
        if v.is_null() {
            return Ok(DecodedMeta {
                meta: JsonObject::default(),
                unknown: Vec::new(),
            });
        }
        return Err(UnmarshalError::Value {
            value: json_kind(v),
            go_type: "v1.ObjectMeta".into(),
        });
    };
    let mut meta = JsonObject::with_capacity(m.len());
    let mut unknown = Vec::new();
    for (k, val) in m.iter() {
        let Some((_, ty)) = META_FIELDS.iter().find(|(n, _)| **n == **k) else {
            unknown.push(format!("{prefix}.{k}"));
            continue;
        };
        if val.is_null() {
            continue;
        }
        let keep = match ty {
            GoType::String | GoType::Time => match val {
                Json::String(s) => !s.is_empty(),
                _ => return Err(unmarshal_error(val, k, ty.name())),
            },
            GoType::Int64 => match val {
                Json::Int(i) => *i != 0 || &**k != "generation",
                Json::Double(d) => {
                    return Err(UnmarshalError::Field {
                        value: format!("number {}", go_float(*d)),
                        struct_name: "ObjectMeta".into(),
                        path: k.to_string(),
                        go_type: "int64".into(),
                    });
                }
                _ => return Err(unmarshal_error(val, k, ty.name())),
            },
            GoType::StringMap => match val {
                Json::Object(o) => {
                    if let Some((_, bad)) = o
                        .iter()
                        .find(|(_, x)| !matches!(x, Json::String(_) | Json::Null))
                    {
                        return Err(unmarshal_error(bad, k, "string"));
                    }
                    !o.is_empty()
                }
                _ => return Err(unmarshal_error(val, k, ty.name())),
            },
            GoType::StringList => match val {
                Json::Array(a) => {
                    if let Some(bad) = a
                        .iter()
                        .find(|x| !matches!(x, Json::String(_) | Json::Null))
                    {
                        return Err(unmarshal_error(bad, k, "string"));
                    }
                    !a.is_empty()
                }
                _ => return Err(unmarshal_error(val, k, ty.name())),
            },
            GoType::OwnerRefs | GoType::ManagedFields => match val {
                Json::Array(a) => {
                    let known = if matches!(ty, GoType::OwnerRefs) {
                        OWNER_REF_FIELDS
                    } else {
                        MANAGED_FIELDS_FIELDS
                    };
                    for (i, item) in a.iter().enumerate() {
                        match item {
                            Json::Object(o) => {
                                for key in o.keys() {
                                    if !known.contains(&&**key) {
                                        unknown.push(format!("{prefix}.{k}[{i}].{key}"));
                                    }
                                }
                            }
                            Json::Null => {}
                            other => return Err(unmarshal_error(other, k, ty.name())),
                        }
                    }
                    !a.is_empty()
                }
                _ => return Err(unmarshal_error(val, k, ty.name())),
            },
        };
        if keep {
            meta.insert(k.clone(), val.clone());
        }
    }
    Ok(DecodedMeta { meta, unknown })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers() {
        let v = parse_json(r#"{"a":1,"b":1.0,"c":9223372036854775808}"#).expect("json");
        assert!(!v["a"].as_number().is_some_and(Number::is_f64));
        assert!(v["b"].as_number().is_some_and(Number::is_f64));
        assert!(v["c"].as_number().is_some_and(Number::is_f64));
    }

    #[test]
    fn metadata() {
        let json = |v: Value| Json::from_serde(&v).expect("json");
        let d = decode_object_meta(&json(json!({"name": "a", "foo": 1, "labels": {}})), "")
            .expect("meta");
        assert_eq!(d.unknown, ["metadata.foo"]);
        assert_eq!(
            Json::Object(std::sync::Arc::new(d.meta)),
            json(json!({"name": "a"}))
        );
        let e = decode_object_meta(&json(json!({"labels": "x"})), "")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some(
                "json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string"
            )
        );
    }
}
