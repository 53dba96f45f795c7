//! `string.format(list)`: cel-go's printf-like formatting, in its two
//! generations.
//!
//! * [`Formatter::V1`] (ext.Strings versions 1 to 3, what Kubernetes ships):
//!   `%d` only on integers, `%f`/`%e` only on doubles (and the strings `NaN`,
//!   `Infinity`, `-Infinity`) printed through golang.org/x/text with the en_US
//!   locale (digit grouping `1,234.5`, `∞`, scientific as `2.718280×10⁰⁰`),
//!   lists and maps printed as CEL literals (`["a", 3.140000]`, `{"k":1}`).
//! * [`Formatter::V2`] (version 4 and later, the cel-spec semantics): `%d`, `%f`,
//!   `%e` on every number, plain `strconv` output, lists and maps printed
//!   without quotes (`[a, 3.14]`, `{k: 1}`).
//!
//! Both share the clause grammar `%[.precision](s|d|f|e|b|x|X|o)` and `%%`.
//! Error texts are cel-go's; a wrong argument type is reported as
//! `error during formatting: <clause message>`, a bad clause as
//! `could not parse formatting clause: <detail>`.

use crate::error::{EvalError, EvalResult};
use crate::go::fmt as gofmt;
use crate::value::{List, Value};

/// Which generation of cel-go's formatter to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formatter {
    V1,
    V2,
}

/// Options of one `format` call.
#[derive(Clone, Copy, Debug)]
pub struct FormatOptions {
    pub formatter: Formatter,
    /// Largest precision a clause may ask for; `None` for unbounded (versions < 5).
    pub max_precision: Option<usize>,
}

/// Formats `fmt` with `args` as cel-go's `string.format` does.
pub fn format(fmt: &str, args: &List, opts: FormatOptions) -> EvalResult {
    let bytes = fmt.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(fmt.len());
    let mut i = 0;
    let mut arg_index = 0usize;
    let size = args.len();
    while i < bytes.len() {
        if bytes[i] != b'%' {
            // Copy the run of plain bytes up to the next '%'.
            let end = bytes[i..]
                .iter()
                .position(|&b| b == b'%')
                .map_or(bytes.len(), |p| i + p);
            out.extend_from_slice(&bytes[i..end]);
            i = end;
            continue;
        }
        if bytes.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        if arg_index >= size {
            return Err(EvalError::msg(format!("index {arg_index} out of range")));
        }
        if i + 1 >= bytes.len() {
            return Err(EvalError::msg("unexpected end of string"));
        }
        let arg = args.get(arg_index).unwrap_or(Value::Null);
        let (read, clause) = parse_clause(&bytes[i + 1..], opts)
            .map_err(|e| EvalError::msg(format!("could not parse formatting clause: {e}")))?;
        let text = apply(clause, &arg, opts.formatter)
            .map_err(|e| EvalError::msg(format!("error during formatting: {e}")))?;
        out.extend_from_slice(text.as_bytes());
        i += 1 + read;
        arg_index += 1;
    }
    // Only whole UTF-8 sequences and ASCII were copied, so this cannot fail;
    // fall back to a lossy conversion rather than panic.
    Ok(Value::string(String::from_utf8(out).unwrap_or_else(|e| {
        String::from_utf8_lossy(e.as_bytes()).into_owned()
    })))
}

/// Compile-time validation of a constant format string (cel-go's
/// `stringFormatValidator`, run by Kubernetes when the argument is a list
/// literal): the verb each clause applies to its argument, in order, or the
/// error text cel-go reports at the call. `arg_count` is the literal list's
/// size. The caller then checks each argument's static type with
/// [`clause_type_error`] (reported at the argument) and reports
/// `too many arguments supplied to string.format (expected N, got M)` when the
/// list has more elements than clauses.
#[allow(
    dead_code,
    reason = "cel-go's format-string validator, tested here, not yet installed as an AST validator"
)]
pub fn validate_format(
    fmt: &str,
    arg_count: usize,
    opts: FormatOptions,
) -> Result<Vec<u8>, String> {
    let bytes = fmt.as_bytes();
    let mut verbs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) == Some(&b'%') {
            i += 2;
            continue;
        }
        if i + 1 >= bytes.len() {
            return Err("unexpected end of string".into());
        }
        if verbs.len() >= arg_count {
            return Err(format!("index {} out of range", verbs.len()));
        }
        let (read, _) = parse_clause(&bytes[i + 1..], opts)
            .map_err(|e| format!("could not parse formatting clause: {e}"))?;
        verbs.push(bytes[i + read]);
        i += 1 + read;
    }
    Ok(verbs)
}

