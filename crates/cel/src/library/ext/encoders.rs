//! cel-go's `ext.Encoders` library: `base64.encode(bytes) -> string` and
//! `base64.decode(string) -> bytes`. Decoding accepts padded and unpadded
//! input (cel-go retries with `RawStdEncoding` when `StdEncoding` fails) and,
//! like Go, skips `\r` and `\n`. Not available in Kubernetes.
//!
//! Costs: cel-go's default of 1 per call (cel-go's Encoders version 1 adds
//! traversal costs, not reproduced here).

use base64::Engine;
use base64::alphabet::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use super::no_overload;
use crate::env::{EnvBuilder, Library};
use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::Value;

/// cel-go's `ext.Encoders()`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Encoders;

impl Library for Encoders {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_function(Function::new("base64.decode").overload(Overload::global(
            "base64_decode_string",
            vec![Type::String],
            Type::Bytes,
            Some(FnImpl::Unary(base64_decode)),
        )));
        env.add_function(Function::new("base64.encode").overload(Overload::global(
            "base64_encode_bytes",
            vec![Type::Bytes],
            Type::String,
            Some(FnImpl::Unary(base64_encode)),
        )));
    }
}

/// Standard alphabet, padding optional, non-zero trailing bits tolerated (Go's
/// non-strict decoding).
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

pub fn base64_encode(v: &Value) -> EvalResult {
    match v {
        Value::Bytes(b) => Ok(Value::string(
            base64::engine::general_purpose::STANDARD.encode(b),
        )),
        _ => Err(no_overload()),
    }
}

pub fn base64_decode(v: &Value) -> EvalResult {
    let Value::String(s) = v else {
        return Err(no_overload());
    };
    let cleaned: Vec<u8> = s.bytes().filter(|b| *b != b'\r' && *b != b'\n').collect();
    LENIENT.decode(&cleaned).map(Value::bytes).map_err(|e| {
        let offset = match e {
            base64::DecodeError::InvalidByte(o, _)
            | base64::DecodeError::InvalidLastSymbol(o, _) => o,
            base64::DecodeError::InvalidLength(n) => n,
            base64::DecodeError::InvalidPadding => cleaned.len(),
        };
        EvalError::msg(format!("illegal base64 data at input byte {offset}"))
    })
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    fn bytes(r: EvalResult) -> Vec<u8> {
        match r {
            Ok(Value::Bytes(b)) => b.to_vec(),
            other => panic!("expected bytes, got {other:?}"),
        }
    }

    #[test]
    fn round_trip_and_padding() {
        assert!(
            matches!(base64_encode(&Value::bytes(&b"hello"[..])), Ok(Value::String(s)) if &*s == "aGVsbG8=")
        );
        assert_eq!(bytes(base64_decode(&"aGVsbG8=".into())), b"hello");
        assert_eq!(bytes(base64_decode(&"aGVsbG8".into())), b"hello");
        assert_eq!(bytes(base64_decode(&"aGVs\nbG8=".into())), b"hello");
        assert_eq!(bytes(base64_decode(&"".into())), b"");
        assert!(
            base64_decode(&"a*b=".into())
                .unwrap_err()
                .message()
                .starts_with("illegal base64 data at input byte")
        );
        assert!(base64_decode(&Value::Int(1)).is_err());
    }
}
