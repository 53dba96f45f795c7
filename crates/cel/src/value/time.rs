//! Timestamps and durations: representation, parsing, printing, arithmetic
//! and calendar accessors, with cel-go's ranges and error texts.
//!
//! * Timestamps are instants in the years 1 to 9999 (UTC seconds since the
//!   Unix epoch plus nanoseconds) that remember the UTC offset they were
//!   parsed with, as Go's `time.Time` keeps its location. They parse from
//!   RFC 3339 text as Go's `time.Parse(time.RFC3339, s)` does and print as
//!   Go's `time.RFC3339Nano` in that offset (trailing zeros of the fraction
//!   dropped, `Z` for a zero offset). Equality, ordering and hashing compare
//!   the instant only.
//! * Durations are signed nanosecond counts with the range of Go's
//!   `time.Duration`. They parse as Go's `time.ParseDuration` (`1h30m`, `1.5s`,
//!   `-300ms`, `2us`, `2µs`, `10ns`) and print as cel-go's `string(duration)`:
//!   the seconds as the shortest decimal, followed by `s` (`5400s`, `1.5s`).

use std::fmt;

use crate::error::{EvalError, EvalResult};

/// A point in time with nanosecond precision: UTC seconds since the Unix
/// epoch and nanoseconds within the second. CEL's range is the years 1 to 9999.
///
/// `offset_secs` is the UTC offset the value was written with
/// (`2011-08-18T19:03:37+01:00` keeps `3600`), which only its printed form
/// shows: equality, ordering and hashing ignore it, as cel-go compares
/// `time.Time` instants.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timestamp {
    /// Seconds since the Unix epoch.
    pub seconds: i64,
    /// Always in `0..1_000_000_000`.
    pub nanos: u32,
    /// Seconds east of UTC, within ±24 hours; 0 prints as `Z`.
    pub offset_secs: i32,
}

impl PartialEq for Timestamp {
    fn eq(&self, other: &Self) -> bool {
        (self.seconds, self.nanos) == (other.seconds, other.nanos)
    }
}

impl Eq for Timestamp {}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.seconds, self.nanos).cmp(&(other.seconds, other.nanos))
    }
}

impl std::hash::Hash for Timestamp {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.seconds, self.nanos).hash(state);
    }
}

/// A signed span of time in nanoseconds, with the range of Go's
/// `time.Duration` (about ±292 years), as cel-go has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    /// The span in nanoseconds.
    pub nanos: i64,
}

const NANOS_PER_SEC: i64 = 1_000_000_000;

/// cel-go's error for results outside the timestamp range.
pub(crate) fn timestamp_overflow() -> EvalError {
    EvalError::msg("timestamp overflow")
}

fn int_overflow() -> EvalError {
    EvalError::msg("integer overflow")
}

impl Timestamp {
    /// Seconds of 0001-01-01T00:00:00Z.
    pub const MIN_SECONDS: i64 = -62_135_596_800;
    /// Seconds of 9999-12-31T23:59:59Z.
    pub const MAX_SECONDS: i64 = 253_402_300_799;

    /// A timestamp, checked against CEL's range (`timestamp overflow`).
    pub fn new(seconds: i64, nanos: u32) -> EvalResult<Timestamp> {
        if !(Self::MIN_SECONDS..=Self::MAX_SECONDS).contains(&seconds) || nanos >= 1_000_000_000 {
            return Err(timestamp_overflow());
        }
        Ok(Timestamp {
            seconds,
            nanos,
            offset_secs: 0,
        })
    }

    /// Parses RFC 3339 text as Go's `time.Parse(time.RFC3339, s)` and checks
    /// the range; the value keeps the text's UTC offset.
    pub fn parse(s: &str) -> EvalResult<Timestamp> {
        let (seconds, nanos, offset) = parse_rfc3339(s).map_err(EvalError::msg)?;
        Ok(Timestamp::new(seconds, nanos)?.with_offset(offset))
    }

