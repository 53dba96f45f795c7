//! cel-go's `ext.Lists` library.
//!
//! Versions: 0 `slice`; 1 `flatten`, `flatten(depth)`; 2 `sort`,
//! `@sortByAssociatedKeys` (what the `sortBy` macro expands to; the macro
//! itself is the parser's), `lists.range`, `reverse`, `distinct`; 3 attaches
//! cost estimators and trackers ([`super::cost::lists_runtime_cost`],
//! [`super::cost::lists_estimated_cost`]). Kubernetes enables version 3 from 1.34.
//!
//! `first` / `last` belong to the optional library (version 2), see
//! [`super::optionals`].

use super::cost::COMPARABLE_TYPES;
use super::{LATEST, arg, as_int, as_list};
use crate::cel_go::CelGoVersion;
use crate::env::{EnvBuilder, Library};
use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::{List, Value};

/// cel-go's `ext.Lists(ListsVersion(version))`.
#[derive(Clone, Copy, Debug)]
pub struct Lists {
    /// The cel-go version of ext.Lists (`ext.ListsVersion`); [`super::LATEST`] by default.
    pub version: u32,
}

impl Default for Lists {
    fn default() -> Self {
        Lists { version: LATEST }
    }
}

impl Lists {
    /// ext.Lists at `version`.
    pub fn version(version: u32) -> Self {
        Lists { version }
    }
}

/// The most elements `lists.range` builds (cel-go's `defaultMaxRangeSize`,
/// `ext/lists.go`: 1 000 000 — its doc comment says 10 000 000; the constant
/// decides).
pub const MAX_RANGE_SIZE: i64 = 1_000_000;

fn member(id: &str, params: Vec<Type>, result: Type, imp: FnImpl) -> Overload {
    Overload::member(id, params, result, Some(imp))
}

impl Library for Lists {
    fn install(&self, env: &mut EnvBuilder) {
        if self.version >= 2 {
            for m in crate::syntax::macros::lists() {
                env.add_macro(m);
            }
        }
        if self.version >= 3 {
            crate::cost::install_lists_estimators(env);
        }
        let list_t = Type::list(Type::param("T"));
        env.add_function(Function::new("slice").overload(member(
            "list_slice",
            vec![list_t.clone(), Type::Int, Type::Int],
            list_t.clone(),
            FnImpl::Nary(slice),
        )));
        if self.version >= 1 {
            let list_dyn = Type::list(Type::Dyn);
            // cel-go declares flatten without type guards: an already flat
            // list (`dyn([1, 2]).flatten()`) is accepted as it is.
            env.add_function(
                Function::new("flatten")
                    .overload(
                        member(
                            "list_flatten",
                            vec![Type::list(list_t.clone())],
                            list_t.clone(),
                            FnImpl::Nary(flatten),
                        )
                        .without_type_guards(),
                    )
                    .overload(
                        member(
                            "list_flatten_int",
                            vec![list_dyn.clone(), Type::Int],
                            list_dyn,
                            FnImpl::Nary(flatten),
                        )
                        .without_type_guards(),
                    ),
            );
        }
        if self.version >= 2 {
            let mut sort_fn = Function::new("sort");
            let mut by_keys = Function::new("@sortByAssociatedKeys");
            for (name, t) in COMPARABLE_TYPES {
                sort_fn = sort_fn.overload(member(
                    &format!("list_{name}_sort"),
                    vec![Type::list(t.clone())],
                    Type::list(t.clone()),
                    FnImpl::Unary(sort),
                ));
                by_keys = by_keys.overload(member(
                    &format!("list_{name}_sortByAssociatedKeys"),
                    vec![list_t.clone(), Type::list(t)],
                    list_t.clone(),
                    FnImpl::Binary(sort_by_associated_keys),
                ));
            }
            env.add_function(sort_fn);
            env.add_function(by_keys);
            env.add_function(Function::new("lists.range").overload(Overload::global(
                "lists_range",
                vec![Type::Int],
                Type::list(Type::Int),
                Some(FnImpl::Unary(range)),
            )));
            env.add_function(Function::new("reverse").overload(member(
                "list_reverse",
                vec![list_t.clone()],
                list_t.clone(),
                FnImpl::Unary(reverse),
            )));
            env.add_function(Function::new("distinct").overload(member(
                "list_distinct",
                vec![list_t.clone()],
                list_t,
                FnImpl::Unary(distinct),
            )));
        }
    }
}

