//! A port of the parts of Go's `net/netip` that CEL's network functions use:
//! `ParseAddr`, `ParsePrefix` (with Go's error texts), the canonical text
//! form (`Addr.String`, RFC 5952), the address predicates, masking and
//! prefix containment.
//!
//! Shared by cel-go's `ext.Network` (`cel::library::ext::Network`) and by hosts that
//! declare their own `net.IP` / `net.CIDR` libraries (Kubernetes).

use std::fmt::{self, Write};

use super::fmt::quote as go_quote;

/// An IPv4 or IPv6 address, with an optional IPv6 zone.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    /// 4 bytes for IPv4, 16 for IPv6.
    bytes: [u8; 16],
    is4: bool,
    zone: Option<Box<str>>,
}

/// An address and a prefix length (not masked: `192.168.0.1/24` keeps its `.1`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prefix {
    /// The address (not masked).
    pub addr: Addr,
    /// The prefix length in bits.
    pub bits: u8,
}

impl Addr {
    /// The IPv4 address of four bytes (Go's `AddrFrom4`).
    pub fn v4(b: [u8; 4]) -> Addr {
        let mut bytes = [0; 16];
        bytes[..4].copy_from_slice(&b);
        Addr {
            bytes,
            is4: true,
            zone: None,
        }
    }

    /// The IPv6 address of sixteen bytes (Go's `AddrFrom16`).
    pub fn v6(bytes: [u8; 16]) -> Addr {
        Addr {
            bytes,
            is4: false,
            zone: None,
        }
    }

    /// Whether this is an IPv4 address (Go's `Is4`).
    pub fn is4(&self) -> bool {
        self.is4
    }

    /// Whether this is an IPv6 address, IPv4-mapped ones included (Go's `Is6`).
    pub fn is6(&self) -> bool {
        !self.is4
    }

    /// The address bytes: 4 for IPv4, 16 for IPv6.
    pub fn as_slice(&self) -> &[u8] {
        if self.is4 {
            &self.bytes[..4]
        } else {
            &self.bytes
        }
    }

    /// The IPv6 zone (`fe80::1%eth0` → `eth0`), if any (Go's `Zone`).
    pub fn zone(&self) -> Option<&str> {
        self.zone.as_deref()
    }

    /// Bits in the address: 32 or 128.
    pub fn bit_len(&self) -> u8 {
        if self.is4 { 32 } else { 128 }
    }

    /// An IPv6 address of the form `::ffff:a.b.c.d`.
    pub fn is_4in6(&self) -> bool {
        self.is6()
            && self.bytes[..10].iter().all(|&b| b == 0)
            && self.bytes[10] == 0xff
            && self.bytes[11] == 0xff
    }

    /// Go's `Addr.Unmap`: an IPv4-mapped IPv6 address as the IPv4 address it
    /// maps; any other address unchanged.
    pub fn unmap(&self) -> Addr {
        if self.is_4in6() {
            Addr::v4([
                self.bytes[12],
                self.bytes[13],
                self.bytes[14],
                self.bytes[15],
            ])
        } else {
            self.clone()
        }
    }

    fn u16_at(&self, i: usize) -> u16 {
        u16::from_be_bytes([self.bytes[2 * i], self.bytes[2 * i + 1]])
    }

    /// Go's `IsUnspecified`: `0.0.0.0` or `::`.
    pub fn is_unspecified(&self) -> bool {
        self.as_slice().iter().all(|&b| b == 0) && self.zone.is_none()
    }

    /// Go's `IsLoopback`: `127.0.0.0/8` or `::1`.
    pub fn is_loopback(&self) -> bool {
        if self.is4 {
            return self.bytes[0] == 127;
        }
        self.bytes[..15].iter().all(|&b| b == 0) && self.bytes[15] == 1
    }

    /// Go's `IsMulticast`: `224.0.0.0/4` or `ff00::/8`.
    pub fn is_multicast(&self) -> bool {
        if self.is4 {
            self.bytes[0] & 0xf0 == 0xe0
        } else {
            self.bytes[0] == 0xff
        }
    }

    /// Go's `IsLinkLocalMulticast`: `224.0.0.0/24` or `ff02::/16`.
    pub fn is_link_local_multicast(&self) -> bool {
        if self.is4 {
            return self.bytes[0] == 224 && self.bytes[1] == 0 && self.bytes[2] == 0;
        }
        self.u16_at(0) & 0xff0f == 0xff02
    }

