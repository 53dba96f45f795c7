//! The per-overload cost functions cel-go attaches to ext.Lists (version 3)
//! and ext.Sets (k8s-cel.md §11.2), as plain functions keyed by overload id.
//! The planner's cost hook calls the `*_runtime_cost` functions with the call's
//! arguments (receiver first) and result, and the checker's estimator the
//! `*_estimated_cost` functions with size estimates; `None` means "no cost
//! function for this overload" (fall back to the next estimator).
//!
//! Arithmetic is cel-go's: saturating integer operations, and factors applied
//! as `u64(f64(size) * factor)` (truncation) at runtime and as
//! [`multiply_by_cost_factor`] (ceiling) in estimates.

use crate::types::Type;
use crate::value::Value;

/// The element types `sort` and `@sortByAssociatedKeys` accept, with the
/// names cel-go uses in their overload ids (`list_int_sort`,
/// `list_google.protobuf.Duration_sortByAssociatedKeys`, ...).
pub(crate) const COMPARABLE_TYPES: [(&str, Type); 8] = [
    ("int", Type::Int),
    ("uint", Type::Uint),
    ("double", Type::Double),
    ("bool", Type::Bool),
    ("google.protobuf.Duration", Type::Duration),
    ("google.protobuf.Timestamp", Type::Timestamp),
    ("string", Type::String),
    ("bytes", Type::Bytes),
];

/// A {min, max} range (cel-go's `CostEstimate` / `SizeEstimate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// The least value.
    pub min: u64,
    /// The greatest value (`u64::MAX`: unbounded).
    pub max: u64,
}

impl Range {
    /// The range holding only `n`.
    pub const fn fixed(n: u64) -> Range {
        Range { min: n, max: n }
    }

    /// Both bounds added, saturating.
    pub fn saturating_add(self, o: Range) -> Range {
        Range {
            min: self.min.saturating_add(o.min),
            max: self.max.saturating_add(o.max),
        }
    }

    /// Both bounds multiplied, saturating.
    pub fn saturating_mul(self, o: Range) -> Range {
        Range {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    /// Both bounds multiplied by `f` as cel-go's `multiplyByCostFactor` does.
    pub fn multiply_by_cost_factor(self, f: f64) -> Range {
        Range {
            min: multiply_by_cost_factor(self.min, f),
            max: multiply_by_cost_factor(self.max, f),
        }
    }
}

/// cel-go's `multiplyByCostFactor`: ceiling of `x·f` in f64, saturating.
pub fn multiply_by_cost_factor(x: u64, f: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && f > 0.0 && xf > u64::MAX as f64 / f {
        return u64::MAX;
    }
    let c = (xf * f).ceil();
    if c >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        c as u64
    }
}

/// The cost of dispatching a call.
pub(crate) const CALL_COST: u64 = 1;
/// cel-go's `common.ListCreateBaseCost`.
pub(crate) const LIST_CREATE_BASE_COST: u64 = 10;
/// cel-go's `common.StringTraversalCostFactor`.
pub(crate) const STRING_TRAVERSAL_COST_FACTOR: f64 = 0.1;

/// The size cel-go's trackers see (`actualSize`): list/map entries, string
/// code points, bytes length; 1 for anything else.
pub(crate) fn actual_size(v: &Value) -> u64 {
    match v {
        Value::List(l) => l.len() as u64,
        Value::Map(m) => m.len() as u64,
        Value::String(s) => s.chars().count() as u64,
        Value::Bytes(b) => b.len() as u64,
        _ => 1,
    }
}

/// `u64(f64(size) * factor) + 1 + 10` (cel-go's `trackAllocatingListCall`).
fn allocating_list_call(factor: f64, size: u64) -> u64 {
    // Go converts the float with truncation; saturate instead of wrapping.
    let scaled = size as f64 * factor;
    let scaled = if scaled.is_nan() || scaled <= 0.0 {
        0
    } else {
        scaled as u64
    };
    scaled
        .saturating_add(CALL_COST)
        .saturating_add(LIST_CREATE_BASE_COST)
}

/// The n² comparisons of `sort`, `sortBy` and `distinct`: factor 2, plus the
/// string traversal factor when the first element is a string or bytes.
fn self_compare(l: &Value) -> u64 {
    let n = actual_size(l);
    let mut factor = 2.0;
    if let Value::List(list) = l
        && let Some(Value::String(_) | Value::Bytes(_)) = list.get(0)
    {
        factor += STRING_TRAVERSAL_COST_FACTOR;
    }
    if n == 0 {
        return allocating_list_call(factor, 0);
    }
    allocating_list_call(factor, n.saturating_mul(n))
}

/// Whether an overload id is one of ext.Lists' `sort` overloads.
fn is_sort(id: &str) -> bool {
    id.starts_with("list_") && id.ends_with("_sort")
}

fn is_sort_by(id: &str) -> bool {
    id.starts_with("list_") && id.ends_with("_sortByAssociatedKeys")
}

/// The runtime cost function of an ext.Lists (v3) overload, chosen once per
/// call site ([`ListsRuntimeCost::of`]): `slice`, `lists.range`, `reverse`
/// ⌊len(result)⌋ + 11; `flatten(d)` ⌊d·len(input)⌋ + 11 (d = 1 without
/// argument); `distinct`, `sort` ⌊f·n²⌋ + 11 with f = 2 (+0.1 when the first
/// element is a string or bytes) over the input, `@sortByAssociatedKeys` the
/// same over the key list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListsRuntimeCost {
    /// `slice`, `lists.range`, `reverse`: by the result's length.
    ResultLength,
    /// `flatten`, `flatten(d)`: by the input's length and the depth.
    Flatten,
    /// `distinct`, `sort`, `@sortByAssociatedKeys`: the n² comparisons over
    /// argument `usize` (receiver first).
    SelfCompare(usize),
}

