//! A port of Kubernetes' `resource.Quantity` (`k8s.io/apimachinery/pkg/api/resource`):
//! parsing, the two internal representations, canonical text and arithmetic.
//!
//! Kubernetes keeps a quantity either as a scaled `int64` (`value × 10^scale`) or,
//! when that cannot hold it exactly, as an arbitrary-precision decimal (`inf.Dec`:
//! `unscaled × 10^-scale`). Several observable results depend on which form a
//! quantity is in (`isInteger()` is false for any decimal-form quantity, and for an
//! int-form one with a negative scale, such as `1.0`), so both forms are kept here
//! exactly as Kubernetes builds them, including its overflow behaviour.
//!
//! One deliberate limit: an operation that would have to build a decimal with
//! more than [`MAX_DIGITS`] digits (Kubernetes would, slowly and with unbounded
//! memory, for inputs such as `1.0000000000000000001e2000000000`) fails with
//! [`QuantityError::TooLarge`] instead.

use std::cmp::Ordering;
use std::fmt;

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// The most decimal digits a computed decimal may have.
pub const MAX_DIGITS: u64 = 100_000;

/// The text of the pattern Kubernetes names in its format error.
const SPLIT_RE: &str = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/// Digits an int64 can always hold (Kubernetes' `maxInt64Factors`).
const MAX_INT64_FACTORS: i32 = 18;

/// Why a quantity could not be parsed or computed. `Display` gives Kubernetes' texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantityError {
    /// `ErrFormatWrong`.
    FormatWrong,
    /// `ErrNumeric`.
    Numeric,
    /// `ErrSuffix`.
    Suffix,
    /// The result would need more than [`MAX_DIGITS`] digits (kcel's own limit).
    TooLarge,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuantityError::FormatWrong => {
                write!(
                    f,
                    "quantities must match the regular expression '{SPLIT_RE}'"
                )
            }
            QuantityError::Numeric => f.write_str("unable to parse numeric part of quantity"),
            QuantityError::Suffix => f.write_str("unable to parse quantity's suffix"),
            QuantityError::TooLarge => {
                write!(f, "quantity needs more than {MAX_DIGITS} digits to compute")
            }
        }
    }
}

impl std::error::Error for QuantityError {}

/// How a quantity prints (`resource.Format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `12e6`.
    DecimalExponent,
    /// `12Mi`.
    BinarySI,
    /// `12M`.
    DecimalSI,
}

/// `value × 10^scale` (Kubernetes' `int64Amount`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int64Amount {
    /// The unscaled value.
    pub value: i64,
    /// The power of ten it is multiplied by.
    pub scale: i32,
}

/// `unscaled × 10^-scale` (an `inf.Dec`; note the scale's sign is the opposite
/// of [`Int64Amount`]'s, as in Go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dec {
    /// The unscaled value.
    pub unscaled: BigInt,
    /// The power of ten it is divided by.
    pub scale: i32,
}

/// The two representations.
#[derive(Clone, Debug)]
pub enum Amount {
    /// An `int64Amount`.
    Int(Int64Amount),
    /// An `inf.Dec`.
    Dec(Dec),
}

/// A Kubernetes quantity.
#[derive(Clone, Debug)]
pub struct Quantity {
    /// The amount.
    pub amount: Amount,
    /// The format it prints in (`DecimalExponent`, `BinarySI`, `DecimalSI`).
    pub format: Format,
    /// The parsed text, kept when it was already canonical (Kubernetes' `s`).
    cached: Option<Box<str>>,
}

// ---------------------------------------------------------------------------
// int64 helpers, with Go's overflow semantics
// ---------------------------------------------------------------------------

/// Go's `int64Add`: detects overflow only by the sign of the wrapped sum
/// (so `MinInt64 + MinInt64` yields 0, "successfully", as in Kubernetes).
fn int64_add(a: i64, b: i64) -> Option<i64> {
    let c = a.wrapping_add(b);
    if (a > 0 && b > 0 && c < 0) || (a < 0 && b < 0 && c > 0) {
        return None;
    }
    Some(c)
}

