//! Operators of the standard library: arithmetic with cel-go's overflow and
//! division checks, ordering, membership, indexing, size and logical not.
//!
//! Each function takes the runtime arguments and switches on their types, so
//! one implementation serves all the overloads of an operator; arguments of
//! other types give `no such overload`. The interpreter calls these directly
//! for operators (no dispatch), and the [`super::Std`] library registers them
//! as the implementations of the declared overloads.

use std::cmp::Ordering;

use crate::error::{EvalError, EvalResult};
use crate::value::{KeyRef, List, Map, Value};

pub(crate) fn int_overflow() -> EvalError {
    EvalError::msg("integer overflow")
}

pub(crate) fn uint_overflow() -> EvalError {
    EvalError::msg("unsigned integer overflow")
}

fn nso() -> EvalError {
    EvalError::no_such_overload()
}

/// `_+_`.
pub(crate) fn add(a: &Value, b: &Value) -> EvalResult {
    use Value::*;
    Ok(match (a, b) {
        (Int(x), Int(y)) => Int(x.checked_add(*y).ok_or_else(int_overflow)?),
        (Uint(x), Uint(y)) => Uint(x.checked_add(*y).ok_or_else(uint_overflow)?),
        (Double(x), Double(y)) => Double(x + y),
        (String(x), String(y)) => String(crate::value::concat_str(&[x, y])),
        (Bytes(x), Bytes(y)) => {
            let mut v = Vec::with_capacity(x.len() + y.len());
            v.extend_from_slice(x);
            v.extend_from_slice(y);
            Value::bytes(v)
        }
        (List(x), List(y)) => List(add_lists(x, y)?),
        (Duration(x), Duration(y)) => Duration(crate::value::Duration::from_nanos(
            x.nanos.checked_add(y.nanos).ok_or_else(int_overflow)?,
        )),
        (Timestamp(t), Duration(d)) | (Duration(d), Timestamp(t)) => Timestamp(t.add_duration(*d)?),
        _ => return Err(nso()),
    })
}

/// List concatenation, or the host's own `+` for provided lists.
pub(crate) fn add_lists(x: &List, y: &List) -> EvalResult<List> {
    if let List::Provided(p) = x
        && let Some(r) = p.add(y)
    {
        return r;
    }
    if y.is_empty() {
        return Ok(x.clone());
    }
    if x.is_empty() && matches!(y, List::Values(_)) {
        return Ok(y.clone());
    }
    let mut v = Vec::with_capacity(x.len() + y.len());
    v.extend(x.iter());
    v.extend(y.iter());
    Ok(List::new(v))
}

/// `_-_`.
pub(crate) fn sub(a: &Value, b: &Value) -> EvalResult {
    use Value::*;
    Ok(match (a, b) {
        (Int(x), Int(y)) => Int(x.checked_sub(*y).ok_or_else(int_overflow)?),
        (Uint(x), Uint(y)) => Uint(x.checked_sub(*y).ok_or_else(uint_overflow)?),
        (Double(x), Double(y)) => Double(x - y),
        (Duration(x), Duration(y)) => Duration(crate::value::Duration::from_nanos(
            x.nanos.checked_sub(y.nanos).ok_or_else(int_overflow)?,
        )),
        (Timestamp(t), Duration(d)) => Timestamp(t.sub_duration(*d)?),
        (Timestamp(t), Timestamp(u)) => Duration(t.difference(*u)?),
        _ => return Err(nso()),
    })
}

/// `_*_`.
pub(crate) fn mul(a: &Value, b: &Value) -> EvalResult {
    use Value::*;
    Ok(match (a, b) {
        (Int(x), Int(y)) => Int(x.checked_mul(*y).ok_or_else(int_overflow)?),
        (Uint(x), Uint(y)) => Uint(x.checked_mul(*y).ok_or_else(uint_overflow)?),
        (Double(x), Double(y)) => Double(x * y),
        _ => return Err(nso()),
    })
}

/// `_/_`.
pub(crate) fn div(a: &Value, b: &Value) -> EvalResult {
    use Value::*;
    Ok(match (a, b) {
        (Int(_), Int(0)) | (Uint(_), Uint(0)) => return Err(EvalError::msg("division by zero")),
        (Int(x), Int(y)) => Int(x.checked_div(*y).ok_or_else(int_overflow)?),
        (Uint(x), Uint(y)) => Uint(x / y),
        (Double(x), Double(y)) => Double(x / y),
        _ => return Err(nso()),
    })
}

