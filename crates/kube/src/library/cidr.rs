//! Kubernetes' CIDR library (`library/cidr.go`, `kubernetes.net.cidr`, type `net.CIDR`).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use cel::go::netip::{Prefix, parse_prefix};
use cel::value::Opaque;
use cel::{EnvBuilder, EvalError, EvalResult, FnImpl, Function, Library, Overload, Type, Value};

use super::common::{CIDR_TYPE_NAME, cidr_type, ip_type, opaque_arg, string_arg};
use super::ip::{IpValue, string_to_ip};
use crate::go::fmt::quote as go_quote;

/// A `net.CIDR` value: the prefix as written (host bits kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CidrValue(pub Prefix);

impl Opaque for CidrValue {
    fn type_name(&self) -> &str {
        CIDR_TYPE_NAME
    }

    /// Prefix equality: address as written and length
    /// (`cidr('10.0.0.1/8') != cidr('10.0.0.1/8').masked()`).
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<CidrValue>()
            .is_some_and(|o| o == self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl CidrValue {
    /// The CIDR as a CEL value (an opaque `net.CIDR`).
    pub fn into_value(self) -> Value {
        Value::Opaque(Arc::new(self))
    }
}

/// The CIDR library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cidr;

impl Library for Cidr {
    fn install(&self, env: &mut EnvBuilder) {
        let cidr = cidr_type();
        env.add_type(CIDR_TYPE_NAME, cidr.clone());
        let unary = |f: fn(&Value) -> EvalResult| Some(FnImpl::Unary(f));
        let binary = |f: fn(&Value, &Value) -> EvalResult| Some(FnImpl::Binary(f));
        env.add_function(Function::new("cidr").overload(Overload::global(
            "string_to_cidr",
            vec![Type::String],
            cidr.clone(),
            unary(string_to_cidr),
        )));
        env.add_function(
            Function::new("containsIP")
                .overload(Overload::member(
                    "cidr_contains_ip_string",
                    vec![cidr.clone(), Type::String],
                    Type::Bool,
                    binary(contains_ip_string),
                ))
                .overload(Overload::member(
                    "cidr_contains_ip_ip",
                    vec![cidr.clone(), ip_type()],
                    Type::Bool,
                    binary(contains_ip),
                )),
        );
        env.add_function(
            Function::new("containsCIDR")
                .overload(Overload::member(
                    "cidr_contains_cidr_string",
                    vec![cidr.clone(), Type::String],
                    Type::Bool,
                    binary(contains_cidr_string),
                ))
                .overload(Overload::member(
                    "cidr_contains_cidr",
                    vec![cidr.clone(), cidr.clone()],
                    Type::Bool,
                    binary(contains_cidr),
                )),
        );
        env.add_function(Function::new("ip").overload(Overload::member(
            "cidr_ip",
            vec![cidr.clone()],
            ip_type(),
            unary(cidr_ip),
        )));
        env.add_function(Function::new("prefixLength").overload(Overload::member(
            "cidr_prefix_length",
            vec![cidr.clone()],
            Type::Int,
            unary(prefix_length),
        )));
        env.add_function(Function::new("masked").overload(Overload::member(
            "cidr_masked",
            vec![cidr.clone()],
            cidr.clone(),
            unary(masked),
        )));
        env.add_function(Function::new("isCIDR").overload(Overload::global(
            "is_cidr",
            vec![Type::String],
            Type::Bool,
            unary(is_cidr),
        )));
        env.add_function(Function::new("string").overload(Overload::global(
            "cidr_to_string",
            vec![cidr],
            Type::String,
            unary(cidr_to_string),
        )));
    }
}

/// The prefix of the text prefix Kubernetes' `parseCIDR` adds.
const PARSE_ERROR: &str = "network address parse error during conversion from string";

/// Kubernetes' `parseCIDR`: `netip.ParsePrefix`, then no IPv4-mapped addresses.
pub(crate) fn parse_cidr(raw: &str) -> Result<Prefix, String> {
    let p = parse_prefix(raw).map_err(|e| format!("{PARSE_ERROR}: {e}"))?;
    if p.addr.is_4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            go_quote(raw)
        ));
    }
    Ok(p)
}