/// The error cel-go's format validator reports when an argument of static
/// type `t` meets clause `verb` (`None` when accepted; `dyn` is always
/// accepted). For `%s`, elements of list and map literals are checked by the
/// caller recursively with the same function.
#[allow(
    dead_code,
    reason = "cel-go's format-string validator, tested here, not yet installed as an AST validator"
)]
pub fn clause_type_error(formatter: Formatter, verb: u8, t: &crate::types::Type) -> Option<String> {
    use crate::types::Type as T;
    if matches!(t, T::Dyn) {
        return None;
    }
    let kind = |ok: &[fn(&T) -> bool]| ok.iter().any(|f| f(t));
    let int = |t: &T| matches!(t, T::Int);
    let uint = |t: &T| matches!(t, T::Uint);
    let double = |t: &T| matches!(t, T::Double);
    let string = |t: &T| matches!(t, T::String);
    let bytes = |t: &T| matches!(t, T::Bytes);
    let boolean = |t: &T| matches!(t, T::Bool);
    let name = t.runtime_name();
    let (accepted, message) = match (formatter, verb) {
        (_, b's') => (
            kind(&[
                |t| {
                    matches!(
                        t,
                        T::List(_)
                            | T::Map(_, _)
                            | T::Int
                            | T::Uint
                            | T::Double
                            | T::Bool
                            | T::String
                    )
                },
                |t| {
                    matches!(
                        t,
                        T::Timestamp | T::Bytes | T::Duration | T::Type(_) | T::Null
                    )
                },
            ]),
            string_error_name(name),
        ),
        (Formatter::V1, b'd') => (
            kind(&[int, uint]),
            format!("decimal clause can only be used on integers, was given {name}"),
        ),
        (Formatter::V2, b'd') => (
            kind(&[int, uint, double]),
            format!(
                "decimal clause can only be used on ints, uints, and doubles, was given {name}"
            ),
        ),
        (Formatter::V1, b'f') => (
            kind(&[double, string]),
            format!("fixed-point clause can only be used on doubles, was given {name}"),
        ),
        (Formatter::V2, b'f') => (
            kind(&[int, uint, double]),
            format!(
                "fixed-point clause can only be used on ints, uints, and doubles, was given {name}"
            ),
        ),
        (Formatter::V1, b'e') => (
            kind(&[double, string]),
            format!("scientific clause can only be used on doubles, was given {name}"),
        ),
        (Formatter::V2, b'e') => (
            kind(&[int, uint, double]),
            format!(
                "scientific clause can only be used on ints, uints, and doubles, was given {name}"
            ),
        ),
        (Formatter::V1, b'b') => (
            kind(&[int, uint, boolean]),
            format!("only integers and bools can be formatted as binary, was given {name}"),
        ),
        (Formatter::V2, b'b') => (
            kind(&[int, uint, boolean]),
            format!("only ints, uints, and bools can be formatted as binary, was given {name}"),
        ),
        (Formatter::V1, b'x' | b'X') => (
            kind(&[int, uint, string, bytes]),
            format!(
                "only integers, byte buffers, and strings can be formatted as hex, was given {name}"
            ),
        ),
        (Formatter::V2, b'x' | b'X') => (
            kind(&[int, uint, string, bytes]),
            format!(
                "only ints, uints, bytes, and strings can be formatted as hex, was given {name}"
            ),
        ),
        (Formatter::V1, b'o') => (
            kind(&[int, uint]),
            format!("octal clause can only be used on integers, was given {name}"),
        ),
        (Formatter::V2, b'o') => (
            kind(&[int, uint]),
            format!("octal clause can only be used on ints and uints, was given {name}"),
        ),
        _ => (true, String::new()),
    };
    if accepted {
        None
    } else {
        Some(format!("error during formatting: {message}"))
    }
}

fn string_error_name(name: &str) -> String {
    format!(
        "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {name}"
    )
}

/// A parsed formatting clause.
#[derive(Clone, Copy, Debug)]
enum Clause {
    String,
    Decimal,
    Fixed(Option<usize>),
    Scientific(Option<usize>),
    Binary,
    Hex { upper: bool },
    Octal,
}