    /// The same instant written with UTC offset `offset_secs` (clamped to
    /// less than a day either way).
    pub fn with_offset(self, offset_secs: i32) -> Timestamp {
        Timestamp {
            offset_secs: offset_secs.clamp(-86_399, 86_399),
            ..self
        }
    }

    /// The same instant in UTC (Go's `t.UTC()`).
    pub fn utc(self) -> Timestamp {
        self.with_offset(0)
    }

    /// `self + d`, with cel-go's overflow checks.
    pub fn add_duration(self, d: Duration) -> EvalResult<Timestamp> {
        let mut sec = self
            .seconds
            .checked_add(d.nanos / NANOS_PER_SEC)
            .ok_or_else(int_overflow)?;
        let mut nsec = self.nanos as i64 + d.nanos % NANOS_PER_SEC;
        if nsec < 0 {
            sec = sec.checked_sub(1).ok_or_else(int_overflow)?;
            nsec += NANOS_PER_SEC;
        } else if nsec >= NANOS_PER_SEC {
            sec = sec.checked_add(1).ok_or_else(int_overflow)?;
            nsec -= NANOS_PER_SEC;
        }
        // Go's `t.Add(d)` keeps the location.
        Ok(Timestamp::new(sec, nsec as u32)?.with_offset(self.offset_secs))
    }

    /// `self - d`.
    pub fn sub_duration(self, d: Duration) -> EvalResult<Timestamp> {
        let neg = d.nanos.checked_neg().ok_or_else(int_overflow)?;
        self.add_duration(Duration { nanos: neg })
    }

    /// `self - other` as a duration (`integer overflow` past Go's duration range).
    pub fn difference(self, other: Timestamp) -> EvalResult<Duration> {
        let sec = self.seconds - other.seconds; // both in range: cannot overflow
        let nsec = self.nanos as i64 - other.nanos as i64;
        let total = sec
            .checked_mul(NANOS_PER_SEC)
            .and_then(|s| s.checked_add(nsec))
            .ok_or_else(int_overflow)?;
        Ok(Duration { nanos: total })
    }

    /// The civil date and time of this instant in `tz` (`None`: UTC).
    pub fn civil(self, tz: Option<&str>) -> EvalResult<Civil> {
        self.civil_with(tz, true)
    }

    /// As [`Timestamp::civil`]; with `minutes_checked` false, the minutes of
    /// an offset `±HH:MM` may exceed 59 (cel-go before v0.29, 783267d0).
    pub fn civil_with(self, tz: Option<&str>, minutes_checked: bool) -> EvalResult<Civil> {
        let zone = match tz {
            None => jiff::tz::TimeZone::UTC,
            Some(name) => parse_time_zone(name, minutes_checked)?,
        };
        let ts = jiff::Timestamp::new(self.seconds, self.nanos as i32)
            .map_err(|_| timestamp_overflow())?;
        let z = ts.to_zoned(zone);
        Ok(Civil {
            year: z.year() as i64,
            month: z.month() as i64,
            day: z.day() as i64,
            day_of_year: z.day_of_year() as i64,
            day_of_week: z.weekday().to_sunday_zero_offset() as i64,
            hour: z.hour() as i64,
            minute: z.minute() as i64,
            second: z.second() as i64,
            nanos: z.subsec_nanosecond() as i64,
        })
    }
}

/// The calendar fields of a timestamp in some time zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Civil {
    /// The year.
    pub year: i64,
    /// 1-based.
    pub month: i64,
    /// 1-based.
    pub day: i64,
    /// 1-based.
    pub day_of_year: i64,
    /// 0 = Sunday.
    pub day_of_week: i64,
    /// 0 to 23.
    pub hour: i64,
    /// 0 to 59.
    pub minute: i64,
    /// 0 to 59.
    pub second: i64,
    /// 0 to 999,999,999.
    pub nanos: i64,
}