/// `cidr(string)`. Kubernetes wraps the parser's message in its prefix again,
/// so parse failures read `network address parse error during conversion from
/// string: network address parse error during conversion from string: …`.
pub fn string_to_cidr(v: &Value) -> EvalResult {
    let s = string_arg(v)?;
    parse_cidr(s)
        .map(|p| CidrValue(p).into_value())
        .map_err(|e| EvalError::msg(format!("{PARSE_ERROR}: {e}")))
}

/// `isCIDR(string)`.
pub fn is_cidr(v: &Value) -> EvalResult {
    Ok(Value::Bool(parse_cidr(string_arg(v)?).is_ok()))
}

/// `string(cidr)`.
pub fn cidr_to_string(v: &Value) -> EvalResult {
    Ok(Value::from(opaque_arg::<CidrValue>(v)?.0.to_string()))
}

/// `cidr.containsIP(ip)`.
pub fn contains_ip(c: &Value, ip: &Value) -> EvalResult {
    let c = opaque_arg::<CidrValue>(c)?;
    let ip = opaque_arg::<IpValue>(ip)?;
    Ok(Value::Bool(c.0.contains(&ip.0)))
}

/// `cidr.containsIP(string)`. As in Kubernetes, an unparsable address gives
/// `no such overload` (the parse error is dropped).
pub fn contains_ip_string(c: &Value, s: &Value) -> EvalResult {
    string_arg(s)?;
    match string_to_ip(s) {
        Ok(ip) => contains_ip(c, &ip),
        Err(_) => {
            opaque_arg::<CidrValue>(c)?;
            Err(EvalError::no_such_overload())
        }
    }
}

/// `cidr.containsCIDR(cidr)`: the other prefix lies within this one.
pub fn contains_cidr(c: &Value, other: &Value) -> EvalResult {
    let c = opaque_arg::<CidrValue>(c)?;
    let o = opaque_arg::<CidrValue>(other)?;
    Ok(Value::Bool(c.0.contains_prefix(&o.0)))
}

/// `cidr.containsCIDR(string)`: parse errors are returned as `cidr()` gives them.
pub fn contains_cidr_string(c: &Value, s: &Value) -> EvalResult {
    opaque_arg::<CidrValue>(c)?;
    let other = string_to_cidr(s)?;
    contains_cidr(c, &other)
}

/// `cidr.ip()`: the address as written.
pub fn cidr_ip(v: &Value) -> EvalResult {
    Ok(IpValue(opaque_arg::<CidrValue>(v)?.0.addr.clone()).into_value())
}

/// `cidr.prefixLength()`.
pub fn prefix_length(v: &Value) -> EvalResult {
    Ok(Value::Int(opaque_arg::<CidrValue>(v)?.0.bits as i64))
}

/// `cidr.masked()`.
pub fn masked(v: &Value) -> EvalResult {
    Ok(CidrValue(opaque_arg::<CidrValue>(v)?.0.masked()).into_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cidr(s: &str) -> Value {
        string_to_cidr(&Value::from(s)).unwrap()
    }

    #[test]
    fn doubled_error_prefix() {
        assert_eq!(
            string_to_cidr(&Value::from("192.168.0.0/"))
                .unwrap_err()
                .message(),
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\""
        );
    }

    #[test]
    fn containment() {
        let c = cidr("192.168.0.0/24");
        assert!(matches!(
            contains_cidr(&c, &cidr("192.168.0.1/32")),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            contains_cidr(&c, &cidr("192.168.0.0/23")),
            Ok(Value::Bool(false))
        ));
        assert!(matches!(
            contains_ip_string(&c, &Value::from("192.168.0.9")),
            Ok(Value::Bool(true))
        ));
        assert_eq!(
            contains_ip_string(&c, &Value::from("nope"))
                .unwrap_err()
                .kind(),
            cel::ErrorKind::NoSuchOverload
        );
        let unmasked = cidr("192.168.0.1/24");
        let m = masked(&unmasked).unwrap();
        assert!(!unmasked.equals(&m));
        assert!(matches!(cidr_to_string(&m), Ok(Value::String(s)) if &*s == "192.168.0.0/24"));
    }
}
