//! Kubernetes' list library (`library/lists.go`, `kubernetes.lists`):
//! `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`, and from version 1
//! `includes`.

use std::cmp::Ordering;

use cel::value::{Duration, List};
use cel::{EnvBuilder, EvalError, EvalResult, FnImpl, Function, Library, Overload, Type, Value};

/// The list library at a version: 0 (Kubernetes 1.0–1.36) or 1 (1.37, adds `includes`).
#[derive(Clone, Copy, Debug)]
pub struct Lists {
    /// 0 or 1.
    pub version: u32,
}

impl Default for Lists {
    /// The newest version.
    fn default() -> Self {
        Lists { version: 1 }
    }
}

/// The element types `isSorted`, `min` and `max` accept, with their overload-id names.
/// A type name in overload ids and a constructor of that type.
type NamedType = (&'static str, fn() -> Type);

/// A summable type: name, type and its `sum` implementation.
type Summable = (&'static str, Type, fn(&Value) -> EvalResult);

const COMPARABLE: [NamedType; 8] = [
    ("int", || Type::Int),
    ("uint", || Type::Uint),
    ("double", || Type::Double),
    ("bool", || Type::Bool),
    ("duration", || Type::Duration),
    ("timestamp", || Type::Timestamp),
    ("string", || Type::String),
    ("bytes", || Type::Bytes),
];

impl Library for Lists {
    fn install(&self, env: &mut EnvBuilder) {
        let mut is_sorted = Function::new("isSorted");
        let mut max = Function::new("max");
        let mut min = Function::new("min");
        for (name, t) in COMPARABLE {
            is_sorted = is_sorted.overload(Overload::member(
                &format!("list_{name}_is_sorted_bool"),
                vec![Type::list(t())],
                Type::Bool,
                Some(FnImpl::Unary(list_is_sorted)),
            ));
            max = max.overload(Overload::member(
                &format!("list_{name}_max_{name}"),
                vec![Type::list(t())],
                t(),
                Some(FnImpl::Unary(list_max)),
            ));
            min = min.overload(Overload::member(
                &format!("list_{name}_min_{name}"),
                vec![Type::list(t())],
                t(),
                Some(FnImpl::Unary(list_min)),
            ));
        }
        let sums: [Summable; 4] = [
            ("int", Type::Int, sum_int),
            ("uint", Type::Uint, sum_uint),
            ("double", Type::Double, sum_double),
            ("duration", Type::Duration, sum_duration),
        ];
        let mut sum = Function::new("sum");
        for (name, t, f) in sums {
            sum = sum.overload(Overload::member(
                &format!("list_{name}_sum_{name}"),
                vec![Type::list(t.clone())],
                t,
                Some(FnImpl::Unary(f)),
            ));
        }
        let a = Type::param("A");
        env.add_function(is_sorted);
        env.add_function(sum);
        env.add_function(max);
        env.add_function(min);
        env.add_function(Function::new("indexOf").overload(Overload::member(
            "list_a_index_of_int",
            vec![Type::list(a.clone()), a.clone()],
            Type::Int,
            Some(FnImpl::Binary(list_index_of)),
        )));
        env.add_function(Function::new("lastIndexOf").overload(Overload::member(
            "list_a_last_index_of_int",
            vec![Type::list(a.clone()), a],
            Type::Int,
            Some(FnImpl::Binary(list_last_index_of)),
        )));
        if self.version >= 1 {
            env.add_function(Function::new("includes").overload(Overload::member(
                "list_includes_dyn_dyn",
                vec![Type::Dyn, Type::Dyn],
                Type::Bool,
                Some(FnImpl::Binary(includes)),
            )));
        }
    }
}

fn list_arg(v: &Value) -> EvalResult<&List> {
    match v {
        Value::List(l) => Ok(l),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Whether cel-go gives the value the `Comparer` trait.
fn is_comparer(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Bool(_)
            | Value::Duration(_)
            | Value::Timestamp(_)
    )
}

/// `isSorted`: false at the first adjacent pair in decreasing order. Pairs that
/// cannot be ordered (mixed types in a `dyn` list, NaN) count as ordered, as in
/// Kubernetes, where the comparison error is ignored.
pub fn list_is_sorted(list: &Value) -> EvalResult {
    let list = list_arg(list)?;
    let mut prev: Option<Value> = None;
    for next in list.iter() {
        if !is_comparer(&next) {
            return Err(EvalError::no_such_overload());
        }
        if let Some(p) = &prev
            && p.compare(&next) == Some(Ordering::Greater)
        {
            return Ok(Value::Bool(false));
        }
        prev = Some(next);
    }
    Ok(Value::Bool(true))
}

fn extreme(list: &Value, name: &str, prefer: Ordering) -> EvalResult {
    let list = list_arg(list)?;
    let mut result: Option<Value> = None;
    for next in list.iter() {
        if !is_comparer(&next) {
            return Err(EvalError::no_such_overload());
        }
        match &result {
            None => result = Some(next),
            Some(r) => {
                if r.compare(&next) == Some(prefer) {
                    result = Some(next);
                }
            }
        }
    }
    result.ok_or_else(|| EvalError::msg(format!("{name} called on empty list")))
}

/// `max`: the first maximal element; `max called on empty list` when empty.
pub fn list_max(list: &Value) -> EvalResult {
    extreme(list, "max", Ordering::Less)
}

/// `min`: the first minimal element; `min called on empty list` when empty.
pub fn list_min(list: &Value) -> EvalResult {
    extreme(list, "min", Ordering::Greater)
}

fn sum_with(list: &Value, zero: Value) -> EvalResult {
    let list = list_arg(list)?;
    let mut acc = zero;
    for next in list.iter() {
        acc = add_values(&acc, &next)?;
    }
    Ok(acc)
}

/// cel-go's `Adder.Add` for the summable types.
fn add_values(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x
            .checked_add(*y)
            .map(Value::Int)
            .ok_or_else(|| EvalError::msg("integer overflow")),
        (Value::Uint(x), Value::Uint(y)) => x
            .checked_add(*y)
            .map(Value::Uint)
            .ok_or_else(|| EvalError::msg("unsigned integer overflow")),
        (Value::Double(x), Value::Double(y)) => Ok(Value::Double(x + y)),
        (Value::Duration(x), Value::Duration(y)) => x
            .nanos
            .checked_add(y.nanos)
            .map(|nanos| Value::Duration(Duration { nanos }))
            .ok_or_else(|| EvalError::msg("integer overflow")),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `list(int).sum()`.
pub fn sum_int(list: &Value) -> EvalResult {
    sum_with(list, Value::Int(0))
}

/// `list(uint).sum()`.
pub fn sum_uint(list: &Value) -> EvalResult {
    sum_with(list, Value::Uint(0))
}

/// `list(double).sum()`.
pub fn sum_double(list: &Value) -> EvalResult {
    sum_with(list, Value::Double(0.0))
}

/// `list(duration).sum()`.
pub fn sum_duration(list: &Value) -> EvalResult {
    sum_with(list, Value::Duration(Duration { nanos: 0 }))
}

/// `indexOf`: the first index whose element equals `item`, else −1.
pub fn list_index_of(list: &Value, item: &Value) -> EvalResult {
    let list = list_arg(list)?;
    for (i, v) in list.iter().enumerate() {
        if v.equals(item) {
            return Ok(Value::Int(i as i64));
        }
    }
    Ok(Value::Int(-1))
}

/// `lastIndexOf`: the last index whose element equals `item`, else −1.
pub fn list_last_index_of(list: &Value, item: &Value) -> EvalResult {
    let list = list_arg(list)?;
    for i in (0..list.len()).rev() {
        if list.get(i).is_some_and(|v| v.equals(item)) {
            return Ok(Value::Int(i as i64));
        }
    }
    Ok(Value::Int(-1))
}

/// `includes` (version 1): for a list, whether an element equals the argument;
/// for any other receiver, whether it equals the argument.
pub fn includes(recv: &Value, item: &Value) -> EvalResult {
    match recv {
        Value::List(l) => Ok(Value::Bool(l.iter().any(|v| v.equals(item)))),
        other => Ok(Value::Bool(other.equals(item))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Value {
        Value::list(v.iter().map(|&i| Value::Int(i)).collect())
    }

    #[test]
    fn sorted_min_max_sum() {
        assert!(matches!(
            list_is_sorted(&ints(&[1, 2, 2, 3])),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            list_is_sorted(&ints(&[2, 1])),
            Ok(Value::Bool(false))
        ));
        assert!(matches!(list_is_sorted(&ints(&[])), Ok(Value::Bool(true))));
        assert!(matches!(list_max(&ints(&[1, 3, 2])), Ok(Value::Int(3))));
        assert!(matches!(list_min(&ints(&[4, 3, 5])), Ok(Value::Int(3))));
        assert_eq!(
            list_min(&ints(&[])).unwrap_err().message(),
            "min called on empty list"
        );
        assert_eq!(
            list_max(&ints(&[])).unwrap_err().message(),
            "max called on empty list"
        );
        assert!(matches!(sum_int(&ints(&[1, 3])), Ok(Value::Int(4))));
        assert!(matches!(sum_int(&ints(&[])), Ok(Value::Int(0))));
        assert_eq!(
            sum_int(&ints(&[i64::MAX, 1])).unwrap_err().message(),
            "integer overflow"
        );
        let doubles = Value::list(vec![Value::Double(1.0), Value::Double(3.0)]);
        assert!(matches!(sum_double(&doubles), Ok(Value::Double(x)) if x == 4.0));
    }

    #[test]
    fn index_of_uses_cel_equality() {
        assert!(matches!(
            list_index_of(&ints(&[1, 2, 2, 3]), &Value::Int(2)),
            Ok(Value::Int(1))
        ));
        assert!(matches!(
            list_last_index_of(&ints(&[1, 2, 2, 3]), &Value::Int(2)),
            Ok(Value::Int(2))
        ));
        assert!(matches!(
            list_index_of(&ints(&[1]), &Value::Double(1.0)),
            Ok(Value::Int(0))
        ));
        assert!(matches!(
            list_index_of(&ints(&[]), &Value::from("x")),
            Ok(Value::Int(-1))
        ));
        assert!(matches!(
            includes(&ints(&[1, 2]), &Value::Int(2)),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            includes(&Value::from("a"), &Value::from("a")),
            Ok(Value::Bool(true))
        ));
    }
}