impl ListsRuntimeCost {
    /// The cost function of overload `overload_id`, if ext.Lists attaches one.
    pub fn of(overload_id: &str) -> Option<ListsRuntimeCost> {
        match overload_id {
            "list_slice" | "lists_range" | "list_reverse" => Some(ListsRuntimeCost::ResultLength),
            "list_flatten" | "list_flatten_int" => Some(ListsRuntimeCost::Flatten),
            "list_distinct" => Some(ListsRuntimeCost::SelfCompare(0)),
            id if is_sort(id) => Some(ListsRuntimeCost::SelfCompare(0)),
            id if is_sort_by(id) => Some(ListsRuntimeCost::SelfCompare(1)),
            _ => None,
        }
    }

    /// The cost of one call with `args` (receiver first) and `result`;
    /// `None` when the compared list is missing.
    pub fn cost(self, args: &[&Value], result: &Value) -> Option<u64> {
        match self {
            ListsRuntimeCost::ResultLength => Some(allocating_list_call(1.0, actual_size(result))),
            ListsRuntimeCost::Flatten => {
                let depth = match args.get(1) {
                    Some(Value::Int(d)) => *d as f64,
                    _ => 1.0,
                };
                Some(allocating_list_call(
                    depth,
                    args.first().map_or(0, |a| actual_size(a)),
                ))
            }
            ListsRuntimeCost::SelfCompare(i) => args.get(i).map(|l| self_compare(l)),
        }
    }
}

/// The runtime cost of an ext.Lists (v3) call ([`ListsRuntimeCost`]) by
/// overload id; `None` for overloads without one.
pub fn lists_runtime_cost(overload_id: &str, args: &[&Value], result: &Value) -> Option<u64> {
    ListsRuntimeCost::of(overload_id)?.cost(args, result)
}

/// What the estimator knows about a call's operands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EstimateInput {
    /// Size of the receiver (member calls) or of the first argument.
    pub target_size: Range,
    /// Size of the second operand (the key list of `@sortByAssociatedKeys`, the
    /// second list of the `sets.*` functions).
    pub arg_size: Range,
    /// Integer literal arguments as cel-go reads them (`nodeAsUintValue`):
    /// `slice(start, end)` → `[start, end]`, `flatten(depth)`, `lists.range(n)`.
    pub literal_args: [Option<u64>; 2],
    /// Whether the sorted element (or key) type is string or bytes.
    pub string_elements: bool,
}