/// `list.slice(start, end)`.
pub fn slice(args: &[Value]) -> EvalResult {
    let list = as_list(arg(args, 0)?)?;
    let start = as_int(arg(args, 1)?)?;
    let end = as_int(arg(args, 2)?)?;
    let len = list.len() as i64;
    if start < 0 || end < 0 {
        return Err(EvalError::msg(format!(
            "cannot slice({start}, {end}), negative indexes not supported"
        )));
    }
    if start > end {
        return Err(EvalError::msg(format!(
            "cannot slice({start}, {end}), start index must be less than or equal to end index"
        )));
    }
    if len < end {
        return Err(EvalError::msg(format!(
            "cannot slice({start}, {end}), list is length {len}"
        )));
    }
    let out = match list.as_slice() {
        Some(s) => s[start as usize..end as usize].to_vec(),
        None => (start as usize..end as usize)
            .filter_map(|i| list.get(i))
            .collect(),
    };
    Ok(Value::list(out))
}

/// `list.flatten()` (depth 1) and `list.flatten(depth)`: nested lists are
/// spliced in down to `depth` levels; other elements are kept.
pub fn flatten(args: &[Value]) -> EvalResult {
    let list = as_list(arg(args, 0)?)?;
    let depth = match args.get(1) {
        Some(d) => as_int(d)?,
        None => 1,
    };
    if depth < 0 {
        return Err(EvalError::msg("level must be non-negative"));
    }
    let mut out = Vec::with_capacity(list.len());
    // Iterative walk: (list, next index, remaining depth) frames, so deep
    // nesting cannot exhaust the stack.
    let mut stack: Vec<(List, usize, i64)> = vec![(list.clone(), 0, depth)];
    while let Some((l, i, d)) = stack.pop() {
        let Some(v) = l.get(i) else { continue };
        stack.push((l, i + 1, d));
        match v {
            Value::List(inner) if d > 0 => stack.push((inner, 0, d - 1)),
            other => out.push(other),
        }
    }
    Ok(Value::list(out))
}

/// `lists.range(n)`: `[0, 1, ..., n-1]`.
pub fn range(n: &Value) -> EvalResult {
    let n = as_int(n)?;
    if n < 0 {
        return Err(EvalError::msg(format!(
            "lists.range: size must be non-negative, got {n}"
        )));
    }
    if n > MAX_RANGE_SIZE {
        return Err(EvalError::msg(format!(
            "lists.range: size {n} exceeds maximum allowed ({MAX_RANGE_SIZE})"
        )));
    }
    Ok(Value::list((0..n).map(Value::Int).collect()))
}

/// Installs release `v`'s `lists.range`: before cel-go v0.29 (13cff33f) a
/// negative size builds an empty list. (Those releases have no largest size
/// either; [`MAX_RANGE_SIZE`] still bounds what evaluation allocates.)
pub(crate) fn adapt(b: &mut EnvBuilder, v: CelGoVersion) {
    if v < CelGoVersion::V0_29 {
        let imp = FnImpl::Unary(|n| match n {
            Value::Int(i) if *i < 0 => Ok(Value::list(Vec::new())),
            _ => range(n),
        });
        b.replace_implementation("lists.range", "lists_range", imp);
    }
}

/// `list.reverse()`.
pub fn reverse(v: &Value) -> EvalResult {
    let list = as_list(v)?;
    let mut out: Vec<Value> = list.iter().collect();
    out.reverse();
    Ok(Value::list(out))
}