/// Parses `[.precision]verb` at the start of `s` (just after the `%`);
/// returns the bytes read and the clause.
fn parse_clause(s: &[u8], opts: FormatOptions) -> Result<(usize, Clause), String> {
    let (mut i, precision) =
        parse_precision(s, opts).map_err(|e| format!("error while parsing precision: {e}"))?;
    let Some(&verb) = s.get(i) else {
        return Err(
            "error while parsing precision: could not find end of precision specifier".into(),
        );
    };
    i += 1;
    let clause = match verb {
        b's' => Clause::String,
        b'd' => Clause::Decimal,
        b'f' => Clause::Fixed(precision),
        b'e' => Clause::Scientific(precision),
        b'b' => Clause::Binary,
        b'x' => Clause::Hex { upper: false },
        b'X' => Clause::Hex { upper: true },
        b'o' => Clause::Octal,
        // Go prints rune(byte): a non-ASCII byte shows as its Latin-1 character.
        other => {
            return Err(format!(
                "unrecognized formatting clause \"{}\"",
                char::from(other)
            ));
        }
    };
    Ok((i, clause))
}

fn parse_precision(s: &[u8], opts: FormatOptions) -> Result<(usize, Option<usize>), String> {
    if s.first() != Some(&b'.') {
        return Ok((0, None));
    }
    let mut i = 1;
    loop {
        match s.get(i) {
            None => return Err("could not find end of precision specifier".into()),
            Some(b) if b.is_ascii_digit() => i += 1,
            Some(_) => break,
        }
    }
    let digits = std::str::from_utf8(&s[1..i]).unwrap_or("");
    let precision: usize = match digits.parse::<i64>() {
        Ok(p) => usize::try_from(p).unwrap_or(usize::MAX),
        Err(e) => {
            let why = if digits.is_empty() {
                "invalid syntax"
            } else {
                range_or_syntax(&e)
            };
            return Err(format!(
                "error while converting precision to integer: strconv.Atoi: parsing \"{digits}\": {why}"
            ));
        }
    };
    if let Some(max) = opts.max_precision
        && precision > max
    {
        return Err(format!(
            "precision {precision} exceeds maximum allowed precision {max}"
        ));
    }
    Ok((i, Some(precision)))
}

fn range_or_syntax(e: &std::num::ParseIntError) -> &'static str {
    match e.kind() {
        std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
            "value out of range"
        }
        _ => "invalid syntax",
    }
}

const DEFAULT_PRECISION: usize = 6;

fn apply(clause: Clause, arg: &Value, formatter: Formatter) -> Result<String, String> {
    match formatter {
        Formatter::V1 => v1::apply(clause, arg),
        Formatter::V2 => v2::apply(clause, arg),
    }
}

/// Sorts formatted map entries by their formatted key (Go's stable sort on
/// strings compares bytes).
fn sort_entries(entries: &mut [(String, String)]) {
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
}

fn type_name(v: &Value) -> &str {
    v.type_name()
}

/// cel-go's formatter for ext.Strings versions 4 and later.
mod v2 {
    use super::*;

