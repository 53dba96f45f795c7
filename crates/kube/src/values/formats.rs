//! String formats CEL sees as other types: `duration`, `date`, `date-time`, `byte`
//! (Kubernetes `apiserver/pkg/cel/common/values.go`, with kube-openapi `strfmt` parsing).

use base64::Engine;
use cel::value::{Duration, Timestamp};

/// `format: duration`: Go's `time.ParseDuration`, then strfmt's lenient form (`3 days`).
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    if let Some(nanos) = go_parse_duration(s) {
        return Ok(Duration { nanos });
    }
    lenient_duration(s)
        .map(|nanos| Duration { nanos })
        .ok_or_else(|| format!("unable to parse {s} as duration"))
}

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or `0`; units ns, us, µs, μs,
/// ms, s, m, h. `None` on any error (including overflow).
pub fn go_parse_duration(s: &str) -> Option<i64> {
    let (negative, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let int_end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let int_part = &rest[..int_end];
        rest = &rest[int_end..];
        let mut frac_part = "";
        if let Some(r) = rest.strip_prefix('.') {
            let frac_end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            frac_part = &r[..frac_end];
            rest = &r[frac_end..];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let unit_end = rest
            .find(|c: char| c == '.' || c.is_ascii_digit())
            .unwrap_or(rest.len());
        let unit = &rest[..unit_end];
        rest = &rest[unit_end..];
        let scale: u64 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        let whole: u64 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().ok()?
        };
        let mut v = whole.checked_mul(scale)?;
        if !frac_part.is_empty() {
            // Go accumulates up to 19 significant fraction digits, then scales and truncates.
            let mut f: u64 = 0;
            let mut div: f64 = 1.0;
            for d in frac_part.bytes().take(19) {
                f = f * 10 + u64::from(d - b'0');
                div *= 10.0;
            }
            v = v.checked_add((f as f64 * (scale as f64 / div)) as u64)?;
        }
        total = total.checked_add(v)?;
        if total > 1u64 << 63 {
            return None;
        }
    }
    if negative {
        Some((total as i64).wrapping_neg())
    } else if total > i64::MAX as u64 {
        None
    } else {
        Some(total as i64)
    }
}

/// strfmt's fallback: every `<digits><spaces><letters>` in the text adds `digits × unit`, where
/// the unit is one of ns/nano, us/µs/micro, ms/milli, s/sec, m/min, h/hr/hour, d/day,
/// w/wk/week (case-insensitive; the long form also matches as a prefix: `seconds`, `days`).
fn lenient_duration(s: &str) -> Option<i64> {
    const UNITS: [(&[&str], i64); 8] = [
        (&["ns", "nano"], 1),
        (&["us", "µs", "micro"], 1_000),
        (&["ms", "milli"], 1_000_000),
        (&["s", "sec"], 1_000_000_000),
        (&["m", "min"], 60_000_000_000),
        (&["h", "hr", "hour"], 3_600_000_000_000),
        (&["d", "day"], 86_400_000_000_000),
        (&["w", "wk", "week"], 604_800_000_000_000),
    ];
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut total: i64 = 0;
    let mut ok = false;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let digits: String = chars[start..i].iter().collect();
        let mut j = i;
        while j < chars.len() && chars[j].is_whitespace() {
            j += 1;
        }
        let unit_start = j;
        while j < chars.len() && (chars[j].is_ascii_alphabetic() || chars[j] == 'µ') {
            j += 1;
        }
        if j == unit_start {
            continue;
        }
        // Go's strconv.Atoi: an out-of-range factor is an error.
        let factor: i64 = digits.parse().ok()?;
        let unit: String = chars[unit_start..j]
            .iter()
            .collect::<String>()
            .to_lowercase();
        for (variants, mult) in UNITS {
            let last = variants.len() - 1;
            for (k, v) in variants.iter().enumerate() {
                if (k == last && unit.starts_with(v)) || unit.eq_ignore_ascii_case(v) {
                    ok = true;
                    total = total.wrapping_add(factor.wrapping_mul(mult));
                }
            }
        }
        i = j;
    }
    ok.then_some(total)
}