/// Resolves a time zone argument as cel-go does: without a `:` it is an IANA
/// name (`UTC`, `America/New_York`); with one it is an offset `[+-]HH:MM`
/// (the sign is optional); minutes past 59 fail when `minutes_checked`.
fn parse_time_zone(name: &str, minutes_checked: bool) -> EvalResult<jiff::tz::TimeZone> {
    match name.find(':') {
        None => {
            if name.is_empty() || name == "UTC" {
                return Ok(jiff::tz::TimeZone::UTC);
            }
            if name == "Local" {
                return Ok(jiff::tz::TimeZone::system());
            }
            jiff::tz::TimeZone::get(name)
                .map_err(|_| EvalError::msg(format!("unknown time zone {name}")))
        }
        Some(i) => {
            let hr = go_atoi(&name[..i])?;
            let min = go_atoi(&name[i + 1..])?;
            if minutes_checked && !(0..=59).contains(&min) {
                return Err(EvalError::msg(format!(
                    "timezone offset minutes out of range [0, 59]: {name}"
                )));
            }
            let offset = if name.starts_with('-') {
                hr * 60 - min
            } else {
                hr * 60 + min
            };
            let secs = offset.checked_mul(60).and_then(|s| i32::try_from(s).ok());
            let off = secs
                .and_then(|s| jiff::tz::Offset::from_seconds(s).ok())
                .ok_or_else(|| EvalError::msg(format!("unsupported time zone offset {name}")))?;
            Ok(jiff::tz::TimeZone::fixed(off))
        }
    }
}

/// Go's `strconv.Atoi`, with its error text.
fn go_atoi(s: &str) -> EvalResult<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(EvalError::msg(format!(
            "strconv.Atoi: parsing {s:?}: invalid syntax"
        )));
    }
    s.parse::<i64>()
        .map_err(|_| EvalError::msg(format!("strconv.Atoi: parsing {s:?}: value out of range")))
}

const RFC3339: &str = "2006-01-02T15:04:05Z07:00";

