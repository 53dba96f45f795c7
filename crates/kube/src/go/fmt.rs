//! Go's textual forms of numbers and strings, where Kubernetes' output depends on them.
//!
//! * [`format_float`]: `strconv.FormatFloat(f, 'g', -1, bits)`, `fmt`'s `%v` and
//!   `encoding/json` for floats (shortest round-trip digits; exponent form outside a range
//!   of exponents, see [`FloatStyle`]).
//! * [`quote`]: `strconv.Quote` / `%q` for strings.
//! * [`to_json_pretty`]: a document as indented JSON whose floats read as `encoding/json` writes
//!   them (`100000000000000000000`, `1e-7`, `-0`), so an object printed back matches what the
//!   API server stores and returns.
//!
//! The first two are the engine's ([`cel::go::fmt`]), re-exported here.

use std::io;

pub use cel::go::fmt::{FloatStyle, format_float, quote};
use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

/// serde_json's indented output with floats in `encoding/json`'s form (`floatEncoder.encode`).
struct GoFloats<'a>(PrettyFormatter<'a>);

impl Formatter for GoFloats<'_> {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        w.write_all(format_float(value, false, FloatStyle::Json).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        w.write_all(format_float(f64::from(value), true, FloatStyle::Json).as_bytes())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// `value` as indented JSON (two spaces), floats as Go's `encoding/json` writes them.
pub fn to_json_pretty<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let mut out = Vec::new();
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, GoFloats(PrettyFormatter::new()));
    value.serialize(&mut ser)?;
    // serde_json writes only UTF-8.
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::to_json_pretty;

    #[test]
    fn floats_as_encoding_json_writes_them() {
        let v = crate::pipeline::decode::parse_json(
            r#"{"a":9223372036854775808,"b":1e20,"c":-0.0,"d":1e-7,"e":1e21,"f":0.1,"g":1.0,"h":7}"#,
        )
        .expect("json");
        let text = to_json_pretty(&v).expect("json");
        let flat: String = text.split_whitespace().collect();
        assert_eq!(
            flat,
            r#"{"a":9223372036854776000,"b":100000000000000000000,"c":-0,"d":1e-7,"e":1e+21,"f":0.1,"g":1,"h":7}"#
        );
    }
}