    pub(super) fn apply(clause: Clause, arg: &Value) -> Result<String, String> {
        match clause {
            Clause::String => {
                let mut out = String::new();
                string(arg, &mut out)?;
                Ok(out)
            }
            Clause::Decimal => match arg {
                Value::Int(i) => Ok(i.to_string()),
                Value::Uint(u) => Ok(u.to_string()),
                Value::Double(d) => Ok(special_or(*d, gofmt::shortest_f)),
                other => Err(format!(
                    "decimal clause can only be used on ints, uints, and doubles, was given {}",
                    type_name(other)
                )),
            },
            Clause::Fixed(p) => {
                let p = p.unwrap_or(DEFAULT_PRECISION);
                number(arg, |d| gofmt::fixed(d, p)).ok_or_else(|| {
                    format!(
                        "fixed-point clause can only be used on ints, uints, and doubles, was given {}",
                        type_name(arg)
                    )
                })
            }
            Clause::Scientific(p) => {
                let p = p.unwrap_or(DEFAULT_PRECISION);
                number(arg, |d| gofmt::scientific(d, p)).ok_or_else(|| {
                    format!(
                        "scientific clause can only be used on ints, uints, and doubles, was given {}",
                        type_name(arg)
                    )
                })
            }
            Clause::Binary => match arg {
                Value::Bool(b) => Ok(if *b { "1" } else { "0" }.into()),
                Value::Int(i) => Ok(gofmt::radix_i64(*i, 2)),
                Value::Uint(u) => Ok(gofmt::radix_u64(*u, 2)),
                other => Err(format!(
                    "only ints, uints, and bools can be formatted as binary, was given {}",
                    type_name(other)
                )),
            },
            Clause::Hex { upper } => match arg {
                Value::Int(i) => Ok(gofmt::hex_i64(*i, upper)),
                Value::Uint(u) => Ok(if upper {
                    format!("{u:X}")
                } else {
                    format!("{u:x}")
                }),
                Value::String(s) => Ok(gofmt::hex_bytes(s.as_bytes(), upper)),
                Value::Bytes(b) => Ok(gofmt::hex_bytes(b, upper)),
                other => Err(format!(
                    "only ints, uints, bytes, and strings can be formatted as hex, was given {}",
                    type_name(other)
                )),
            },
            Clause::Octal => match arg {
                Value::Int(i) => Ok(gofmt::radix_i64(*i, 8)),
                Value::Uint(u) => Ok(gofmt::radix_u64(*u, 8)),
                other => Err(format!(
                    "octal clause can only be used on ints and uints, was given {}",
                    type_name(other)
                )),
            },
        }
    }

    /// `NaN`, `Infinity`, `-Infinity` for the special doubles, else `f(d)`.
    fn special_or(d: f64, f: impl Fn(f64) -> String) -> String {
        if d.is_nan() {
            "NaN".into()
        } else if d == f64::INFINITY {
            "Infinity".into()
        } else if d == f64::NEG_INFINITY {
            "-Infinity".into()
        } else {
            f(d)
        }
    }

    /// Formats a number as a double (ints and uints are converted first).
    fn number(arg: &Value, f: impl Fn(f64) -> String) -> Option<String> {
        match arg {
            Value::Int(i) => Some(f(*i as f64)),
            Value::Uint(u) => Some(f(*u as f64)),
            Value::Double(d) => Some(special_or(*d, f)),
            _ => None,
        }
    }

    /// The `%s` rendering, recursively for lists and maps.
    fn string(arg: &Value, out: &mut String) -> Result<(), String> {
        match arg {
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Uint(u) => out.push_str(&u.to_string()),
            Value::Double(d) => out.push_str(&special_or(*d, gofmt::shortest_f)),
            Value::Bytes(b) => out.push_str(&String::from_utf8_lossy(b)),
            Value::String(s) => out.push_str(s),
            Value::Duration(d) => out.push_str(&gofmt::duration_seconds(d)),
            Value::Timestamp(t) => out.push_str(&gofmt::rfc3339_nano(t)),
            Value::Null => out.push_str("null"),
            Value::Type(t) => out.push_str(t.runtime_name()),
            Value::List(l) => {
                out.push('[');
                for (i, e) in l.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    string(&e, out)?;
                }
                out.push(']');
            }
            Value::Map(m) => {
                let mut entries = Vec::with_capacity(m.len());
                for (k, v) in m.entries() {
                    let mut ks = String::new();
                    string(&k.to_value(), &mut ks)?;
                    let mut vs = String::new();
                    string(&v, &mut vs)?;
                    entries.push((ks, vs));
                }
                sort_entries(&mut entries);
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(k);
                    out.push_str(": ");
                    out.push_str(v);
                }
                out.push('}');
            }
            other => return Err(string_error(other)),
        }
        Ok(())
    }
}

fn string_error(v: &Value) -> String {
    string_error_name(type_name(v))
}

/// cel-go's formatter for ext.Strings versions 1 to 3 (locale en_US).
mod v1 {
    use super::*;

