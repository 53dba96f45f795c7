//! String formats checked for custom resources (apiextensions `validation/formats.go` over
//! kube-openapi `strfmt`; reference §3).
//!
//! Format names are normalised by removing `-`. Only the formats listed in [`is_supported`] are
//! checked; every other format is stripped before validation and never fails.

use std::sync::OnceLock;

use regex::Regex;

use crate::go::url as gourl;
use crate::values::formats::{parse_byte, parse_date, parse_duration};
use crate::version::KubeVersion;

/// Whether `format` (as written) is checked by this Kubernetes version.
pub fn is_supported(format: &str, version: KubeVersion) -> bool {
    let normalized = format.replace('-', "");
    match normalized.as_str() {
        "bsonobjectid" | "uri" | "email" | "hostname" | "ipv4" | "ipv6" | "cidr" | "mac"
        | "uuid" | "uuid3" | "uuid4" | "uuid5" | "isbn" | "isbn10" | "isbn13" | "creditcard"
        | "ssn" | "hexcolor" | "rgbcolor" | "byte" | "password" | "date" | "duration"
        | "datetime" => true,
        "k8sshortname" | "k8slongname" => version.at_least(34),
        _ => false,
    }
}

fn regex(cell: &'static OnceLock<Option<Regex>>, pattern: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(pattern).ok()).as_ref()
}

macro_rules! static_regex {
    ($name:ident, $pattern:expr) => {
        fn $name() -> Option<&'static Regex> {
            static CELL: OnceLock<Option<Regex>> = OnceLock::new();
            regex(&CELL, $pattern)
        }
    };
}

static_regex!(
    hostname_re,
    r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$"
);
static_regex!(
    uuid_re,
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"
);
static_regex!(
    uuid3_re,
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"
);
static_regex!(
    uuid4_re,
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"
);
static_regex!(
    uuid5_re,
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"
);
static_regex!(
    credit_card_re,
    r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$"
);
static_regex!(ssn_re, r"^\d{3}[- ]?\d{2}[- ]?\d{4}$");
static_regex!(hexcolor_re, r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$");
static_regex!(
    rgbcolor_re,
    r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$"
);
static_regex!(
    time_re,
    r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"
);

fn matches(re: Option<&'static Regex>, s: &str) -> bool {
    re.is_some_and(|r| r.is_match(s))
}

/// Whether `s` is valid for the (supported) `format`.
pub fn check(format: &str, s: &str, _version: KubeVersion) -> bool {
    match format.replace('-', "").as_str() {
        "bsonobjectid" => s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit()),
        "uri" => gourl::parse_request_uri(s).is_ok(),
        "email" => is_email(s),
        "hostname" => is_hostname(s),
        "ipv4" => parse_ip_sloppy(s).is_some() && s.contains('.'),
        "ipv6" => parse_ip_sloppy(s).is_some() && s.contains(':'),
        "cidr" => is_cidr_sloppy(s),
        "mac" => is_mac(s),
        "uuid" => matches(uuid_re(), s),
        "uuid3" => matches(uuid3_re(), s),
        "uuid4" => matches(uuid4_re(), s),
        "uuid5" => matches(uuid5_re(), s),
        "isbn" => is_isbn10(s) || is_isbn13(s),
        "isbn10" => is_isbn10(s),
        "isbn13" => is_isbn13(s),
        "creditcard" => is_credit_card(s),
        "ssn" => s.len() == 11 && matches(ssn_re(), s),
        "hexcolor" => matches(hexcolor_re(), s),
        "rgbcolor" => matches(rgbcolor_re(), s),
        "byte" => !s.is_empty() && parse_byte(s).is_ok(),
        "password" => true,
        "date" => parse_date(s).is_ok(),
        "duration" => parse_duration(s).is_ok(),
        "datetime" => is_date_time(s),
        "k8sshortname" => crate::name_validation::is_dns1123_label(s).is_empty(),
        "k8slongname" => crate::name_validation::is_dns1123_subdomain(s).is_empty(),
        _ => true,
    }
}

fn is_hostname(s: &str) -> bool {
    matches(hostname_re(), s) && s.len() <= 255 && s.split('.').all(|p| p.len() <= 63)
}

/// strfmt `IsDateTime`: lower-cased, split at `t`; a date, then `HH:MM:SS(.frac)?(z|±HH:MM)`.
fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if parse_date(date).is_err() {
        return false;
    }
    let Some(caps) = time_re().and_then(|r| r.captures(time)) else {
        return false;
    };
    let part = |i: usize| caps.get(i).map_or("", |m| m.as_str());
    part(1) <= "23" && part(2) <= "59" && part(3) <= "59"
}