/// Go's `positiveScaleInt64`: `base × 10^scale`, `None` on overflow.
fn positive_scale_int64(base: i64, scale: i32) -> Option<i64> {
    if base == 0 {
        return Some(0);
    }
    let mut value = base;
    for _ in 0..scale.max(0) {
        if value == 0 || value == 1 {
            // Go's int64MultiplyScale short-cut; keeps multiplying 1 → 10 → ...
            value *= 10;
            continue;
        }
        value = value.checked_mul(10)?;
    }
    Some(value)
}

/// Go's `negativeScaleInt64`: divides by `10^scale` rounding away from zero
/// (up in magnitude) and says whether the result is exact.
fn negative_scale_int64(base: i64, scale: i32) -> (i64, bool) {
    if scale <= 0 {
        return (base, true);
    }
    let mut value = base;
    let mut fraction = false;
    for _ in 0..scale {
        if !fraction && value % 10 != 0 {
            fraction = true;
        }
        value /= 10;
        if value == 0 {
            if fraction {
                if base > 0 {
                    return (1, false);
                }
                return (-1, false);
            }
            return (0, true);
        }
    }
    if fraction {
        if base > 0 {
            value += 1;
        } else {
            value -= 1;
        }
    }
    (value, !fraction)
}

impl Int64Amount {
    fn sign(&self) -> i32 {
        self.value.signum() as i32
    }

    /// Go's `int64Amount.AsInt64`: exact only at scale ≥ 0.
    pub fn as_int64(&self) -> Option<i64> {
        match self.scale.cmp(&0) {
            Ordering::Equal => Some(self.value),
            Ordering::Less => None,
            Ordering::Greater => positive_scale_int64(self.value, self.scale),
        }
    }

    /// Go's `AsScaledInt64(scale)`: the value at `scale`, rounded up.
    fn as_scaled_int64(&self, scale: i32) -> Option<i64> {
        if self.scale < scale {
            let diff = scale.saturating_sub(self.scale);
            return Some(negative_scale_int64(self.value, diff).0);
        }
        positive_scale_int64(self.value, self.scale - scale)
    }

    /// The amount as an `inf.Dec` (`AsDec`).
    pub fn as_dec(&self) -> Dec {
        Dec {
            unscaled: BigInt::from(self.value),
            scale: self.scale.wrapping_neg(),
        }
    }

    /// Go's `int64Amount.Add`: `None` (and no change) on overflow.
    fn add(self, b: Int64Amount) -> Option<Int64Amount> {
        let a = self;
        if b.value == 0 {
            return Some(a);
        }
        if a.value == 0 {
            return Some(b);
        }
        match a.scale.cmp(&b.scale) {
            Ordering::Equal => Some(Int64Amount {
                value: int64_add(a.value, b.value)?,
                scale: a.scale,
            }),
            Ordering::Greater => {
                let c = positive_scale_int64(a.value, a.scale - b.scale)?;
                Some(Int64Amount {
                    value: int64_add(c, b.value)?,
                    scale: b.scale,
                })
            }
            Ordering::Less => {
                let c = positive_scale_int64(b.value, b.scale - a.scale)?;
                Some(Int64Amount {
                    value: int64_add(a.value, c)?,
                    scale: a.scale,
                })
            }
        }
    }

    /// Go's `int64Amount.Sub`: adds the negation, which wraps for `MinInt64`.
    fn sub(self, b: Int64Amount) -> Option<Int64Amount> {
        self.add(Int64Amount {
            value: b.value.wrapping_neg(),
            scale: b.scale,
        })
    }

    fn compare(&self, b: &Int64Amount) -> Result<Ordering, QuantityError> {
        if self.scale == b.scale {
            return Ok(self.value.cmp(&b.value));
        }
        let diff = (self.scale as i64 - b.scale as i64).unsigned_abs();
        if diff <= 18 {
            let f = 10i128.pow(diff as u32);
            let (x, y) = if self.scale > b.scale {
                (self.value as i128 * f, b.value as i128)
            } else {
                (self.value as i128, b.value as i128 * f)
            };
            return Ok(x.cmp(&y));
        }
        self.as_dec().compare(&b.as_dec())
    }
}

