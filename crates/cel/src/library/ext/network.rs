//! cel-go's `ext.Network` library: IP addresses (`net.IP`) and CIDR ranges
//! (`net.CIDR`) as opaque values.
//!
//! Parsing follows Go's `net/netip` exactly ([`netip::parse_addr`],
//! [`netip::parse_prefix`], with netip's error texts), then rejects zones and
//! IPv4-mapped IPv6 addresses as cel-go does ([`parse_ip`], [`parse_cidr`]). A CIDR keeps the address as written (host bits
//! are not cleared; `masked()` clears them), and equality compares address
//! and prefix length.
//!
//! Besides cel-go's functions the library declares `string(net.IP)`
//! (`ip_to_string`) and `string(net.CIDR)` (`cidr_to_string`), as the
//! conformance suite and Kubernetes use them.
//!
//! Costs: cel-go's default of 1 per call (Kubernetes charges its own, see
//! k8s-cel.md §10.11).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use super::{as_str, no_overload};
use crate::env::{EnvBuilder, Library};
use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::go::fmt as gofmt;
use crate::go::netip::{self, Addr, ParseAddrError, Prefix};
use crate::types::Type;
use crate::value::{Opaque, Value};

/// The runtime type name of IP values.
pub const IP_TYPE: &str = "net.IP";
/// The runtime type name of CIDR values.
pub const CIDR_TYPE: &str = "net.CIDR";

/// cel-go's `ext.Network()`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Network;

/// An IP address value (`net.IP`): never zoned, IPv4 or IPv6 (an IPv4-mapped
/// IPv6 address only in hexadecimal form, see [`MappedIpv4::RejectDotted`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ip(pub Addr);

/// A CIDR value (`net.CIDR`): the address as written (host bits kept) and
/// the prefix length.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cidr(pub Prefix);

impl Opaque for Ip {
    fn type_name(&self) -> &str {
        IP_TYPE
    }
    /// Equal addresses, an IPv4-mapped IPv6 address equal to the IPv4
    /// address it maps.
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<Ip>()
            .is_some_and(|o| o.0.unmap() == self.0.unmap())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Opaque for Cidr {
    fn type_name(&self) -> &str {
        CIDR_TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Cidr>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Which IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) [`parse_ip_with`]
/// rejects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MappedIpv4 {
    /// Only those written with an embedded dotted quad (`::ffff:192.168.0.1`);
    /// the hexadecimal form (`::ffff:c0a8:1`) is accepted (cel-go's
    /// `ext.Network`).
    RejectDotted,
    /// Every IPv4-mapped address, however written (Kubernetes' IP library).
    RejectAll,
}

/// Why [`parse_ip_with`] rejected a string; the text (`Display`) is cel-go's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IpParseError {
    /// Not an address: Go's `netip.ParseAddr` failed.
    Syntax {
        /// The string parsed.
        input: String,
        /// Go's error.
        error: ParseAddrError,
    },
    /// An IPv6 address with a zone (`fe80::1%eth0`).
    Zone {
        /// The string parsed.
        input: String,
    },
    /// An IPv4-mapped IPv6 address of the kind rejected ([`MappedIpv4`]).
    Ipv4Mapped {
        /// The string parsed.
        input: String,
    },
}

impl fmt::Display for IpParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IpParseError::Syntax { input, error } => write!(
                f,
                "IP Address {} parse error during conversion from string: {error}",
                gofmt::quote(input)
            ),
            IpParseError::Zone { input } => write!(
                f,
                "IP address {} with zone value is not allowed",
                gofmt::quote(input)
            ),
            IpParseError::Ipv4Mapped { input } => write!(
                f,
                "IPv4-mapped IPv6 address {} is not allowed",
                gofmt::quote(input)
            ),
        }
    }
}

impl std::error::Error for IpParseError {}

