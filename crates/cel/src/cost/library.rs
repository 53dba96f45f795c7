//! The per-overload estimators cel-go's extension libraries attach to the
//! environment: ext.Lists (version 3 and later) and ext.Sets. The arithmetic
//! lives with the libraries in [`crate::library::ext::cost`]; this module
//! feeds it the sizes and literal arguments of the call's nodes and registers
//! it under the overload ids.
//!
//! The libraries install these from their `install` (ext.Lists only from
//! version 3, as cel-go does): call [`install_lists_estimators`] and
//! [`install_sets_estimators`] with the builder.

use std::sync::Arc;

use super::hooks::{AstNode, CallEstimate, OverloadEstimateFn, SizeEstimator, size_of};
use crate::env::EnvBuilder;
use crate::library::ext::cost::{
    self as ext_cost, COMPARABLE_TYPES, EstimateInput, Range, lists_estimated_cost,
    sets_estimated_cost,
};
use crate::syntax::{ExprKind, Literal};

/// cel-go's `nodeAsUintValue`: the value of an int literal argument (negative
/// values read as 0), `None` for anything else.
fn literal_uint(node: Option<&AstNode<'_>>) -> Option<u64> {
    match node.map(|n| &n.expr().kind) {
        Some(ExprKind::Literal(Literal::Int(i))) => Some(u64::try_from(*i).unwrap_or(0)),
        _ => None,
    }
}

fn to_call_estimate(e: ext_cost::RangeCallEstimate) -> CallEstimate {
    CallEstimate {
        cost: e.cost.into(),
        result_size: e.result_size.map(Into::into),
    }
}

/// The shape checks cel-go's ext.Lists estimators make before estimating:
/// `None` sends the call on to the next estimator.
fn lists_estimate(
    id: &str,
    sizes: &dyn SizeEstimator,
    target: Option<&AstNode<'_>>,
    args: &[AstNode<'_>],
) -> Option<CallEstimate> {
    let unknown = Range {
        min: 0,
        max: u64::MAX,
    };
    let mut input = EstimateInput {
        target_size: unknown,
        arg_size: unknown,
        literal_args: [None, None],
        string_elements: false,
    };
    match id {
        "list_slice" => {
            let t = target?;
            if args.len() != 2 {
                return None;
            }
            input.target_size = size_of(sizes, t).into();
            input.literal_args = [literal_uint(args.first()), literal_uint(args.get(1))];
        }
        "lists_range" => {
            if target.is_some() || args.len() != 1 {
                return None;
            }
            input.literal_args = [literal_uint(args.first()), None];
        }
        "list_flatten" | "list_flatten_int" => {
            let t = target?;
            if args.len() > 1 {
                return None;
            }
            input.target_size = size_of(sizes, t).into();
            input.literal_args = [literal_uint(args.first()), None];
        }
        _ if id.ends_with("_sortByAssociatedKeys") => {
            target?;
            let [keys] = args else { return None };
            input.arg_size = size_of(sizes, keys).into();
            input.string_elements = sorts_strings(id);
        }
        _ => {
            // reverse, distinct, sort: a receiver and no arguments.
            let t = target?;
            if !args.is_empty() {
                return None;
            }
            input.target_size = size_of(sizes, t).into();
            input.string_elements = sorts_strings(id);
        }
    }
    lists_estimated_cost(id, &input).map(to_call_estimate)
}

/// Whether a `sort` / `@sortByAssociatedKeys` overload sorts strings or bytes
/// (cel-go adds the string traversal factor to the comparison cost).
fn sorts_strings(id: &str) -> bool {
    id.starts_with("list_string_") || id.starts_with("list_bytes_")
}

/// Registers cel-go's ext.Lists (v3) estimators: `slice`, `flatten`,
/// `lists.range`, `reverse`, `distinct`, `sort`, `@sortByAssociatedKeys`.
pub fn install_lists_estimators(env: &mut EnvBuilder) {
    let mut ids: Vec<String> = [
        "list_slice",
        "list_flatten",
        "list_flatten_int",
        "lists_range",
        "list_reverse",
        "list_distinct",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for (name, _) in COMPARABLE_TYPES {
        ids.push(format!("list_{name}_sort"));
        ids.push(format!("list_{name}_sortByAssociatedKeys"));
    }
    for id in ids {
        let key = id.clone();
        let f: OverloadEstimateFn =
            Arc::new(move |sizes, target, args| lists_estimate(&key, sizes, target, args));
        env.add_overload_estimator(&id, f);
    }
}

/// Registers cel-go's ext.Sets estimators: `sets.contains`, `sets.intersects`
/// (1 + |a|·|b|) and `sets.equivalent` (1 + 2·|a|·|b|).
pub fn install_sets_estimators(env: &mut EnvBuilder) {
    for id in [
        "list_sets_contains_list",
        "list_sets_equivalent_list",
        "list_sets_intersects_list",
    ] {
        let f: OverloadEstimateFn = Arc::new(move |sizes, _target, args| {
            let [a, b] = args else { return None };
            sets_estimated_cost(id, size_of(sizes, a).into(), size_of(sizes, b).into())
                .map(to_call_estimate)
        });
        env.add_overload_estimator(id, f);
    }
}