    /// Go's `IsLinkLocalUnicast`: `169.254.0.0/16` or `fe80::/10`.
    pub fn is_link_local_unicast(&self) -> bool {
        if self.is4 {
            return self.bytes[0] == 169 && self.bytes[1] == 254;
        }
        self.u16_at(0) & 0xffc0 == 0xfe80
    }

    /// Go's `IsGlobalUnicast`: valid, and not unspecified, broadcast, loopback, multicast or link-local.
    pub fn is_global_unicast(&self) -> bool {
        if self.is4 && self.bytes[..4] == [255, 255, 255, 255] {
            return false;
        }
        !self.as_slice().iter().all(|&b| b == 0)
            && !self.is_loopback()
            && !self.is_multicast()
            && !self.is_link_local_unicast()
    }

    /// The address with every bit past `bits` cleared.
    pub fn masked(&self, bits: u8) -> Addr {
        let mut out = self.clone();
        out.zone = None;
        let len = if self.is4 { 4 } else { 16 };
        for (i, b) in out.bytes[..len].iter_mut().enumerate() {
            let start = (i * 8) as u32;
            let keep = (bits as u32).saturating_sub(start).min(8);
            let mask = if keep == 0 { 0 } else { 0xffu8 << (8 - keep) };
            *b &= mask;
        }
        out
    }
}

impl fmt::Display for Addr {
    /// Go's `Addr.String`: dotted quad, or RFC 5952 IPv6 text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is4 {
            let b = &self.bytes;
            return write!(f, "{}.{}.{}.{}", b[0], b[1], b[2], b[3]);
        }
        if self.is_4in6() {
            let b = &self.bytes;
            write!(f, "::ffff:{}.{}.{}.{}", b[12], b[13], b[14], b[15])?;
        } else {
            // The longest run (≥ 2) of zero groups, the first on ties, becomes "::".
            let (mut best_start, mut best_len) = (8usize, 0usize);
            let mut i = 0;
            while i < 8 {
                if self.u16_at(i) == 0 {
                    let start = i;
                    while i < 8 && self.u16_at(i) == 0 {
                        i += 1;
                    }
                    if i - start > best_len {
                        best_start = start;
                        best_len = i - start;
                    }
                } else {
                    i += 1;
                }
            }
            if best_len < 2 {
                best_start = 8;
            }
            let mut s = String::with_capacity(39);
            let mut i = 0;
            while i < 8 {
                if i == best_start {
                    s.push_str("::");
                    i += best_len;
                    continue;
                }
                if i > 0 && i != best_start + best_len {
                    s.push(':');
                }
                let _ = write!(s, "{:x}", self.u16_at(i));
                i += 1;
            }
            f.write_str(&s)?;
        }
        if let Some(z) = &self.zone {
            write!(f, "%{z}")?;
        }
        Ok(())
    }
}

impl Prefix {
    /// The prefix with its host bits cleared.
    pub fn masked(&self) -> Prefix {
        Prefix {
            addr: self.addr.masked(self.bits),
            bits: self.bits,
        }
    }

    /// Whether `ip` lies in the prefix (same family, no zone).
    pub fn contains(&self, ip: &Addr) -> bool {
        if ip.zone.is_some() || ip.is4 != self.addr.is4 {
            return false;
        }
        ip.masked(self.bits) == self.addr.masked(self.bits)
    }

    /// Whether the two prefixes share any address (Go's `Prefix.Overlaps`).
    pub fn overlaps(&self, o: &Prefix) -> bool {
        if self.addr.is4 != o.addr.is4 {
            return false;
        }
        let bits = self.bits.min(o.bits);
        self.addr.masked(bits) == o.addr.masked(bits)
    }

    /// Whether every address of `o` lies in this prefix: the two overlap and
    /// this one is at least as wide (`containsCIDR` of the CEL libraries).
    pub fn contains_prefix(&self, o: &Prefix) -> bool {
        self.overlaps(o) && self.bits <= o.bits
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.bits)
    }
}

/// Why an address did not parse: Go's `netip.parseAddrError`, whose text
/// (`Display`) is Go's: `ParseAddr("in"): msg (at "rest")`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseAddrError {
    input: String,
    msg: String,
    at: Option<String>,
}

impl fmt::Display for ParseAddrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ParseAddr({}): {}", go_quote(&self.input), self.msg)?;
        match &self.at {
            Some(at) if !at.is_empty() => write!(f, " (at {})", go_quote(at)),
            _ => Ok(()),
        }
    }
}

impl std::error::Error for ParseAddrError {}

/// A [`ParseAddrError`] for `input`.
fn addr_error(input: &str, msg: &str, at: Option<&str>) -> ParseAddrError {
    ParseAddrError {
        input: input.to_string(),
        msg: msg.to_string(),
        at: at.map(str::to_string),
    }
}

