//! Go's `time.Parse(time.RFC3339, s)` errors, which `metav1.Time.UnmarshalJSON` returns for a
//! string that is not a time (Go's `time/format.go`: `parse`, `getnum`, `skip`,
//! `ParseError.Error`, `quote`).

/// The layout `time.RFC3339`.
const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";

/// Go's `time.quote`: ASCII printable runes as they are (`"` and `\` escaped), every byte of
/// other runes as `\xNN`.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c < ' ' || !c.is_ascii() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// Why parsing failed, borrowing from the value parsed.
enum Failure<'a> {
    /// `cannot parse <value> as <layout>`: the value's text from where the layout element
    /// `layout` did not match.
    Elem {
        layout: &'static str,
        value: &'a str,
    },
    /// A field out of its range (`month`, `day`, `time zone offset hour`, ...).
    OutOfRange(&'static str),
    /// Text after a complete time.
    ExtraText(&'a str),
}

fn digit(s: &[u8], i: usize) -> bool {
    s.get(i).is_some_and(u8::is_ascii_digit)
}

/// `getnum`: one or two digits (two when `fixed`).
fn getnum(s: &str, fixed: bool) -> Option<(u32, &str)> {
    let b = s.as_bytes();
    if !digit(b, 0) {
        return None;
    }
    if !digit(b, 1) {
        return (!fixed).then(|| (u32::from(b[0] - b'0'), &s[1..]));
    }
    Some((
        u32::from(b[0] - b'0') * 10 + u32::from(b[1] - b'0'),
        &s[2..],
    ))
}

fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn parse(value: &str) -> Result<(), Failure<'_>> {
    let range = |what: &'static str| Err(Failure::OutOfRange(what));
    let mut v = value;
    // The elements of RFC 3339, in order, each failing as Go's `parse` does.
    // Year: four characters, the first a digit, all digits.
    let b = v.as_bytes();
    if b.len() < 4 || !digit(b, 0) || !b[..4].iter().all(u8::is_ascii_digit) {
        return Err(Failure::Elem {
            layout: "2006",
            value: v,
        });
    }
    let year: i64 = v[..4].parse().unwrap_or(0);
    v = &v[4..];
    // `skip` the literal before a number of the layout, then `getnum` it; `range`: the values
    // allowed and the name its error gives (days are checked at the end).
    let mut field = |literal: &'static str,
                     layout: &'static str,
                     fixed: bool,
                     range: (u32, u32, &'static str)|
     -> Result<u32, Failure<'_>> {
        v = v.strip_prefix(literal).ok_or(Failure::Elem {
            layout: literal,
            value: v,
        })?;
        let (n, rest) = getnum(v, fixed).ok_or(Failure::Elem { layout, value: v })?;
        let (min, max, what) = range;
        if !(min..=max).contains(&n) {
            return Err(Failure::OutOfRange(what));
        }
        v = rest;
        Ok(n)
    };
    let month = field("-", "01", true, (1, 12, "month"))?;
    let day = field("-", "02", true, (0, 99, "day"))?;
    field("T", "15", false, (0, 23, "hour"))?;
    field(":", "04", true, (0, 59, "minute"))?;
    field(":", "05", true, (0, 59, "second"))?;
    // A fractional second the layout does not name: `.` or `,` then digits.
    let b = v.as_bytes();
    if b.len() >= 2 && (b[0] == b'.' || b[0] == b',') && digit(b, 1) {
        let n = 2 + b[2..].iter().take_while(|c| c.is_ascii_digit()).count();
        v = &v[n..];
    }
    // Zone: `Z`, or `±hh:mm`.
    if let Some(rest) = v.strip_prefix('Z') {
        v = rest;
    } else {
        let b = v.as_bytes();
        let bad = || Failure::Elem {
            layout: "Z07:00",
            value: v,
        };
        if b.len() < 6 || b[3] != b':' {
            return Err(bad());
        }
        // Two digits each (bytes: the zone may hold any text).
        let two = |i: usize| {
            (digit(b, i) && digit(b, i + 1))
                .then(|| u32::from(b[i] - b'0') * 10 + u32::from(b[i + 1] - b'0'))
        };
        let (hr, mm) = (two(1), two(4));
        // Range errors first, the later assignment winning, as `parse` reports them.
        if mm.is_some_and(|m| m > 60) {
            return range("time zone offset minute");
        }
        if hr.is_some_and(|h| h > 24) {
            return range("time zone offset hour");
        }
        if hr.is_none() || mm.is_none() {
            return Err(bad());
        }
        if b[0] != b'+' && b[0] != b'-' {
            return Err(bad());
        }
        v = &v[6..];
    }
    if !v.is_empty() {
        return Err(Failure::ExtraText(v));
    }
    if day < 1 || day > days_in(month, year) {
        return range("day");
    }
    Ok(())
}

/// An error of `time.Parse(time.RFC3339, value)` (Go's `time.ParseError`), printed as
/// `ParseError.Error` prints it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeParseError {
    /// The value's text from `elem` on does not match the layout element `layout`.
    #[error(
        "parsing time {} as {}: cannot parse {} as {}",
        quote(value),
        quote(LAYOUT),
        quote(elem),
        quote(layout)
    )]
    Element {
        /// The whole value parsed.
        value: String,
        /// The rest of the value where the layout element did not match.
        elem: String,
        /// The layout element (`2006`, `-`, `01`, `Z07:00`, ...).
        layout: &'static str,
    },
    /// A field out of its range.
    #[error("parsing time {}: {field} out of range", quote(value))]
    OutOfRange {
        /// The whole value parsed.
        value: String,
        /// The field as Go names it (`month`, `day`, `time zone offset hour`, ...).
        field: &'static str,
    },
    /// Text after a complete time.
    #[error("parsing time {}: extra text: {}", quote(value), quote(extra))]
    ExtraText {
        /// The whole value parsed.
        value: String,
        /// The text after the time.
        extra: String,
    },
}

/// The error of `time.Parse(time.RFC3339, value)`, if any.
pub fn parse_rfc3339(value: &str) -> Result<(), TimeParseError> {
    parse(value).map_err(|f| match f {
        Failure::Elem {
            layout,
            value: elem,
        } => TimeParseError::Element {
            value: value.to_string(),
            elem: elem.to_string(),
            layout,
        },
        Failure::OutOfRange(field) => TimeParseError::OutOfRange {
            value: value.to_string(),
            field,
        },
        Failure::ExtraText(extra) => TimeParseError::ExtraText {
            value: value.to_string(),
            extra: extra.to_string(),
        },
    })
}
