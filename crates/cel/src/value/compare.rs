//! CEL equality and ordering, with cross-type numeric semantics.
//!
//! Equality is heterogeneous: values of different types are unequal (never an
//! error), except that int, uint and double compare by numeric value.

use std::cmp::Ordering;

use super::{List, Map, Value};

impl Value {
    /// CEL `==`.
    pub fn equals(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (String(a), String(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (Timestamp(a), Timestamp(b)) => a == b,
            (Duration(a), Duration(b)) => a == b,
            (Type(a), Type(b)) => a.runtime_name() == b.runtime_name(),
            (List(a), List(b)) => list_equals(a, b),
            (Map(a), Map(b)) => map_equals(a, b),
            (Optional(a), Optional(b)) => match (a, b) {
                (None, None) => true,
                (Some(a), Some(b)) => a.equals(b),
                _ => false,
            },
            (Opaque(a), Opaque(b)) => a.equals(&**b),
            _ => numeric_cmp(self, other) == Some(Ordering::Equal),
        }
    }

    /// CEL ordering (`<` and friends): `None` where the types have no order
    /// between them (`no such overload`) or a double is NaN.
    pub fn compare(&self, other: &Value) -> Option<Ordering> {
        use Value::*;
        match (self, other) {
            (Bool(a), Bool(b)) => Some(a.cmp(b)),
            (String(a), String(b)) => Some(a.cmp(b)),
            (Bytes(a), Bytes(b)) => Some(a.cmp(b)),
            (Timestamp(a), Timestamp(b)) => Some(a.cmp(b)),
            (Duration(a), Duration(b)) => Some(a.cmp(b)),
            (Opaque(a), Opaque(b)) => a.compare(&**b),
            _ => numeric_cmp(self, other),
        }
    }
}

/// Compares two numbers of any numeric types by value; `None` if either is not
/// a number or a double is NaN.
pub fn numeric_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    use Value::*;
    match (a, b) {
        (Int(x), Int(y)) => Some(x.cmp(y)),
        (Uint(x), Uint(y)) => Some(x.cmp(y)),
        (Double(x), Double(y)) => x.partial_cmp(y),
        (Int(x), Uint(y)) => Some(int_uint_cmp(*x, *y)),
        (Uint(x), Int(y)) => Some(int_uint_cmp(*y, *x).reverse()),
        (Int(x), Double(y)) => int_double_cmp(*x, *y),
        (Double(x), Int(y)) => int_double_cmp(*y, *x).map(Ordering::reverse),
        (Uint(x), Double(y)) => uint_double_cmp(*x, *y),
        (Double(x), Uint(y)) => uint_double_cmp(*y, *x).map(Ordering::reverse),
        _ => None,
    }
}

fn int_uint_cmp(i: i64, u: u64) -> Ordering {
    if i < 0 {
        Ordering::Less
    } else {
        (i as u64).cmp(&u)
    }
}

/// cel-go's `compareIntDouble`: doubles outside the int range by bounds,
/// otherwise compared as doubles (the int converted, lossily, as in cel-go:
/// `9223372036854775807 < 9223372036854775808.0` is false).
fn int_double_cmp(i: i64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < i64::MIN as f64 {
        return Some(Ordering::Greater);
    }
    if d > i64::MAX as f64 {
        return Some(Ordering::Less);
    }
    (i as f64).partial_cmp(&d)
}

/// cel-go's `compareUintDouble`: negative and too-large doubles by bounds,
/// otherwise compared as doubles.
fn uint_double_cmp(u: u64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d < 0.0 {
        return Some(Ordering::Greater);
    }
    if d > u64::MAX as f64 {
        return Some(Ordering::Less);
    }
    (u as f64).partial_cmp(&d)
}

fn list_equals(a: &List, b: &List) -> bool {
    if let List::Provided(p) = a
        && let Some(r) = p.equals(b)
    {
        return r;
    }
    if a.len() != b.len() {
        return false;
    }
    match (a.as_slice(), b.as_slice()) {
        (Some(x), Some(y)) => x.iter().zip(y).all(|(x, y)| x.equals(y)),
        _ => a.iter().zip(b.iter()).all(|(x, y)| x.equals(&y)),
    }
}

fn map_equals(a: &Map, b: &Map) -> bool {
    if let Map::Provided(p) = a
        && let Some(r) = p.equals(b)
    {
        return r;
    }
    if a.len() != b.len() {
        return false;
    }
    a.entries().all(|(k, v)| match b.get(k.as_ref()) {
        Some(w) => v.equals(&w),
        None => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_equality_crosses_types() {
        assert!(Value::Int(1).equals(&Value::Uint(1)));
        assert!(Value::Double(1.0).equals(&Value::Int(1)));
        assert!(!Value::Double(1.5).equals(&Value::Int(1)));
        assert!(!Value::Double(f64::NAN).equals(&Value::Double(f64::NAN)));
        assert!(!Value::Int(-1).equals(&Value::Uint(u64::MAX)));
        assert_eq!(
            Value::Int(-1).compare(&Value::Uint(0)),
            Some(Ordering::Less)
        );
        assert_eq!(
            Value::Int(i64::MAX).compare(&Value::Double(9.3e18)),
            Some(Ordering::Less)
        );
        assert_eq!(
            Value::Uint(2).compare(&Value::Double(1.5)),
            Some(Ordering::Greater)
        );
    }

    #[test]
    fn different_types_are_unequal() {
        assert!(!Value::Int(1).equals(&Value::from("1")));
        assert!(!Value::Null.equals(&Value::Bool(false)));
    }
}