/// `ip(string)` parsing: [`netip::parse_addr`], then no zone and no
/// IPv4-mapped IPv6 address of the kind `mapped` names (cel-go's
/// `ext/network.go`, `parseIPAddr`).
pub fn parse_ip_with(raw: &str, mapped: MappedIpv4) -> Result<Addr, IpParseError> {
    let a = netip::parse_addr(raw).map_err(|error| IpParseError::Syntax {
        input: raw.to_string(),
        error,
    })?;
    if a.zone().is_some() {
        return Err(IpParseError::Zone {
            input: raw.to_string(),
        });
    }
    let rejected = match mapped {
        MappedIpv4::RejectDotted => raw.contains('.'),
        MappedIpv4::RejectAll => true,
    };
    if a.is_4in6() && rejected {
        return Err(IpParseError::Ipv4Mapped {
            input: raw.to_string(),
        });
    }
    Ok(a)
}

/// cel-go's `ip(string)` parsing ([`MappedIpv4::RejectDotted`]): the
/// hexadecimal form of an IPv4-mapped address is accepted, and equals the
/// IPv4 address it maps (the conformance suite's `ipv4_equals_ipv6`).
pub fn parse_ip(raw: &str) -> Result<Ip, String> {
    parse_ip_with(raw, MappedIpv4::RejectDotted)
        .map(Ip)
        .map_err(|e| e.to_string())
}

/// cel-go's `cidr(string)` parsing: [`netip::parse_prefix`], then no
/// IPv4-mapped IPv6 address.
pub fn parse_cidr(raw: &str) -> Result<Cidr, String> {
    let q = gofmt::quote(raw);
    let c = netip::parse_prefix(raw)
        .map_err(|e| format!("CIDR {q} parse error during conversion from string: {e}"))?;
    if c.addr.is_4in6() {
        return Err(format!("IPv4-mapped IPv6 address {q} is not allowed"));
    }
    Ok(Cidr(c))
}

// ---- library ----

fn ip_arg(v: &Value) -> EvalResult<&Ip> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<Ip>().ok_or_else(no_overload),
        _ => Err(no_overload()),
    }
}

fn cidr_arg(v: &Value) -> EvalResult<&Cidr> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<Cidr>().ok_or_else(no_overload),
        _ => Err(no_overload()),
    }
}

fn ip_value(ip: Ip) -> Value {
    Value::Opaque(Arc::new(ip))
}

fn cidr_value(c: Cidr) -> Value {
    Value::Opaque(Arc::new(c))
}

/// The checker type of IP values.
pub fn ip_type() -> Type {
    Type::opaque(IP_TYPE, Vec::new())
}

/// The checker type of CIDR values.
pub fn cidr_type() -> Type {
    Type::opaque(CIDR_TYPE, Vec::new())
}