/// The estimate of a call in [`Range`]s: its own cost and the size of its result (the ranges
/// `cel::cost::CallEstimate` carries, in the form the list and set cost functions compute).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeCallEstimate {
    /// The call's own cost.
    pub cost: Range,
    /// The size of the result, when the call builds a list.
    pub result_size: Option<Range>,
}

fn estimate_list_call(factor: f64, size: Range) -> RangeCallEstimate {
    let cost = size
        .multiply_by_cost_factor(factor)
        .saturating_add(Range::fixed(CALL_COST))
        .saturating_add(Range::fixed(LIST_CREATE_BASE_COST));
    RangeCallEstimate {
        cost,
        result_size: Some(size),
    }
}

/// Estimated cost of an ext.Lists (v3) call, as cel-go's estimators compute it.
pub(crate) fn lists_estimated_cost(
    overload_id: &str,
    input: &EstimateInput,
) -> Option<RangeCallEstimate> {
    let sort_factor = if input.string_elements {
        2.0 + STRING_TRAVERSAL_COST_FACTOR
    } else {
        2.0
    };
    match overload_id {
        "list_slice" => {
            let start = input.literal_args[0].unwrap_or(0);
            let end = input.literal_args[1].unwrap_or(input.target_size.max);
            Some(estimate_list_call(
                1.0,
                Range::fixed(end.wrapping_sub(start)),
            ))
        }
        "lists_range" => Some(estimate_list_call(
            1.0,
            Range::fixed(input.literal_args[0].unwrap_or(u64::MAX)),
        )),
        "list_reverse" => Some(estimate_list_call(1.0, input.target_size)),
        "list_flatten" => Some(estimate_list_call(1.0, input.target_size)),
        "list_flatten_int" => {
            let depth = input.literal_args[0].unwrap_or(u64::MAX);
            Some(estimate_list_call(depth as f64, input.target_size))
        }
        "list_distinct" => Some(estimate_list_call(
            2.0,
            input.target_size.saturating_mul(input.target_size),
        )),
        id if is_sort(id) => Some(estimate_list_call(
            sort_factor,
            input.target_size.saturating_mul(input.target_size),
        )),
        id if is_sort_by(id) => Some(estimate_list_call(
            sort_factor,
            input.arg_size.saturating_mul(input.arg_size),
        )),
        _ => None,
    }
}

fn sets_factor(overload_id: &str) -> Option<f64> {
    match overload_id {
        "list_sets_contains_list" | "list_sets_intersects_list" => Some(1.0),
        "list_sets_equivalent_list" => Some(2.0),
        _ => None,
    }
}

/// The runtime cost function of an ext.Sets overload, chosen once per call
/// site ([`SetsRuntimeCost::of`]): 1 + ⌊f·len(a)·len(b)⌋, f = 2 for
/// `sets.equivalent`, 1 otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SetsRuntimeCost {
    factor: f64,
}

impl SetsRuntimeCost {
    /// The cost function of overload `overload_id`, if ext.Sets attaches one.
    pub fn of(overload_id: &str) -> Option<SetsRuntimeCost> {
        sets_factor(overload_id).map(|factor| SetsRuntimeCost { factor })
    }

    /// The cost of one call with `args`.
    pub fn cost(self, args: &[&Value]) -> u64 {
        let a = args.first().map_or(0, |v| actual_size(v));
        let b = args.get(1).map_or(0, |v| actual_size(v));
        let scaled = a.saturating_mul(b) as f64 * self.factor;
        CALL_COST.saturating_add(if scaled <= 0.0 { 0 } else { scaled as u64 })
    }
}

/// The runtime cost of an ext.Sets call ([`SetsRuntimeCost`]) by overload
/// id; `None` for overloads without one.
pub fn sets_runtime_cost(overload_id: &str, args: &[&Value]) -> Option<u64> {
    Some(SetsRuntimeCost::of(overload_id)?.cost(args))
}

