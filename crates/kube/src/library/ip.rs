//! Kubernetes' IP library (`library/ip.go`, `kubernetes.net.ip`, type `net.IP`).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use cel::go::netip::Addr;
use cel::library::ext::{MappedIpv4, parse_ip_with};
use cel::value::Opaque;
use cel::{EnvBuilder, EvalError, EvalResult, FnImpl, Function, Library, Overload, Type, Value};

use super::common::{IP_TYPE_NAME, ip_type, opaque_arg, string_arg};

/// A `net.IP` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IpValue(pub Addr);

impl Opaque for IpValue {
    fn type_name(&self) -> &str {
        IP_TYPE_NAME
    }

    /// Address equality (false for values of other types).
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<IpValue>()
            .is_some_and(|o| o == self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl IpValue {
    /// The address as a CEL value (an opaque `net.IP`).
    pub fn into_value(self) -> Value {
        Value::Opaque(Arc::new(self))
    }
}

/// The IP library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ip;

impl Library for Ip {
    fn install(&self, env: &mut EnvBuilder) {
        let ip = ip_type();
        // `net.IP` names the type in expressions (`type(x) == net.IP`).
        env.add_type(IP_TYPE_NAME, ip.clone());
        let g =
            |name: &str, id: &str, params: Vec<Type>, result: Type, f: fn(&Value) -> EvalResult| {
                Function::new(name).overload(Overload::global(
                    id,
                    params,
                    result,
                    Some(FnImpl::Unary(f)),
                ))
            };
        let m = |name: &str, id: &str, result: Type, f: fn(&Value) -> EvalResult| {
            Function::new(name).overload(Overload::member(
                id,
                vec![ip_type()],
                result,
                Some(FnImpl::Unary(f)),
            ))
        };
        env.add_function(g(
            "ip",
            "string_to_ip",
            vec![Type::String],
            ip.clone(),
            string_to_ip,
        ));
        env.add_function(m("family", "ip_family", Type::Int, family));
        env.add_function(g(
            "ip.isCanonical",
            "ip_is_canonical",
            vec![Type::String],
            Type::Bool,
            is_canonical,
        ));
        env.add_function(m("isUnspecified", "ip_is_unspecified", Type::Bool, |v| {
            pred(v, Addr::is_unspecified)
        }));
        env.add_function(m("isLoopback", "ip_is_loopback", Type::Bool, |v| {
            pred(v, Addr::is_loopback)
        }));
        env.add_function(m(
            "isLinkLocalMulticast",
            "ip_is_link_local_multicast",
            Type::Bool,
            |v| pred(v, Addr::is_link_local_multicast),
        ));
        env.add_function(m(
            "isLinkLocalUnicast",
            "ip_is_link_local_unicast",
            Type::Bool,
            |v| pred(v, Addr::is_link_local_unicast),
        ));
        env.add_function(m(
            "isGlobalUnicast",
            "ip_is_global_unicast",
            Type::Bool,
            |v| pred(v, Addr::is_global_unicast),
        ));
        env.add_function(g("isIP", "is_ip", vec![Type::String], Type::Bool, is_ip));
        env.add_function(g(
            "string",
            "ip_to_string",
            vec![ip],
            Type::String,
            ip_to_string,
        ));
    }
}

/// Kubernetes' `parseIPAddr`: `netip.ParseAddr`, then no zones and no
/// IPv4-mapped IPv6 addresses.
pub(crate) fn parse_ip(raw: &str) -> Result<Addr, String> {
    parse_ip_with(raw, MappedIpv4::RejectAll).map_err(|e| e.to_string())
}

/// `ip(string)`.
pub fn string_to_ip(v: &Value) -> EvalResult {
    let s = string_arg(v)?;
    parse_ip(s)
        .map(|a| IpValue(a).into_value())
        .map_err(EvalError::msg)
}

/// `isIP(string)`.
pub fn is_ip(v: &Value) -> EvalResult {
    Ok(Value::Bool(parse_ip(string_arg(v)?).is_ok()))
}

/// `ip.isCanonical(string)`: parse errors are errors; otherwise whether the text
/// is the canonical form.
pub fn is_canonical(v: &Value) -> EvalResult {
    let s = string_arg(v)?;
    let addr = parse_ip(s).map_err(EvalError::msg)?;
    Ok(Value::Bool(addr.to_string() == s))
}

/// `string(ip)`.
pub fn ip_to_string(v: &Value) -> EvalResult {
    Ok(Value::from(opaque_arg::<IpValue>(v)?.0.to_string()))
}

/// `ip.family()`: 4 or 6.
pub fn family(v: &Value) -> EvalResult {
    let ip = opaque_arg::<IpValue>(v)?;
    Ok(Value::Int(if ip.0.is4() { 4 } else { 6 }))
}

fn pred(v: &Value, f: fn(&Addr) -> bool) -> EvalResult {
    Ok(Value::Bool(f(&opaque_arg::<IpValue>(v)?.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_rules() {
        assert_eq!(
            string_to_ip(&Value::from("fe80::1%eth0"))
                .unwrap_err()
                .message(),
            "IP address \"fe80::1%eth0\" with zone value is not allowed"
        );
        assert_eq!(
            string_to_ip(&Value::from("::ffff:1.2.3.4"))
                .unwrap_err()
                .message(),
            "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed"
        );
        assert_eq!(
            string_to_ip(&Value::from("192.168.0.1.0"))
                .unwrap_err()
                .message(),
            "IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long"
        );
        assert!(matches!(
            is_canonical(&Value::from("2001:DB8::68")),
            Ok(Value::Bool(false))
        ));
        assert!(matches!(
            is_ip(&Value::from("010.0.0.1")),
            Ok(Value::Bool(false))
        ));
        let ip = string_to_ip(&Value::from("2001:db8::68")).unwrap();
        assert!(matches!(family(&ip), Ok(Value::Int(6))));
        assert!(matches!(ip_to_string(&ip), Ok(Value::String(s)) if &*s == "2001:db8::68"));
    }
}
