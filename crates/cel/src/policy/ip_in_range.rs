//! `ipInRange(ip, cidr)`, the guideline's standardized additional function:
//! "`ipInRange(ip, cidr)` | (`string`, `string`) -> `bool` | True if ip is in
//! cidr" (*Additional functions*).
//!
//! The guideline leaves the edge cases open; this implementation decides:
//!
//! * Addresses are parsed by `std::net` ([`IpAddr`]'s `FromStr`): IPv4 in
//!   dotted-quad form (four decimal octets, no leading zeros), IPv6 in any
//!   RFC 4291 text form, including an embedded IPv4 tail (`::ffff:1.2.3.4`).
//!   Zones (`fe80::1%eth0`) and surrounding whitespace are not addresses.
//! * A CIDR is an address, `/`, and a decimal prefix length without sign or
//!   leading zeros, at most 32 (IPv4) or 128 (IPv6). Bits past the prefix may
//!   be set (`10.1.2.3/8` is the range `10.0.0.0/8`), as Go's
//!   `net.ParseCIDR` accepts them.
//! * An address of the other family is not in the range (`false`); an
//!   IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is an IPv6 address and is
//!   not in an IPv4 range.
//! * An argument that is not a valid address or CIDR is an evaluation error
//!   (`ipInRange: invalid IP address "…"` / `ipInRange: invalid CIDR "…"`),
//!   not `false`: a malformed range is the expression author's mistake, and a
//!   malformed address would otherwise read as "outside every range", which
//!   turns a deny rule into an allow. As every CEL error, it is absorbed by
//!   `||`, `&&` and `?:` when the other side decides the result, and otherwise
//!   reaches the caller of the evaluation.

use std::net::IpAddr;
use std::str::FromStr;

use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::Value;

/// The function's name.
pub const NAME: &str = "ipInRange";
/// Its single overload's id.
pub const OVERLOAD_ID: &str = "ipInRange_string_string";

/// The declaration and implementation of `ipInRange`.
pub fn function() -> Function {
    Function::new(NAME).overload(Overload::global(
        OVERLOAD_ID,
        vec![Type::String, Type::String],
        Type::Bool,
        Some(FnImpl::Binary(eval)),
    ))
}

fn eval(ip: &Value, cidr: &Value) -> EvalResult {
    match (ip, cidr) {
        (Value::String(ip), Value::String(cidr)) => ip_in_range(ip, cidr).map(Value::Bool),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Is address `ip` in range `cidr`? Errors on malformed arguments (see the
/// module documentation for the accepted forms).
pub fn ip_in_range(ip: &str, cidr: &str) -> EvalResult<bool> {
    let addr = IpAddr::from_str(ip)
        .map_err(|_| EvalError::msg(format!("{NAME}: invalid IP address {ip:?}")))?;
    let (network, prefix) =
        parse_cidr(cidr).ok_or_else(|| EvalError::msg(format!("{NAME}: invalid CIDR {cidr:?}")))?;
    Ok(match (addr, network) {
        (IpAddr::V4(a), IpAddr::V4(n)) => same_prefix(
            u128::from(a.to_bits()) << 96,
            u128::from(n.to_bits()) << 96,
            prefix,
        ),
        (IpAddr::V6(a), IpAddr::V6(n)) => same_prefix(a.to_bits(), n.to_bits(), prefix),
        _ => false,
    })
}

/// Do the first `prefix` bits (from the top) of `a` and `b` agree?
fn same_prefix(a: u128, b: u128, prefix: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - prefix).unwrap_or(0);
    (a ^ b) & mask == 0
}

/// `address/prefix` with the prefix in range for the address family.
fn parse_cidr(cidr: &str) -> Option<(IpAddr, u32)> {
    let (address, prefix) = cidr.split_once('/')?;
    let network = IpAddr::from_str(address).ok()?;
    let well_formed = !prefix.is_empty()
        && prefix.len() <= 3
        && prefix.bytes().all(|b| b.is_ascii_digit())
        && (prefix == "0" || !prefix.starts_with('0'));
    if !well_formed {
        return None;
    }
    let prefix: u32 = prefix.parse().ok()?;
    let max = if network.is_ipv4() { 32 } else { 128 };
    (prefix <= max).then_some((network, prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert!(same_prefix(0, u128::MAX, 0));
        assert!(!same_prefix(0, 1, 128));
        assert!(same_prefix(5, 5, 128));
    }

    #[test]
    fn cidr_forms() {
        assert!(parse_cidr("10.0.0.0/8").is_some());
        assert!(parse_cidr("::/0").is_some());
        for bad in [
            "10.0.0.0",
            "10.0.0.0/",
            "10.0.0.0/33",
            "10.0.0.0/08",
            "10.0.0.0/+8",
        ] {
            assert!(parse_cidr(bad).is_none(), "{bad}");
        }
        assert!(parse_cidr("::/129").is_none());
        assert!(parse_cidr("10.0.0.0/8/8").is_none());
    }
}
