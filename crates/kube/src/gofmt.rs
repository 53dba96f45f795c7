//! Go's textual forms of numbers and strings, where Kubernetes' output depends on them.
//!
//! * [`format_float`]: `strconv.FormatFloat(f, 'g', -1, bits)`, `fmt`'s `%v` and
//!   `encoding/json` for floats (shortest round-trip digits; exponent form outside a range
//!   of exponents, see [`FloatStyle`]).
//! * [`quote`]: `strconv.Quote` / `%q` for strings.
//!
//! Both are the engine's ([`cel::library::ext::gofmt`]), re-exported here.

pub use cel::library::ext::gofmt::{FloatStyle, format_float, quote};
