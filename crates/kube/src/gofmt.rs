//! Go's textual forms of numbers and strings, where Kubernetes' output depends on them.
//!
//! * [`format_float`]: `strconv.FormatFloat(f, 'g', -1, bits)` and `fmt`'s `%v` for floats
//!   (shortest round-trip digits; exponent form outside a range of exponents).
//! * [`quote`]: `strconv.Quote` / `%q` for strings.

use std::fmt::Write;

/// Which Go formatting rule picks the exponent form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatStyle {
    /// `strconv.FormatFloat(f, 'g', -1, bits)`: exponent form when exp < -4 or exp >= 6
    /// (Go uses precision 6 for this decision in shortest mode).
    G,
    /// `fmt.Sprintf("%v", f)`: exponent form when exp < -4 or exp >= 21.
    V,
    /// `encoding/json`: exponent form when |f| < 1e-6 or |f| >= 1e21, exponent without
    /// zero padding (`1e-7`, `1e+21`).
    Json,
}

/// Formats `f` as Go does. `as_f32` rounds to the shortest digits of the `float32` nearest
/// to `f` (`bitSize` 32).
pub fn format_float(f: f64, as_f32: bool, style: FloatStyle) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".to_string()
        } else {
            "-Inf".to_string()
        };
    }
    // Rust's `{:e}` prints the shortest digits that round-trip, like Go's shortest mode.
    let sci = if as_f32 {
        format!("{:e}", f as f32)
    } else {
        format!("{f:e}")
    };
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (sci.as_str(), 0),
    };
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let limit = match style {
        FloatStyle::G => 6,
        FloatStyle::V | FloatStyle::Json => 21,
    };
    let low = if style == FloatStyle::Json { -6 } else { -4 };
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if (exp < low || exp >= limit) && f != 0.0 {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        if style == FloatStyle::Json {
            let _ = write!(out, "e{sign}{}", exp.unsigned_abs());
        } else {
            let _ = write!(out, "e{sign}{:02}", exp.unsigned_abs());
        }
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

/// Go's `strconv.Quote(s)` (what `%q` prints for a string), shared with the
/// engine's Go-compatible formatting.
pub use cel::library::ext::gofmt::quote;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_like_go_v() {
        let v = |f| format_float(f, false, FloatStyle::V);
        assert_eq!(v(0.7), "0.7");
        assert_eq!(v(1.0), "1");
        assert_eq!(v(1e21), "1e+21");
        assert_eq!(v(1e20), "100000000000000000000");
        assert_eq!(v(2.2), "2.2");
        assert_eq!(v(0.0001), "0.0001");
        assert_eq!(v(0.00001), "1e-05");
        assert_eq!(v(-3.5), "-3.5");
        assert_eq!(v(123456.789), "123456.789");
    }

    #[test]
    fn floats_like_go_json() {
        let j = |f| format_float(f, false, FloatStyle::Json);
        assert_eq!(j(0.0000001), "1e-7");
        assert_eq!(j(0.000001), "0.000001");
        assert_eq!(j(1e21), "1e+21");
        assert_eq!(j(2.5), "2.5");
        assert_eq!(j(0.0), "0");
    }

    #[test]
    fn floats_like_go_g32() {
        let g = |f| format_float(f, true, FloatStyle::G);
        assert_eq!(g(1.5), "1.5");
        assert_eq!(g(1e6), "1e+06");
        assert_eq!(g(100000.0), "100000");
        assert_eq!(g(0.1), "0.1");
        assert_eq!(g(1.0), "1");
    }

    #[test]
    fn quotes_like_go() {
        assert_eq!(quote("abc"), "\"abc\"");
        assert_eq!(quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(quote("é>"), "\"é>\"");
        assert_eq!(quote("\u{1}"), "\"\\x01\"");
        assert_eq!(quote("\u{200b}"), "\"\\u200b\"");
    }
}
