//! Field paths and field errors as Kubernetes prints them
//! (`k8s.io/apimachinery/pkg/util/validation/field`, 1.35+ rendering).
//!
//! * [`Path`]: `spec.foo[0][key].bar`; the nil root prints `<nil>` (rules at the root of a custom
//!   resource report there).
//! * [`FieldError`]: `<path>: <body>`, where the body is the type's label, then the bad value for
//!   the types that show one (`%v` numbers and bools, `%q` strings, JSON otherwise, `null` for
//!   nil), then `: <detail>`.

use std::fmt;

use serde_json::Value as JsonValue;

use crate::go::fmt::{FloatStyle, format_float, quote};
use crate::values::Json;

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Element {
    /// `.name` (no dot at the start).
    Child(String),
    /// `[i]`.
    Index(usize),
    /// `[key]` (map keys are printed without quotes).
    Key(String),
}

/// A field path. [`Path::root`] is Go's nil path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Path {
    elements: Vec<Element>,
}

impl Path {
    /// The nil path (prints `<nil>`).
    pub fn root() -> Path {
        Path::default()
    }

    /// `field.NewPath(name)`.
    pub fn new(name: &str) -> Path {
        Path::root().child(name)
    }

    /// Whether the path is the root (no segments).
    pub fn is_root(&self) -> bool {
        self.elements.is_empty()
    }

    /// `p.Child(name)`.
    pub fn child(&self, name: &str) -> Path {
        self.with(Element::Child(name.to_string()))
    }

    /// `p.Index(i)`.
    pub fn index(&self, i: usize) -> Path {
        self.with(Element::Index(i))
    }

    /// `p.Key(k)`.
    pub fn key(&self, k: &str) -> Path {
        self.with(Element::Key(k.to_string()))
    }

    fn with(&self, e: Element) -> Path {
        let mut elements = Vec::with_capacity(self.elements.len() + 1);
        elements.extend_from_slice(&self.elements);
        elements.push(e);
        Path { elements }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.elements.is_empty() {
            return f.write_str("<nil>");
        }
        for (i, e) in self.elements.iter().enumerate() {
            match e {
                Element::Child(name) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(name)?;
                }
                Element::Index(n) => write!(f, "[{n}]")?,
                Element::Key(k) => write!(f, "[{k}]")?,
            }
        }
        Ok(())
    }
}

/// The kind of a field error (`field.ErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    /// `FieldValueNotFound`.
    NotFound,
    /// `FieldValueRequired`.
    Required,
    /// `FieldValueDuplicate`.
    Duplicate,
    /// `FieldValueInvalid`.
    Invalid,
    /// `FieldValueNotSupported`.
    NotSupported,
    /// `FieldValueForbidden`.
    Forbidden,
    /// `FieldValueTooLong`.
    TooLong,
    /// `FieldValueTooShort`.
    TooShort,
    /// `FieldValueTooMany`.
    TooMany,
    /// `FieldValueTooFew`.
    TooFew,
    /// `InternalError`.
    Internal,
    /// `FieldValueTypeInvalid`.
    TypeInvalid,
}

impl ErrorType {
    /// The label printed in messages (`Invalid value`, `Required value`, ...).
    pub fn label(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooShort => "Too short",
            ErrorType::TooMany => "Too many",
            ErrorType::TooFew => "Too few",
            ErrorType::Internal => "Internal error",
        }
    }

    /// The `reason` of a `metav1.StatusCause` (`FieldValueInvalid`, ...).
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooShort => "FieldValueTooShort",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::TooFew => "FieldValueTooFew",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
        }
    }

    /// Whether the body shows the bad value.
    fn shows_value(self) -> bool {
        !matches!(
            self,
            ErrorType::Required
                | ErrorType::Forbidden
                | ErrorType::TooLong
                | ErrorType::TooShort
                | ErrorType::Internal
        )
    }
}

/// The bad value of an error, as Go would print it.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// `field.OmitValueType`: no value printed.
    Omit,
    /// nil: prints `null`.
    Null,
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// Printed with `%q`.
    String(String),
    /// Anything else, printed as compact JSON (Go's `encoding/json`: sorted keys, `<>&` escaped).
    Json(JsonValue),
    /// A value already rendered as Go prints it (a Go struct marshals its fields in declaration
    /// order, which [`BadValue::Json`] cannot express).
    Raw(String),
}

