//! cel-go's `ext.Network` library: IP addresses (`net.IP`) and CIDR ranges
//! (`net.CIDR`) as opaque values.
//!
//! Parsing follows Go's `net/netip` exactly ([`parse_addr`], [`parse_prefix`],
//! with netip's error texts), then rejects zones and IPv4-mapped IPv6
//! addresses as cel-go does. A CIDR keeps the address as written (host bits
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
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use super::{as_str, no_overload};
use crate::env::{EnvBuilder, Library};
use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::{Opaque, Value};

/// The runtime type name of IP values.
pub const IP_TYPE: &str = "net.IP";
/// The runtime type name of CIDR values.
pub const CIDR_TYPE: &str = "net.CIDR";

/// cel-go's `ext.Network()`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Network;

/// An IP address value (`net.IP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ip(pub IpAddr);

/// A CIDR value (`net.CIDR`): the address as written and the prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cidr {
    pub addr: IpAddr,
    pub bits: u8,
}

impl Opaque for Ip {
    fn type_name(&self) -> &str {
        IP_TYPE
    }
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<Ip>()
            .is_some_and(|o| o.0.to_canonical() == self.0.to_canonical())
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
        write!(f, "{}", self.text())
    }
}

impl Cidr {
    /// `addr/bits` as Go prints a prefix.
    pub fn text(&self) -> String {
        format!("{}/{}", self.addr, self.bits)
    }

    /// The prefix with host bits cleared.
    pub fn masked(&self) -> Cidr {
        Cidr {
            addr: mask(self.addr, self.bits),
            bits: self.bits,
        }
    }

    /// The address is in the prefix (same family, equal network bits).
    pub fn contains(&self, ip: IpAddr) -> bool {
        same_family(self.addr, ip) && mask(self.addr, self.bits) == mask(ip, self.bits)
    }

    /// The prefixes share an address (Go's `Prefix.Overlaps`).
    pub fn overlaps(&self, o: &Cidr) -> bool {
        if !same_family(self.addr, o.addr) {
            return false;
        }
        let bits = self.bits.min(o.bits);
        mask(self.addr, bits) == mask(o.addr, bits)
    }

    /// `containsCIDR`: overlapping and at least as wide.
    pub fn contains_cidr(&self, o: &Cidr) -> bool {
        self.overlaps(o) && self.bits <= o.bits
    }
}

fn same_family(a: IpAddr, b: IpAddr) -> bool {
    a.is_ipv4() == b.is_ipv4()
}

fn mask(a: IpAddr, bits: u8) -> IpAddr {
    match a {
        IpAddr::V4(v) => {
            let m = if bits == 0 {
                0
            } else {
                u32::MAX << (32 - u32::from(bits.min(32)))
            };
            IpAddr::V4(Ipv4Addr::from(u32::from(v) & m))
        }
        IpAddr::V6(v) => {
            let m = if bits == 0 {
                0
            } else {
                u128::MAX << (128 - u32::from(bits.min(128)))
            };
            IpAddr::V6(Ipv6Addr::from(u128::from(v) & m))
        }
    }
}

// ---- Go net/netip parsing ----

/// A parsed address with its zone (netip keeps zones; cel-go rejects them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedAddr {
    pub addr: IpAddr,
    pub zone: Option<String>,
}

fn addr_error(input: &str, msg: &str, at: Option<&str>) -> String {
    let q = super::gofmt::quote;
    match at {
        Some(at) if !at.is_empty() => format!("ParseAddr({}): {msg} (at {})", q(input), q(at)),
        _ => format!("ParseAddr({}): {msg}", q(input)),
    }
}

