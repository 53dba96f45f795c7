//! Runtime call costs, as cel-go's `CostTracker.costCall`: a cost function
//! attached to the overload first, then the host's hook, then cel-go's
//! built-in rules keyed by the overload id the call was bound to. Which of
//! them can decide a call site is resolved when the program is planned
//! ([`CustomCost::resolve`]); a call pays for a custom cost only where one
//! applies.

use super::node::CallMeta;
use crate::env::Env;
use crate::functions::{CallCostFn, OverloadCostFn};
use crate::value::Value;

/// cel-go's `actualSize`: the size of sized values, 1 for anything else
/// (errors reach here as `null`, also 1).
#[inline(always)]
pub(crate) fn actual_size(v: &Value) -> u64 {
    match v {
        Value::String(_) | Value::Bytes(_) | Value::List(_) | Value::Map(_) => sized(v),
        _ => 1,
    }
}

/// [`actual_size`] of a string, bytes, list or map.
#[inline(never)]
fn sized(v: &Value) -> u64 {
    match v {
        Value::String(s) => code_points(s),
        Value::Bytes(b) => b.len() as u64,
        Value::List(l) => l.len() as u64,
        Value::Map(m) => m.len() as u64,
        _ => 1,
    }
}

/// [`actual_size`] of a string: its length in code points.
#[inline]
pub(crate) fn actual_size_str(s: &str) -> u64 {
    code_points(s)
}

/// `ceil_mul(n, 0.1)` without floating point for the common small sizes
/// (0 → 0, 1..=10 → 1: `n * 0.1` is at most exactly 1.0 there).
///
/// Beyond 10, a size that is not a multiple of 10 gives `n / 10 + 1` (its
/// product with the double 0.1 falls strictly between two integers while
/// sizes are far below 2^53); multiples of 10 take the floating-point path,
/// where the product may round just above the integer (30 → 4).
#[inline]
pub(crate) fn ceil_tenth(n: u64) -> u64 {
    if n <= 10 {
        u64::from(n != 0)
    } else if !n.is_multiple_of(10) && n < (1 << 40) {
        n / 10 + 1
    } else {
        ceil_mul(n, 0.1)
    }
}

/// The length of `s` in code points (ASCII text, the common case, is
/// recognised a word at a time).
#[inline]
fn code_points(s: &str) -> u64 {
    if s.is_ascii() {
        s.len() as u64
    } else {
        s.chars().count() as u64
    }
}

/// `uint64(math.Ceil(float64(n) * f))`, saturating.
#[inline]
pub(crate) fn ceil_mul(n: u64, f: f64) -> u64 {
    ceil_f64(n as f64 * f)
}

/// `uint64(math.Ceil(x))` for a non-negative `x`, saturating, without a
/// call to the C library's `ceil`.
#[inline]
fn ceil_f64(x: f64) -> u64 {
    if x >= 18_446_744_073_709_551_615.0 {
        return u64::MAX;
    }
    let t = x as u64; // truncates; NaN and negatives give 0
    if (t as f64) < x { t + 1 } else { t }
}

/// How a call site's cost is decided beyond the built-in rule, resolved when
/// the program is planned.
#[derive(Clone)]
pub(crate) enum CustomCost {
    /// A cost function attached to the overload: it decides every call.
    Overload(OverloadCostFn),
    /// The host's hook as resolved for the site: it decides, or leaves the
    /// call to the built-in rule.
    Hook(CallCostFn),
}

impl CustomCost {
    /// The site's custom cost: the overload's cost function first, then the
    /// host's hook resolved for `function` and `overload_id` (cel-go's
    /// `CostTracker.costCall` order).
    pub(crate) fn resolve(env: &Env, function: &str, overload_id: &str) -> Option<CustomCost> {
        if !overload_id.is_empty()
            && let Some(f) = env.overload_cost(overload_id)
        {
            return Some(CustomCost::Overload(f.clone()));
        }
        let hook = env.cost_hook()?;
        hook(function, overload_id).map(CustomCost::Hook)
    }
}

/// The cost of one call with `args` (receiver first; failed arguments as
/// `null`) and `result` (`None` when the call failed).
#[inline]
pub(crate) fn call_cost(meta: &CallMeta, args: &[&Value], result: Option<&Value>) -> u64 {
    match &meta.custom {
        None => match meta.rule {
            CostRule::One => 1,
            rule => rule.cost_sized(|i| args.get(i).map_or(1, |v| actual_size(v))),
        },
        Some(custom) => custom_cost(custom, meta.rule, args, result),
    }
}

/// [`call_cost`] when a cost function or the host's hook may decide.
#[inline(never)]
fn custom_cost(
    custom: &CustomCost,
    rule: CostRule,
    args: &[&Value],
    result: Option<&Value>,
) -> u64 {
    match custom {
        CustomCost::Overload(f) => f(args, result),
        CustomCost::Hook(h) => match h(args, result) {
            Some(c) => c,
            None => rule.cost_sized(|i| args.get(i).map_or(1, |v| actual_size(v))),
        },
    }
}

/// cel-go's default cost rules, by overload id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CostRule {
    /// Everything not listed: 1.
    One,
    /// ⌈0.1·size(arg0)⌉: startsWith, endsWith, bytes(string), string(bytes),
    /// `strings.quote`, `format` (its format string).
    FirstTraversal,
    /// size(arg1): `in` on a list.
    InList,
    /// ⌈0.1·min(size(arg0), size(arg1))⌉: equality, string/bytes ordering.
    MinTraversal,
    /// ⌈0.1·(size(arg0) + size(arg1))⌉: string/bytes concatenation.
    SumTraversal,
    /// ⌈0.1·(size(s)+1)⌉·⌈0.25·size(re)⌉.
    Matches,
    /// ⌈0.1·size(s)⌉·⌈0.1·size(sub)⌉.
    Contains,
}