impl Library for Network {
    fn install(&self, env: &mut EnvBuilder) {
        use Type::{Bool, Int, String as Str};
        let (ip_t, cidr_t) = (ip_type(), cidr_type());
        env.add_type(ip_t.runtime_name(), ip_t.clone());
        env.add_type(cidr_t.runtime_name(), cidr_t.clone());
        let g = |id: &str, p: Vec<Type>, r: Type, f: FnImpl| Overload::global(id, p, r, Some(f));
        let m = |id: &str, p: Vec<Type>, r: Type, f: FnImpl| Overload::member(id, p, r, Some(f));
        env.add_function(Function::new("isIP").overload(g(
            "is_ip",
            vec![Str],
            Bool,
            FnImpl::Unary(is_ip),
        )));
        env.add_function(Function::new("isCIDR").overload(g(
            "is_cidr",
            vec![Str],
            Bool,
            FnImpl::Unary(is_cidr),
        )));
        env.add_function(
            Function::new("ip")
                .overload(g(
                    "string_to_ip",
                    vec![Str],
                    ip_t.clone(),
                    FnImpl::Unary(string_to_ip),
                ))
                .overload(m(
                    "cidr_ip",
                    vec![cidr_t.clone()],
                    ip_t.clone(),
                    FnImpl::Unary(cidr_ip),
                )),
        );
        env.add_function(Function::new("cidr").overload(g(
            "string_to_cidr",
            vec![Str],
            cidr_t.clone(),
            FnImpl::Unary(string_to_cidr),
        )));
        env.add_function(Function::new("family").overload(m(
            "ip_family",
            vec![ip_t.clone()],
            Int,
            FnImpl::Unary(family),
        )));
        env.add_function(Function::new("ip.isCanonical").overload(g(
            "ip_is_canonical",
            vec![Str],
            Bool,
            FnImpl::Unary(is_canonical),
        )));
        for (name, id, imp) in [
            (
                "isLoopback",
                "ip_is_loopback",
                ip_is_loopback as fn(&Value) -> EvalResult,
            ),
            (
                "isGlobalUnicast",
                "ip_is_global_unicast",
                ip_is_global_unicast,
            ),
            ("isUnspecified", "ip_is_unspecified", ip_is_unspecified),
            (
                "isLinkLocalMulticast",
                "ip_is_link_local_multicast",
                ip_is_link_local_multicast,
            ),
            (
                "isLinkLocalUnicast",
                "ip_is_link_local_unicast",
                ip_is_link_local_unicast,
            ),
        ] {
            env.add_function(Function::new(name).overload(m(
                id,
                vec![ip_t.clone()],
                Bool,
                FnImpl::Unary(imp),
            )));
        }
        env.add_function(
            Function::new("containsIP")
                .overload(m(
                    "cidr_contains_ip",
                    vec![cidr_t.clone(), ip_t.clone()],
                    Bool,
                    FnImpl::Binary(contains_ip),
                ))
                .overload(m(
                    "cidr_contains_ip_string",
                    vec![cidr_t.clone(), Str],
                    Bool,
                    FnImpl::Binary(contains_ip),
                )),
        );
        env.add_function(
            Function::new("containsCIDR")
                .overload(m(
                    "cidr_contains_cidr",
                    vec![cidr_t.clone(), cidr_t.clone()],
                    Bool,
                    FnImpl::Binary(contains_cidr),
                ))
                .overload(m(
                    "cidr_contains_cidr_string",
                    vec![cidr_t.clone(), Str],
                    Bool,
                    FnImpl::Binary(contains_cidr),
                )),
        );
        env.add_function(Function::new("masked").overload(m(
            "cidr_masked",
            vec![cidr_t.clone()],
            cidr_t.clone(),
            FnImpl::Unary(masked),
        )));
        env.add_function(Function::new("prefixLength").overload(m(
            "cidr_prefix_length",
            vec![cidr_t.clone()],
            Int,
            FnImpl::Unary(prefix_length),
        )));
        env.add_function(
            Function::new("string")
                .overload(g("ip_to_string", vec![ip_t], Str, FnImpl::Unary(to_string)))
                .overload(g(
                    "cidr_to_string",
                    vec![cidr_t],
                    Str,
                    FnImpl::Unary(to_string),
                )),
        );
    }
}

pub fn is_ip(v: &Value) -> EvalResult {
    Ok(Value::Bool(parse_ip(as_str(v)?).is_ok()))
}

pub fn is_cidr(v: &Value) -> EvalResult {
    Ok(Value::Bool(parse_cidr(as_str(v)?).is_ok()))
}

pub fn string_to_ip(v: &Value) -> EvalResult {
    parse_ip(as_str(v)?).map(ip_value).map_err(EvalError::msg)
}

pub fn string_to_cidr(v: &Value) -> EvalResult {
    parse_cidr(as_str(v)?)
        .map(cidr_value)
        .map_err(EvalError::msg)
}

pub fn family(v: &Value) -> EvalResult {
    Ok(Value::Int(if ip_arg(v)?.0.is4() { 4 } else { 6 }))
}