    pub(super) fn apply(clause: Clause, arg: &Value) -> Result<String, String> {
        match clause {
            Clause::String => format_string(arg),
            Clause::Decimal => decimal(arg),
            Clause::Fixed(p) => {
                let d = double_arg(arg).ok_or_else(|| {
                    format!(
                        "fixed-point clause can only be used on doubles, was given {}",
                        type_name(arg)
                    )
                })?;
                Ok(locale_fixed(d, p.unwrap_or(DEFAULT_PRECISION)))
            }
            Clause::Scientific(p) => {
                let d = double_arg(arg).ok_or_else(|| {
                    format!(
                        "scientific clause can only be used on doubles, was given {}",
                        type_name(arg)
                    )
                })?;
                // cel-go builds "%<p>e" (p defaulting to 6): the precision
                // becomes a *width*; the precision stays x/text's default of 6.
                Ok(pad_left(
                    locale_scientific(d),
                    p.unwrap_or(DEFAULT_PRECISION),
                ))
            }
            Clause::Binary => match arg {
                Value::Int(i) => Ok(gofmt::radix_i64(*i, 2)),
                Value::Uint(u) => Ok(gofmt::radix_u64(*u, 2)),
                Value::Bool(b) => Ok(if *b { "1" } else { "0" }.into()),
                other => Err(format!(
                    "only integers and bools can be formatted as binary, was given {}",
                    type_name(other)
                )),
            },
            Clause::Hex { upper } => match arg {
                Value::String(s) => Ok(gofmt::hex_bytes(s.as_bytes(), upper)),
                Value::Bytes(b) => Ok(gofmt::hex_bytes(b, upper)),
                Value::Int(i) => Ok(gofmt::hex_i64(*i, upper)),
                Value::Uint(u) => Ok(if upper {
                    format!("{u:X}")
                } else {
                    format!("{u:x}")
                }),
                other => Err(format!(
                    "only integers, byte buffers, and strings can be formatted as hex, was given {}",
                    type_name(other)
                )),
            },
            Clause::Octal => match arg {
                Value::Int(i) => Ok(gofmt::radix_i64(*i, 8)),
                Value::Uint(u) => Ok(gofmt::radix_u64(*u, 8)),
                other => Err(format!(
                    "octal clause can only be used on integers, was given {}",
                    type_name(other)
                )),
            },
        }
    }

    /// A double, or one of the strings `NaN`, `Infinity`, `-Infinity`.
    fn double_arg(arg: &Value) -> Option<f64> {
        match arg {
            Value::Double(d) => Some(*d),
            Value::String(s) => match &**s {
                "NaN" => Some(f64::NAN),
                "Infinity" => Some(f64::INFINITY),
                "-Infinity" => Some(f64::NEG_INFINITY),
                _ => None,
            },
            _ => None,
        }
    }

    fn decimal(arg: &Value) -> Result<String, String> {
        match arg {
            Value::Int(i) => Ok(i.to_string()),
            Value::Uint(u) => Ok(u.to_string()),
            other => Err(format!(
                "decimal clause can only be used on integers, was given {}",
                type_name(other)
            )),
        }
    }

    /// `%.<p>f` through x/text's en_US printer: grouped integer digits,
    /// `NaN`, `∞`, `-∞`.
    fn locale_fixed(d: f64, p: usize) -> String {
        if d.is_nan() {
            return "NaN".into();
        }
        if d.is_infinite() {
            return if d > 0.0 { "∞".into() } else { "-∞".into() };
        }
        let plain = gofmt::fixed(d, p);
        group_thousands(&plain)
    }