/// `format: date`: `YYYY-MM-DD` (Go layout `2006-01-02`), UTC midnight.
pub(crate) fn parse_date(s: &str) -> Result<Timestamp, String> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<i32> {
        let part = s.get(r)?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let parsed = (b.len() == 10 && b[4] == b'-' && b[7] == b'-')
        .then(|| Some((digits(0..4)?, digits(5..7)?, digits(8..10)?)))
        .flatten();
    let Some((y, m, d)) = parsed else {
        return Err(format!(
            "parsing time {:?} as \"2006-01-02\": cannot parse",
            s
        ));
    };
    let date = jiff::civil::Date::new(y as i16, m as i8, d as i8).map_err(|e| e.to_string())?;
    let ts = date
        .to_zoned(jiff::tz::TimeZone::UTC)
        .map_err(|e| e.to_string())?
        .timestamp();
    Ok(Timestamp {
        seconds: ts.as_second(),
        nanos: ts.subsec_nanosecond().max(0) as u32,
        offset_secs: 0,
    })
}

/// `format: date-time`: an RFC 3339 timestamp. The value keeps the text's
/// UTC offset, as the `time.Time` Kubernetes parses does (`string()` of it
/// prints `2011-08-18T19:03:37.01+01:00`).
pub(crate) fn parse_date_time(s: &str) -> Result<Timestamp, String> {
    let ts: jiff::Timestamp = s.parse().map_err(|e: jiff::Error| e.to_string())?;
    let offset = jiff::fmt::temporal::Pieces::parse(s)
        .ok()
        .and_then(|p| p.offset())
        .map_or(0, |o| o.to_numeric_offset().seconds());
    Ok(Timestamp {
        seconds: ts.as_second(),
        nanos: ts.subsec_nanosecond().max(0) as u32,
        offset_secs: 0,
    }
    .with_offset(offset))
}

/// `format: byte`: standard base64 with padding.
pub(crate) fn parse_byte(s: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(
            parse_duration("1h30m").map(|d| d.nanos),
            Ok(5_400_000_000_000)
        );
        assert_eq!(parse_duration("-1.5s").map(|d| d.nanos), Ok(-1_500_000_000));
        assert_eq!(parse_duration("0").map(|d| d.nanos), Ok(0));
        assert_eq!(
            parse_duration("3 days").map(|d| d.nanos),
            Ok(3 * 86_400_000_000_000)
        );
        assert_eq!(
            parse_duration("2 Seconds").map(|d| d.nanos),
            Ok(2_000_000_000)
        );
        assert_eq!(
            parse_duration("P1D").map(|d| d.nanos),
            Ok(86_400_000_000_000)
        );
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("1 fortnight").is_err());
        assert!(parse_duration("abc").is_err());
        assert_eq!(go_parse_duration("9999999999999h"), None);
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("1970-01-02").map(|t| t.seconds), Ok(86_400));
        assert!(parse_date("2020-02-30").is_err());
        assert!(parse_date("2020-1-1").is_err());
        assert_eq!(
            parse_date_time("1970-01-01T00:00:01.5Z").map(|t| (t.seconds, t.nanos)),
            Ok((1, 500_000_000))
        );
        assert_eq!(
            parse_date_time("1970-01-01T01:00:00+01:00").map(|t| t.seconds),
            Ok(0)
        );
        // The offset is kept for printing, as Go's time.Time keeps it.
        let t = parse_date_time("2011-08-18T19:03:37.01+01:00").unwrap();
        assert_eq!(t.offset_secs, 3600);
        assert_eq!(t.to_string(), "2011-08-18T19:03:37.01+01:00");
        let t = parse_date_time("2011-08-18T19:03:37-00:30").unwrap();
        assert_eq!(t.to_string(), "2011-08-18T19:03:37-00:30");
        assert_eq!(
            parse_date_time("2011-08-18T19:03:37Z").unwrap().offset_secs,
            0
        );
        assert!(parse_date_time("1970-01-01").is_err());
    }

    #[test]
    fn bytes() {
        assert_eq!(parse_byte("aGVsbG8="), Ok(b"hello".to_vec()));
        assert!(parse_byte("aGVsbG8").is_err());
    }
}