/// The string is the canonical (RFC 5952) text of the address it parses to.
pub fn is_canonical(v: &Value) -> EvalResult {
    let s = as_str(v)?;
    let ip = parse_ip(s).map_err(EvalError::msg)?;
    Ok(Value::Bool(ip.0.to_string() == s))
}

fn ip_is_loopback(v: &Value) -> EvalResult {
    Ok(Value::Bool(ip_arg(v)?.0.is_loopback()))
}

fn ip_is_global_unicast(v: &Value) -> EvalResult {
    Ok(Value::Bool(ip_arg(v)?.0.is_global_unicast()))
}

fn ip_is_unspecified(v: &Value) -> EvalResult {
    Ok(Value::Bool(ip_arg(v)?.0.is_unspecified()))
}

fn ip_is_link_local_multicast(v: &Value) -> EvalResult {
    Ok(Value::Bool(ip_arg(v)?.0.is_link_local_multicast()))
}

fn ip_is_link_local_unicast(v: &Value) -> EvalResult {
    Ok(Value::Bool(ip_arg(v)?.0.is_link_local_unicast()))
}

/// `cidr.containsIP(ip)` and `cidr.containsIP(string)`.
pub fn contains_ip(c: &Value, ip: &Value) -> EvalResult {
    let c = cidr_arg(c)?;
    let contained = match ip {
        Value::String(s) => c.0.contains(&parse_ip(s).map_err(EvalError::msg)?.0),
        other => c.0.contains(&ip_arg(other)?.0),
    };
    Ok(Value::Bool(contained))
}

/// `cidr.containsCIDR(cidr)` and `cidr.containsCIDR(string)`.
pub fn contains_cidr(c: &Value, other: &Value) -> EvalResult {
    let c = cidr_arg(c)?;
    let contained = match other {
        Value::String(s) => {
            c.0.contains_prefix(&parse_cidr(s).map_err(EvalError::msg)?.0)
        }
        other => c.0.contains_prefix(&cidr_arg(other)?.0),
    };
    Ok(Value::Bool(contained))
}

pub fn cidr_ip(v: &Value) -> EvalResult {
    Ok(ip_value(Ip(cidr_arg(v)?.0.addr.clone())))
}

pub fn masked(v: &Value) -> EvalResult {
    Ok(cidr_value(Cidr(cidr_arg(v)?.0.masked())))
}

pub fn prefix_length(v: &Value) -> EvalResult {
    Ok(Value::Int(i64::from(cidr_arg(v)?.0.bits)))
}