    /// Inserts `,` between groups of three integer digits.
    fn group_thousands(s: &str) -> String {
        let (sign, rest) = match s.strip_prefix('-') {
            Some(r) => ("-", r),
            None => ("", s),
        };
        let (int, frac) = match rest.find('.') {
            Some(p) => (&rest[..p], &rest[p..]),
            None => (rest, ""),
        };
        let mut out = String::with_capacity(s.len() + int.len() / 3);
        out.push_str(sign);
        for (i, c) in int.chars().enumerate() {
            if i > 0 && (int.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out.push_str(frac);
        out
    }

    /// x/text's en_US scientific form as Kubernetes' pinned x/text prints
    /// it: `2.718280×10⁰⁰` (superscript exponent of at least two digits; the
    /// narrow no-break spaces around `×` of later CLDR data, seen in cel-go's
    /// own tests, are absent from Kubernetes' test tables).
    fn locale_scientific(d: f64) -> String {
        if d.is_nan() {
            return "NaN".into();
        }
        if d.is_infinite() {
            return if d > 0.0 { "∞".into() } else { "-∞".into() };
        }
        let s = format!("{d:.6e}");
        let (mant, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let mut out = String::with_capacity(mant.len() + 16);
        out.push_str(mant);
        out.push_str("\u{d7}10");
        if exp < 0 {
            out.push('\u{207b}');
        }
        let digits = format!("{:02}", exp.unsigned_abs());
        for c in digits.chars() {
            out.push(superscript(c));
        }
        out
    }

    fn superscript(c: char) -> char {
        match c {
            '0' => '\u{2070}',
            '1' => '\u{b9}',
            '2' => '\u{b2}',
            '3' => '\u{b3}',
            '4' => '\u{2074}',
            '5' => '\u{2075}',
            '6' => '\u{2076}',
            '7' => '\u{2077}',
            '8' => '\u{2078}',
            _ => '\u{2079}',
        }
    }

    /// Left-pads with spaces to `width` characters (Go's width in runes).
    fn pad_left(s: String, width: usize) -> String {
        let n = s.chars().count();
        match width {
            // Go's fmt ignores widths above 1e6 like precisions.
            w if w > n && w <= 1_000_000 => {
                let mut out = " ".repeat(w - n);
                out.push_str(&s);
                out
            }
            _ => s,
        }
    }

    /// `%s` (cel-go's `FormatString`).
    pub(super) fn format_string(arg: &Value) -> Result<String, String> {
        match arg {
            Value::List(l) => format_list(l),
            Value::Map(_) => format_map(arg),
            Value::Null => Ok("null".into()),
            other => to_cel_string(other).ok_or_else(|| string_error(other))?,
        }
    }

    /// cel-go's conversion of a scalar to `string` (`ConvertToType(StringType)`);
    /// `None` for values without one.
    fn to_cel_string(v: &Value) -> Option<Result<String, String>> {
        Some(Ok(match v {
            Value::Int(i) => i.to_string(),
            Value::Uint(u) => u.to_string(),
            Value::Double(d) => gofmt::general(*d),
            Value::Bool(b) => b.to_string(),
            Value::String(s) => s.to_string(),
            Value::Timestamp(t) => gofmt::rfc3339_nano(t),
            Value::Duration(d) => gofmt::duration_seconds(d),
            Value::Type(t) => t.runtime_name().to_string(),
            Value::Bytes(b) => match std::str::from_utf8(b) {
                Ok(s) => s.to_string(),
                Err(_) => {
                    return Some(Err(
                        "could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string"
                            .into(),
                    ));
                }
            },
            _ => return None,
        }))
    }

    /// The element/value formatting inside lists and maps (`clauseForType`).
    fn member(v: &Value) -> Result<String, String> {
        let text = match v {
            Value::Int(_) | Value::Uint(_) => decimal(v)?,
            Value::String(_) | Value::Bytes(_) | Value::Bool(_) | Value::Null | Value::Type(_) => {
                format_string(v)?
            }
            Value::Timestamp(t) => format!("timestamp({})", gofmt::quote(&gofmt::rfc3339_nano(t))),
            Value::Duration(d) => {
                format!("duration({})", gofmt::quote(&gofmt::duration_seconds(d)))
            }
            Value::List(l) => format_list(l)?,
            Value::Map(_) => format_map(v)?,
            Value::Double(d) => gofmt::fixed(*d, DEFAULT_PRECISION),
            other => return Err(format!("no formatting function for {}", type_name(other))),
        };
        Ok(quote_for_cel(v, text))
    }

    /// Quotes a formatted member so that it reads as a CEL literal.
    fn quote_for_cel(v: &Value, text: String) -> String {
        match v {
            Value::String(_) => gofmt::quote(&text),
            Value::Bytes(b) => format!("b{}", gofmt::quote_bytes(b)),
            Value::Double(d) if !d.is_finite() => gofmt::quote(&text),
            _ => text,
        }
    }

    fn format_list(l: &List) -> Result<String, String> {
        let mut out = String::from("[");
        for (i, e) in l.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&member(&e)?);
        }
        out.push(']');
        Ok(out)
    }

    fn format_map(m: &Value) -> Result<String, String> {
        let Value::Map(m) = m else {
            return Err(string_error(m));
        };
        let mut entries = Vec::with_capacity(m.len());
        for (k, v) in m.entries() {
            let kv = k.to_value();
            let ktext = match &kv {
                Value::String(_) | Value::Bool(_) => format_string(&kv)?,
                Value::Int(_) | Value::Uint(_) => decimal(&kv)?,
                other => {
                    return Err(format!(
                        "no formatting function for map key of type {}",
                        type_name(other)
                    ));
                }
            };
            entries.push((quote_for_cel(&kv, ktext), member(&v)?));
        }
        sort_entries(&mut entries);
        let mut out = String::from("{");
        for (i, (k, v)) in entries.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(k);
            out.push(':');
            out.push_str(v);
        }
        out.push('}');
        Ok(out)
    }
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;
    use crate::value::{Duration, Key, Timestamp};
    use indexmap::IndexMap;