/// Go's `netip.ParseAddr`, with its error texts.
pub fn parse_addr(s: &str) -> Result<ParsedAddr, String> {
    for b in s.bytes() {
        match b {
            b'.' => {
                let f = parse_ipv4_fields(s, s)?;
                return Ok(ParsedAddr {
                    addr: IpAddr::V4(Ipv4Addr::from(f)),
                    zone: None,
                });
            }
            b':' => return parse_ipv6(s),
            b'%' => return Err(addr_error(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", None))
}

/// Parses the dotted quad `part` (a suffix of `input`, used in messages).
fn parse_ipv4_fields(input: &str, part: &str) -> Result<[u8; 4], String> {
    let s = part.as_bytes();
    let mut fields = [0u8; 4];
    let (mut val, mut pos, mut dig_len) = (0u32, 0usize, 0usize);
    for i in 0..s.len() {
        let c = s[i];
        if c.is_ascii_digit() {
            if dig_len == 1 && val == 0 {
                return Err(addr_error(
                    input,
                    "IPv4 field has octet with leading zero",
                    None,
                ));
            }
            val = val * 10 + u32::from(c - b'0');
            dig_len += 1;
            if val > 255 {
                return Err(addr_error(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                return Err(addr_error(
                    input,
                    "IPv4 field must have at least one digit",
                    Some(&part[i..]),
                ));
            }
            if pos == 3 {
                return Err(addr_error(input, "IPv4 address too long", None));
            }
            fields[pos] = val as u8;
            pos += 1;
            val = 0;
            dig_len = 0;
        } else {
            return Err(addr_error(
                input,
                "unexpected character",
                Some(tail(part, i)),
            ));
        }
    }
    if pos < 3 {
        return Err(addr_error(input, "IPv4 address too short", None));
    }
    fields[3] = val as u8;
    Ok(fields)
}

/// `part[i..]`, or the whole rest when `i` is not a character boundary.
fn tail(part: &str, i: usize) -> &str {
    part.get(i..).unwrap_or_else(|| {
        let mut j = i;
        while j > 0 && !part.is_char_boundary(j) {
            j -= 1;
        }
        &part[j..]
    })
}

fn parse_ipv6(input: &str) -> Result<ParsedAddr, String> {
    let (mut s, zone) = match input.find('%') {
        Some(i) => {
            let zone = &input[i + 1..];
            if zone.is_empty() {
                return Err(addr_error(input, "zone must be a non-empty string", None));
            }
            (&input[..i], Some(zone.to_string()))
        }
        None => (input, None),
    };
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if s.starts_with("::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok(ParsedAddr {
                addr: IpAddr::V6(Ipv6Addr::UNSPECIFIED),
                zone,
            });
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0usize;
        let mut acc = 0u32;
        while off < b.len() {
            let c = b[off];
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + u32::from(d);
            if off > 3 {
                return Err(addr_error(
                    input,
                    "each group must have 4 or less digits",
                    Some(s),
                ));
            }
            if acc > 0xFFFF {
                return Err(addr_error(input, "IPv6 field has value >=2^16", Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_error(
                input,
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis.is_none() && i != 12 {
                return Err(addr_error(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if i + 4 > 16 {
                return Err(addr_error(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
            }
            let f = parse_ipv4_fields(input, s)?;
            ip[i..i + 4].copy_from_slice(&f);
            s = "";
            i += 4;
            break;
        }
        ip[i] = (acc >> 8) as u8;
        ip[i + 1] = acc as u8;
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(addr_error(
                input,
                "unexpected character, want colon",
                Some(s),
            ));
        } else if s.len() == 1 {
            return Err(addr_error(
                input,
                "colon must be followed by more characters",
                Some(s),
            ));
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return Err(addr_error(input, "multiple :: in address", Some(s)));
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_error(input, "trailing garbage after address", Some(s)));
    }
    if i < 16 {
        let Some(e) = ellipsis else {
            return Err(addr_error(input, "address string too short", None));
        };
        let n = 16 - i;
        for j in (e..i).rev() {
            ip[j + n] = ip[j];
        }
        for b in &mut ip[e..e + n] {
            *b = 0;
        }
    } else if ellipsis.is_some() {
        return Err(addr_error(
            input,
            "the :: must expand to at least one field of zeros",
            Some(s),
        ));
    }
    Ok(ParsedAddr {
        addr: IpAddr::V6(Ipv6Addr::from(ip)),
        zone,
    })
}

/// Go's `netip.ParsePrefix`, with its error texts.
pub fn parse_prefix(s: &str) -> Result<Cidr, String> {
    let err = |msg: &str| format!("netip.ParsePrefix({}): {msg}", super::gofmt::quote(s));
    let Some(i) = s.rfind('/') else {
        return Err(err("no '/'"));
    };
    let addr = parse_addr(&s[..i]).map_err(|e| err(&e))?;
    if addr.addr.is_ipv6() && addr.zone.is_some() {
        return Err(err("IPv6 zones cannot be present in a prefix"));
    }
    let bits_str = &s[i + 1..];
    let bad = || {
        err(&format!(
            "bad bits after slash: {}",
            super::gofmt::quote(bits_str)
        ))
    };
    let b = bits_str.as_bytes();
    if b.len() > 1 && !(b'1'..=b'9').contains(&b[0]) {
        return Err(bad());
    }
    // strconv.Atoi: optional sign, decimal digits.
    let digits = bits_str.strip_prefix(['+', '-']).unwrap_or(bits_str);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let bits: i64 = match bits_str.parse() {
        Ok(v) => v,
        Err(_) => return Err(bad()),
    };
    let max = if addr.addr.is_ipv4() { 32 } else { 128 };
    if !(0..=max).contains(&bits) {
        return Err(err("prefix length out of range"));
    }
    Ok(Cidr {
        addr: addr.addr,
        bits: bits as u8,
    })
}

fn is_4in6(a: &IpAddr) -> bool {
    matches!(a, IpAddr::V6(v) if v.to_ipv4_mapped().is_some())
}

/// cel-go's `ip(string)` parsing: netip, then no zone, and no IPv4-mapped
/// IPv6 address written with an embedded dotted quad (`::ffff:192.168.0.1`).
/// The hexadecimal form (`::ffff:c0a8:1`) is accepted, and equals the IPv4
/// address it maps (the conformance suite's `ipv4_equals_ipv6`).
pub fn parse_ip(raw: &str) -> Result<Ip, String> {
    let q = super::gofmt::quote(raw);
    let a = parse_addr(raw)
        .map_err(|e| format!("IP Address {q} parse error during conversion from string: {e}"))?;
    if a.zone.is_some() {
        return Err(format!("IP address {q} with zone value is not allowed"));
    }
    if is_4in6(&a.addr) && raw.contains('.') {
        return Err(format!("IPv4-mapped IPv6 address {q} is not allowed"));
    }
    Ok(Ip(a.addr))
}

/// cel-go's `cidr(string)` parsing.
pub fn parse_cidr(raw: &str) -> Result<Cidr, String> {
    let q = super::gofmt::quote(raw);
    let c = parse_prefix(raw)
        .map_err(|e| format!("CIDR {q} parse error during conversion from string: {e}"))?;
    if is_4in6(&c.addr) {
        return Err(format!("IPv4-mapped IPv6 address {q} is not allowed"));
    }
    Ok(c)
}

// ---- Go netip predicates ----

pub fn is_loopback(a: IpAddr) -> bool {
    match a {
        IpAddr::V4(v) => v.octets()[0] == 127,
        IpAddr::V6(v) => v == Ipv6Addr::LOCALHOST,
    }
}

pub fn is_multicast(a: IpAddr) -> bool {
    match a {
        IpAddr::V4(v) => v.octets()[0] & 0xf0 == 0xe0,
        IpAddr::V6(v) => v.octets()[0] == 0xff,
    }
}

pub fn is_link_local_unicast(a: IpAddr) -> bool {
    match a {
        IpAddr::V4(v) => v.octets()[0] == 169 && v.octets()[1] == 254,
        IpAddr::V6(v) => v.segments()[0] & 0xffc0 == 0xfe80,
    }
}

pub fn is_link_local_multicast(a: IpAddr) -> bool {
    match a {
        IpAddr::V4(v) => v.octets()[..3] == [224, 0, 0],
        IpAddr::V6(v) => v.segments()[0] & 0xff0f == 0xff02,
    }
}

pub fn is_unspecified(a: IpAddr) -> bool {
    a.is_unspecified()
}

pub fn is_global_unicast(a: IpAddr) -> bool {
    if let IpAddr::V4(v) = a
        && (v == Ipv4Addr::UNSPECIFIED || v == Ipv4Addr::BROADCAST)
    {
        return false;
    }
    !a.is_unspecified() && !is_loopback(a) && !is_multicast(a) && !is_link_local_unicast(a)
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
    Ok(Value::Int(if ip_arg(v)?.0.is_ipv4() { 4 } else { 6 }))
}

/// The string is the canonical (RFC 5952) text of the address it parses to.
pub fn is_canonical(v: &Value) -> EvalResult {
    let s = as_str(v)?;
    let ip = parse_ip(s).map_err(EvalError::msg)?;
    Ok(Value::Bool(ip.0.to_string() == s))
}

fn ip_is_loopback(v: &Value) -> EvalResult {
    Ok(Value::Bool(is_loopback(ip_arg(v)?.0)))
}

fn ip_is_global_unicast(v: &Value) -> EvalResult {
    Ok(Value::Bool(is_global_unicast(ip_arg(v)?.0)))
}

fn ip_is_unspecified(v: &Value) -> EvalResult {
    Ok(Value::Bool(is_unspecified(ip_arg(v)?.0)))
}

fn ip_is_link_local_multicast(v: &Value) -> EvalResult {
    Ok(Value::Bool(is_link_local_multicast(ip_arg(v)?.0)))
}

fn ip_is_link_local_unicast(v: &Value) -> EvalResult {
    Ok(Value::Bool(is_link_local_unicast(ip_arg(v)?.0)))
}

/// `cidr.containsIP(ip)` and `cidr.containsIP(string)`.
pub fn contains_ip(c: &Value, ip: &Value) -> EvalResult {
    let c = cidr_arg(c)?;
    let addr = match ip {
        Value::String(s) => parse_ip(s).map_err(EvalError::msg)?.0,
        other => ip_arg(other)?.0,
    };
    Ok(Value::Bool(c.contains(addr)))
}

/// `cidr.containsCIDR(cidr)` and `cidr.containsCIDR(string)`.
pub fn contains_cidr(c: &Value, other: &Value) -> EvalResult {
    let c = cidr_arg(c)?;
    let o = match other {
        Value::String(s) => parse_cidr(s).map_err(EvalError::msg)?,
        other => *cidr_arg(other)?,
    };
    Ok(Value::Bool(c.contains_cidr(&o)))
}

pub fn cidr_ip(v: &Value) -> EvalResult {
    Ok(ip_value(Ip(cidr_arg(v)?.addr)))
}

pub fn masked(v: &Value) -> EvalResult {
    Ok(cidr_value(cidr_arg(v)?.masked()))
}

pub fn prefix_length(v: &Value) -> EvalResult {
    Ok(Value::Int(i64::from(cidr_arg(v)?.bits)))
}

/// `string(ip)` / `string(cidr)`: Go's canonical text.
pub fn to_string(v: &Value) -> EvalResult {
    if let Ok(ip) = ip_arg(v) {
        return Ok(Value::string(ip.0.to_string()));
    }
    Ok(Value::string(cidr_arg(v)?.text()))
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
        assert_eq!(
            parse_addr("01.2.3.4").unwrap_err(),
            "ParseAddr(\"01.2.3.4\"): IPv4 field has octet with leading zero"
        );
        assert_eq!(
            parse_addr("1.2.3").unwrap_err(),
            "ParseAddr(\"1.2.3\"): IPv4 address too short"
        );
        assert_eq!(
            parse_addr("").unwrap_err(),
            "ParseAddr(\"\"): unable to parse IP"
        );
        assert_eq!(
            parse_addr("1.2.3.4x").unwrap_err(),
            "ParseAddr(\"1.2.3.4x\"): unexpected character (at \"x\")"
        );
        assert_eq!(
            parse_prefix("192.168.0.0/").unwrap_err(),
            "netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\""
        );
        assert_eq!(
            parse_prefix("10.0.0.0/33").unwrap_err(),
            "netip.ParsePrefix(\"10.0.0.0/33\"): prefix length out of range"
        );
        assert_eq!(
            parse_prefix("10.0.0.0/08").unwrap_err(),
            "netip.ParsePrefix(\"10.0.0.0/08\"): bad bits after slash: \"08\""
        );
        assert_eq!(
            parse_prefix("fe80::1%en0/24").unwrap_err(),
            "netip.ParsePrefix(\"fe80::1%en0/24\"): IPv6 zones cannot be present in a prefix"
        );
        assert!(parse_addr("1:2:3:4:5:6:1.2.3.4").is_ok());
        assert!(parse_addr("::").is_ok());
        assert!(parse_addr("1::2::3").is_err());
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
