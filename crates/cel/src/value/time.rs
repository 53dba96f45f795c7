//! Timestamps and durations.

/// A point in time, UTC, with nanosecond precision: seconds since the Unix
/// epoch and nanoseconds within the second. CEL's range is the years 1 to 9999.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    pub seconds: i64,
    /// Always in `0..1_000_000_000`.
    pub nanos: u32,
}

/// A signed span of time in nanoseconds, with the range of Go's
/// `time.Duration` (about ±292 years), as cel-go has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    pub nanos: i64,
}

impl Timestamp {
    /// Seconds of 0001-01-01T00:00:00Z.
    pub const MIN_SECONDS: i64 = -62_135_596_800;
    /// Seconds of 9999-12-31T23:59:59Z.
    pub const MAX_SECONDS: i64 = 253_402_300_799;
}