    const V1: FormatOptions = FormatOptions {
        formatter: Formatter::V1,
        max_precision: None,
    };
    const V2: FormatOptions = FormatOptions {
        formatter: Formatter::V2,
        max_precision: Some(100),
    };

    fn run(fmt: &str, args: Vec<Value>, opts: FormatOptions) -> Result<String, String> {
        match format(fmt, &List::from(args), opts) {
            Ok(Value::String(s)) => Ok(s.to_string()),
            Ok(other) => Err(format!("not a string: {other:?}")),
            Err(e) => Err(e.message().to_string()),
        }
    }

    fn map(entries: Vec<(Key, Value)>) -> Value {
        Value::Map(IndexMap::from_iter(entries).into())
    }

    #[test]
    fn v2_clauses() {
        assert_eq!(
            run("%d %s%%", vec![Value::Int(1), "x".into()], V2).unwrap(),
            "1 x%"
        );
        assert_eq!(run("%.3f", vec![1.2345.into()], V2).unwrap(), "1.234");
        assert_eq!(run("%f", vec![Value::Int(2)], V2).unwrap(), "2.000000");
        assert_eq!(run("%e", vec![Value::Uint(3)], V2).unwrap(), "3.000000e+00");
        assert_eq!(run("%d", vec![f64::NAN.into()], V2).unwrap(), "NaN");
        assert_eq!(
            run("%e", vec![f64::NEG_INFINITY.into()], V2).unwrap(),
            "-Infinity"
        );
        assert_eq!(
            run("%x", vec!["Hello world!".into()], V2).unwrap(),
            "48656c6c6f20776f726c6421"
        );
        assert_eq!(run("%X", vec![Value::Uint(6000)], V2).unwrap(), "1770");
        assert_eq!(run("%b", vec![true.into()], V2).unwrap(), "1");
        assert_eq!(run("%o", vec![Value::Int(11)], V2).unwrap(), "13");
        assert_eq!(
            run(
                "%s",
                vec![Value::Duration(Duration {
                    nanos: 6_347_000_000_000
                })],
                V2
            )
            .unwrap(),
            "6347s"
        );
        let list = Value::list(vec![
            "abc".into(),
            3.14.into(),
            Value::Null,
            Value::list(vec![Value::Int(9), Value::Int(8)]),
            Value::Timestamp(Timestamp {
                seconds: 1_675_467_080,
                nanos: 0,
                offset_secs: 0,
            }),
        ]);
        assert_eq!(
            run("%s", vec![list], V2).unwrap(),
            "[abc, 3.14, null, [9, 8], 2023-02-03T23:31:20Z]"
        );
        let m = map(vec![
            (Key::from("strKey"), "x".into()),
            (
                Key::Int(6),
                Value::Duration(Duration {
                    nanos: 422_000_000_000,
                }),
            ),
            (Key::Bool(true), Value::Int(42)),
        ]);
        assert_eq!(
            run("%s", vec![m], V2).unwrap(),
            "{6: 422s, strKey: x, true: 42}"
        );
    }

    #[test]
    fn v2_errors() {
        assert_eq!(
            run("%a", vec![Value::Int(1)], V2).unwrap_err(),
            "could not parse formatting clause: unrecognized formatting clause \"a\""
        );
        assert_eq!(
            run("%d %d %d", vec![Value::Int(0), Value::Int(1)], V2).unwrap_err(),
            "index 2 out of range"
        );
        assert_eq!(
            run("%", vec![Value::Int(1)], V2).unwrap_err(),
            "unexpected end of string"
        );
        assert_eq!(run("%", vec![], V2).unwrap_err(), "index 0 out of range");
        assert_eq!(
            run("%b", vec!["abc".into()], V2).unwrap_err(),
            "error during formatting: only ints, uints, and bools can be formatted as binary, was given string"
        );
        assert_eq!(
            run("%.101f", vec![1.0.into()], V2).unwrap_err(),
            "could not parse formatting clause: error while parsing precision: precision 101 exceeds maximum allowed precision 100"
        );
        assert_eq!(
            run("%.3", vec![1.0.into()], V2).unwrap_err(),
            "could not parse formatting clause: error while parsing precision: could not find end of precision specifier"
        );
        assert_eq!(
            run("%s", vec![Value::optional_none()], V2).unwrap_err(),
            format!(
                "error during formatting: {}",
                string_error(&Value::optional_none())
            )
        );
    }

