//! Type conversions: `int`, `uint`, `double`, `string`, `bytes`, `bool`,
//! `timestamp`, `duration`, `type`, `dyn`, with cel-go's range rules and
//! error texts.

use super::ops::{int_overflow, uint_overflow};
use crate::cel_go::CelGoVersion;
use crate::env::EnvBuilder;
use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::{Duration, Timestamp, Value};

fn nso() -> EvalError {
    EvalError::no_such_overload()
}

/// cel-go's text for a value its `ConvertToType` cannot convert (a string
/// that does not parse included: cel-go drops Go's parse error), in every
/// release (`common/types/string.go`, `int.go`).
fn conversion_error(from: &str, to: &str) -> EvalError {
    EvalError::msg(format!("type conversion error from '{from}' to '{to}'"))
}

const DURATION: &str = "google.protobuf.Duration";
const TIMESTAMP: &str = "google.protobuf.Timestamp";

/// The overload id of `duration(int)`.
pub(crate) const INT_TO_DURATION: &str = "int64_to_duration";

/// Releases before cel-go v0.28.1 (339269b4) declare `duration(int)`
/// (`int64_to_duration`), which always fails with a conversion
/// error; later ones do not declare it (a compile error).
pub(crate) fn adapt(b: &mut EnvBuilder, v: CelGoVersion) {
    let declared = b
        .functions
        .get("duration")
        .is_some_and(|f| f.overloads.iter().any(|o| &*o.id == "string_to_duration"));
    if v < CelGoVersion::V0_29 && declared {
        let duration = Type::Duration;
        b.add_function(Function::new("duration").overload(Overload::global(
            INT_TO_DURATION,
            vec![Type::Int],
            duration,
            Some(FnImpl::Unary(to_duration)),
        )));
    }
}

/// `int(v)`.
pub(crate) fn to_int(v: &Value) -> EvalResult {
    Ok(Value::Int(match v {
        Value::Int(i) => *i,
        Value::Uint(u) => i64::try_from(*u).map_err(|_| int_overflow())?,
        Value::Double(d) => {
            // cel-go: reject infinities and values at or beyond ±2^63.
            if d.is_nan() || *d <= -9.223_372_036_854_776e18 || *d >= 9.223_372_036_854_776e18 {
                return Err(int_overflow());
            }
            *d as i64
        }
        // Go's `strconv.ParseInt(s, 10, 64)`: an optional sign and digits.
        Value::String(s) => s
            .parse::<i64>()
            .map_err(|_| conversion_error("string", "int"))?,
        Value::Timestamp(t) => t.seconds,
        Value::Duration(d) => d.nanos,
        _ => return Err(nso()),
    }))
}

/// `uint(v)`.
pub(crate) fn to_uint(v: &Value) -> EvalResult {
    Ok(Value::Uint(match v {
        Value::Uint(u) => *u,
        Value::Int(i) => u64::try_from(*i).map_err(|_| uint_overflow())?,
        Value::Double(d) => {
            if d.is_nan() || *d < 0.0 || *d >= 1.844_674_407_370_955_2e19 {
                return Err(uint_overflow());
            }
            *d as u64
        }
        Value::String(s) => {
            // Go's ParseUint rejects signs.
            let ok = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            match s.parse::<u64>() {
                Ok(u) if ok => u,
                _ => return Err(conversion_error("string", "uint")),
            }
        }
        _ => return Err(nso()),
    }))
}

/// `double(v)`.
pub(crate) fn to_double(v: &Value) -> EvalResult {
    Ok(Value::Double(match v {
        Value::Double(d) => *d,
        Value::Int(i) => *i as f64,
        Value::Uint(u) => *u as f64,
        Value::String(s) => parse_go_float(s)?,
        _ => return Err(nso()),
    }))
}

/// Go's `strconv.ParseFloat(s, 64)` for the forms CEL programs use (out of
/// range is an error too).
fn parse_go_float(s: &str) -> EvalResult<f64> {
    let lower = s.to_ascii_lowercase();
    let body = lower.strip_prefix(['+', '-']).unwrap_or(&lower);
    let special = matches!(body, "inf" | "infinity" | "nan");
    let plain = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'+' | b'-'));
    if (special || plain)
        && let Ok(d) = s.parse::<f64>()
    {
        if d.is_infinite() && !special {
            return Err(conversion_error("string", "double"));
        }
        return Ok(d);
    }
    Err(conversion_error("string", "double"))
}

/// `string(v)`.
pub(crate) fn to_string(v: &Value) -> EvalResult {
    Ok(match v {
        Value::String(_) => v.clone(),
        Value::Int(i) => Value::String(crate::value::int_str(*i)),
        Value::Uint(u) => Value::String(crate::value::uint_str(*u)),
        Value::Double(d) => Value::from(format_go_g(*d)),
        Value::Bool(b) => Value::from(b.to_string()),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => Value::from(s),
            Err(_) => {
                return Err(EvalError::msg(
                    "invalid UTF-8 in bytes, cannot convert to string",
                ));
            }
        },
        Value::Timestamp(t) => Value::from(t.to_string()),
        Value::Duration(d) => Value::from(d.to_string()),
        _ => return Err(nso()),
    })
}

