//! Decoding of string and bytes literals, with cel-go's rules and messages.
//!
//! The lexer has already checked the shape of every escape; what remains is
//! cel-go's value checks: `\u`/`\U` are not allowed in bytes, code points must
//! be valid Unicode scalar values in strings (no surrogates), and `\x`/octal
//! escapes denote code points in strings but raw bytes in bytes literals.

use crate::CelGoVersion;

/// Decodes the text of a string literal token (quotes and `r` prefix
/// included; for bytes, the `b` prefix already removed). Returns the decoded
/// bytes (valid UTF-8 unless `is_bytes`) or the error message of cel-go
/// release `cel_go`.
pub fn unescape(
    token: &str,
    is_bytes: bool,
    cel_go: CelGoVersion,
) -> Result<Vec<u8>, &'static str> {
    let (range, raw) = body_range(token.as_bytes())?;
    let body = &token.as_bytes()[range];
    let mut out = Vec::with_capacity(body.len());
    if raw || !body.contains(&b'\\') {
        push_normalized(&mut out, body);
        return Ok(out);
    }
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c == b'\r' {
            out.push(b'\n');
            i += if body.get(i + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            continue;
        }
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&e) = body.get(i + 1) else {
            return Err("unable to unescape string, found '\\' as last character");
        };
        i += 2;
        let simple = match e {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b'f' => Some(0x0C),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(0x0B),
            b'\\' => Some(b'\\'),
            b'\'' => Some(b'\''),
            b'"' => Some(b'"'),
            b'`' => Some(b'`'),
            b'?' => Some(b'?'),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            continue;
        }
        match e {
            b'x' | b'X' | b'u' | b'U' => {
                let digits = match e {
                    b'x' | b'X' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                if is_bytes && digits > 2 {
                    return Err(BAD_ESCAPE);
                }
                let hex = body.get(i..i + digits).ok_or(BAD_ESCAPE)?;
                let mut v: u32 = 0;
                for &h in hex {
                    let d = (h as char).to_digit(16).ok_or(BAD_ESCAPE)?;
                    v = (v << 4) | d;
                }
                i += digits;
                if is_bytes {
                    out.push(v as u8);
                } else {
                    push_code_point(&mut out, v, cel_go)?;
                }
            }
            b'0'..=b'3' => {
                let oct = body
                    .get(i..i + 2)
                    .ok_or("unable to unescape octal sequence in string")?;
                let mut v = u32::from(e - b'0');
                for &o in oct {
                    if !(b'0'..=b'7').contains(&o) {
                        return Err("unable to unescape octal sequence in string");
                    }
                    v = v * 8 + u32::from(o - b'0');
                }
                i += 2;
                if is_bytes {
                    out.push(v as u8);
                } else {
                    push_code_point(&mut out, v, cel_go)?;
                }
            }
            _ => return Err(BAD_ESCAPE),
        }
    }
    Ok(out)
}

/// Copies `body`, turning `\r\n` and `\r` into `\n` as cel-go does.
/// Where the text between the quotes of a literal token (quotes and `r`
/// prefix included) lies in it, and whether the literal is raw; cel-go's
/// error for a malformed token.
fn body_range(token: &[u8]) -> Result<(std::ops::Range<usize>, bool), &'static str> {
    if token.len() < 2 {
        return Err(BAD_ESCAPE);
    }
    let raw = matches!(token[0], b'r' | b'R');
    let from = usize::from(raw);
    let value = &token[from..];
    let n = value.len();
    if n < 2 || value[0] != value[n - 1] || !matches!(value[0], b'"' | b'\'') {
        return Err(BAD_ESCAPE);
    }
    let q = value[0];
    let range = if n >= 6 && value[1] == q && value[2] == q {
        if !(value[n - 2] == q && value[n - 3] == q) {
            return Err(BAD_ESCAPE);
        }
        from + 3..from + n - 3
    } else {
        from + 1..from + n - 1
    };
    Ok((range, raw))
}

/// The text between the quotes of `token` (as for [`unescape`]) when it is
/// the literal's value as it stands: no escape to decode (none, or a raw
/// literal) and no carriage return to normalise. `None` otherwise, and for a
/// malformed token ([`unescape`] reports it).
pub fn verbatim(token: &str) -> Option<&str> {
    let (range, raw) = body_range(token.as_bytes()).ok()?;
    // The body lies between ASCII quotes: its ends are character boundaries.
    let body = token.get(range)?;
    if body.contains('\r') || !raw && body.contains('\\') {
        return None;
    }
    Some(body)
}