impl BadValue {
    /// The value a failing CEL rule shows (1.35+): scalars as themselves, objects and arrays
    /// omitted.
    pub fn of_rule_subject(v: &Json) -> BadValue {
        match v {
            Json::Null => BadValue::Null,
            Json::Bool(b) => BadValue::Bool(*b),
            Json::Int(i) => BadValue::Int(*i),
            Json::Double(d) => BadValue::Float(*d),
            Json::String(s) => BadValue::String(s.to_string()),
            Json::Array(_) | Json::Object(_) => BadValue::Omit,
        }
    }

    /// The data itself (enum, bound and duplicate errors): scalars as themselves, objects and
    /// arrays as compact JSON.
    pub fn of_json(v: &Json) -> BadValue {
        match v {
            Json::Array(_) | Json::Object(_) => BadValue::Json(v.to_serde()),
            scalar => BadValue::of_rule_subject(scalar),
        }
    }

    /// A list of data as compact JSON.
    pub fn of_json_list(items: &[Json]) -> BadValue {
        BadValue::Json(JsonValue::Array(items.iter().map(Json::to_serde).collect()))
    }

    /// The schema type shown by runtime, compile and budget errors (`"object"`; `""` for
    /// int-or-string).
    pub fn schema_type(type_: &str) -> BadValue {
        BadValue::String(type_.to_string())
    }
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadValue::Omit => Ok(()),
            BadValue::Null => f.write_str("null"),
            BadValue::Int(i) => write!(f, "{i}"),
            BadValue::Float(x) => f.write_str(&format_float(*x, false, FloatStyle::V)),
            BadValue::Bool(b) => write!(f, "{b}"),
            BadValue::String(s) => f.write_str(&quote(s)),
            BadValue::Json(v) => f.write_str(&go_json(v)),
            BadValue::Raw(s) => f.write_str(s),
        }
    }
}

/// A field error.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// The error's type.
    pub type_: ErrorType,
    /// The field it is about.
    pub path: Path,
    /// The offending value.
    pub bad_value: BadValue,
    /// The detail text.
    pub detail: String,
}

impl FieldError {
    /// An error of type `type_` at `path` (apimachinery's `field.Error`).
    pub fn new(
        type_: ErrorType,
        path: Path,
        bad_value: BadValue,
        detail: impl Into<String>,
    ) -> Self {
        FieldError {
            type_,
            path,
            bad_value,
            detail: detail.into(),
        }
    }

    /// `field.Invalid`.
    pub fn invalid(path: Path, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, path, value, detail)
    }

    /// `field.Required`.
    pub fn required(path: Path, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Required, path, BadValue::Omit, detail)
    }

    /// `field.Forbidden`.
    pub fn forbidden(path: Path, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Forbidden, path, BadValue::Omit, detail)
    }

    /// `field.Duplicate`: no detail.
    pub fn duplicate(path: Path, value: BadValue) -> Self {
        Self::new(ErrorType::Duplicate, path, value, "")
    }

    /// `field.InternalError`.
    pub fn internal(path: Path, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Internal, path, BadValue::Omit, detail)
    }

    /// `field.NotSupported`: `supported values: "a", "b"`.
    pub fn not_supported(path: Path, value: BadValue, supported: &[String]) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| quote(s)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(ErrorType::NotSupported, path, value, detail)
    }

    /// `field.TooLong` (1.34+ text).
    pub fn too_long(path: Path, max_length: i64) -> Self {
        let detail = match max_length {
            1 => "may not be more than 1 byte".to_string(),
            n if n >= 0 => format!("may not be more than {n} bytes"),
            _ => "value is too long".to_string(),
        };
        Self::new(ErrorType::TooLong, path, BadValue::Omit, detail)
    }

    /// `field.TooMany` (1.34+ text).
    pub fn too_many(path: Path, actual: i64, max: i64) -> Self {
        let detail = match max {
            1 => "must have at most 1 item".to_string(),
            n if n >= 0 => format!("must have at most {n} items"),
            _ => "has too many items".to_string(),
        };
        let value = if actual >= 0 {
            BadValue::Int(actual)
        } else {
            BadValue::Omit
        };
        Self::new(ErrorType::TooMany, path, value, detail)
    }

    /// `ErrorBody()`: the text without the path (the `message` of a status cause).
    pub fn body(&self) -> String {
        let mut s = self.type_.label().to_string();
        if self.type_.shows_value() && self.bad_value != BadValue::Omit {
            s.push_str(": ");
            s.push_str(&self.bad_value.to_string());
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.body())
    }
}

impl std::error::Error for FieldError {}

/// Compact JSON as Go's `json.Marshal` writes `interface{}` data: object keys sorted, `<`, `>`,
/// `&`, U+2028 and U+2029 escaped, floats in Go's form.
pub fn go_json(v: &JsonValue) -> String {
    let mut out = String::new();
    write_go_json(v, &mut out);
    out
}