/// `_%_`.
pub(crate) fn rem(a: &Value, b: &Value) -> EvalResult {
    use Value::*;
    Ok(match (a, b) {
        (Int(_), Int(0)) | (Uint(_), Uint(0)) => return Err(EvalError::msg("modulus by zero")),
        (Int(x), Int(y)) => Int(x.checked_rem(*y).ok_or_else(int_overflow)?),
        (Uint(x), Uint(y)) => Uint(x % y),
        _ => return Err(nso()),
    })
}

/// `-_`.
pub(crate) fn neg(a: &Value) -> EvalResult {
    Ok(match a {
        Value::Int(x) => Value::Int(x.checked_neg().ok_or_else(int_overflow)?),
        Value::Double(x) => Value::Double(-x),
        _ => return Err(nso()),
    })
}

/// `!_`.
pub(crate) fn not(a: &Value) -> EvalResult {
    match a {
        Value::Bool(b) => Ok(Value::Bool(!b)),
        _ => Err(nso()),
    }
}

/// `_==_`.
#[inline]
pub(crate) fn eq(a: &Value, b: &Value) -> EvalResult {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(Value::Bool(x == y));
    }
    Ok(Value::Bool(a.equals(b)))
}

/// `_!=_`.
pub(crate) fn ne(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(!a.equals(b)))
}

/// The ordering of two values for `<` and friends, with cel-go's errors.
pub(crate) fn order(a: &Value, b: &Value) -> EvalResult<Ordering> {
    let numeric = |v: &Value| matches!(v, Value::Int(_) | Value::Uint(_) | Value::Double(_));
    let nan = |v: &Value| matches!(v, Value::Double(d) if d.is_nan());
    if (nan(a) || nan(b)) && numeric(a) && numeric(b) {
        return Err(EvalError::msg("NaN values cannot be ordered"));
    }
    a.compare(b).ok_or_else(nso)
}

pub(crate) fn lt(a: &Value, b: &Value) -> EvalResult {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(Value::Bool(x < y));
    }
    Ok(Value::Bool(order(a, b)? == Ordering::Less))
}

pub(crate) fn le(a: &Value, b: &Value) -> EvalResult {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(Value::Bool(x <= y));
    }
    Ok(Value::Bool(order(a, b)? != Ordering::Greater))
}

pub(crate) fn gt(a: &Value, b: &Value) -> EvalResult {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(Value::Bool(x > y));
    }
    Ok(Value::Bool(order(a, b)? == Ordering::Greater))
}

pub(crate) fn ge(a: &Value, b: &Value) -> EvalResult {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Ok(Value::Bool(x >= y));
    }
    Ok(Value::Bool(order(a, b)? != Ordering::Less))
}

/// `@in`: list membership by CEL equality, map key presence.
pub(crate) fn in_(elem: &Value, container: &Value) -> EvalResult {
    match container {
        Value::List(l) => Ok(Value::Bool(match l.as_slice() {
            Some(s) => s.iter().any(|x| x.equals(elem)),
            None => l.iter().any(|x| x.equals(elem)),
        })),
        Value::Map(m) => Ok(Value::Bool(match KeyRef::from_value(elem) {
            Some(k) => m.try_contains_key(k)?,
            None => false,
        })),
        _ => Err(nso()),
    }
}

/// `size`: code points of a string, bytes, list elements, map entries.
pub(crate) fn size(a: &Value) -> EvalResult {
    Ok(Value::Int(match a {
        // Code points; ASCII text (the common case) is recognised a word at a time.
        Value::String(s) if s.is_ascii() => s.len() as i64,
        Value::String(s) => s.chars().count() as i64,
        Value::Bytes(b) => b.len() as i64,
        Value::List(l) => l.len() as i64,
        Value::Map(m) => m.len() as i64,
        _ => return Err(nso()),
    }))
}

/// cel-go's `no such key` error text.
pub(crate) fn no_such_key(k: &Value) -> EvalError {
    EvalError::msg(format!("no such key: {}", go_v(k)))
}

/// A key or index as Go's `%v` prints cel-go's value (cel-go's
/// `interpreter/attributes.go`, `resolutionError`): strings unquoted, numbers
/// without CEL's `u` suffix, doubles as `%g`.
fn go_v(k: &Value) -> String {
    match k {
        Value::String(s) => s.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => super::convert::format_go_g(*d),
        other => other.to_string(),
    }
}

