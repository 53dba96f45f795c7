//! cel-go's built-in call estimates (the `switch` of `coster.functionCost`),
//! keyed by overload id. Overloads not listed cost 1 plus their arguments.

use super::CelGoVersion;
use super::coster::{Coster, EntrySize};
use super::estimate::{CostEstimate, SizeEstimate};
use super::hooks::{AstNode, CallEstimate};
use crate::syntax::Expr;

/// cel-go's `common.StringTraversalCostFactor`.
pub const STRING_TRAVERSAL_COST_FACTOR: f64 = 0.1;
/// cel-go's `common.RegexStringLengthCostFactor`.
pub const REGEX_STRING_LENGTH_COST_FACTOR: f64 = 0.25;

fn size_or_unknown(node: &AstNode<'_>) -> SizeEstimate {
    node.computed_size().unwrap_or(SizeEstimate::UNKNOWN)
}

/// The estimate of overload `overload_id` of call `e`; `arg_sum` is the sum of
/// `arg_costs` (the receiver's cost is added by the caller).
pub(super) fn estimate<'a>(
    coster: &mut Coster<'a>,
    e: &'a Expr,
    overload_id: &str,
    target: Option<&AstNode<'_>>,
    args: &[AstNode<'_>],
    arg_costs: &[CostEstimate],
    arg_sum: CostEstimate,
) -> CallEstimate {
    let traversal = |size: SizeEstimate| size.multiply_by_cost_factor(STRING_TRAVERSAL_COST_FACTOR);
    let with_args = |cost: CostEstimate| CallEstimate::cost(cost.saturating_add(arg_sum));
    match overload_id {
        // O(n) functions.
        "string_format" => {
            if let Some(t) = target {
                // No result size: it cannot be bounded.
                return with_args(traversal(size_or_unknown(t)));
            }
        }
        "string_to_bytes" => {
            if let [arg] = args {
                let sz = size_or_unknown(arg);
                // Each code point becomes at most 4 bytes.
                return CallEstimate {
                    cost: traversal(sz).saturating_add(arg_sum),
                    result_size: Some(SizeEstimate::new(sz.min, sz.max.wrapping_mul(4))),
                };
            }
        }
        "bytes_to_string" => {
            if let [arg] = args {
                let sz = size_or_unknown(arg);
                // At least one code point per 4 bytes.
                return CallEstimate {
                    cost: traversal(sz).saturating_add(arg_sum),
                    result_size: Some(SizeEstimate::new(sz.min / 4, sz.max)),
                };
            }
        }
        "strings_quote" => {
            if let [arg] = args {
                let sz = size_or_unknown(arg);
                // Every code point may be escaped; two quotes are always added.
                return CallEstimate {
                    cost: traversal(sz).saturating_add(arg_sum),
                    result_size: Some(SizeEstimate::new(
                        sz.min.wrapping_add(2),
                        sz.max.wrapping_mul(2).wrapping_add(2),
                    )),
                };
            }
        }
        "starts_with_string" | "ends_with_string" => {
            // The prefix / suffix argument in every cel-go version (the
            // receiver is `target`, not an argument).
            if let [arg] = args {
                return with_args(traversal(size_or_unknown(arg)));
            }
        }
        "in_list" => {
            if let [_, list] = args {
                return with_args(size_or_unknown(list).multiply_by_cost_factor(1.0));
            }
        }
        // O(n·m) functions.
        "matches" | "matches_string" => {
            let operands = match (overload_id, target, args) {
                ("matches_string", Some(s), [re]) => Some((s, re)),
                ("matches", None, [s, re]) if coster.options().version >= CelGoVersion::V0_29 => {
                    Some((s, re))
                }
                _ => None,
            };
            if let Some((s, re)) = operands {
                // One more than the length, so that an empty string against
                // an expensive regex does not cost 0.
                let str_cost = traversal(size_or_unknown(s).saturating_add(SizeEstimate::fixed(1)));
                let regex_cost =
                    size_or_unknown(re).multiply_by_cost_factor(REGEX_STRING_LENGTH_COST_FACTOR);
                return with_args(str_cost.multiply(regex_cost));
            }
        }
        "contains_string" => {
            if let (Some(t), [sub]) = (target, args) {
                let str_cost = traversal(size_or_unknown(t));
                let sub_cost = traversal(size_or_unknown(sub));
                return with_args(str_cost.multiply(sub_cost));
            }
        }
        "logical_or" | "logical_and" => {
            if let [lhs, rhs] = arg_costs {
                // Short-circuiting: at least the left operand.
                return CallEstimate::cost(CostEstimate::new(
                    lhs.min,
                    lhs.saturating_add(*rhs).max,
                ));
            }
        }
        "conditional" => {
            if let ([_, if_true, if_false], [cond_cost, true_cost, false_cost]) = (args, arg_costs)
            {
                let size = size_or_unknown(if_true).union(size_or_unknown(if_false));
                let entries = EntrySize::union(
                    coster.compute_entry_size(if_true.expr()),
                    coster.compute_entry_size(if_false.expr()),
                );
                coster.set_entry_size(e, entries);
                return CallEstimate {
                    cost: cond_cost.saturating_add(true_cost.union(*false_cost)),
                    result_size: Some(size),
                };
            }
        }
        "add_string" | "add_bytes" | "add_list" => {
            if let [lhs, rhs] = args {
                let result = size_or_unknown(lhs).saturating_add(size_or_unknown(rhs));
                let entries = EntrySize::union(
                    coster.compute_entry_size(lhs.expr()),
                    coster.compute_entry_size(rhs.expr()),
                );
                coster.set_entry_size(e, entries);
                let cost = if overload_id == "add_list" {
                    // Concatenation is O(1); handled here to track the size.
                    CostEstimate::fixed(1)
                } else {
                    traversal(result)
                };
                return CallEstimate {
                    cost: cost.saturating_add(arg_sum),
                    result_size: Some(result),
                };
            }
        }
        "less_string"
        | "greater_string"
        | "less_equals_string"
        | "greater_equals_string"
        | "less_bytes"
        | "greater_bytes"
        | "less_equals_bytes"
        | "greater_equals_bytes"
        | "equals"
        | "not_equals" => {
            if let [lhs, rhs] = args {
                let smallest_max = size_or_unknown(lhs).max.min(size_or_unknown(rhs).max);
                let min = u64::from(smallest_max > 0);
                return with_args(traversal(SizeEstimate::new(min, smallest_max)));
            }
        }
        _ => {}
    }
    // O(1) functions.
    with_args(CostEstimate::fixed(1))
}
