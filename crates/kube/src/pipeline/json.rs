//! Request bodies as kube-apiserver's JSON decoder reads them (`sigs.k8s.io/json`, reference
//! §1.1): whole numbers that fit `int64` become integers and every other number a float, and
//! duplicate object keys are recorded with their paths (the last value wins) so that strict
//! field validation can report them as `duplicate field "spec.foo"`.
//!
//! One pass builds the value: keys move onto a path stack while their value is decoded and back
//! off it into the map, so the common case (no duplicates) allocates nothing beyond the value
//! itself and costs one map insertion per key, as a plain decode does.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

/// A decoded body.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub value: Value,
    /// The path of every repeated key, in the order Go's decoder meets them (`spec.foo`,
    /// `spec.ports[0].name`, `[1].a` under a root array).
    pub duplicates: Vec<String>,
}

/// One step of the path to the value being decoded.
enum Segment {
    Key(String),
    Index(usize),
}

/// State shared by the whole decode.
struct Context {
    path: Vec<Segment>,
    duplicates: Vec<String>,
}

impl Context {
    /// The path of `key` inside the value at the top of the stack, as `sigs.k8s.io/json`
    /// writes it: keys joined with `.`, indices as `[i]`.
    fn path_of(&self, key: &str) -> String {
        let mut out = String::new();
        for seg in self.path.iter().map(Some).chain([None]) {
            match seg {
                Some(Segment::Index(i)) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
                Some(Segment::Key(k)) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                None => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
            }
        }
        out
    }
}

/// Parses a JSON body, recording duplicate keys. serde_json stops at 128 nesting levels with an
/// error, well before any stack limit.
///
/// A body that is not JSON fails as the API server's serializer fails on it: its first step
/// reads the body's kind with `encoding/json` (`SimpleMetaFactory.Interpret` in apimachinery's
/// `runtime/serializer/json/meta.go`), so the text is Go's syntax error behind `couldn't get
/// version/kind; json parse error: ` (a UTF-8 byte-order mark is such an error). What Go reads
/// but serde_json refuses (nesting beyond 128, numbers beyond `float64`) keeps serde_json's text.
pub(crate) fn parse(text: &str) -> Result<Parsed, String> {
    let mut ctx = Context {
        path: Vec::new(),
        duplicates: Vec::new(),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = ValueSeed { ctx: &mut ctx }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    match value {
        Ok(value) => Ok(Parsed {
            value,
            duplicates: ctx.duplicates,
        }),
        Err(e) => Err(match super::json_syntax::check(text.as_bytes()) {
            Some(go) => format!("couldn't get version/kind; json parse error: {go}"),
            None => e.to_string(),
        }),
    }
}

/// `duplicate field "<path>"`, the strict-decoding text for a repeated key.
pub fn duplicate_field_message(path: &str) -> String {
    format!("duplicate field {}", crate::go::fmt::quote(path))
}

struct ValueSeed<'c> {
    ctx: &'c mut Context,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        // Beyond int64 Go falls back to float64.
        Ok(match i64::try_from(n) {
            Ok(i) => Value::Number(i.into()),
            Err(_) => Number::from_f64(n as f64).map_or(Value::Null, Value::Number),
        })
    }

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Number::from_f64(f).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            self.ctx.path.push(Segment::Index(out.len()));
            let next = seq.next_element_seed(ValueSeed {
                ctx: &mut *self.ctx,
            });
            self.ctx.path.pop();
            match next? {
                Some(v) => out.push(v),
                None => break,
            }
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            // Go reports a repeated key when it reads it, before anything inside its value.
            let mark = self.ctx.duplicates.len();
            self.ctx.path.push(Segment::Key(key));
            let value = access.next_value_seed(ValueSeed {
                ctx: &mut *self.ctx,
            });
            let Some(Segment::Key(key)) = self.ctx.path.pop() else {
                // Unreachable: the stack is balanced; keep going without the key's value.
                continue;
            };
            let value = value?;
            match map.entry(key) {
                Entry::Vacant(slot) => {
                    slot.insert(value);
                }
                Entry::Occupied(mut slot) => {
                    slot.insert(value);
                    let path = self.ctx.path_of(slot.key());
                    self.ctx.duplicates.insert(mark, path);
                }
            }
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_as_go_reads_them() {
        let p =
            parse(r#"{"a":1,"b":1.0,"c":9223372036854775808,"d":-9223372036854775808,"e":1e3}"#)
                .expect("json");
        let v = &p.value;
        assert!(v["a"].is_i64());
        assert!(v["b"].is_f64());
        assert!(v["c"].is_f64());
        assert_eq!(v["d"].as_i64(), Some(i64::MIN));
        assert!(v["e"].is_f64());
        assert!(p.duplicates.is_empty());
    }

    #[test]
    fn duplicates_with_paths_in_document_order() {
        let p = parse(
            r#"{"spec":{"a":1,"a":2,"l":[{"x":1,"x":{"y":1,"y":2}}]},"spec":{"b":{"c":1,"c":2}},"z":0}"#,
        )
        .expect("json");
        assert_eq!(
            p.duplicates,
            ["spec.a", "spec.l[0].x", "spec.l[0].x.y", "spec", "spec.b.c"]
        );
        // The last value wins, at the first key's position.
        assert_eq!(p.value, json!({"spec": {"b": {"c": 2}}, "z": 0}));
        assert_eq!(
            serde_json::to_string(&p.value).expect("json"),
            r#"{"spec":{"b":{"c":2}},"z":0}"#
        );
    }

    #[test]
    fn duplicates_under_a_root_array() {
        let p = parse(r#"[{"a":1},{"a":1,"a":2}]"#).expect("json");
        assert_eq!(p.duplicates, ["[1].a"]);
        assert_eq!(
            duplicate_field_message("[1].a"),
            r#"duplicate field "[1].a""#
        );
    }

    #[test]
    fn syntax_errors_in_go_text() {
        assert_eq!(
            parse("\u{feff}{}").err().as_deref(),
            Some(
                "couldn't get version/kind; json parse error: invalid character 'ï' looking for beginning of value"
            )
        );
    }

    #[test]
    fn errors_are_typed_not_panics() {
        assert!(parse("{").is_err());
        assert!(parse(r#"{"a":1} x"#).is_err());
        assert!(parse(&"[".repeat(100_000)).is_err());
        assert!(parse("1e400").is_err());
    }
}