    #[test]
    fn v1_clauses() {
        assert_eq!(run("%.3f", vec![1.2345.into()], V1).unwrap(), "1.234");
        assert_eq!(
            run("%f", vec![1234567.5.into()], V1).unwrap(),
            "1,234,567.500000"
        );
        assert_eq!(run("%f", vec!["-Infinity".into()], V1).unwrap(), "-∞");
        assert_eq!(
            run("%.6e", vec![1052.032911275.into()], V1).unwrap(),
            "1.052033\u{d7}10\u{2070}\u{b3}"
        );
        assert_eq!(
            run("%e", vec![2.71828.into()], V1).unwrap(),
            "2.718280\u{d7}10\u{2070}\u{2070}"
        );
        // Kubernetes' own table: '%e'.format([3.14]) == '3.140000×10⁰⁰'.
        assert_eq!(
            run("%e", vec![3.14.into()], V1).unwrap(),
            "3.140000\u{d7}10\u{2070}\u{2070}"
        );
        assert_eq!(
            run("%e", vec![0.00012.into()], V1).unwrap(),
            "1.200000\u{d7}10\u{207b}\u{2070}\u{2074}"
        );
        assert_eq!(run("%s", vec![56.8.into()], V1).unwrap(), "56.8");
        assert_eq!(run("%e", vec![f64::NAN.into()], V1).unwrap(), "   NaN");
        assert_eq!(
            run("%.2e", vec![f64::INFINITY.into()], V1).unwrap(),
            " \u{221e}"
        );
        let list = Value::list(vec![
            "abc".into(),
            3.14.into(),
            Value::Null,
            Value::Timestamp(Timestamp {
                seconds: 1_675_467_080,
                nanos: 0,
                offset_secs: 0,
            }),
            f64::INFINITY.into(),
        ]);
        assert_eq!(
            run("%s", vec![list], V1).unwrap(),
            "[\"abc\", 3.140000, null, timestamp(\"2023-02-03T23:31:20Z\"), \"+Inf\"]"
        );
        let m = map(vec![
            (Key::from("key1"), Value::bytes(&b"xyz"[..])),
            (
                Key::from("key2"),
                Value::Duration(Duration {
                    nanos: 7_200_000_000_000,
                }),
            ),
            (Key::Int(1), 2.71828.into()),
        ]);
        assert_eq!(
            run("%s", vec![m], V1).unwrap(),
            "{\"key1\":b\"xyz\", \"key2\":duration(\"7200s\"), 1:2.718280}"
        );
    }

    #[test]
    fn compile_time_validation() {
        use crate::types::Type;
        assert_eq!(validate_format("%d and %s%%", 2, V1).unwrap(), b"ds");
        assert_eq!(
            validate_format("%d %d", 1, V1).unwrap_err(),
            "index 1 out of range"
        );
        assert_eq!(
            validate_format("%a", 1, V1).unwrap_err(),
            "could not parse formatting clause: unrecognized formatting clause \"a\""
        );
        assert_eq!(
            clause_type_error(Formatter::V1, b'd', &Type::String).unwrap(),
            "error during formatting: decimal clause can only be used on integers, was given string"
        );
        assert!(clause_type_error(Formatter::V2, b'd', &Type::Double).is_none());
        assert!(clause_type_error(Formatter::V1, b'f', &Type::String).is_none());
        assert!(clause_type_error(Formatter::V1, b's', &Type::list(Type::Int)).is_none());
        assert!(clause_type_error(Formatter::V1, b'x', &Type::Dyn).is_none());
    }

    #[test]
    fn v1_errors() {
        assert_eq!(
            run("%d", vec![Value::Duration(Duration { nanos: 1 })], V1).unwrap_err(),
            "error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration"
        );
        assert_eq!(
            run("%f", vec![Value::Null], V1).unwrap_err(),
            "error during formatting: fixed-point clause can only be used on doubles, was given null_type"
        );
        assert_eq!(
            run("%s", vec![Value::list(vec![Value::optional_none()])], V1).unwrap_err(),
            "error during formatting: no formatting function for optional_type"
        );
    }
}