// ---------------------------------------------------------------------------
// Decimals
// ---------------------------------------------------------------------------

/// `10^n`, refusing sizes past [`MAX_DIGITS`].
fn pow10(n: u64) -> Result<BigInt, QuantityError> {
    if n > MAX_DIGITS {
        return Err(QuantityError::TooLarge);
    }
    Ok(num_traits::pow(BigInt::from(10u8), n as usize))
}

/// Number of decimal digits of a non-zero magnitude (exact).
fn digit_count(x: &BigInt) -> u64 {
    if x.is_zero() {
        return 0;
    }
    // bits·log10(2) is within one of the digit count; settle it exactly.
    let bits = x.bits();
    let estimate = ((bits.saturating_sub(1)) as f64 * std::f64::consts::LOG10_2).floor() as u64 + 1;
    match pow10(estimate) {
        Ok(p) if x.magnitude() >= p.magnitude() => estimate + 1,
        _ => estimate,
    }
}

impl Dec {
    /// -1, 0 or 1 (`Sign`).
    pub fn sign(&self) -> i32 {
        match self.unscaled.sign() {
            Sign::Minus => -1,
            Sign::NoSign => 0,
            Sign::Plus => 1,
        }
    }

    /// Rescales to a larger scale (more fractional digits) exactly.
    fn upscaled(&self, scale: i32) -> Result<BigInt, QuantityError> {
        let diff = (scale as i64 - self.scale as i64).max(0) as u64;
        if self.unscaled.is_zero() {
            return Ok(BigInt::zero());
        }
        Ok(&self.unscaled * pow10(diff)?)
    }

    /// Exact comparison; never builds huge numbers just to compare.
    pub fn compare(&self, other: &Dec) -> Result<Ordering, QuantityError> {
        let (sa, sb) = (self.sign(), other.sign());
        if sa != sb || sa == 0 {
            return Ok(sa.cmp(&sb));
        }
        // Same non-zero sign: compare magnitudes by their decimal exponent first.
        let ea = digit_count(&self.unscaled) as i64 - self.scale as i64;
        let eb = digit_count(&other.unscaled) as i64 - other.scale as i64;
        if ea != eb {
            let mag = ea.cmp(&eb);
            return Ok(if sa > 0 { mag } else { mag.reverse() });
        }
        let scale = self.scale.max(other.scale);
        Ok(self.upscaled(scale)?.cmp(&other.upscaled(scale)?))
    }

    /// `inf.Dec.Add`: the result has the larger scale.
    fn add(&self, other: &Dec) -> Result<Dec, QuantityError> {
        let scale = self.scale.max(other.scale);
        Ok(Dec {
            unscaled: self.upscaled(scale)? + other.upscaled(scale)?,
            scale,
        })
    }

    fn neg(&self) -> Dec {
        Dec {
            unscaled: -&self.unscaled,
            scale: self.scale,
        }
    }

    /// `inf.Dec.Round(x, scale, RoundUp)`: rounds away from zero to `scale`.
    fn round_up(&self, scale: i32) -> Result<Dec, QuantityError> {
        if scale >= self.scale {
            return Ok(Dec {
                unscaled: self.upscaled(scale)?,
                scale,
            });
        }
        let diff = (self.scale as i64 - scale as i64) as u64;
        if self.unscaled.is_zero() {
            return Ok(Dec {
                unscaled: BigInt::zero(),
                scale,
            });
        }
        // A magnitude below one unit of the target scale rounds to ±1 unit.
        if digit_count(&self.unscaled) < diff {
            let one = if self.sign() < 0 {
                -BigInt::one()
            } else {
                BigInt::one()
            };
            return Ok(Dec {
                unscaled: one,
                scale,
            });
        }
        let (q, r) = self.unscaled.div_rem(&pow10(diff)?);
        let q = if r.is_zero() {
            q
        } else if self.sign() < 0 {
            q - 1
        } else {
            q + 1
        };
        Ok(Dec { unscaled: q, scale })
    }

