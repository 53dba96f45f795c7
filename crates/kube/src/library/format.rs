//! Kubernetes' named-format library (`library/format.go`, type
//! `kubernetes.NamedFormat`): `format.named(name)`, `format.<name>()` and
//! `<format>.validate(string)`, with apimachinery's validation messages.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, LazyLock};

use base64::Engine;
use cel::value::Opaque;
use cel::{EnvBuilder, EvalResult, FnImpl, Function, Library, Overload, Type, Value};
use regex::Regex;

use super::common::{FORMAT_TYPE_NAME, format_type, opaque_arg, string_arg};
use crate::go::url as gourl;
use crate::name_validation::{
    anchored, is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_qualified_name,
    is_valid_label_value, mask_trailing_dash, max_len_error,
};

/// One named format.
#[derive(Debug)]
pub struct NamedFormat {
    /// The key used by `format.named` and the `format.<key>()` functions.
    pub key: &'static str,
    /// Kubernetes' display name (`DNS1123Label`, `uuid`, ...).
    pub name: &'static str,
    /// Regex size Kubernetes charges for at runtime (`MaxRegexSize`).
    pub max_regex_size: u64,
    validate: fn(&str) -> Vec<String>,
}

impl NamedFormat {
    /// The validation errors of `s` (empty when valid).
    pub fn validate(&self, s: &str) -> Vec<String> {
        (self.validate)(s)
    }
}

/// Every format, in Kubernetes' `ConstantFormats`.
pub static FORMATS: [NamedFormat; 14] = [
    NamedFormat {
        key: "dns1123Label",
        name: "DNS1123Label",
        max_regex_size: 30,
        validate: |s| is_dns1123_label(s),
    },
    NamedFormat {
        key: "dns1123Subdomain",
        name: "DNS1123Subdomain",
        max_regex_size: 60,
        validate: |s| is_dns1123_subdomain(s),
    },
    NamedFormat {
        key: "dns1035Label",
        name: "DNS1035Label",
        max_regex_size: 30,
        validate: |s| is_dns1035_label(s),
    },
    NamedFormat {
        key: "qualifiedName",
        name: "QualifiedName",
        max_regex_size: 60,
        validate: is_qualified_name,
    },
    NamedFormat {
        key: "portName",
        name: "PortName",
        max_regex_size: 20,
        validate: is_valid_port_name,
    },
    NamedFormat {
        key: "dns1123LabelPrefix",
        name: "DNS1123LabelPrefix",
        max_regex_size: 30,
        validate: |s| is_dns1123_label(&mask_trailing_dash(s)),
    },
    NamedFormat {
        key: "dns1123SubdomainPrefix",
        name: "DNS1123SubdomainPrefix",
        max_regex_size: 60,
        validate: |s| is_dns1123_subdomain(&mask_trailing_dash(s)),
    },
    NamedFormat {
        key: "dns1035LabelPrefix",
        name: "DNS1035LabelPrefix",
        max_regex_size: 30,
        validate: |s| is_dns1035_label(&mask_trailing_dash(s)),
    },
    NamedFormat {
        key: "labelValue",
        name: "LabelValue",
        max_regex_size: 40,
        validate: is_valid_label_value,
    },
    NamedFormat {
        key: "uri",
        name: "URI",
        max_regex_size: 1103,
        validate: validate_uri,
    },
    NamedFormat {
        key: "uuid",
        name: "uuid",
        max_regex_size: 70,
        validate: validate_uuid,
    },
    NamedFormat {
        key: "byte",
        name: "byte",
        max_regex_size: 84,
        validate: validate_byte,
    },
    NamedFormat {
        key: "date",
        name: "date",
        max_regex_size: 71,
        validate: validate_date,
    },
    NamedFormat {
        key: "datetime",
        name: "datetime",
        max_regex_size: 71,
        validate: validate_datetime,
    },
];

/// The format named `key`.
pub fn lookup(key: &str) -> Option<&'static NamedFormat> {
    FORMATS.iter().find(|f| f.key == key)
}

/// A `kubernetes.NamedFormat` value.
#[derive(Debug)]
pub struct FormatValue(pub &'static NamedFormat);

impl Opaque for FormatValue {
    fn type_name(&self) -> &str {
        FORMAT_TYPE_NAME
    }

    /// Formats are equal when their names are.
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<FormatValue>()
            .is_some_and(|o| o.0.name == self.0.name)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name)
    }
}

/// The format library.
#[derive(Clone, Copy, Debug, Default)]
pub struct FormatLib;

impl Library for FormatLib {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_function(Function::new("validate").overload(Overload::member(
            "format-validate",
            vec![format_type(), Type::String],
            Type::optional(Type::list(Type::String)),
            Some(FnImpl::Binary(validate)),
        )));
        env.add_function(Function::new("format.named").overload(Overload::global(
            "format-named",
            vec![Type::String],
            Type::optional(format_type()),
            Some(FnImpl::Unary(named)),
        )));
        for f in &FORMATS {
            let name = format!("format.{}", f.key);
            let value = Value::Opaque(Arc::new(FormatValue(f)));
            env.add_function(Function::new(&name).overload(Overload::global(
                &name,
                vec![],
                format_type(),
                Some(FnImpl::Closure(Arc::new(move |_| Ok(value.clone())))),
            )));
        }
    }
}