/// Go's `netip.ParseAddr`.
pub fn parse_addr(s: &str) -> Result<Addr, ParseAddrError> {
    for c in s.bytes() {
        match c {
            b'.' => return parse_v4(s).map(Addr::v4),
            b':' => return parse_v6(s),
            b'%' => return Err(addr_error(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", None))
}

fn parse_v4(s: &str) -> Result<[u8; 4], ParseAddrError> {
    let mut fields = [0u8; 4];
    parse_v4_fields(s, 0, s.len(), &mut fields)?;
    Ok(fields)
}

fn parse_v4_fields(
    input: &str,
    off: usize,
    end: usize,
    fields: &mut [u8; 4],
) -> Result<(), ParseAddrError> {
    let s = &input.as_bytes()[off..end];
    let (mut val, mut pos, mut dig_len) = (0u32, 0usize, 0u32);
    for (i, &c) in s.iter().enumerate() {
        if c.is_ascii_digit() {
            if dig_len == 1 && val == 0 {
                return Err(addr_error(
                    input,
                    "IPv4 field has octet with leading zero",
                    None,
                ));
            }
            val = val * 10 + (c - b'0') as u32;
            dig_len += 1;
            if val > 255 {
                return Err(addr_error(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                let at = input.get(off + i..end).unwrap_or_default();
                return Err(addr_error(
                    input,
                    "IPv4 field must have at least one digit",
                    Some(at),
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
            let at = input.get(off + i..end).unwrap_or_default();
            return Err(addr_error(input, "unexpected character", Some(at)));
        }
    }
    if pos < 3 {
        return Err(addr_error(input, "IPv4 address too short", None));
    }
    fields[3] = val as u8;
    Ok(())
}

fn parse_v6(input: &str) -> Result<Addr, ParseAddrError> {
    let mut s = input;
    let mut zone = "";
    if let Some(i) = s.find('%') {
        zone = &s[i + 1..];
        s = &s[..i];
        if zone.is_empty() {
            return Err(addr_error(input, "zone must be a non-empty string", None));
        }
    }
    let zone_box = (!zone.is_empty()).then(|| Box::<str>::from(zone));
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if s.len() >= 2 && s.starts_with("::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok(Addr {
                bytes: ip,
                is4: false,
                zone: zone_box,
            });
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0;
        let mut acc: u32 = 0;
        while off < b.len() {
            let c = b[off];
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + d as u32;
            if off > 3 {
                return Err(addr_error(
                    input,
                    "each group must have 4 or less digits",
                    Some(s),
                ));
            }
            if acc > 0xffff {
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
            let end = input.len() - if zone.is_empty() { 0 } else { zone.len() + 1 };
            let mut fields = [0u8; 4];
            parse_v4_fields(input, end - s.len(), end, &mut fields)?;
            ip[i..i + 4].copy_from_slice(&fields);
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
    Ok(Addr {
        bytes: ip,
        is4: false,
        zone: zone_box,
    })
}

/// Why a prefix did not parse: Go's `netip.parsePrefixError`, whose text
/// (`Display`) is Go's: `netip.ParsePrefix("in"): msg`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePrefixError {
    input: String,
    msg: String,
}

impl fmt::Display for ParsePrefixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "netip.ParsePrefix({}): {}",
            go_quote(&self.input),
            self.msg
        )
    }
}

impl std::error::Error for ParsePrefixError {}

/// A [`ParsePrefixError`] for `input`.
fn prefix_error(input: &str, msg: &str) -> ParsePrefixError {
    ParsePrefixError {
        input: input.to_string(),
        msg: msg.to_string(),
    }
}

/// Go's `netip.ParsePrefix`.
pub fn parse_prefix(s: &str) -> Result<Prefix, ParsePrefixError> {
    let Some(i) = s.rfind('/') else {
        return Err(prefix_error(s, "no '/'"));
    };
    let addr = parse_addr(&s[..i]).map_err(|e| prefix_error(s, &e.to_string()))?;
    if addr.is6() && addr.zone.is_some() {
        return Err(prefix_error(s, "IPv6 zones cannot be present in a prefix"));
    }
    let bits_str = &s[i + 1..];
    let bad = || prefix_error(s, &format!("bad bits after slash: {}", go_quote(bits_str)));
    let first = bits_str.as_bytes().first().copied();
    if bits_str.len() > 1 && !matches!(first, Some(b'1'..=b'9')) {
        return Err(bad());
    }
    // strconv.Atoi: optional sign, digits; a lone "+"/"-" or empty fails.
    let digits = bits_str.strip_prefix(['+', '-']).unwrap_or(bits_str);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let bits: i64 = match bits_str.parse::<i64>() {
        Ok(b) => b,
        // Out of int range: Atoi fails with a range error.
        Err(_) => return Err(bad()),
    };
    if bits < 0 || bits > addr.bit_len() as i64 {
        return Err(prefix_error(s, "prefix length out of range"));
    }
    Ok(Prefix {
        addr,
        bits: bits as u8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_like_go() {
        for (s, want) in [
            ("192.168.0.1", "192.168.0.1"),
            ("2001:db8::68", "2001:db8::68"),
            ("2001:DB8::68", "2001:db8::68"),
            ("::", "::"),
            ("::1", "::1"),
            ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
            ("1:0:1:1:1:1:1:1", "1:0:1:1:1:1:1:1"),
            ("fe80::1%eth0", "fe80::1%eth0"),
            ("::ffff:1.2.3.4", "::ffff:1.2.3.4"),
        ] {
            assert_eq!(parse_addr(s).unwrap().to_string(), want, "{s}");
        }
    }

    #[test]
    fn go_error_texts() {
        for (input, want) in [
            ("192.168.0.1.0", "IPv4 address too long"),
            (
                "2001:db8:::68",
                "each colon-separated field must have at least one digit (at \":68\")",
            ),
            ("01.2.3.4", "IPv4 field has octet with leading zero"),
            ("1.2.3", "IPv4 address too short"),
            ("", "unable to parse IP"),
            ("1.2.3.256", "IPv4 field has value >255"),
            ("1.2.3.4x", "unexpected character (at \"x\")"),
            ("1:2::3.4.5.é", "unexpected character (at \"é\")"),
            (
                "1..2.3",
                "IPv4 field must have at least one digit (at \".2.3\")",
            ),
            ("fe80::1%", "zone must be a non-empty string"),
            ("%eth0", "missing IPv6 address"),
            ("1::2::3", "multiple :: in address (at \":3\")"),
            (
                "1:2:3:4:5:6:7:8::",
                "the :: must expand to at least one field of zeros",
            ),
            ("1:2:3", "address string too short"),
        ] {
            assert_eq!(
                parse_addr(input).unwrap_err().to_string(),
                format!("ParseAddr({}): {want}", go_quote(input)),
                "{input}"
            );
        }
        for (input, want) in [
            ("192.168.0.0/", "bad bits after slash: \"\""),
            ("10.0.0.0/33", "prefix length out of range"),
            ("10.0.0.0/08", "bad bits after slash: \"08\""),
            ("fe80::1%en0/24", "IPv6 zones cannot be present in a prefix"),
            ("10.0.0.0", "no '/'"),
            ("1.2.3/8", "ParseAddr(\"1.2.3\"): IPv4 address too short"),
        ] {
            assert_eq!(
                parse_prefix(input).unwrap_err().to_string(),
                format!("netip.ParsePrefix({}): {want}", go_quote(input)),
                "{input}"
            );
        }
        assert!(parse_addr("1:2:3:4:5:6:1.2.3.4").is_ok());
        assert!(parse_addr("::").is_ok());
    }

    #[test]
    fn predicates_and_prefixes() {
        let a = |s: &str| parse_addr(s).unwrap();
        assert!(a("224.0.0.1").is_link_local_multicast());
        assert!(!a("224.0.1.1").is_link_local_multicast());
        assert!(a("ff02::1").is_link_local_multicast());
        assert!(a("fe80::1").is_link_local_unicast());
        assert!(!a("255.255.255.255").is_global_unicast());
        assert!(a("192.168.0.1").is_global_unicast());
        assert!(!a("ff00::1").is_global_unicast());
        assert_eq!(a("::ffff:c0a8:1").unmap(), a("192.168.0.1"));
        assert_eq!(a("::1").unmap(), a("::1"));
        let p = parse_prefix("192.168.0.1/24").unwrap();
        assert_eq!(p.to_string(), "192.168.0.1/24");
        assert_eq!(p.masked().to_string(), "192.168.0.0/24");
        assert!(p.contains(&a("192.168.0.200")));
        assert!(!p.contains(&a("192.168.1.1")));
        assert!(p.contains_prefix(&parse_prefix("192.168.0.7/32").unwrap()));
        assert!(!p.contains_prefix(&parse_prefix("192.168.0.0/23").unwrap()));
        assert_eq!(
            parse_prefix("2001:db8:1::/32")
                .unwrap()
                .masked()
                .to_string(),
            "2001:db8::/32"
        );
    }
}