/// Go's `%g` for a float64 (cel-go's `string(double)`): the shortest decimal
/// that round-trips, in exponent form when the exponent is < -4 or >= 6 (Go: `eprec = 6` for shortest).
pub(crate) fn format_go_g(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if d == 0.0 {
        return if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Shortest digits and decimal exponent via Rust's `{:e}` (shortest round-trip).
    let e = format!("{d:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    // Plain notation: Rust's Display is the shortest round-trip without exponent.
    format!("{d}")
}

/// `bytes(v)`.
pub(crate) fn to_bytes(v: &Value) -> EvalResult {
    match v {
        Value::Bytes(_) => Ok(v.clone()),
        Value::String(s) => Ok(Value::bytes(s.as_bytes())),
        _ => Err(nso()),
    }
}

/// `bool(v)`: Go's `strconv.ParseBool` spellings.
pub(crate) fn to_bool(v: &Value) -> EvalResult {
    match v {
        Value::Bool(_) => Ok(v.clone()),
        Value::String(s) => match &**s {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Value::Bool(true)),
            "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Value::Bool(false)),
            _ => Err(conversion_error("string", "bool")),
        },
        _ => Err(nso()),
    }
}

/// `timestamp(v)`.
pub(crate) fn to_timestamp(v: &Value) -> EvalResult {
    match v {
        Value::Timestamp(_) => Ok(v.clone()),
        // A text that parses but is out of range keeps `timestamp overflow`,
        // Timestamp::parse's only error that is not about the syntax.
        Value::String(s) => Timestamp::parse(s).map(Value::Timestamp).map_err(|e| {
            if e.message() == "timestamp overflow" {
                e
            } else {
                conversion_error("string", TIMESTAMP)
            }
        }),
        Value::Int(i) => Ok(Value::Timestamp(Timestamp::new(*i, 0)?)),
        _ => Err(nso()),
    }
}

/// `duration(v)`. cel-go has no conversion from int (see [`adapt`]).
pub(crate) fn to_duration(v: &Value) -> EvalResult {
    match v {
        Value::Duration(_) => Ok(v.clone()),
        Value::String(s) => Duration::parse(s)
            .map(Value::Duration)
            .map_err(|_| conversion_error("string", DURATION)),
        Value::Int(_) => Err(conversion_error("int", DURATION)),
        _ => Err(nso()),
    }
}

/// `type(v)`.
pub(crate) fn type_of(v: &Value) -> EvalResult {
    Ok(Value::type_value(v.runtime_type()))
}

/// `dyn(v)`.
pub(crate) fn to_dyn(v: &Value) -> EvalResult {
    Ok(v.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: EvalResult) -> String {
        r.unwrap_err().message().to_string()
    }

    #[test]
    fn numeric_conversions_check_ranges() {
        assert_eq!(msg(to_int(&Value::Uint(u64::MAX))), "integer overflow");
        assert_eq!(msg(to_int(&Value::Double(9.3e18))), "integer overflow");
        assert_eq!(msg(to_int(&Value::Double(1e99))), "integer overflow");
        assert!(matches!(to_int(&Value::Double(-1.9)), Ok(Value::Int(-1))));
        assert_eq!(msg(to_uint(&Value::Int(-1))), "unsigned integer overflow");
        assert_eq!(
            msg(to_uint(&Value::Double(6.022e23))),
            "unsigned integer overflow"
        );
        assert_eq!(
            msg(to_int(&Value::from("abc"))),
            "type conversion error from 'string' to 'int'"
        );
        assert_eq!(
            msg(to_int(&Value::from("9223372036854775808"))),
            "type conversion error from 'string' to 'int'"
        );
        assert_eq!(
            msg(to_uint(&Value::from("-1"))),
            "type conversion error from 'string' to 'uint'"
        );
        assert_eq!(
            msg(to_double(&Value::from("1e400"))),
            "type conversion error from 'string' to 'double'"
        );
        assert_eq!(
            msg(to_bool(&Value::from("yes"))),
            "type conversion error from 'string' to 'bool'"
        );
        assert_eq!(
            msg(to_duration(&Value::from("apple"))),
            "type conversion error from 'string' to 'google.protobuf.Duration'"
        );
        assert_eq!(
            msg(to_duration(&Value::Int(5))),
            "type conversion error from 'int' to 'google.protobuf.Duration'"
        );
        assert_eq!(
            msg(to_timestamp(&Value::from("2024-13-01T00:00:00Z"))),
            "type conversion error from 'string' to 'google.protobuf.Timestamp'"
        );
        assert_eq!(
            msg(to_timestamp(&Value::from("0000-01-01T00:00:00Z"))),
            "timestamp overflow"
        );
        assert!(
            matches!(to_double(&Value::from("-0.0")), Ok(Value::Double(d)) if d == 0.0 && d.is_sign_negative())
        );
        assert!(
            matches!(to_double(&Value::from("6.02214e23")), Ok(Value::Double(d)) if d == 6.02214e23)
        );
        assert!(to_double(&Value::from("1x")).is_err());
    }

    #[test]
    fn string_conversions_match_go() {
        let s = |v: Value| match to_string(&v) {
            Ok(Value::String(s)) => s.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(s(Value::Double(1.5)), "1.5");
        assert_eq!(s(Value::Double(100.0)), "100");
        assert_eq!(s(Value::Double(1e21)), "1e+21");
        assert_eq!(s(Value::Double(123456789.0)), "1.23456789e+08");
        assert_eq!(s(Value::Double(0.0001)), "0.0001");
        assert_eq!(s(Value::Double(123456.0)), "123456");
        assert_eq!(s(Value::Double(1234567.0)), "1.234567e+06");
        assert_eq!(s(Value::Double(0.00001)), "1e-05");
        assert_eq!(s(Value::Uint(3)), "3");
        assert_eq!(
            msg(to_string(&Value::bytes(vec![0xffu8]))),
            "invalid UTF-8 in bytes, cannot convert to string"
        );
        assert!(to_bool(&Value::from("TrUe")).is_err());
        assert!(matches!(to_bool(&Value::from("T")), Ok(Value::Bool(true))));
    }
}