/// Kubernetes' `ParseIPSloppy` (Go 1.16 `net.ParseIP`: IPv4 fields may have leading zeros).
pub fn parse_ip_sloppy(s: &str) -> Option<Vec<u8>> {
    if s.contains(':') {
        parse_ipv6_sloppy(s)
    } else {
        parse_ipv4_sloppy(s).map(|a| a.to_vec())
    }
}

fn parse_ipv4_sloppy(s: &str) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut fields = s.split('.');
    for slot in &mut out {
        let f = fields.next()?;
        if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut n: u32 = 0;
        for b in f.bytes() {
            n = n * 10 + u32::from(b - b'0');
            if n > 0xFF_FFFF {
                return None;
            }
        }
        *slot = u8::try_from(n).ok()?;
    }
    fields.next().is_none().then_some(out)
}

fn parse_ipv6_sloppy(s: &str) -> Option<Vec<u8>> {
    let mut out = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    let mut rest = s;
    if let Some(r) = rest.strip_prefix("::") {
        ellipsis = Some(0);
        rest = r;
        if rest.is_empty() {
            return Some(out.to_vec());
        }
    }
    let mut i = 0;
    while i < 16 {
        let hex_len = rest.bytes().take_while(|b| b.is_ascii_hexdigit()).count();
        if hex_len == 0 {
            return None;
        }
        if rest.as_bytes().get(hex_len) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 || i + 4 > 16 {
                return None;
            }
            let v4 = parse_ipv4_sloppy(rest)?;
            out[i..i + 4].copy_from_slice(&v4);
            i += 4;
            rest = "";
            break;
        }
        if hex_len > 4 {
            return None;
        }
        let n = u16::from_str_radix(&rest[..hex_len], 16).ok()?;
        out[i] = (n >> 8) as u8;
        out[i + 1] = n as u8;
        i += 2;
        rest = &rest[hex_len..];
        if rest.is_empty() {
            break;
        }
        rest = rest.strip_prefix(':')?;
        if let Some(r) = rest.strip_prefix(':') {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            rest = r;
            if rest.is_empty() {
                break;
            }
        } else if rest.is_empty() {
            return None;
        }
    }
    if !rest.is_empty() {
        return None;
    }
    match ellipsis {
        Some(e) => {
            if i == 16 {
                return None;
            }
            let n = 16 - i;
            out.copy_within(e..i, e + n);
            for b in &mut out[e..e + n] {
                *b = 0;
            }
        }
        None if i != 16 => return None,
        None => {}
    }
    Some(out.to_vec())
}

fn is_cidr_sloppy(s: &str) -> bool {
    let Some((addr, bits)) = s.split_once('/') else {
        return false;
    };
    let Some(ip) = parse_ip_sloppy(addr) else {
        return false;
    };
    if bits.is_empty() || bits.len() > 3 || !bits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let max = if addr.contains(':') { 128 } else { 32 };
    let _ = ip;
    bits.parse::<u32>().is_ok_and(|b| b <= max)
}

/// Go's `net.ParseMAC`.
fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 14 {
        return false;
    }
    if b[2] == b':' || b[2] == b'-' {
        if !(b.len() + 1).is_multiple_of(3) {
            return false;
        }
        let n = (b.len() + 1) / 3;
        if n != 6 && n != 8 && n != 20 {
            return false;
        }
        let sep = b[2];
        (0..n).all(|i| {
            let x = i * 3;
            b[x].is_ascii_hexdigit()
                && b[x + 1].is_ascii_hexdigit()
                && (i + 1 == n || b[x + 2] == sep)
        })
    } else if b[4] == b'.' {
        if !(b.len() + 1).is_multiple_of(5) {
            return false;
        }
        let n = 2 * (b.len() + 1) / 5;
        if n != 6 && n != 8 && n != 20 {
            return false;
        }
        (0..n / 2).all(|i| {
            let x = i * 5;
            b[x..x + 4].iter().all(u8::is_ascii_hexdigit) && (x + 4 == b.len() || b[x + 4] == b'.')
        })
    } else {
        false
    }
}

fn isbn_digits(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect()
}