/// Parses Go's RFC 3339 layout, returning (seconds since epoch, nanos, UTC
/// offset in seconds).
fn parse_rfc3339(s: &str) -> Result<(i64, u32, i32), String> {
    let b = s.as_bytes();
    let err = |rest: &str, elem: &str| {
        format!("parsing time {s:?} as {RFC3339:?}: cannot parse {rest:?} as {elem:?}")
    };
    let rest_at = |i: usize| s.get(i..).unwrap_or("");
    let num = |i: usize, n: usize, elem: &str| -> Result<i64, String> {
        match b.get(i..i + n) {
            Some(d) if d.iter().all(u8::is_ascii_digit) => {
                Ok(d.iter().fold(0i64, |a, c| a * 10 + (c - b'0') as i64))
            }
            _ => Err(err(rest_at(i), elem)),
        }
    };
    let lit = |i: usize, c: u8, elem: &str| -> Result<(), String> {
        if b.get(i) == Some(&c) {
            Ok(())
        } else {
            Err(err(rest_at(i), elem))
        }
    };
    let year = num(0, 4, "2006")?;
    lit(4, b'-', "-")?;
    let month = num(5, 2, "01")?;
    lit(7, b'-', "-")?;
    let day = num(8, 2, "02")?;
    lit(10, b'T', "T")?;
    let hour = num(11, 2, "15")?;
    lit(13, b':', ":")?;
    let minute = num(14, 2, "04")?;
    lit(16, b':', ":")?;
    let second = num(17, 2, "05")?;
    let mut i = 19;
    let mut nanos: i64 = 0;
    if b.get(i) == Some(&b'.') || b.get(i) == Some(&b',') {
        let start = i + 1;
        let mut j = start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j == start {
            return Err(err(rest_at(i), "Z07:00"));
        }
        for (k, c) in b[start..j].iter().enumerate() {
            if k < 9 {
                nanos = nanos * 10 + (c - b'0') as i64;
            }
        }
        for _ in (j - start)..9 {
            nanos *= 10;
        }
        i = j;
    }
    let offset_secs = match b.get(i) {
        Some(b'Z') => {
            i += 1;
            0
        }
        Some(&c @ (b'+' | b'-')) => {
            let oh = num(i + 1, 2, "Z07:00")?;
            lit(i + 3, b':', "Z07:00")?;
            let om = num(i + 4, 2, "Z07:00")?;
            i += 6;
            let o = oh * 3600 + om * 60;
            if c == b'-' { -o } else { o }
        }
        _ => return Err(err(rest_at(i), "Z07:00")),
    };
    if i != b.len() {
        return Err(format!("parsing time {s:?}: extra text: {:?}", rest_at(i)));
    }
    let range_err = |what: &str| format!("parsing time {s:?}: {what} out of range");
    if !(1..=12).contains(&month) {
        return Err(range_err("month"));
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err(range_err("day"));
    }
    if hour > 23 {
        return Err(range_err("hour"));
    }
    if minute > 59 {
        return Err(range_err("minute"));
    }
    if second > 59 {
        return Err(range_err("second"));
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_secs;
    // |offset_secs| < 100 hours: fits an i32.
    Ok((secs, nanos as u32, offset_secs as i32))
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

impl fmt::Display for Timestamp {
    /// Go's `time.RFC3339Nano` in the value's offset:
    /// `2009-02-13T23:31:30.5Z`, `2011-08-18T19:03:37.01+01:00`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let local = self.seconds.saturating_add(i64::from(self.offset_secs));
        let days = local.div_euclid(86_400);
        let rem = local.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
            rem / 3600,
            rem % 3600 / 60,
            rem % 60
        )?;
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            write!(f, ".{}", frac.trim_end_matches('0'))?;
        }
        if self.offset_secs == 0 {
            return f.write_str("Z");
        }
        // Go's `Z07:00`: sign, hours and minutes (seconds are dropped).
        let zone = self.offset_secs / 60;
        let sign = if zone < 0 { '-' } else { '+' };
        let minutes = zone.unsigned_abs();
        write!(f, "{sign}{:02}:{:02}", minutes / 60, minutes % 60)
    }
}

impl Duration {
    /// The shortest duration (Go's `math.MinInt64` nanoseconds).
    pub const MIN: Duration = Duration { nanos: i64::MIN };
    /// The longest duration (Go's `math.MaxInt64` nanoseconds).
    pub const MAX: Duration = Duration { nanos: i64::MAX };

    /// A duration of `nanos` nanoseconds.
    pub fn from_nanos(nanos: i64) -> Self {
        Duration { nanos }
    }

    /// Parses Go's duration syntax (`time.ParseDuration`), with its error texts.
    pub fn parse(s: &str) -> EvalResult<Duration> {
        parse_go_duration(s)
            .map(Duration::from_nanos)
            .map_err(EvalError::msg)
    }

    /// Whole hours, truncated toward zero.
    pub fn hours(self) -> i64 {
        self.nanos / (3600 * NANOS_PER_SEC)
    }

    /// Whole minutes, truncated toward zero.
    pub fn minutes(self) -> i64 {
        self.nanos / (60 * NANOS_PER_SEC)
    }

    /// Whole seconds, truncated toward zero.
    pub fn seconds(self) -> i64 {
        self.nanos / NANOS_PER_SEC
    }

    /// The milliseconds within the second (cel-go's `getMilliseconds`).
    pub fn milliseconds(self) -> i64 {
        self.nanos % NANOS_PER_SEC / 1_000_000
    }
}

impl fmt::Display for Duration {
    /// cel-go's `string(duration)`: Go's `FormatFloat(d.Seconds(), 'f', -1, 64) + "s"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Go's Seconds(): sec + nsec/1e9 computed in float64.
        let sec = self.nanos / NANOS_PER_SEC;
        let nsec = self.nanos % NANOS_PER_SEC;
        let secs = sec as f64 + nsec as f64 / 1e9;
        // Rust's Display for f64 prints the shortest round-trip decimal without
        // an exponent, as Go's 'f' format with precision -1 does.
        write!(f, "{secs}s")
    }
}

