//! Fold bodies evaluated with the iteration variable borrowed from the range.
//!
//! The general loop binds each element of the range to the iteration
//! variable's slot: a copy per element (a reference count update for a
//! string, list or map), and a drop when the next element replaces it. The
//! loops of `fold.rs` instead hand the element to [`Plan::eval_item`] by
//! reference: plain reads of the variable ([`peek_item`]), operators and calls
//! on such reads, `has()`, `&&`, `||` and `?:` run on it in place.
//!
//! Any other part of the body takes the general path, and first binds the
//! element to the slot (once per iteration), so every node sees the value it
//! would see in the general loop. Each node handled here evaluates its
//! operands in the general path's order and charges what the general path
//! charges (the functions are shared: `op2_with`, `op1_with`, `has_with`,
//! `logic_with`, `eval_branch`, `op2_borrowed`, `call_borrowed`, `read_item`),
//! so results, errors and costs are identical.

use super::Plan;
use super::borrow::Item;
use super::interp::{Ctx, logic_with, op1_with, set_slot};
use super::node::*;
use crate::error::{EvalError, EvalResult};
use crate::value::Value;

/// Whether the current element has been bound to its slot.
pub(super) struct Binding<'v> {
    pub item: Item<'v>,
    pub bound: bool,
}

impl<'v> Binding<'v> {
    /// Element `value` of the variable in `slot`, not bound yet.
    #[inline(always)]
    pub(super) fn new(slot: usize, value: &'v Value) -> Self {
        Binding {
            item: Item { slot, value },
            bound: false,
        }
    }
}

impl Plan {
    /// Evaluates `n` as [`Plan::eval_node`] does with `b`'s element in its
    /// slot; with `HOST`, fields of host maps are read in place too (the
    /// folds choose it for elements that are host maps).
    pub(super) fn eval_item<const T: bool, const HOST: bool>(
        &self,
        n: &Node,
        cx: &mut Ctx<'_>,
        b: &mut Binding<'_>,
    ) -> EvalResult {
        match n {
            Node::Const(v) => Ok(v.clone()),
            Node::Local(_) | Node::Attr(_) => {
                match self.read_item::<T, HOST>(n, cx, Some(b.item)) {
                    Some(r) => r,
                    None => self.eval_bound::<T>(n, cx, b),
                }
            }
            Node::Op2(op) => {
                if let Some(r) = self.op2_borrowed::<T, HOST>(op, cx, Some(b.item)) {
                    return r;
                }
                self.op2_with::<T>(op, cx, |n, cx| self.eval_item::<T, HOST>(n, cx, b))
            }
            Node::And(ab) => logic_with(ab, false, cx, |n, cx| self.eval_item::<T, HOST>(n, cx, b)),
            Node::Or(ab) => logic_with(ab, true, cx, |n, cx| self.eval_item::<T, HOST>(n, cx, b)),
            Node::Call(c) => match self.call_borrowed::<T, HOST>(c, cx, Some(b.item)) {
                Some(r) => r,
                None => self.eval_bound::<T>(n, cx, b),
            },
            Node::Op1(op) => op1_with::<T>(op, cx, |n, cx| self.eval_item::<T, HOST>(n, cx, b)),
            Node::Has(h) => self.has_with::<T>(h, cx, |n, cx| self.eval_item::<T, HOST>(n, cx, b)),
            Node::CondAttr(c) => self.cond_item::<T, HOST>(c, cx, b),
            _ => self.eval_bound::<T>(n, cx, b),
        }
    }

    /// `c ? t : f` as [`Plan::eval_node`] evaluates it (`eval_cond`), with
    /// `b`'s element in its slot: a branch that is an attribute or a
    /// variable is charged as a branch (general path, element bound).
    fn cond_item<const T: bool, const HOST: bool>(
        &self,
        c: &CondAttr,
        cx: &mut Ctx<'_>,
        b: &mut Binding<'_>,
    ) -> EvalResult {
        let branch = match self.eval_item::<T, HOST>(&c.cond, cx, b)? {
            Value::Bool(true) => &c.truthy,
            Value::Bool(false) => &c.falsy,
            _ => return Err(EvalError::no_such_overload().at(c.id)),
        };
        match branch {
            Node::Attr(_) | Node::Local(_) => {
                self.bind(b, cx);
                self.eval_branch::<T>(branch, cx)
            }
            Node::CondAttr(inner) => self.cond_item::<T, HOST>(inner, cx, b),
            other => self.eval_item::<T, HOST>(other, cx, b),
        }
    }

    /// Binds `b`'s element to its slot, once.
    #[inline(always)]
    fn bind(&self, b: &mut Binding<'_>, cx: &mut Ctx<'_>) {
        if !b.bound {
            set_slot(cx, b.item.slot, Ok(b.item.value.clone()));
            b.bound = true;
        }
    }

    /// `n` through the general path, the element bound to its slot first.
    #[inline(never)]
    fn eval_bound<const T: bool>(
        &self,
        n: &Node,
        cx: &mut Ctx<'_>,
        b: &mut Binding<'_>,
    ) -> EvalResult {
        self.bind(b, cx);
        self.eval_node::<T>(n, cx)
    }
}