fn push_normalized(out: &mut Vec<u8>, body: &[u8]) {
    if !body.contains(&b'\r') {
        out.extend_from_slice(body);
        return;
    }
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'\r' {
            out.push(b'\n');
            i += if body.get(i + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
        } else {
            out.push(body[i]);
            i += 1;
        }
    }
}

/// The text of a malformed escape, in every release.
const BAD_ESCAPE: &str = "unable to unescape string";

/// Appends code point `v` of an escape. From cel-go v0.23 on
/// (`parser/unescape.go`, `utf8.ValidRune`) a surrogate or a value past
/// U+10FFFF is `invalid unicode code point`; before, only values past U+10FFFF
/// fail (as any bad escape) and a surrogate is written as U+FFFD, as Go
/// encodes an invalid rune.
fn push_code_point(out: &mut Vec<u8>, v: u32, cel_go: CelGoVersion) -> Result<(), &'static str> {
    let before_v0_23 = cel_go < CelGoVersion::V0_23;
    let c = match char::from_u32(v) {
        Some(c) => c,
        None if before_v0_23 && v <= 0x10FFFF => char::REPLACEMENT_CHARACTER,
        None if before_v0_23 => return Err(BAD_ESCAPE),
        None => return Err("invalid unicode code point"),
    };
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{unescape, verbatim};
    use crate::CelGoVersion;

    #[test]
    fn verbatim_bodies_are_what_unescape_decodes() {
        let tokens = [
            "''",
            "\"\"",
            "'a'",
            "\"é\"",
            "'''a'b'''",
            "\"\"\"x\"\"\"",
            "r'a\\n'",
            "R\"\\\"",
            "r'''\\'''",
            "'a\\nb'",
            "'a\rb'",
            "r'a\r\nb'",
            "'''a\r\nb'''",
            "'",
            "r'",
            "'a\"",
            "'''a''",
        ];
        for t in tokens {
            for is_bytes in [false, true] {
                let decoded = unescape(t, is_bytes, NEWEST);
                match verbatim(t) {
                    Some(body) => assert_eq!(decoded, Ok(body.as_bytes().to_vec()), "{t:?}"),
                    None => assert!(
                        decoded.is_err() || t.contains('\\') || t.contains('\r'),
                        "{t:?}"
                    ),
                }
            }
        }
        assert_eq!(verbatim("'a'"), Some("a"));
        assert_eq!(verbatim("r'\\d'"), Some("\\d"));
        assert_eq!(verbatim("'\\d'"), None);
    }

    const NEWEST: CelGoVersion = CelGoVersion::V0_29;

    fn s(t: &str) -> String {
        String::from_utf8(unescape(t, false, NEWEST).unwrap()).unwrap()
    }

    #[test]
    fn string_escapes() {
        assert_eq!(s(r#""\xC3\XBF""#), "\u{c3}\u{bf}");
        assert_eq!(s(r#""\303\277""#), "\u{c3}\u{bf}");
        assert_eq!(s(r#""\U000003A8\?""#), "Ψ?");
        assert_eq!(s(r#"r'\n'"#), "\\n");
        assert_eq!(s("'''a\r\nb'''"), "a\nb");
        assert_eq!(
            unescape(r#"'\udead'"#, false, NEWEST),
            Err("invalid unicode code point")
        );
        assert_eq!(
            unescape(r#"'\U00110000'"#, false, NEWEST),
            Err("invalid unicode code point")
        );
    }

    #[test]
    fn code_points_before_v0_23() {
        let old = CelGoVersion::V0_22;
        assert_eq!(
            unescape(r#"'\udead'"#, false, old),
            Ok("\u{fffd}".as_bytes().to_vec())
        );
        assert_eq!(
            unescape(r#"'\U00110000'"#, false, old),
            Err("unable to unescape string")
        );
    }

    #[test]
    fn bytes_escapes() {
        assert_eq!(
            unescape(r#""\xff\377""#, true, NEWEST).unwrap(),
            vec![0xff, 0xff]
        );
        assert!(unescape(r#""\u00ff""#, true, NEWEST).is_err());
        assert_eq!(unescape("\"ÿ\"", true, NEWEST).unwrap(), vec![0xc3, 0xbf]);
    }
}