/// `format.named(name)`: `optional.of(format)` or `optional.none()`.
pub fn named(v: &Value) -> EvalResult {
    Ok(match lookup(string_arg(v)?) {
        Some(f) => Value::optional_of(Value::Opaque(Arc::new(FormatValue(f)))),
        None => Value::optional_none(),
    })
}

/// `f.validate(s)`: `optional.none()` when valid, else `optional.of([errors])`.
pub fn validate(f: &Value, s: &Value) -> EvalResult {
    let f = opaque_arg::<FormatValue>(f)?;
    let errs = f.0.validate(string_arg(s)?);
    if errs.is_empty() {
        return Ok(Value::optional_none());
    }
    Ok(Value::optional_of(Value::list(
        errs.into_iter().map(Value::from).collect(),
    )))
}

// ---------------------------------------------------------------------------
// port names (apimachinery) and kube-openapi's strfmt formats; the DNS and
// qualified-name checks are in `crate::name_validation`
// ---------------------------------------------------------------------------

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    anchored("(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")
});

/// `IsValidPortName`.
pub fn is_valid_port_name(port: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if port.len() > 15 {
        errs.push(max_len_error(15));
    }
    if port.is_empty()
        || !port
            .bytes()
            .all(|c| c == b'-' || c.is_ascii_lowercase() || c.is_ascii_digit())
    {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".into());
    }
    if !port.bytes().any(|c| c.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".into());
    }
    if port.contains("--") {
        errs.push("must not contain consecutive hyphens".into());
    }
    if port.starts_with('-') || port.ends_with('-') {
        errs.push("must not begin or end with a hyphen".into());
    }
    errs
}

fn validate_uri(s: &str) -> Vec<String> {
    match gourl::parse_request_uri(s) {
        Ok(_) => Vec::new(),
        Err(e) => vec![e],
    }
}

fn validate_uuid(s: &str) -> Vec<String> {
    if UUID.is_match(s) {
        Vec::new()
    } else {
        vec!["does not match the UUID format".into()]
    }
}

/// Go's `base64.StdEncoding.DecodeString`: padded, newlines ignored, trailing bits tolerated.
fn validate_byte(s: &str) -> Vec<String> {
    let cleaned: String = s.chars().filter(|&c| c != '\r' && c != '\n').collect();
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireCanonical),
    );
    if engine.decode(cleaned.as_bytes()).is_ok() {
        Vec::new()
    } else {
        vec!["invalid base64".into()]
    }
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// Go's `time.Parse("2006-01-02", s)`.
fn is_full_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let t = &s[r];
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())
            .flatten()
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y as i64, m)
}

fn validate_date(s: &str) -> Vec<String> {
    if is_full_date(s) {
        Vec::new()
    } else {
        vec!["invalid date".into()]
    }
}

static DATETIME: LazyLock<Regex> = LazyLock::new(|| {
    anchored(
        r"(\d{4}-\d{2}-\d{2})[Tt ]([01]\d|2[0-3]):([0-5]\d)(:([0-5]\d|60)(\.\d+)?)?([Zz]|[+-]([01]\d|2[0-3]):?[0-5]\d)?",
    )
});

/// kube-openapi's `strfmt` date-time check: RFC 3339 and the ISO 8601 variants it accepts.
fn validate_datetime(s: &str) -> Vec<String> {
    let ok = DATETIME
        .captures(s)
        .is_some_and(|c| c.get(1).is_some_and(|d| is_full_date(d.as_str())));
    if ok {
        Vec::new()
    } else {
        vec!["invalid datetime".into()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strfmt_formats() {
        assert!(validate_uuid("123e4567-e89b-12d3-a456-426614174000").is_empty());
        assert!(!validate_uuid("nope").is_empty());
        assert!(validate_byte("aGVsbG8=").is_empty());
        assert_eq!(validate_byte("aGVsbG8"), ["invalid base64"]);
        assert!(validate_date("2021-01-01").is_empty());
        assert_eq!(validate_date("2021-02-30"), ["invalid date"]);
        assert!(validate_datetime("2021-01-01T00:00:00Z").is_empty());
        assert!(!validate_datetime("2021-01-01").is_empty());
        assert!(validate_uri("http://example.com").is_empty());
    }

    #[test]
    fn library_values() {
        let f = named(&Value::from("dns1123Label")).unwrap();
        let Value::Optional(Some(f)) = f else {
            panic!("{f:?}")
        };
        let r = validate(&f, &Value::from("my-name")).unwrap();
        assert!(matches!(r, Value::Optional(None)));
        let r = validate(&f, &Value::from("-x")).unwrap();
        assert!(matches!(r, Value::Optional(Some(_))));
        assert!(matches!(
            named(&Value::from("nope")),
            Ok(Value::Optional(None))
        ));
    }
}