fn is_isbn10(s: &str) -> bool {
    let d = isbn_digits(s);
    let b = d.as_bytes();
    if b.len() != 10
        || !b[..9].iter().all(u8::is_ascii_digit)
        || !(b[9].is_ascii_digit() || b[9] == b'X')
    {
        return false;
    }
    let mut sum = 0u32;
    for (i, c) in b[..9].iter().enumerate() {
        sum += (i as u32 + 1) * u32::from(c - b'0');
    }
    sum += if b[9] == b'X' {
        100
    } else {
        10 * u32::from(b[9] - b'0')
    };
    sum.is_multiple_of(11)
}

fn is_isbn13(s: &str) -> bool {
    let d = isbn_digits(s);
    let b = d.as_bytes();
    if b.len() != 13 || !b.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let mut sum = 0u32;
    for (i, c) in b[..12].iter().enumerate() {
        let f = if i % 2 == 0 { 1 } else { 3 };
        sum += f * u32::from(c - b'0');
    }
    (10 - sum % 10) % 10 == u32::from(b[12] - b'0')
}

fn is_credit_card(s: &str) -> bool {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    if !matches(credit_card_re(), &digits) {
        return false;
    }
    let mut sum = 0u32;
    let mut double = false;
    for c in digits.bytes().rev() {
        let mut d = u32::from(c - b'0');
        if double {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
        double = !double;
    }
    sum.is_multiple_of(10)
}

/// Go's `net/mail.ParseAddress` (accepting `Name <addr>` and bare addresses) with a non-empty
/// address.
fn is_email(s: &str) -> bool {
    let t = s.trim_matches(|c| c == ' ' || c == '\t');
    if let Some(open) = t.rfind('<') {
        let Some(inner) = t[open + 1..].strip_suffix('>') else {
            return false;
        };
        let name = t[..open].trim();
        if !name.is_empty() && !is_display_name(name) {
            return false;
        }
        return is_addr_spec(inner);
    }
    is_addr_spec(t)
}

fn is_atext(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || (c as u32) >= 0x80
}

fn is_display_name(name: &str) -> bool {
    if let Some(q) = name.strip_prefix('"') {
        return q.ends_with('"') && !q.is_empty();
    }
    name.split_whitespace()
        .all(|w| w.chars().all(|c| is_atext(c) || c == '.'))
}

fn is_dot_atom(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|p| !p.is_empty() && p.chars().all(is_atext))
}

fn is_addr_spec(s: &str) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    let local_ok = if let Some(q) = local.strip_prefix('"') {
        q.strip_suffix('"')
            .is_some_and(|inner| !inner.contains('"') || inner.contains("\\\""))
    } else {
        is_dot_atom(local)
    };
    let domain_ok = if let Some(d) = domain.strip_prefix('[') {
        d.ends_with(']')
    } else {
        is_dot_atom(domain)
    };
    local_ok && domain_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(f: &str, s: &str) -> bool {
        check(f, s, KubeVersion::NEWEST)
    }

    #[test]
    fn samples() {
        assert!(ok("ipv4", "01.02.03.004"));
        assert!(!ok("ipv4", "::1"));
        assert!(ok("ipv6", "::ffff:1.2.3.4"));
        assert!(!ok("ipv6", "1.2.3.4"));
        assert!(ok("cidr", "10.0.0.0/8"));
        assert!(!ok("cidr", "10.0.0.0"));
        assert!(ok("mac", "00:00:5e:00:53:01"));
        assert!(ok("mac", "0000.5e00.5301"));
        assert!(!ok("mac", "00:00:5e:00:53"));
        assert!(ok("email", "A <a@b.c>"));
        assert!(!ok("email", "plainaddress"));
        assert!(ok("hostname", "example.com"));
        assert!(!ok("hostname", "-bad.com"));
        assert!(!ok("hostname", "1.2.3.4"));
        assert!(ok("date-time", "2020-01-01T10:00:00Z"));
        assert!(!ok("date-time", "2020-01-01T24:00:00Z"));
        assert!(!ok("date-time", "2020-01-01 10:00:00Z"));
        assert!(ok("isbn10", "0-306-40615-2"));
        assert!(ok("isbn13", "978-0-306-40615-7"));
        assert!(ok("creditcard", "4111 1111 1111 1111"));
        assert!(ok("ssn", "123-45-6789"));
        assert!(!ok("ssn", "123456789"));
        assert!(ok("rgbcolor", "rgb(1, 2,255)"));
        assert!(!ok("byte", ""));
        assert!(is_supported(
            "k8s-short-name",
            KubeVersion::new(35).expect("supported")
        ));
        assert!(!is_supported(
            "k8s-short-name",
            KubeVersion::new(33).expect("supported")
        ));
        assert!(!is_supported(
            "int32",
            KubeVersion::new(35).expect("supported")
        ));
    }
}