    fn as_f64_parts(&self) -> (f64, i64) {
        let base = self.unscaled.to_f64().unwrap_or(if self.sign() < 0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
        (base, -(self.scale as i64))
    }
}

/// Go's `math.Pow10`, reproduced through its tables so that results round the same.
pub fn go_pow10(n: i64) -> f64 {
    fn tab(k: u32) -> f64 {
        // 1e0 … 1e31 are exact or correctly rounded literals in Go's table.
        format!("1e{k}").parse().unwrap_or(f64::INFINITY)
    }
    if (0..=308).contains(&n) {
        let n = n as u32;
        let hi: f64 = format!("1e{}", (n / 32) * 32)
            .parse()
            .unwrap_or(f64::INFINITY);
        return hi * tab(n % 32);
    }
    if (-323..=0).contains(&n) {
        let m = (-n) as u32;
        let hi: f64 = format!("1e-{}", (m / 32) * 32).parse().unwrap_or(0.0);
        return hi / tab(m % 32);
    }
    if n > 0 { f64::INFINITY } else { 0.0 }
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

/// The pieces `parseQuantityString` extracts.
struct Scanned<'a> {
    positive: bool,
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// Kubernetes' `parseQuantityString` scanner.
fn scan(s: &str) -> Result<Scanned<'_>, QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut out = Scanned {
        positive: true,
        value: "",
        num: "",
        denom: "",
        suffix: "",
    };
    let mut pos = 0;
    if let Some(&c) = b.first() {
        if c == b'-' {
            out.positive = false;
            pos += 1;
        } else if c == b'+' {
            pos += 1;
        }
    }
    // Leading zeros.
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        out.num = "0";
        out.value = "0";
        return Ok(out);
    }
    // Numerator.
    let start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos >= end {
        out.num = &s[start..];
        out.value = s;
        return Ok(out);
    }
    out.num = &s[start..pos];
    if out.num.is_empty() {
        out.num = "0";
    }
    // Fraction.
    if b[pos] == b'.' {
        pos += 1;
        let dstart = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        if pos >= end {
            out.denom = &s[dstart..];
            out.value = s;
            return Ok(out);
        }
        out.denom = &s[dstart..pos];
    }
    out.value = &s[..pos];
    // Suffix: letters, then an optional sign and digits.
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(QuantityError::FormatWrong);
    }
    out.suffix = &s[suffix_start..];
    Ok(out)
}