/// An index into a list: ints, uints and integral doubles.
fn list_index(l: &List, k: &Value) -> EvalResult<Option<usize>> {
    let i: i64 = match k {
        Value::Int(i) => *i,
        Value::Uint(u) => i64::try_from(*u).unwrap_or(i64::MAX),
        Value::Double(d) => {
            if d.fract() != 0.0 || !d.is_finite() {
                return Err(EvalError::msg(format!(
                    "unsupported index value {d:?} in list"
                )));
            }
            *d as i64
        }
        _ => {
            return Err(EvalError::msg(format!(
                "unsupported index type '{}' in list",
                k.type_name()
            )));
        }
    };
    Ok(if i < 0 || i as u64 >= l.len() as u64 {
        None
    } else {
        Some(i as usize)
    })
}

/// `_[_]`: list element or map value; errors for missing entries.
pub(crate) fn index(container: &Value, k: &Value) -> EvalResult {
    match container {
        Value::List(l) => match list_index(l, k)? {
            Some(i) => l.try_get(i)?.ok_or_else(|| index_out_of_range(k)),
            None => Err(index_out_of_range(k)),
        },
        Value::Map(m) => map_lookup(m, k)?.ok_or_else(|| no_such_key(k)),
        _ => Err(nso()),
    }
}

/// cel-go's text in every release (`interpreter/attributes.go`,
/// `resolutionError`): the index as given, not the list's length.
fn index_out_of_range(k: &Value) -> EvalError {
    EvalError::msg(format!("index out of bounds: {}", go_v(k)))
}

/// A map lookup by any key value (`None` when absent; an error for key types
/// maps cannot hold).
pub(crate) fn map_lookup(m: &Map, k: &Value) -> EvalResult<Option<Value>> {
    match KeyRef::from_value(k) {
        Some(key) => m.try_get(key),
        None => match k {
            Value::Double(_) => Ok(None),
            _ => Err(EvalError::msg(format!(
                "unsupported key type: {}",
                k.type_name()
            ))),
        },
    }
}

/// `_[?_]` and optional qualification: `optional.none()` when absent.
pub(crate) fn index_optional(container: &Value, k: &Value) -> EvalResult {
    match container {
        Value::List(l) => Ok(match list_index(l, k)? {
            Some(i) => match l.try_get(i)? {
                Some(v) => Value::optional_of(v),
                None => Value::optional_none(),
            },
            None => Value::optional_none(),
        }),
        Value::Map(m) => Ok(match map_lookup(m, k)? {
            Some(v) => Value::optional_of(v),
            None => Value::optional_none(),
        }),
        _ => Err(nso()),
    }
}

/// Field selection `v.f` on a map.
pub(crate) fn select_field(v: &Value, field: &str) -> EvalResult {
    match v {
        Value::Map(m) => m
            .try_field(field)?
            .ok_or_else(|| EvalError::msg(format!("no such key: {field}"))),
        Value::Opaque(o) if let Some(r) = o.select(field) => r,
        _ => Err(EvalError::msg(format!(
            "type '{}' does not support field selection",
            v.type_name()
        ))),
    }
}