impl CostRule {
    pub(crate) fn of(overload_id: &str) -> CostRule {
        match overload_id {
            "starts_with_string" | "ends_with_string" | "string_to_bytes" | "bytes_to_string"
            | "strings_quote" | "string_format" => CostRule::FirstTraversal,
            "in_list" => CostRule::InList,
            "less_string"
            | "greater_string"
            | "less_equals_string"
            | "greater_equals_string"
            | "less_bytes"
            | "greater_bytes"
            | "less_equals_bytes"
            | "greater_equals_bytes"
            | "equals"
            | "not_equals" => CostRule::MinTraversal,
            "add_string" | "add_bytes" => CostRule::SumTraversal,
            "matches_string" => CostRule::Matches,
            "contains_string" => CostRule::Contains,
            _ => CostRule::One,
        }
    }

    #[cfg(test)]
    pub(crate) fn cost(self, args: &[Value]) -> u64 {
        self.cost_sized(|i| args.get(i).map_or(1, actual_size))
    }

    /// The rule applied to argument sizes (`size(i)`: of argument `i`).
    #[inline(always)]
    pub(crate) fn cost_sized(self, size: impl Fn(usize) -> u64) -> u64 {
        match self {
            CostRule::One => 1,
            CostRule::FirstTraversal => ceil_tenth(size(0)),
            CostRule::InList => size(1),
            CostRule::MinTraversal => ceil_tenth(size(0).min(size(1))),
            CostRule::SumTraversal => ceil_tenth(size(0).saturating_add(size(1))),
            CostRule::Matches => {
                let n = size(0);
                // ⌈0.1·(1 + n)⌉ as cel-go computes it in floating point.
                let s = if n < (1 << 40) {
                    ceil_tenth(n + 1)
                } else {
                    ceil_f64((1.0 + n as f64) * 0.1)
                };
                s.saturating_mul(ceil_mul(size(1), 0.25))
            }
            CostRule::Contains => ceil_tenth(size(0)).saturating_mul(ceil_tenth(size(1))),
        }
    }
}

/// cel-go's default rules by overload id (tests).
#[cfg(test)]
pub(crate) fn builtin_cost(overload_id: &str, args: &[Value]) -> u64 {
    CostRule::of(overload_id).cost(args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_tenth_agrees_with_floating_point() {
        for n in (0..100_000u64)
            .chain((1u64 << 39) - 1000..(1u64 << 39))
            .chain([u64::MAX, 1 << 53])
        {
            assert_eq!(ceil_tenth(n), ceil_mul(n, 0.1), "{n}");
        }
    }

    #[test]
    fn ceil_without_libm_agrees_with_ceil() {
        let xs = [
            0.0,
            0.1,
            0.5,
            1.0,
            1.0000000000000002,
            2.9999999999999996,
            3.0000000000000004,
            1e15 + 0.5,
            9.007199254740993e15,
            1.8446744073709552e19,
            1e30,
            -1.0,
            f64::NAN,
        ];
        for x in xs {
            let expected = if x >= 18_446_744_073_709_551_615.0 {
                u64::MAX
            } else {
                x.ceil() as u64
            };
            assert_eq!(ceil_f64(x), expected, "{x}");
        }
        for n in 0..10_000u64 {
            assert_eq!(ceil_mul(n, 0.25), (n as f64 * 0.25).ceil() as u64);
            let matches_first = ((1.0 + n as f64) * 0.1).ceil() as u64;
            assert_eq!(
                CostRule::Matches.cost_sized(|i| if i == 0 { n } else { 4 }),
                matches_first
            );
        }
    }

    #[test]
    fn code_points_count_non_ascii() {
        for s in ["", "a", "ü", "aü€😀", &"é".repeat(40), &"x".repeat(33)] {
            assert_eq!(code_points(s), s.chars().count() as u64, "{s}");
        }
    }

    #[test]
    fn builtin_rules() {
        let s = |x: &str| Value::from(x);
        assert_eq!(builtin_cost("equals", &[Value::Int(1), Value::Int(2)]), 1);
        assert_eq!(builtin_cost("equals", &[s(""), s("abc")]), 0);
        assert_eq!(
            builtin_cost("matches_string", &[s("abcdefghijkl"), s("^[^0-9]*$")]),
            2 * 3
        );
        assert_eq!(builtin_cost("add_string", &[s("str1 "), s("a string")]), 2);
        assert_eq!(
            builtin_cost(
                "in_list",
                &[Value::Int(1), Value::list(vec![Value::Null; 7])]
            ),
            7
        );
        assert_eq!(builtin_cost("add_list", &[]), 1);
        let args = [s("%d %s %f %s %s"), Value::list(vec![])];
        assert_eq!(builtin_cost("string_format", &args), 2);
        assert_eq!(ceil_mul(u64::MAX, 0.1), 1_844_674_407_370_955_264);
        for n in (0..10_000).chain([u64::MAX - 1, u64::MAX]) {
            assert_eq!(ceil_tenth(n), ceil_mul(n, 0.1), "{n}");
        }
    }
}