/// Kubernetes' `suffixHandler.interpret`: (base, exponent, format).
fn interpret_suffix(s: &str) -> Option<(u32, i32, Format)> {
    let dec = match s {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = dec {
        return Some((10, e, Format::DecimalSI));
    }
    let bin = match s {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(e) = bin {
        return Some((2, e, Format::BinarySI));
    }
    let b = s.as_bytes();
    if b.len() > 1 && (b[0] == b'e' || b[0] == b'E') {
        // strconv.ParseInt(s[1:], 10, 64), then truncated to int32 as Go does.
        let parsed = go_parse_int64(&s[1..])?;
        return Some((10, parsed as i32, Format::DecimalExponent));
    }
    None
}

/// Go's `strconv.ParseInt(s, 10, 64)`: optional sign, ASCII digits, no overflow.
fn go_parse_int64(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut v: i128 = 0;
    for c in digits.bytes() {
        v = v * 10 + (c - b'0') as i128;
        if v > i64::MAX as i128 + 1 {
            return None;
        }
    }
    let v = if neg { -v } else { v };
    i64::try_from(v).ok()
}

/// Parses an `inf.Dec` literal as Kubernetes passes it (`value`: sign, digits,
/// optional `.` and digits).
fn parse_dec(value: &str) -> Result<Dec, QuantityError> {
    let (neg, rest) = match value.as_bytes().first() {
        Some(b'-') => (true, &value[1..]),
        Some(b'+') => (false, &value[1..]),
        _ => (false, value),
    };
    let (int_part, frac_part) = match rest.find('.') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(QuantityError::Numeric);
    }
    if (int_part.len() + frac_part.len()) as u64 > MAX_DIGITS {
        return Err(QuantityError::TooLarge);
    }
    let digits: String = int_part.chars().chain(frac_part.chars()).collect();
    let mut unscaled = if digits.is_empty() {
        BigInt::zero()
    } else {
        digits
            .parse::<BigInt>()
            .map_err(|_| QuantityError::Numeric)?
    };
    if neg {
        unscaled = -unscaled;
    }
    let scale = i32::try_from(frac_part.len()).map_err(|_| QuantityError::TooLarge)?;
    Ok(Dec { unscaled, scale })
}

impl Quantity {
    /// A quantity from an int64 (`resource.NewQuantity`).
    pub fn from_int(value: i64, format: Format) -> Quantity {
        Quantity {
            amount: Amount::Int(Int64Amount { value, scale: 0 }),
            format,
            cached: None,
        }
    }

    /// `resource.ParseQuantity`.
    pub fn parse(s: &str) -> Result<Quantity, QuantityError> {
        if s.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        if s == "0" {
            return Ok(Quantity {
                amount: Amount::Int(Int64Amount { value: 0, scale: 0 }),
                format: Format::DecimalSI,
                cached: Some(s.into()),
            });
        }
        let sc = scan(s)?;
        let (base, exponent, mut format) =
            interpret_suffix(sc.suffix).ok_or(QuantityError::Suffix)?;

        // Go does this in int32 arithmetic, wrapping included.
        let precision: i64;
        let mut scale: i32 = 0;
        let mut mantissa: i64 = 1;
        match format {
            Format::DecimalExponent | Format::DecimalSI => {
                scale = exponent;
                precision = MAX_INT64_FACTORS as i64 - (sc.num.len() + sc.denom.len()) as i64;
            }
            Format::BinarySI => {
                if exponent >= 0 && sc.denom.is_empty() {
                    mantissa = 1i64 << exponent;
                    precision = 15
                        - sc.num.len() as i64
                        - ((exponent as f32) * 3.0 / 10.0) as i32 as i64
                        - 1;
                } else {
                    precision = -1;
                }
            }
        }

        if precision >= 0 {
            scale = scale.wrapping_sub(sc.denom.len() as i32);
            if scale >= -9 {
                let shifted = format!("{}{}", sc.num, sc.denom);
                let value = go_parse_int64(&shifted).ok_or(QuantityError::Numeric)?;
                if let Some(result) = value.checked_mul(mantissa) {
                    let result = if sc.positive {
                        result
                    } else {
                        result.wrapping_neg()
                    };
                    let canonical = match format {
                        Format::BinarySI => exponent % 10 == 0 && (value & 0x07) != 0,
                        _ => {
                            scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
                        }
                    };
                    return Ok(Quantity {
                        amount: Amount::Int(Int64Amount {
                            value: result,
                            scale,
                        }),
                        format,
                        cached: canonical.then(|| s.into()),
                    });
                }
            }
        }

        let mut amount = parse_dec(sc.value)?;
        if base == 10 {
            // SetScale(scale + (-exponent)), in int32 arithmetic as inf does.
            amount.scale = amount.scale.wrapping_sub(exponent);
        } else {
            let factor = BigInt::one() << (exponent.max(0) as usize);
            amount.unscaled *= factor;
        }
        let sign = amount.sign();
        if sign < 0 {
            amount = amount.neg();
        }
        if !amount.unscaled.is_zero() {
            amount = amount.round_up(9)?;
        }
        let max_allowed = Dec {
            unscaled: BigInt::from(i64::MAX),
            scale: 0,
        };
        if format == Format::BinarySI && amount.compare(&max_allowed)? == Ordering::Greater {
            amount = max_allowed;
        }
        let one = Dec {
            unscaled: BigInt::one(),
            scale: 0,
        };
        if format == Format::BinarySI
            && amount.compare(&one)? == Ordering::Less
            && amount.sign() > 0
        {
            format = Format::DecimalSI;
        }
        if sign < 0 {
            amount = amount.neg();
        }
        Ok(Quantity {
            amount: Amount::Dec(amount),
            format,
            cached: None,
        })
    }

    /// True when in decimal (`inf.Dec`) form.
    pub fn is_dec(&self) -> bool {
        matches!(self.amount, Amount::Dec(_))
    }

    /// The same quantity moved to decimal form (`ToDec`).
    pub fn to_dec(&self) -> Quantity {
        match &self.amount {
            Amount::Dec(_) => self.clone(),
            Amount::Int(i) => Quantity {
                amount: Amount::Dec(i.as_dec()),
                format: self.format,
                cached: None,
            },
        }
    }

    fn as_dec(&self) -> Dec {
        match &self.amount {
            Amount::Dec(d) => d.clone(),
            Amount::Int(i) => i.as_dec(),
        }
    }

    /// Whether the amount is zero (`IsZero`).
    pub fn is_zero(&self) -> bool {
        self.sign() == 0
    }

    /// −1, 0 or 1.
    pub fn sign(&self) -> i32 {
        match &self.amount {
            Amount::Dec(d) => d.sign(),
            Amount::Int(i) => i.sign(),
        }
    }

    /// `AsInt64`: `None` for decimal form, and for int form that is not an exact
    /// int64 at scale 0 (negative scales always fail, even for `1.0`).
    pub fn as_int64(&self) -> Option<i64> {
        match &self.amount {
            Amount::Dec(_) => None,
            Amount::Int(i) => i.as_int64(),
        }
    }

    /// `AsApproximateFloat64`.
    pub fn as_approximate_f64(&self) -> f64 {
        let (base, exponent) = match &self.amount {
            Amount::Dec(d) => d.as_f64_parts(),
            Amount::Int(i) => (i.value as f64, i.scale as i64),
        };
        if exponent == 0 {
            return base;
        }
        base * go_pow10(exponent)
    }

    /// `Cmp`: exact ordering by value.
    pub fn compare(&self, other: &Quantity) -> Result<Ordering, QuantityError> {
        match (&self.amount, &other.amount) {
            (Amount::Int(a), Amount::Int(b)) => a.compare(b),
            _ => self.as_dec().compare(&other.as_dec()),
        }
    }

    /// `Add` on a copy: `self + y`, with Kubernetes' format rules.
    pub fn add(&self, y: &Quantity) -> Result<Quantity, QuantityError> {
        let mut format = self.format;
        if let (Amount::Int(a), Amount::Int(b)) = (&self.amount, &y.amount) {
            if a.value == 0 {
                format = y.format;
            }
            if let Some(sum) = a.add(*b) {
                return Ok(Quantity {
                    amount: Amount::Int(sum),
                    format,
                    cached: None,
                });
            }
        } else if self.is_zero() {
            format = y.format;
        }
        let sum = self.as_dec().add(&y.as_dec())?;
        Ok(Quantity {
            amount: Amount::Dec(sum),
            format,
            cached: None,
        })
    }

    /// `Sub` on a copy: `self − y`, with Kubernetes' format rules.
    pub fn sub(&self, y: &Quantity) -> Result<Quantity, QuantityError> {
        let format = if self.is_zero() {
            y.format
        } else {
            self.format
        };
        if let (Amount::Int(a), Amount::Int(b)) = (&self.amount, &y.amount) {
            if a.value == 0 && b.value == i64::MIN {
                // 0 − MinInt64 = −y, which Kubernetes computes in decimal form.
                let neg = Dec {
                    unscaled: -BigInt::from(b.value),
                    scale: b.scale.wrapping_neg(),
                };
                return Ok(Quantity {
                    amount: Amount::Dec(neg),
                    format,
                    cached: None,
                });
            }
            if let Some(diff) = a.sub(*b) {
                return Ok(Quantity {
                    amount: Amount::Int(diff),
                    format,
                    cached: None,
                });
            }
        }
        let diff = self.as_dec().add(&y.as_dec().neg())?;
        Ok(Quantity {
            amount: Amount::Dec(diff),
            format,
            cached: None,
        })
    }

    /// The canonical text (`String()`), e.g. `1500m`, `1536Mi`, `12e6`.
    pub fn canonical_string(&self) -> String {
        if let Some(s) = &self.cached {
            return s.to_string();
        }
        if self.is_zero() {
            return "0".to_string();
        }
        let mut format = self.format;
        let mut rounded: Option<Quantity> = None;
        if format == Format::BinarySI {
            let small = self.compare(&Quantity::from_int(-1024, format)).ok()
                == Some(Ordering::Greater)
                && self.compare(&Quantity::from_int(1024, format)).ok() == Some(Ordering::Less);
            if small {
                format = Format::DecimalSI;
            } else {
                match self.as_scale0() {
                    Some((r, true)) => rounded = Some(r),
                    _ => format = Format::DecimalSI,
                }
            }
        }
        match (format, rounded) {
            (Format::BinarySI, Some(r)) => {
                let (number, exponent) = r.canonical_base1024();
                let suffix = match exponent {
                    0 => "",
                    1 => "Ki",
                    2 => "Mi",
                    3 => "Gi",
                    4 => "Ti",
                    5 => "Pi",
                    6 => "Ei",
                    _ => "",
                };
                format!("{number}{suffix}")
            }
            _ => {
                let (number, exponent) = self.canonical_base10();
                let si = match exponent {
                    -9 => Some("n"),
                    -6 => Some("u"),
                    -3 => Some("m"),
                    0 => Some(""),
                    3 => Some("k"),
                    6 => Some("M"),
                    9 => Some("G"),
                    12 => Some("T"),
                    15 => Some("P"),
                    18 => Some("E"),
                    _ => None,
                };
                match (format, si) {
                    (Format::DecimalSI, Some(s)) => format!("{number}{s}"),
                    (_, _) if exponent == 0 => number,
                    _ => format!("{number}e{exponent}"),
                }
            }
        }
    }

    /// `AsScale(0)`: rounded up to an integer, and whether that was exact.
    fn as_scale0(&self) -> Option<(Quantity, bool)> {
        match &self.amount {
            Amount::Int(i) => {
                if i.scale >= 0 {
                    return Some((self.clone(), true));
                }
                let (v, exact) = negative_scale_int64(i.value, -i.scale);
                let q = Quantity {
                    amount: Amount::Int(Int64Amount { value: v, scale: 0 }),
                    format: self.format,
                    cached: None,
                };
                Some((q, exact))
            }
            Amount::Dec(d) => {
                let r = d.round_up(0).ok()?;
                let exact = r.compare(d).ok()? == Ordering::Equal;
                Some((
                    Quantity {
                        amount: Amount::Dec(r),
                        format: self.format,
                        cached: None,
                    },
                    exact,
                ))
            }
        }
    }

    /// Mantissa text and base-10 exponent (a multiple of 3).
    fn canonical_base10(&self) -> (String, i64) {
        let (mut amount, mut exponent) = match &self.amount {
            Amount::Int(i) => (BigInt::from(i.value), i.scale as i64),
            Amount::Dec(d) => (d.unscaled.clone(), -(d.scale as i64)),
        };
        let ten = BigInt::from(10u8);
        while !amount.is_zero() {
            let (q, r) = amount.div_rem(&ten);
            if !r.is_zero() {
                break;
            }
            amount = q;
            exponent += 1;
        }
        while exponent.rem_euclid(3) != 0 {
            amount *= &ten;
            exponent -= 1;
        }
        (amount.to_string(), exponent)
    }

    /// Mantissa text and base-1024 exponent of an integral quantity.
    fn canonical_base1024(&self) -> (String, i64) {
        let mut amount = match &self.amount {
            Amount::Int(i) => match i.as_scaled_int64(0) {
                Some(v) => BigInt::from(v),
                None => i
                    .as_dec()
                    .round_up(0)
                    .map(|d| d.unscaled)
                    .unwrap_or_default(),
            },
            Amount::Dec(d) => d.round_up(0).map(|d| d.unscaled).unwrap_or_default(),
        };
        let k = BigInt::from(1024u16);
        let mut exponent = 0;
        while !amount.is_zero() {
            let (q, r) = amount.div_rem(&k);
            if !r.is_zero() || amount.abs() < k {
                break;
            }
            amount = q;
            exponent += 1;
        }
        (amount.to_string(), exponent)
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn parse_errors_have_kubernetes_texts() {
        assert_eq!(
            Quantity::parse("10Mo").unwrap_err().to_string(),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert_eq!(Quantity::parse("10Mm").unwrap_err(), QuantityError::Suffix);
        assert_eq!(Quantity::parse("").unwrap_err(), QuantityError::FormatWrong);
        assert_eq!(Quantity::parse("1e").unwrap_err(), QuantityError::Suffix);
        assert_eq!(
            Quantity::parse("abc").unwrap_err(),
            QuantityError::FormatWrong
        );
        assert_eq!(
            Quantity::parse("1.2.3").unwrap_err(),
            QuantityError::FormatWrong
        );
    }

    #[test]
    fn canonical_forms() {
        for (input, want) in [
            ("12Mi", "12Mi"),
            ("1.5", "1500m"),
            ("1.5Gi", "1536Mi"),
            ("0", "0"),
            ("100m", "100m"),
            ("1000m", "1"),
            ("12e6", "12e6"),
            ("0.5Gi", "512Mi"),
            ("0.9n", "1n"),
            ("-1.5", "-1500m"),
            ("1024", "1024"),
            ("2048Ki", "2Mi"),
            ("1.2345", "1234500u"),
            ("8Ei", "9223372036854775807"),
        ] {
            assert_eq!(q(input).canonical_string(), want, "{input}");
        }
    }

    #[test]
    fn representation_drives_is_integer() {
        assert_eq!(q("50k").as_int64(), Some(50_000));
        assert_eq!(q("1.0").as_int64(), None);
        assert_eq!(q("9999999999999999999999999999999999999G").as_int64(), None);
        assert!(q("9999999999999999999999999999999999999G").is_dec());
        assert_eq!(q("-5").as_int64(), Some(-5));
    }

    #[test]
    fn arithmetic_and_comparison() {
        let sum = q("50k")
            .add(&Quantity::from_int(20, Format::DecimalExponent))
            .unwrap();
        assert_eq!(sum.as_int64(), Some(50_020));
        let d = sum.sub(&q("100k")).unwrap();
        assert_eq!(d.as_int64(), Some(-49_980));
        assert_eq!(q("200M").compare(&q("0.2G")).unwrap(), Ordering::Equal);
        assert_eq!(q("50M").compare(&q("50Mi")).unwrap(), Ordering::Less);
        assert_eq!(
            q("1e2000000000").compare(&q("1")).unwrap(),
            Ordering::Greater
        );
        assert_eq!(q("-1e2000000000").compare(&q("1")).unwrap(), Ordering::Less);
        let big = q("9999999999999999999999999999999999999");
        let a = big.add(&q("1")).unwrap();
        let b = big.add(&q("2")).unwrap();
        assert_eq!(a.compare(&b).unwrap(), Ordering::Less);
        // Overflow of the int form moves to decimal form.
        let m = Quantity::from_int(i64::MAX, Format::DecimalSI);
        assert!(
            m.add(&Quantity::from_int(1, Format::DecimalSI))
                .unwrap()
                .is_dec()
        );
    }

    #[test]
    fn approximate_float_follows_go() {
        assert_eq!(q("50.703k").as_approximate_f64(), 50703.0);
        assert_eq!(q("1m").as_approximate_f64(), 1.0 * go_pow10(-3));
        assert_eq!(go_pow10(400), f64::INFINITY);
        assert_eq!(go_pow10(-400), 0.0);
        assert_eq!(go_pow10(22), 1e22);
    }

    #[test]
    fn huge_inputs_are_refused_not_computed() {
        assert_eq!(
            Quantity::parse("1.0000000000000000001e2000000000").unwrap_err(),
            QuantityError::TooLarge
        );
        // Tiny values round up to one nano-unit without building 10^huge.
        assert_eq!(
            q("1.0000000000000000001e-2000000000").canonical_string(),
            "1e-9"
        );
    }
}