/// The presence test `has(v.f)`.
pub(crate) fn has_field(v: &Value, field: &str) -> EvalResult {
    match v {
        Value::Map(m) => Ok(Value::Bool(m.try_field(field)?.is_some())),
        Value::Opaque(o) if let Some(r) = o.has(field) => r.map(Value::Bool),
        _ => Err(EvalError::msg(format!(
            "invalid type for field selection: {}",
            v.type_name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: EvalResult) -> String {
        r.unwrap_err().message().to_string()
    }

    #[test]
    fn arithmetic_checks_overflow_and_zero() {
        assert_eq!(
            msg(add(&Value::Int(i64::MAX), &Value::Int(1))),
            "integer overflow"
        );
        assert_eq!(
            msg(sub(&Value::Uint(0), &Value::Uint(1))),
            "unsigned integer overflow"
        );
        assert_eq!(msg(div(&Value::Int(1), &Value::Int(0))), "division by zero");
        assert_eq!(msg(rem(&Value::Int(1), &Value::Int(0))), "modulus by zero");
        assert_eq!(
            msg(div(&Value::Int(i64::MIN), &Value::Int(-1))),
            "integer overflow"
        );
        assert_eq!(msg(neg(&Value::Int(i64::MIN))), "integer overflow");
        assert_eq!(
            msg(rem(&Value::Double(1.0), &Value::Double(1.0))),
            "no such overload"
        );
        assert_eq!(
            msg(add(&Value::Int(1), &Value::Uint(1))),
            "no such overload"
        );
        assert!(
            matches!(add(&Value::from("a"), &Value::from("b")), Ok(Value::String(s)) if &*s == "ab")
        );
        assert!(matches!(
            rem(&Value::Int(-7), &Value::Int(3)),
            Ok(Value::Int(-1))
        ));
    }

    #[test]
    fn ordering_is_cross_type_and_rejects_nan_and_aggregates() {
        assert!(matches!(
            lt(&Value::Int(1), &Value::Uint(2)),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            ge(&Value::Double(2.5), &Value::Int(2)),
            Ok(Value::Bool(true))
        ));
        assert_eq!(msg(lt(&Value::Null, &Value::Null)), "no such overload");
        assert_eq!(
            msg(lt(&Value::list(vec![]), &Value::list(vec![]))),
            "no such overload"
        );
        assert_eq!(
            msg(lt(&Value::Double(f64::NAN), &Value::Int(1))),
            "NaN values cannot be ordered"
        );
    }

    #[test]
    fn indexing_lists_and_maps() {
        let l = Value::list(vec![Value::Int(7), Value::Int(8)]);
        assert!(matches!(index(&l, &Value::Uint(1)), Ok(Value::Int(8))));
        assert!(matches!(index(&l, &Value::Double(1.0)), Ok(Value::Int(8))));
        assert_eq!(msg(index(&l, &Value::Int(2))), "index out of bounds: 2");
        assert!(index(&l, &Value::Double(0.1)).is_err());
        assert!(matches!(
            index_optional(&l, &Value::Int(5)),
            Ok(Value::Optional(None))
        ));
        assert!(matches!(size(&Value::from("héllo")), Ok(Value::Int(5))));
        assert!(matches!(
            in_(&Value::Double(8.0), &l),
            Ok(Value::Bool(true))
        ));
    }

    /// A host map whose entry `bad` cannot be read, and whose entry `good` is 1.
    #[derive(Debug)]
    struct Unreadable;

    impl crate::value::MapProvider for Unreadable {
        fn len(&self) -> usize {
            2
        }
        fn get(&self, key: KeyRef<'_>) -> Option<Value> {
            self.try_get(key).ok().flatten()
        }
        fn try_get(&self, key: KeyRef<'_>) -> EvalResult<Option<Value>> {
            match key {
                KeyRef::String("bad") => Err(EvalError::msg("unreadable")),
                KeyRef::String("good") => Ok(Some(Value::Int(1))),
                _ => Ok(None),
            }
        }
        fn try_field(&self, name: &str) -> EvalResult<Option<Value>> {
            self.try_get(KeyRef::String(name))
        }
        fn keys(&self) -> Box<dyn Iterator<Item = crate::value::Key> + '_> {
            Box::new(
                ["bad", "good"]
                    .into_iter()
                    .map(|k| crate::value::Key::String(k.into())),
            )
        }
    }

    /// A host list whose element 0 cannot be read, and whose element 1 is 1.
    #[derive(Debug)]
    struct UnreadableList;

    impl crate::value::ListProvider for UnreadableList {
        fn len(&self) -> usize {
            2
        }
        fn get(&self, index: usize) -> Option<Value> {
            self.try_get(index).ok().flatten()
        }
        fn try_get(&self, index: usize) -> EvalResult<Option<Value>> {
            match index {
                0 => Err(EvalError::msg("unreadable")),
                1 => Ok(Some(Value::Int(1))),
                _ => Ok(None),
            }
        }
    }

    #[test]
    fn host_read_errors_surface_from_selection_presence_index_and_in() {
        let m = Value::Map(Map::Provided(std::sync::Arc::new(Unreadable)));
        assert_eq!(msg(select_field(&m, "bad")), "unreadable");
        assert_eq!(msg(has_field(&m, "bad")), "unreadable");
        assert_eq!(msg(index(&m, &Value::from("bad"))), "unreadable");
        assert_eq!(msg(index_optional(&m, &Value::from("bad"))), "unreadable");
        assert_eq!(msg(in_(&Value::from("bad"), &m)), "unreadable");
        assert!(matches!(select_field(&m, "good"), Ok(Value::Int(1))));
        assert!(matches!(has_field(&m, "none"), Ok(Value::Bool(false))));
        assert!(matches!(
            in_(&Value::from("good"), &m),
            Ok(Value::Bool(true))
        ));
        let l = Value::List(List::Provided(std::sync::Arc::new(UnreadableList)));
        assert_eq!(msg(index(&l, &Value::Int(0))), "unreadable");
        assert_eq!(msg(index_optional(&l, &Value::Int(0))), "unreadable");
        assert!(matches!(index(&l, &Value::Int(1)), Ok(Value::Int(1))));
        assert!(matches!(
            index_optional(&l, &Value::Int(2)),
            Ok(Value::Optional(None))
        ));
    }
}