/// Estimated cost of an ext.Sets call: ⌈f·size(a)·size(b)⌉ + 1 per bound.
pub(crate) fn sets_estimated_cost(
    overload_id: &str,
    a: Range,
    b: Range,
) -> Option<RangeCallEstimate> {
    let f = sets_factor(overload_id)?;
    let cost = a
        .saturating_mul(b)
        .multiply_by_cost_factor(f)
        .saturating_add(Range::fixed(CALL_COST));
    Some(RangeCallEstimate {
        cost,
        result_size: None,
    })
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    fn ints(n: i64) -> Value {
        Value::list((0..n).map(Value::Int).collect())
    }

    fn strs(n: usize) -> Value {
        Value::list((0..n).map(|i| Value::from(i.to_string())).collect())
    }

    #[test]
    fn lists_runtime_costs_match_cel_go() {
        // `[].sortBy(e, e)`: the tracker part of 1 + 2 + 11 + 0 = 14.
        assert_eq!(
            lists_runtime_cost(
                "list_int_sortByAssociatedKeys",
                &[&ints(0), &ints(0)],
                &ints(0)
            ),
            Some(11)
        );
        assert_eq!(
            lists_runtime_cost(
                "list_slice",
                &[&ints(4), &Value::Int(1), &Value::Int(3)],
                &ints(2)
            ),
            Some(13)
        );
        assert_eq!(
            lists_runtime_cost("lists_range", &[&Value::Int(5)], &ints(5)),
            Some(16)
        );
        assert_eq!(
            lists_runtime_cost("list_reverse", &[&ints(3)], &ints(3)),
            Some(14)
        );
        assert_eq!(
            lists_runtime_cost("list_flatten", &[&ints(4)], &ints(4)),
            Some(15)
        );
        assert_eq!(
            lists_runtime_cost("list_flatten_int", &[&ints(4), &Value::Int(3)], &ints(4)),
            Some(23)
        );
        assert_eq!(
            lists_runtime_cost("list_int_sort", &[&ints(3)], &ints(3)),
            Some(29)
        );
        // 2.1 · 9 = 18.900000000000002 → 18.
        assert_eq!(
            lists_runtime_cost("list_string_sort", &[&strs(3)], &strs(3)),
            Some(29)
        );
        assert_eq!(
            lists_runtime_cost("list_string_sort", &[&strs(10)], &strs(10)),
            Some(221)
        );
        assert_eq!(
            lists_runtime_cost("list_distinct", &[&ints(4)], &ints(4)),
            Some(43)
        );
        assert_eq!(
            lists_runtime_cost("size_list", &[&ints(4)], &Value::Int(4)),
            None
        );
    }

    #[test]
    fn sets_runtime_costs_match_cel_go() {
        assert_eq!(
            sets_runtime_cost("list_sets_contains_list", &[&ints(2), &ints(3)]),
            Some(7)
        );
        assert_eq!(
            sets_runtime_cost("list_sets_intersects_list", &[&ints(0), &ints(3)]),
            Some(1)
        );
        assert_eq!(
            sets_runtime_cost("list_sets_equivalent_list", &[&ints(2), &ints(3)]),
            Some(13)
        );
        assert_eq!(sets_runtime_cost("list_join", &[&ints(2)]), None);
    }

    #[test]
    fn estimates() {
        let input = EstimateInput {
            target_size: Range { min: 0, max: 10 },
            arg_size: Range { min: 0, max: 4 },
            literal_args: [None, None],
            string_elements: true,
        };
        let e = lists_estimated_cost("list_string_sort", &input).unwrap();
        assert_eq!(e.cost, Range { min: 11, max: 221 });
        let e = lists_estimated_cost("list_string_sortByAssociatedKeys", &input).unwrap();
        assert_eq!(e.cost, Range { min: 11, max: 45 });
        let slice = EstimateInput {
            literal_args: [Some(1), Some(3)],
            ..input
        };
        assert_eq!(
            lists_estimated_cost("list_slice", &slice).unwrap().cost,
            Range::fixed(13)
        );
        let unbounded = lists_estimated_cost(
            "lists_range",
            &EstimateInput {
                literal_args: [None, None],
                ..input
            },
        )
        .unwrap();
        assert_eq!(unbounded.cost.max, u64::MAX);
        let s = sets_estimated_cost(
            "list_sets_equivalent_list",
            Range { min: 1, max: 3 },
            Range { min: 2, max: 5 },
        )
        .unwrap();
        assert_eq!(s.cost, Range { min: 5, max: 31 });
        assert_eq!(
            multiply_by_cost_factor(u64::MAX, 0.1),
            1_844_674_407_370_955_264
        );
    }
}