/// Go's `time.ParseDuration`.
fn parse_go_duration(orig: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {orig:?}");
    let mut s = orig;
    let mut neg = false;
    if let Some(r) = s.strip_prefix('-') {
        neg = true;
        s = r;
    } else if let Some(r) = s.strip_prefix('+') {
        s = r;
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        let b = s.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return Err(invalid());
        }
        // Integer part.
        let mut i = 0;
        let mut v: u64 = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add((b[i] - b'0') as u64))
                .filter(|v| *v <= 1 << 63)
                .ok_or_else(invalid)?;
            i += 1;
        }
        let pre = i != 0;
        // Fraction.
        let mut f: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut post = false;
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let start = i;
            let mut overflow = false;
            while i < b.len() && b[i].is_ascii_digit() {
                if !overflow {
                    match f
                        .checked_mul(10)
                        .and_then(|x| x.checked_add((b[i] - b'0') as u64))
                    {
                        Some(x) if x <= 1 << 63 => {
                            f = x;
                            scale *= 10.0;
                        }
                        _ => overflow = true,
                    }
                }
                i += 1;
            }
            post = i != start;
        }
        if !pre && !post {
            return Err(invalid());
        }
        // Unit.
        let ustart = i;
        while i < b.len() && b[i] != b'.' && !b[i].is_ascii_digit() {
            i += 1;
        }
        if ustart == i {
            return Err(format!("time: missing unit in duration {orig:?}"));
        }
        let unit_str = &s[ustart..i];
        let unit: u64 = match unit_str {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {unit_str:?} in duration {orig:?}"
                ));
            }
        };
        if v > (1u64 << 63) / unit {
            return Err(invalid());
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > 1 << 63 {
                return Err(invalid());
            }
        }
        total = total
            .checked_add(v)
            .filter(|t| *t <= 1 << 63)
            .ok_or_else(invalid)?;
        s = &s[i..];
    }
    if neg {
        return Ok((total as i128).wrapping_neg() as i64);
    }
    if total > i64::MAX as u64 {
        return Err(invalid());
    }
    Ok(total as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_and_print() {
        let t = Timestamp::parse("2009-02-13T23:31:30Z").unwrap();
        assert_eq!(t.seconds, 1_234_567_890);
        assert_eq!(t.to_string(), "2009-02-13T23:31:30Z");
        let t = Timestamp::parse("9999-12-31T23:59:59.999999999Z").unwrap();
        assert_eq!(t.to_string(), "9999-12-31T23:59:59.999999999Z");
        // The offset is kept for printing (Go's time.Time keeps its
        // location), not for comparing.
        let t = Timestamp::parse("2009-02-13T23:31:30.5+01:00").unwrap();
        assert_eq!(t.to_string(), "2009-02-13T23:31:30.5+01:00");
        assert_eq!(t.utc().to_string(), "2009-02-13T22:31:30.5Z");
        assert_eq!(t, Timestamp::parse("2009-02-13T22:31:30.5Z").unwrap());
        let later = Timestamp::parse("2009-02-13T22:31:31Z").unwrap();
        assert!(t < later);
        let t = Timestamp::parse("2009-02-13T00:10:00-05:30").unwrap();
        assert_eq!(t.to_string(), "2009-02-13T00:10:00-05:30");
        let plus = t
            .add_duration(Duration::from_nanos(3_600_000_000_000))
            .unwrap();
        assert_eq!(plus.to_string(), "2009-02-13T01:10:00-05:30");
        assert_eq!(
            Timestamp::parse("2009-02-13T00:10:00+00:00")
                .unwrap()
                .to_string(),
            "2009-02-13T00:10:00Z"
        );
        assert_eq!(
            Timestamp::parse("0001-01-01T00:00:00Z").unwrap().seconds,
            Timestamp::MIN_SECONDS
        );
        assert!(Timestamp::parse("0000-01-01T00:00:00Z").is_err());
        assert!(Timestamp::parse("2009-02-30T00:00:00Z").is_err());
        let e = Timestamp::parse("abc").unwrap_err();
        assert_eq!(
            e.message(),
            r#"parsing time "abc" as "2006-01-02T15:04:05Z07:00": cannot parse "abc" as "2006""#
        );
    }

    #[test]
    fn timestamp_arithmetic_checks_range() {
        let t = Timestamp::parse("0001-01-01T00:00:01.000000001Z").unwrap();
        let u = t.add_duration(Duration::from_nanos(-999_999_999)).unwrap();
        assert_eq!(u.to_string(), "0001-01-01T00:00:00.000000002Z");
        let max = Timestamp::parse("9999-12-31T23:59:59.999999999Z").unwrap();
        assert_eq!(
            max.add_duration(Duration::from_nanos(1))
                .unwrap_err()
                .message(),
            "timestamp overflow"
        );
        let min = Timestamp::parse("0001-01-01T00:00:00Z").unwrap();
        assert!(max.difference(min).is_err());
    }

    #[test]
    fn durations_parse_and_print_like_go_and_cel_go() {
        let d = |s: &str| Duration::parse(s).unwrap().nanos;
        assert_eq!(d("1h30m"), 5_400_000_000_000);
        assert_eq!(d("1.5s"), 1_500_000_000);
        assert_eq!(d("-300ms"), -300_000_000);
        assert_eq!(d("2us"), 2_000);
        assert_eq!(d("2µs"), 2_000);
        assert_eq!(d("0"), 0);
        assert_eq!(d("-9223372036854775808ns"), i64::MIN);
        assert!(Duration::parse("9223372036854775808ns").is_err());
        assert!(Duration::parse("320000000000s").is_err());
        assert_eq!(
            Duration::parse("1").unwrap_err().message(),
            r#"time: missing unit in duration "1""#
        );
        assert_eq!(
            Duration::parse("1x").unwrap_err().message(),
            r#"time: unknown unit "x" in duration "1x""#
        );
        assert_eq!(
            Duration::parse("").unwrap_err().message(),
            r#"time: invalid duration """#
        );
        assert_eq!(Duration::from_nanos(5_400_000_000_000).to_string(), "5400s");
        assert_eq!(Duration::from_nanos(1_500_000_000).to_string(), "1.5s");
        assert_eq!(Duration::from_nanos(-1).to_string(), "-0.000000001s");
        assert_eq!(Duration::from_nanos(0).to_string(), "0s");
    }

    #[test]
    fn civil_fields_in_time_zones() {
        let t = Timestamp::parse("2009-02-13T23:31:30Z").unwrap();
        let c = t.civil(None).unwrap();
        assert_eq!(
            (c.year, c.month, c.day, c.day_of_year, c.day_of_week),
            (2009, 2, 13, 44, 5)
        );
        assert_eq!(t.civil(Some("Australia/Sydney")).unwrap().day, 14);
        assert_eq!(t.civil(Some("02:00")).unwrap().hour, 1);
        assert_eq!(t.civil(Some("-00:00")).unwrap().second, 30);
        assert_eq!(t.civil(Some("Asia/Kathmandu")).unwrap().minute, 16);
        let t2 = Timestamp::parse("2009-02-13T02:00:00Z").unwrap();
        assert_eq!(t2.civil(Some("-02:30")).unwrap().day, 12);
        assert_eq!(t2.civil(Some("America/St_Johns")).unwrap().day, 12);
        assert_eq!(
            t.civil(Some("Mars/Olympus")).unwrap_err().message(),
            "unknown time zone Mars/Olympus"
        );
    }
}