/// `list.distinct()`: the first of each group of equal elements, in order.
pub fn distinct(v: &Value) -> EvalResult {
    let list = as_list(v)?;
    if list.is_empty() {
        return Ok(v.clone());
    }
    let mut out: Vec<Value> = Vec::with_capacity(list.len());
    for e in list.iter() {
        if !out.iter().any(|u| e.equals(u)) {
            out.push(e);
        }
    }
    Ok(Value::list(out))
}

/// `list.sort()`.
pub fn sort(v: &Value) -> EvalResult {
    sort_by_associated_keys(v, v)
}

fn is_comparable(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::Bool(_)
            | Value::Duration(_)
            | Value::Timestamp(_)
            | Value::String(_)
            | Value::Bytes(_)
    )
}

/// `list.@sortByAssociatedKeys(keys)`: the list reordered as sorting `keys`
/// orders them. Keys must be comparable and of one type.
///
/// The sort is stable. cel-go uses Go's `sort.Slice`, which is stable for up to
/// 12 elements (insertion sort) but not beyond, so equal keys in longer lists
/// may come out in a different order than cel-go's.
pub fn sort_by_associated_keys(list: &Value, keys: &Value) -> EvalResult {
    let l = as_list(list)?;
    let k = as_list(keys)?;
    if l.len() != k.len() {
        return Err(EvalError::msg(format!(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got {} and {} elements respectively",
            l.len(),
            k.len()
        )));
    }
    if l.is_empty() {
        return Ok(list.clone());
    }
    let keys: Vec<Value> = k.iter().collect();
    let first = &keys[0];
    if !is_comparable(first) {
        return Err(EvalError::msg("list elements must be comparable"));
    }
    if keys.len() > 1
        && keys
            .iter()
            .any(|x| std::mem::discriminant(x) != std::mem::discriminant(first))
    {
        return Err(EvalError::msg("list elements must have the same type"));
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    merge_sort_by(&mut order, |a, b| {
        keys[*a].compare(&keys[*b]) == Some(std::cmp::Ordering::Less)
    });
    let values: Vec<Value> = l.iter().collect();
    Ok(Value::list(
        order
            .into_iter()
            .filter_map(|i| values.get(i).cloned())
            .collect(),
    ))
}

/// A stable merge sort by a `less` predicate that need not be a total order
/// (NaN keys): it never panics, whatever `less` answers.
fn merge_sort_by<T: Copy>(v: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let mut buf: Vec<T> = v.to_vec();
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut o) = (start, mid, start);
            while i < mid && j < end {
                if less(&v[j], &v[i]) {
                    buf[o] = v[j];
                    j += 1;
                } else {
                    buf[o] = v[i];
                    i += 1;
                }
                o += 1;
            }
            buf[o..o + (mid - i)].copy_from_slice(&v[i..mid]);
            o += mid - i;
            buf[o..o + (end - j)].copy_from_slice(&v[j..end]);
            start = end;
        }
        v.copy_from_slice(&buf);
        width *= 2;
    }
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    fn ints(r: EvalResult) -> Vec<i64> {
        match r {
            Ok(Value::List(l)) => l
                .iter()
                .map(|v| match v {
                    Value::Int(i) => i,
                    other => panic!("not an int: {other:?}"),
                })
                .collect(),
            other => panic!("expected a list, got {other:?}"),
        }
    }

    fn l(v: Vec<Value>) -> Value {
        Value::list(v)
    }

    fn il(v: &[i64]) -> Value {
        Value::list(v.iter().map(|i| Value::Int(*i)).collect())
    }

    #[test]
    fn slice_checks_bounds() {
        assert_eq!(
            ints(slice(&[il(&[1, 2, 3, 4]), Value::Int(1), Value::Int(3)])),
            [2, 3]
        );
        assert_eq!(
            ints(slice(&[il(&[1, 2, 3, 4]), Value::Int(4), Value::Int(4)])),
            Vec::<i64>::new()
        );
        assert_eq!(
            slice(&[il(&[1]), Value::Int(-1), Value::Int(0)])
                .unwrap_err()
                .message(),
            "cannot slice(-1, 0), negative indexes not supported"
        );
        assert_eq!(
            slice(&[il(&[1]), Value::Int(1), Value::Int(0)])
                .unwrap_err()
                .message(),
            "cannot slice(1, 0), start index must be less than or equal to end index"
        );
        assert_eq!(
            slice(&[il(&[1]), Value::Int(0), Value::Int(2)])
                .unwrap_err()
                .message(),
            "cannot slice(0, 2), list is length 1"
        );
    }

    #[test]
    fn flatten_to_depth() {
        let v = l(vec![
            Value::Int(1),
            l(vec![
                Value::Int(2),
                l(vec![Value::Int(3), l(vec![Value::Int(4)])]),
            ]),
        ]);
        assert!(v.equals(&l(vec![
            Value::Int(1),
            l(vec![
                Value::Int(2),
                l(vec![Value::Int(3), l(vec![Value::Int(4)])])
            ])
        ])));
        let one = flatten(std::slice::from_ref(&v)).unwrap();
        assert!(one.equals(&l(vec![
            Value::Int(1),
            Value::Int(2),
            l(vec![Value::Int(3), l(vec![Value::Int(4)])])
        ])));
        let two = flatten(&[v.clone(), Value::Int(2)]).unwrap();
        assert!(two.equals(&l(vec![
            Value::Int(1),
            Value::Int(2),
            Value::Int(3),
            l(vec![Value::Int(4)])
        ])));
        assert_eq!(ints(flatten(&[v.clone(), Value::Int(100)])), [1, 2, 3, 4]);
        assert_eq!(
            flatten(&[v, Value::Int(-1)]).unwrap_err().message(),
            "level must be non-negative"
        );
        assert_eq!(
            ints(flatten(&[l(vec![
                Value::Int(1),
                l(vec![]),
                l(vec![]),
                il(&[3, 4])
            ])])),
            [1, 3, 4]
        );
    }

    #[test]
    fn range_reverse_distinct() {
        assert_eq!(ints(range(&Value::Int(4))), [0, 1, 2, 3]);
        assert_eq!(
            range(&Value::Int(-1)).unwrap_err().message(),
            "lists.range: size must be non-negative, got -1"
        );
        assert!(range(&Value::Int(MAX_RANGE_SIZE + 1)).is_err());
        assert_eq!(ints(reverse(&il(&[5, 3, 1, 2]))), [2, 1, 3, 5]);
        let d = distinct(&l(vec![
            Value::Int(1),
            Value::Uint(1),
            Value::Int(2),
            1.0.into(),
            "b".into(),
            Value::Int(2),
        ]))
        .unwrap();
        assert!(d.equals(&l(vec![Value::Int(1), Value::Int(2), "b".into()])));
    }

    #[test]
    fn sorting() {
        assert_eq!(ints(sort(&il(&[3, 1, 2, 1]))), [1, 1, 2, 3]);
        let names = l(vec!["foo".into(), "bar".into(), "baz".into()]);
        let sorted = sort_by_associated_keys(&names, &il(&[3, 1, 2])).unwrap();
        assert!(sorted.equals(&l(vec!["bar".into(), "baz".into(), "foo".into()])));
        assert_eq!(
            sort(&l(vec![Value::Int(1), "b".into()]))
                .unwrap_err()
                .message(),
            "list elements must have the same type"
        );
        assert_eq!(
            sort(&l(vec![il(&[1])])).unwrap_err().message(),
            "list elements must be comparable"
        );
        assert_eq!(
            sort_by_associated_keys(&names, &il(&[1]))
                .unwrap_err()
                .message(),
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got 3 and 1 elements respectively"
        );
        // NaN keys never make the sort panic.
        let nan = l(vec![
            f64::NAN.into(),
            1.0.into(),
            f64::NAN.into(),
            0.5.into(),
        ]);
        assert!(sort(&nan).is_ok());
        // Stable for equal keys.
        let vals = l(vec!["a".into(), "b".into(), "c".into()]);
        let s = sort_by_associated_keys(&vals, &il(&[1, 0, 1])).unwrap();
        assert!(s.equals(&l(vec!["b".into(), "a".into(), "c".into()])));
    }
}
