//! Go's text formatting of numbers, strings and times, as cel-go's extension
//! functions produce it (`strconv.FormatFloat`, `fmt` verbs `%f %e %g %v %x %q`,
//! `encoding/json` floats, `time.RFC3339Nano`).

use std::fmt::Write;

use crate::value::{Duration, Timestamp};

/// Go's `fmt` treats a precision above 1e6 as absent (precision 0).
const GO_MAX_PRECISION: usize = 1_000_000;

/// Clamps a requested precision as Go's `fmt` does.
pub(crate) fn go_precision(p: usize) -> usize {
    if p > GO_MAX_PRECISION { 0 } else { p }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`: shortest digits, never an exponent.
pub(crate) fn shortest_f(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    // Rust's `Display` prints the shortest round-tripping digits without an exponent.
    format!("{f}")
}

/// `fmt.Sprintf("%.<p>f", f)`: exact decimal rounding (half to even on the
/// exact binary value), as Go.
pub(crate) fn fixed(f: f64, p: usize) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let p = go_precision(p);
    format!("{f:.p$}")
}

/// `fmt.Sprintf("%.<p>e", f)`: mantissa with `p` decimals, exponent with a
/// sign and at least two digits (`1.052033e+03`).
pub(crate) fn scientific(f: f64, p: usize) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let p = go_precision(p);
    let s = format!("{f:.p$e}");
    go_exponent(&s)
}

/// Rewrites Rust's `1.5e3` / `1.5e-7` exponent as Go's `1.5e+03` / `1.5e-07`.
fn go_exponent(s: &str) -> String {
    match s.split_once('e') {
        Some((mant, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            let mut out = String::with_capacity(s.len() + 2);
            out.push_str(mant);
            out.push('e');
            out.push(sign);
            if digits.len() < 2 {
                out.push('0');
            }
            out.push_str(digits);
            out
        }
        None => s.to_string(),
    }
}

/// The sign, shortest round-trip digits and decimal exponent
/// (`d.ddd × 10^exp`) of a finite double, or of the `float32` nearest to it
/// when `as_f32`, from Rust's shortest `{:e}` form (which picks the same
/// digits as Go's shortest mode).
fn shortest_digits(f: f64, as_f32: bool) -> (bool, String, i32) {
    let s = if as_f32 {
        format!("{:e}", (f as f32).abs())
    } else {
        format!("{:e}", f.abs())
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    (f.is_sign_negative(), digits, exp.parse().unwrap_or(0))
}

/// Which Go rule prints a float in its shortest digits, and when it switches
/// to the exponent form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatStyle {
    /// `strconv.FormatFloat(f, 'g', -1, bits)` and `fmt`'s `%g`: exponent form
    /// when the decimal exponent is below -4 or at least 6 (Go decides with
    /// precision 6 in shortest mode); the exponent has at least two digits.
    G,
    /// `fmt`'s `%v`: exponent form when the exponent is below -4 or at least 21.
    V,
    /// `encoding/json`: exponent form when |f| < 1e-6 or |f| >= 1e21, the
    /// exponent without zero padding (`1e-7`, `1e+21`).
    Json,
}

/// `f` in its shortest digits as Go prints it in `style`. `as_f32` prints
/// the `float32` nearest to `f` (`bitSize` 32). NaN and infinities print as
/// `NaN`, `+Inf`, `-Inf`; negative zero as `-0`.
pub fn format_float(f: f64, as_f32: bool, style: FloatStyle) -> String {
    let narrowed = if as_f32 { f64::from(f as f32) } else { f };
    if narrowed.is_nan() {
        return "NaN".into();
    }
    if narrowed.is_infinite() {
        return if narrowed > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if narrowed == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let (neg, digits, exp) = shortest_digits(f, as_f32);
    let (low, high) = match style {
        FloatStyle::G => (-4, 6),
        FloatStyle::V => (-4, 21),
        FloatStyle::Json => (-6, 21),
    };
    let mut out = String::with_capacity(digits.len() + 8);
    if neg {
        out.push('-');
    }
    if exp < low || exp >= high {
        out.push_str(digits.get(..1).unwrap_or("0"));
        if let Some(rest) = digits.get(1..).filter(|r| !r.is_empty()) {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 && style != FloatStyle::Json {
            out.push('0');
        }
        let _ = write!(out, "{e}");
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exp.unsigned_abs() as usize + 1;
        match (digits.get(..int_len), digits.get(int_len..)) {
            (Some(int), Some(frac)) if !frac.is_empty() => {
                out.push_str(int);
                out.push('.');
                out.push_str(frac);
            }
            _ => {
                out.push_str(&digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
            }
        }
    }
    out
}

/// `fmt.Sprintf("%g", f)` (= `strconv.FormatFloat(f, 'g', -1, 64)`).
pub(crate) fn general(f: f64) -> String {
    format_float(f, false, FloatStyle::G)
}

/// Go's `%x` / `%X` of a signed integer: sign and magnitude.
pub(crate) fn hex_i64(i: i64, upper: bool) -> String {
    let mag = i.unsigned_abs();
    let s = if upper {
        format!("{mag:X}")
    } else {
        format!("{mag:x}")
    };
    if i < 0 { format!("-{s}") } else { s }
}

/// Go's `%x` / `%X` of a byte string: two hex digits per byte.
pub(crate) fn hex_bytes(b: &[u8], upper: bool) -> String {
    let mut out = String::with_capacity(b.len() * 2);
    for byte in b {
        let _ = if upper {
            write!(out, "{byte:02X}")
        } else {
            write!(out, "{byte:02x}")
        };
    }
    out
}

/// `strconv.FormatInt(i, base)` for bases 2 and 8: sign and magnitude.
pub(crate) fn radix_i64(i: i64, base: u32) -> String {
    let mag = i.unsigned_abs();
    let s = radix_u64(mag, base);
    if i < 0 { format!("-{s}") } else { s }
}

pub(crate) fn radix_u64(u: u64, base: u32) -> String {
    match base {
        2 => format!("{u:b}"),
        8 => format!("{u:o}"),
        16 => format!("{u:x}"),
        _ => u.to_string(),
    }
}

/// Go's `strconv.Quote` (`%q`) of a string: double quotes, Go escapes,
/// printable Unicode kept, other characters as `\u`/`\U` escapes.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        quote_char(&mut out, c);
    }
    out.push('"');
    out
}

/// Go's `%q` of bytes: like [`quote`], invalid UTF-8 bytes as `\xNN`.
pub(crate) fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    for chunk in b.utf8_chunks() {
        for c in chunk.valid().chars() {
            quote_char(&mut out, c);
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out.push('"');
    out
}

fn quote_char(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if is_go_printable(c) => out.push(c),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if (c as u32) < 0x10000 => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\U{:08x}", c as u32);
        }
    }
}

/// An approximation of Go's `strconv.IsPrint`: letters, marks, numbers,
/// punctuation, symbols and the ASCII space. Control characters, format
/// characters, separators other than U+0020 and unassigned code points are
/// not printable.
fn is_go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    // Format characters (Cf) and other non-graphic ranges Go rejects.
    !matches!(u,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F
        | 0x202A..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
        | 0xE000..=0xF8FF | 0xFDD0..=0xFDEF | 0xFFFE | 0xFFFF | 0xF0000..=0x10FFFF
        | 0xE0000..=0xE007F)
}

/// `time.Time.UTC().Format(time.RFC3339Nano)`: `2023-02-03T23:31:20.5Z`, the
/// fraction without trailing zeros.
pub(crate) fn rfc3339_nano(t: &Timestamp) -> String {
    let days = t.seconds.div_euclid(86_400);
    let secs = t.seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let mut out = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        y,
        m,
        d,
        secs / 3600,
        (secs / 60) % 60,
        secs % 60
    );
    if t.nanos > 0 {
        let frac = format!("{:09}", t.nanos);
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push('Z');
    out
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Go's `Duration.Seconds()` as `strconv.FormatFloat(s, 'f', -1, 64)` + `s`,
/// which is how cel-go prints a duration as a string (`6347s`, `1.5s`).
pub(crate) fn duration_seconds(d: &Duration) -> String {
    let sec = d.nanos / 1_000_000_000;
    let nsec = d.nanos % 1_000_000_000;
    let secs = sec as f64 + nsec as f64 / 1e9;
    let mut s = shortest_f(secs);
    s.push('s');
    s
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_go() {
        assert_eq!(fixed(1.2345, 3), "1.234");
        assert_eq!(fixed(2.5, 0), "2");
        assert_eq!(fixed(3.5001, 0), "4");
        assert_eq!(fixed(-123.4999, 3), "-123.500");
        assert_eq!(scientific(1052.032911275, 6), "1.052033e+03");
        assert_eq!(scientific(2.71828, 6), "2.718280e+00");
        assert_eq!(scientific(1.5e-120, 1), "1.5e-120");
        assert_eq!(shortest_f(56.8), "56.8");
        assert_eq!(shortest_f(1e21), "1000000000000000000000");
        assert_eq!(shortest_f(2.0), "2");
        assert_eq!(general(56.8), "56.8");
        assert_eq!(general(1234567.0), "1.234567e+06");
        assert_eq!(general(100000.0), "100000");
        assert_eq!(general(0.0001), "0.0001");
        assert_eq!(general(0.00001), "1e-05");
        assert_eq!(general(-2.5e300), "-2.5e+300");
        assert_eq!(general(-0.0), "-0");
    }

    #[test]
    fn shortest_floats_in_each_go_style() {
        use FloatStyle::{G, Json, V};
        for (f, as_f32, style, want) in [
            (0.7, false, V, "0.7"),
            (1.0, false, V, "1"),
            (1e21, false, V, "1e+21"),
            (1e20, false, V, "100000000000000000000"),
            (2.2, false, V, "2.2"),
            (0.0001, false, V, "0.0001"),
            (0.00001, false, V, "1e-05"),
            (-3.5, false, V, "-3.5"),
            (123456.789, false, V, "123456.789"),
            (0.0000001, false, Json, "1e-7"),
            (0.000001, false, Json, "0.000001"),
            (1e21, false, Json, "1e+21"),
            (2.5, false, Json, "2.5"),
            (0.0, false, Json, "0"),
            (1.5, true, G, "1.5"),
            (1e6, true, G, "1e+06"),
            (100000.0, true, G, "100000"),
            (0.1, true, G, "0.1"),
            (1.0, true, G, "1"),
            // float32 overflow and underflow, as Go's FormatFloat(f, 'g', -1, 32).
            (1e300, true, G, "+Inf"),
            (-1e-50, true, G, "-0"),
        ] {
            assert_eq!(
                format_float(f, as_f32, style),
                want,
                "{f:e} {as_f32} {style:?}"
            );
        }
    }

    #[test]
    fn integers_and_bytes_print_as_go() {
        assert_eq!(hex_i64(-30, false), "-1e");
        assert_eq!(hex_i64(30, true), "1E");
        assert_eq!(hex_bytes(b"byte string", false), "6279746520737472696e67");
        assert_eq!(radix_i64(-5, 2), "-101");
        assert_eq!(radix_u64(65535, 8), "177777");
    }

    #[test]
    fn quoting_and_times() {
        assert_eq!(quote("a\"b\n\u{1}é"), "\"a\\\"b\\n\\x01é\"");
        assert_eq!(quote_bytes(b"x\xffy"), "\"x\\xffy\"");
        assert_eq!(quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(quote("\u{200b}"), "\"\\u200b\"");
        let t = Timestamp {
            seconds: 1_675_467_080,
            nanos: 0,
            offset_secs: 0,
        };
        assert_eq!(rfc3339_nano(&t), "2023-02-03T23:31:20Z");
        let t = Timestamp {
            seconds: Timestamp::MIN_SECONDS,
            nanos: 500_000_000,
            offset_secs: 0,
        };
        assert_eq!(rfc3339_nano(&t), "0001-01-01T00:00:00.5Z");
        assert_eq!(
            duration_seconds(&Duration {
                nanos: 6_347_000_000_000
            }),
            "6347s"
        );
        assert_eq!(
            duration_seconds(&Duration {
                nanos: -1_500_000_000
            }),
            "-1.5s"
        );
    }
}