fn write_go_json(v: &JsonValue, out: &mut String) {
    match v {
        JsonValue::Null => out.push_str("null"),
        JsonValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        JsonValue::Number(n) => {
            if n.is_f64() {
                out.push_str(&format_float(
                    n.as_f64().unwrap_or(0.0),
                    false,
                    FloatStyle::Json,
                ));
            } else {
                out.push_str(&n.to_string());
            }
        }
        JsonValue::String(s) => write_go_string(s, out),
        JsonValue::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go_json(x, out);
            }
            out.push(']');
        }
        JsonValue::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go_string(k, out);
                out.push(':');
                if let Some(x) = m.get(k) {
                    write_go_json(x, out);
                }
            }
            out.push('}');
        }
    }
}

fn write_go_string(s: &str, out: &mut String) {
    let encoded = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string());
    for c in encoded.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths() {
        assert_eq!(Path::root().to_string(), "<nil>");
        assert_eq!(
            Path::root()
                .child("spec")
                .child("foo")
                .index(0)
                .child("bar")
                .to_string(),
            "spec.foo[0].bar"
        );
        assert_eq!(
            Path::new("spec").child("m").key("a.b").to_string(),
            "spec.m[a.b]"
        );
        assert_eq!(Path::root().index(2).to_string(), "[2]");
        assert_eq!(
            Path::new("root").child("f").child("m[k]").to_string(),
            "root.f.m[k]"
        );
    }

    #[test]
    fn error_texts() {
        let p = Path::new("spec").child("x");
        assert_eq!(
            FieldError::invalid(
                Path::new("root").child("foo"),
                BadValue::String("baz".into()),
                "gotta be baz"
            )
            .to_string(),
            "root.foo: Invalid value: \"baz\": gotta be baz"
        );
        assert_eq!(
            FieldError::invalid(
                Path::new("root").child("f"),
                BadValue::Omit,
                "failed rule: self.m == 2"
            )
            .to_string(),
            "root.f: Invalid value: failed rule: self.m == 2"
        );
        assert_eq!(
            FieldError::forbidden(p.clone(), "not allowed").to_string(),
            "spec.x: Forbidden: not allowed"
        );
        assert_eq!(
            FieldError::duplicate(p.clone(), BadValue::String("v".into())).to_string(),
            "spec.x: Duplicate value: \"v\""
        );
        assert_eq!(
            FieldError::invalid(
                Path::root(),
                BadValue::schema_type("object"),
                "no such key: x evaluating rule: self.x == 1"
            )
            .to_string(),
            "<nil>: Invalid value: \"object\": no such key: x evaluating rule: self.x == 1"
        );
        assert_eq!(
            FieldError::invalid(
                Path::root(),
                BadValue::Null,
                "some validation rules were not checked"
            )
            .to_string(),
            "<nil>: Invalid value: null: some validation rules were not checked"
        );
        assert_eq!(
            FieldError::invalid(p.clone(), BadValue::Int(-3), "m").body(),
            "Invalid value: -3: m"
        );
        assert_eq!(
            FieldError::invalid(p.clone(), BadValue::Float(1e21), "m").body(),
            "Invalid value: 1e+21: m"
        );
        assert_eq!(
            FieldError::invalid(p.clone(), BadValue::Float(2.0), "m").body(),
            "Invalid value: 2: m"
        );
        assert_eq!(
            FieldError::required(p.clone(), "").to_string(),
            "spec.x: Required value"
        );
        assert_eq!(
            FieldError::too_long(p.clone(), 1).body(),
            "Too long: may not be more than 1 byte"
        );
        assert_eq!(
            FieldError::too_many(p.clone(), 3, 2).body(),
            "Too many: 3: must have at most 2 items"
        );
        assert_eq!(
            FieldError::not_supported(
                p.clone(),
                BadValue::String("blue".into()),
                &["red".into(), "green".into()]
            )
            .body(),
            "Unsupported value: \"blue\": supported values: \"red\", \"green\""
        );
        assert_eq!(
            FieldError::invalid(p, BadValue::Json(json!({"b": [1, 2.5], "a": "<x>"})), "d").body(),
            "Invalid value: {\"a\":\"\\u003cx\\u003e\",\"b\":[1,2.5]}: d"
        );
        assert_eq!(BadValue::of_rule_subject(&Json::Int(5)), BadValue::Int(5));
        assert_eq!(
            BadValue::of_rule_subject(&Json::Array(Vec::new().into())),
            BadValue::Omit
        );
    }
}
