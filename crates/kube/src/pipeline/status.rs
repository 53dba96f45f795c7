//! `metav1.Status` as kube-apiserver returns it (reference §1.6, §1.7, §10): the 422 Invalid
//! status built from field errors, with the texts of the requested Kubernetes version.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::field::{BadValue, ErrorType, FieldError};
use crate::go::fmt::{FloatStyle, format_float, quote};
use crate::version::KubeVersion;

/// A status cause.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cause {
    /// The cause's type (`FieldValueInvalid`, ...).
    pub reason: String,
    /// The cause's message.
    pub message: String,
    /// The field path.
    pub field: String,
}

/// `metav1.StatusDetails`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Details {
    /// The object's name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The API group.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// The kind.
    pub kind: String,
    /// The causes, one per field error.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<Cause>,
}

/// `metav1.Status` (read back as kube-apiserver writes it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Status {
    /// `metadata` (empty).
    pub metadata: serde_json::Map<String, Value>,
    /// `Success` or `Failure`.
    pub status: String,
    /// The message (`Widget.example.com "w" is invalid: ...`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The reason (`Invalid`, `BadRequest`, ...).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The details: name, group, kind and causes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Details>,
    /// The HTTP status code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
}

impl Status {
    /// `{"metadata":{},"status":"Success"}`.
    pub fn success() -> Status {
        Status {
            metadata: serde_json::Map::new(),
            status: "Success".into(),
            message: String::new(),
            reason: String::new(),
            details: None,
            code: None,
        }
    }

    /// A failure without details (400 BadRequest, 500 InternalError).
    pub fn failure(code: u16, reason: &str, message: String) -> Status {
        Status {
            metadata: serde_json::Map::new(),
            status: "Failure".into(),
            message,
            reason: reason.into(),
            details: None,
            code: Some(code),
        }
    }

    /// `errors.NewInvalid(GroupKind{group, kind}, name, errs)`.
    pub fn invalid(
        group: &str,
        kind: &str,
        name: &str,
        errs: &[FieldError],
        version: KubeVersion,
    ) -> Status {
        let causes = errs
            .iter()
            .map(|e| Cause {
                reason: e.type_.reason().to_string(),
                message: error_body(e, version),
                field: e.path.to_string(),
            })
            .collect();
        let qualified = if group.is_empty() {
            kind.to_string()
        } else {
            format!("{kind}.{group}")
        };
        let strings: Vec<String> = errs.iter().map(|e| error_string(e, version)).collect();
        let message = match aggregate(&strings) {
            Some(agg) => format!("{qualified} {} is invalid: {agg}", quote(name)),
            None => format!("{qualified} {} is invalid", quote(name)),
        };
        Status {
            metadata: serde_json::Map::new(),
            status: "Failure".into(),
            message,
            reason: "Invalid".into(),
            details: Some(Details {
                name: name.to_string(),
                group: group.to_string(),
                kind: kind.to_string(),
                causes,
            }),
            code: Some(422),
        }
    }
}

/// `ErrorList.ToAggregate().Error()`: exact duplicates removed; one message alone, several in
/// `[a, b]`.
pub fn aggregate(messages: &[String]) -> Option<String> {
    let mut unique: Vec<&str> = Vec::with_capacity(messages.len());
    for m in messages {
        if !unique.contains(&m.as_str()) {
            unique.push(m);
        }
    }
    match unique.len() {
        0 => None,
        1 => Some(unique[0].to_string()),
        _ => Some(format!("[{}]", unique.join(", "))),
    }
}

/// `<field>: <body>` in the texts of `version`.
pub fn error_string(e: &FieldError, version: KubeVersion) -> String {
    format!("{}: {}", e.path, error_body(e, version))
}

/// `ErrorBody()` in the texts of `version` (reference §1.7, §10).
pub fn error_body(e: &FieldError, version: KubeVersion) -> String {
    if version.at_least(34) {
        return e.body();
    }
    let mut s = e.type_.label().to_string();
    let shows_value = !matches!(
        e.type_,
        ErrorType::Required
            | ErrorType::Forbidden
            | ErrorType::TooLong
            | ErrorType::TooShort
            | ErrorType::Internal
    );
    if shows_value && e.bad_value != BadValue::Omit {
        s.push_str(": ");
        s.push_str(&legacy_value(&e.bad_value));
    }
    let detail = legacy_detail(e, version);
    if !detail.is_empty() {
        s.push_str(": ");
        s.push_str(&detail);
    }
    s
}

fn legacy_detail(e: &FieldError, version: KubeVersion) -> String {
    match e.type_ {
        ErrorType::TooLong => {
            if let Some(n) = e
                .detail
                .strip_prefix("may not be more than ")
                .and_then(|r| r.split(' ').next())
            {
                if version.at_least(32) {
                    format!("may not be more than {n} bytes")
                } else {
                    format!("may not be longer than {n}")
                }
            } else {
                e.detail.clone()
            }
        }
        ErrorType::TooMany if e.detail == "must have at most 1 item" => {
            "must have at most 1 items".to_string()
        }
        _ => e.detail.clone(),
    }
}

/// Go's `%#v` of decoded JSON (≤ 1.33 rendering of compound values), `"null"` for nil.
fn legacy_value(v: &BadValue) -> String {
    match v {
        BadValue::Null => "\"null\"".to_string(),
        BadValue::Json(j) => go_sharp_v(j),
        other => other.to_string(),
    }
}

fn go_sharp_v(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_f64() => {
            format_float(n.as_f64().unwrap_or(0.0), false, FloatStyle::V)
        }
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote(s),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(go_sharp_v).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let items: Vec<String> = keys
                .iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        quote(k),
                        m.get(*k).map_or(String::new(), go_sharp_v)
                    )
                })
                .collect();
            format!("map[string]interface {{}}{{{}}}", items.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Path;
    use serde_json::json;

    #[test]
    fn renders() {
        let errs = vec![
            FieldError::too_long(Path::new("spec").child("a"), 1),
            FieldError::duplicate(
                Path::new("spec").child("l").index(1),
                BadValue::Json(json!({"name": "a"})),
            ),
        ];
        let v = |minor| KubeVersion::new(minor).expect("supported");
        let widget = |minor| Status::invalid("example.com", "Widget", "w1", &errs, v(minor));
        let s = widget(35);
        assert_eq!(
            s.message,
            "Widget.example.com \"w1\" is invalid: [spec.a: Too long: may not be more than 1 byte, spec.l[1]: Duplicate value: {\"name\":\"a\"}]"
        );
        let old = widget(33);
        assert_eq!(
            old.message,
            "Widget.example.com \"w1\" is invalid: [spec.a: Too long: may not be more than 1 bytes, spec.l[1]: Duplicate value: map[string]interface {}{\"name\":\"a\"}]"
        );
        let one = vec![errs[0].clone(), errs[0].clone()];
        let s = Status::invalid("", "Pod", "p", &one, v(35));
        assert_eq!(
            s.message,
            "Pod \"p\" is invalid: spec.a: Too long: may not be more than 1 byte"
        );
    }
}