/// `string(ip)` / `string(cidr)`: Go's canonical text.
pub fn to_string(v: &Value) -> EvalResult {
    if let Ok(ip) = ip_arg(v) {
        return Ok(Value::string(ip.0.to_string()));
    }
    Ok(Value::string(cidr_arg(v)?.0.to_string()))
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Value {
        string_to_ip(&s.into()).unwrap()
    }

    fn cidr(s: &str) -> Value {
        string_to_cidr(&s.into()).unwrap()
    }

    fn t(r: EvalResult) -> bool {
        matches!(r, Ok(Value::Bool(true)))
    }

    #[test]
    fn parse_errors_are_netip_texts() {
        assert_eq!(
            string_to_ip(&"192.168.0.1.0".into()).unwrap_err().message(),
            "IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long"
        );
        assert_eq!(
            string_to_ip(&"2001:db8:::68".into()).unwrap_err().message(),
            "IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")"
        );
        assert_eq!(
            string_to_ip(&"fe80::1%en0".into()).unwrap_err().message(),
            "IP address \"fe80::1%en0\" with zone value is not allowed"
        );
        assert_eq!(
            string_to_ip(&"::ffff:192.168.0.1".into())
                .unwrap_err()
                .message(),
            "IPv4-mapped IPv6 address \"::ffff:192.168.0.1\" is not allowed"
        );
        // The hexadecimal form of an IPv4-mapped address is accepted and equals the IPv4 address.
        assert!(ip("::ffff:c0a8:1").equals(&ip("192.168.0.1")));
        assert!(matches!(family(&ip("::ffff:c0a8:1")), Ok(Value::Int(6))));
        assert_eq!(
            parse_ip_with("::ffff:c0a8:1", MappedIpv4::RejectAll)
                .unwrap_err()
                .to_string(),
            "IPv4-mapped IPv6 address \"::ffff:c0a8:1\" is not allowed"
        );
    }

    #[test]
    fn predicates_and_equality() {
        assert!(ip("127.0.0.1").equals(&ip("127.0.0.1")));
        assert!(ip("2001:db8::1").equals(&ip("2001:DB8::1")));
        assert!(!ip("::").equals(&ip("::ffff")));
        assert!(matches!(family(&ip("2001:db8::68")), Ok(Value::Int(6))));
        assert!(t(ip_is_loopback(&ip("::1"))));
        assert!(t(ip_is_global_unicast(&ip("192.168.0.1"))));
        assert!(!t(ip_is_global_unicast(&ip("255.255.255.255"))));
        assert!(!t(ip_is_global_unicast(&ip("ff00::1"))));
        assert!(t(ip_is_link_local_multicast(&ip("224.0.0.1"))));
        assert!(!t(ip_is_link_local_multicast(&ip("224.0.1.1"))));
        assert!(t(ip_is_link_local_multicast(&ip("ff02::1"))));
        assert!(t(ip_is_link_local_unicast(&ip("fe80::1"))));
        assert!(!t(ip_is_link_local_unicast(&ip("fd80::1"))));
        assert!(t(ip_is_unspecified(&ip("0.0.0.0"))));
        assert!(t(is_canonical(&"2001:db8::68".into())));
        assert!(!t(is_canonical(&"2001:DB8::68".into())));
        assert!(!t(is_canonical(&"2001:db8:0:0:0:0:0:1".into())));
    }

    #[test]
    fn cidr_operations() {
        let c = cidr("192.168.0.0/24");
        assert!(t(contains_ip(&c, &ip("192.168.0.1"))));
        assert!(!t(contains_ip(&c, &"192.168.1.1".into())));
        assert!(t(contains_cidr(&c, &cidr("192.168.0.1/32"))));
        assert!(!t(contains_cidr(&c, &"192.168.0.0/23".into())));
        assert!(!t(contains_ip(&cidr("2001:db8::/32"), &ip("192.168.1.1"))));
        assert!(t(contains_cidr(
            &cidr("2001:db8::/32"),
            &cidr("2001:db8::/33")
        )));
        assert!(masked(&cidr("192.168.0.1/24")).unwrap().equals(&c));
        assert!(!cidr("192.168.0.1/24").equals(&c));
        assert!(
            cidr_ip(&cidr("2001:db8::/32"))
                .unwrap()
                .equals(&ip("2001:db8::"))
        );
        assert!(
            masked(&cidr("2001:db8:1::/32"))
                .unwrap()
                .equals(&cidr("2001:db8::/32"))
        );
        assert!(matches!(prefix_length(&c), Ok(Value::Int(24))));
        assert!(
            matches!(to_string(&cidr("2001:db8::/32")), Ok(Value::String(s)) if &*s == "2001:db8::/32")
        );
        assert!(
            matches!(to_string(&ip("192.168.0.1")), Ok(Value::String(s)) if &*s == "192.168.0.1")
        );
        assert!(matches!(
            is_ip(&"192.168.0.1.0".into()),
            Ok(Value::Bool(false))
        ));
        assert!(matches!(
            is_cidr(&"::ffff:192.168.0.1/24".into()),
            Ok(Value::Bool(false))
        ));
        assert!(family(&c).is_err());
    }
}
