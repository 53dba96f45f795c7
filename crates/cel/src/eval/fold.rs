//! Specialised folds: the comprehension shapes macros produce, run without
//! walking their loop condition and step nodes.
//!
//! Each runs exactly the fold the general loop of `interp.rs` runs for its
//! shape (see [`FoldShape`]): same accumulator, same result, same errors and
//! the same charges in the same order, so that cost tracking and limits are
//! unaffected. What they save is the interpretive overhead: evaluating
//! constant conditions, moving the accumulator in and out of its slot, and
//! (for `x <op> constant` predicates) binding the iteration variable at all.

use super::Plan;
use super::cost;
use super::interp::{Ctx, is_abort, set_slot};
use super::item::Binding;
use super::node::*;
use crate::error::{EvalError, EvalResult};
use crate::syntax::ExprId;
use crate::value::{List, Value};

/// What each iteration of an `exists`/`all` fold needs (see
/// [`Plan::quantifier`]).
struct Quantifier<'a> {
    exists: bool,
    /// The loop condition's cost when no hook or cost function can change it
    /// (0: computed per iteration).
    fixed_cond: u64,
    /// The `!_` of `exists`' condition.
    not_meta: Option<&'a CallMeta>,
    /// The condition's `@not_strictly_false`.
    nsf_meta: &'a CallMeta,
    /// The predicate.
    pred: &'a Node,
}

/// The elements a fold iterates.
#[derive(Clone, Copy)]
pub(super) enum Elements<'v> {
    /// A plain list's elements, borrowed.
    Slice(&'v [Value]),
    /// A host's list, read element by element.
    Host(&'v List),
}

/// An `exists`/`all` over `x <op> k` (see [`Plan::quantifier_compare`]).
#[derive(Clone, Copy)]
struct Compare<'a> {
    exists: bool,
    /// The loop condition's cost (0 untracked).
    fixed_cond: u64,
    op: &'a Op2,
    k: &'a Value,
}

impl Plan {
    /// `exists` / `all` over a plain list: the fold of the general path
    /// (same accumulator, same result, same cost) without walking the
    /// condition and step nodes: only the predicate is evaluated.
    ///
    /// A host's list ([`Elements::Host`]) is read element by element as the
    /// general loop reads it; an element it cannot read is bound to the
    /// variable as the error, and the predicate then runs through the
    /// general path, which reads it from the slot.
    pub(super) fn quantifier<const T: bool>(
        &self,
        c: &Compr,
        cx: &mut Ctx<'_>,
        elements: Elements<'_>,
    ) -> EvalResult {
        let exists = c.shape == FoldShape::Exists;
        let (Node::And(ab) | Node::Or(ab)) = &c.step else {
            return Err(EvalError::msg("internal error: fold shape"));
        };
        let Node::NotStrictlyFalse(nsf) = &c.cond else {
            return Err(EvalError::msg("internal error: fold shape"));
        };
        let (cond_arg, nsf_meta) = (&nsf.0, &nsf.1);
        let not_meta = match cond_arg {
            Node::Op1(op) => Some(&op.meta),
            _ => None,
        };
        let pred = &ab[1];
        // The condition's cost when no hook or cost function can change it.
        let plain = |m: &CallMeta| m.custom.is_none() && m.rule == cost::CostRule::One;
        let fixed_cond = if plain(nsf_meta) && not_meta.is_none_or(plain) {
            if exists { 3 } else { 2 }
        } else {
            0
        };
        if let Elements::Slice(items) = elements
            && let Node::Op2(op) = pred
            && let [Node::Local(s), Node::Const(k)] = &op.args
            && *s == c.iter_slot
            && c.iter_slot2.is_none()
            && (!T || (fixed_cond > 0 && op.meta.custom.is_none()))
        {
            let q = Compare {
                exists,
                fixed_cond,
                op,
                k,
            };
            return self.quantifier_compare::<T>(cx, items, q);
        }
        let q = Quantifier {
            exists,
            fixed_cond,
            not_meta,
            nsf_meta,
            pred,
        };
        // The accumulator: a bool or an error (never another value).
        let mut acc: Result<bool, EvalError> = Ok(!exists);
        match elements {
            Elements::Slice(items) => {
                for (i, item) in items.iter().enumerate() {
                    cx.tick()?;
                    let mut b = self.borrow_list_item(c, cx, i, item);
                    if !self.quantifier_iteration::<T, false>(cx, &q, &mut acc, Some(&mut b))? {
                        break;
                    }
                }
            }
            Elements::Host(l) => self.host_fold(c, cx, l, |cx, b| {
                self.quantifier_iteration::<T, true>(cx, &q, &mut acc, b)
            })?,
        }
        set_slot(cx, c.iter_slot, Ok(Value::Null));
        if let Some(s2) = c.iter_slot2 {
            set_slot(cx, s2, Ok(Value::Null));
        }
        cx.charge::<T>(1)?; // the result reads the accumulator
        acc.map(Value::Bool)
    }

    /// One iteration of [`Plan::quantifier`] on the bound element `binding`
    /// (`None`: an element the host could not read, bound to the slot as the
    /// error): the loop condition, then the step. `Ok(false)` when the
    /// condition ends the fold.
    #[inline(always)]
    fn quantifier_iteration<const T: bool, const HOST: bool>(
        &self,
        cx: &mut Ctx<'_>,
        q: &Quantifier<'_>,
        acc: &mut Result<bool, EvalError>,
        binding: Option<&mut Binding<'_>>,
    ) -> EvalResult<bool> {
        let exists = q.exists;
        // Loop condition: @not_strictly_false(!acc) / @not_strictly_false(acc).
        let tested: Result<bool, ()> = match &*acc {
            Ok(b) => Ok(if exists { !b } else { *b }),
            Err(_) => Err(()),
        };
        let cond_cost = if !T {
            0
        } else if q.fixed_cond > 0 {
            q.fixed_cond
        } else {
            let acc_v = match &*acc {
                Ok(b) => Value::Bool(*b),
                Err(_) => Value::Null,
            };
            let mut cost = 1; // the accumulator
            if exists {
                let not = tested.map(Value::Bool);
                cost += q
                    .not_meta
                    .map_or(1, |m| cost::call_cost(m, &[&acc_v], not.as_ref().ok()));
            }
            let tested_v = match tested {
                Ok(b) => Value::Bool(b),
                Err(_) => Value::Null,
            };
            let out = Value::Bool(tested != Ok(false));
            cost += cost::call_cost(q.nsf_meta, &[&tested_v], Some(&out));
            cost
        };
        if tested == Ok(false) {
            cx.charge::<T>(cond_cost)?;
            return Ok(false);
        }
        // The condition, then the step `acc || p` / `acc && p` reading the
        // accumulator (acc is neutral or an error here).
        cx.charge_seq::<T>(&[cond_cost, 1])?;
        let p = match binding {
            Some(b) => self.eval_item::<T, HOST>(q.pred, cx, b),
            None => self.eval_node::<T>(q.pred, cx),
        };
        abort_on!(p);
        quantifier_step(acc, p, exists, 0);
        Ok(true)
    }

    /// `exists` / `all` whose predicate is `x <op> constant` on the
    /// iteration variable: the operator runs on each borrowed item, nothing
    /// is bound. Charges per iteration, in order: the loop condition
    /// (`fixed_cond`), the step's read of the accumulator (1), the read of
    /// the variable (1), the operator.
    fn quantifier_compare<const T: bool>(
        &self,
        cx: &mut Ctx<'_>,
        items: &[Value],
        q: Compare<'_>,
    ) -> EvalResult {
        let Compare {
            exists,
            fixed_cond,
            op,
            k,
        } = q;
        let rule = op.meta.rule;
        // When even the dearest run of the whole list stays within the
        // limit, no charge can fail: costs are summed without checks.
        let max_op = match rule {
            cost::CostRule::One => Some(1),
            cost::CostRule::MinTraversal => Some(cost::ceil_tenth(op.const_size)),
            _ => None,
        };
        let unchecked = T
            && max_op.is_some_and(|m| {
                let longest = (items.len() as u64)
                    .saturating_mul(fixed_cond + 2 + m)
                    .saturating_add(fixed_cond + 1);
                cx.cost.saturating_add(longest) <= cx.limit
            });
        let mut acc: Result<bool, EvalError> = Ok(!exists);
        for item in items {
            cx.tick()?;
            if matches!(acc, Ok(b) if b == exists) {
                // The loop condition is false: the fold stops.
                if unchecked {
                    cx.cost += fixed_cond;
                } else {
                    cx.charge::<T>(fixed_cond)?;
                }
                break;
            }
            // A comparison of two ints: the boolean in place.
            let compared = op.int_comparison(item, k);
            if T {
                let op_cost = match rule {
                    cost::CostRule::One => 1,
                    _ if compared.is_some() => op.int_cost(),
                    _ => {
                        let rhs = op.const_size;
                        rule.cost_sized(|i| if i == 0 { cost::actual_size(item) } else { rhs })
                    }
                };
                if unchecked {
                    cx.cost += fixed_cond + 2 + op_cost;
                } else {
                    cx.charge_seq::<T>(&[fixed_cond, 1, 1, op_cost])?;
                }
            }
            match compared {
                // The accumulator is the neutral value or an error here: a
                // deciding predicate wins, any other boolean changes nothing.
                Some(b) => {
                    if b == exists {
                        acc = Ok(exists);
                    }
                }
                None => quantifier_step(&mut acc, (op.f)(item, k), exists, op.meta.id),
            }
        }
        cx.charge::<T>(1)?; // the result reads the accumulator
        acc.map(Value::Bool)
    }

    /// `map` and `filter` (and the two-variable `transformList`): init `[]`,
    /// condition `true`, step `acc + [e]` or `p ? acc + [e] : acc`, result
    /// `acc`. The accumulator is a local vector.
    ///
    /// A host's list ([`Elements::Host`]) is read element by element as the
    /// general loop reads it; an element it cannot read is bound to the
    /// variable as the error, and the body then runs through the general
    /// path, which reads it from the slot.
    pub(super) fn append_fold<const T: bool>(
        &self,
        c: &Compr,
        cx: &mut Ctx<'_>,
        elements: Elements<'_>,
    ) -> EvalResult {
        let (filter, append) = match &c.step {
            Node::AccuAppend(a) => (None, &**a),
            Node::CondAttr(ca) => match &ca.truthy {
                Node::AccuAppend(a) => (Some(&**ca), &**a),
                _ => return Err(EvalError::msg("internal error: fold shape")),
            },
            _ => return Err(EvalError::msg("internal error: fold shape")),
        };
        let step = AppendStep { filter, append };
        // `[]`: nothing to build, but a list literal is charged.
        let init = self.eval_node::<T>(&c.accu_init, cx);
        abort_on!(init);
        let len = match elements {
            Elements::Slice(items) => items.len(),
            Elements::Host(l) => l.len(),
        };
        let mut acc: Result<Vec<Value>, EvalError> = match init {
            Ok(_) => Ok(Vec::with_capacity(if filter.is_none() { len } else { 0 })),
            Err(e) => Err(e),
        };
        match elements {
            Elements::Slice(items) => {
                for (i, item) in items.iter().enumerate() {
                    cx.tick()?;
                    let mut b = self.borrow_list_item(c, cx, i, item);
                    self.append_iteration::<T, false>(cx, &step, &mut acc, Some(&mut b))?;
                }
            }
            Elements::Host(l) => self.host_fold(c, cx, l, |cx, b| {
                self.append_iteration::<T, true>(cx, &step, &mut acc, b)?;
                Ok(true)
            })?,
        }
        cx.charge::<T>(1)?; // the result reads the accumulator
        set_slot(cx, c.iter_slot, Ok(Value::Null));
        if let Some(s2) = c.iter_slot2 {
            set_slot(cx, s2, Ok(Value::Null));
        }
        acc.map(|items| Value::List(List::new(items)))
    }

    /// One iteration of [`Plan::append_fold`] on the bound element `binding`
    /// (`None`: an element the host could not read, bound to the slot as the
    /// error): the filter's predicate, then the append.
    #[inline(always)]
    fn append_iteration<const T: bool, const HOST: bool>(
        &self,
        cx: &mut Ctx<'_>,
        step: &AppendStep<'_>,
        acc: &mut Result<Vec<Value>, EvalError>,
        mut binding: Option<&mut Binding<'_>>,
    ) -> EvalResult<()> {
        let mut eval = |n: &Node, cx: &mut Ctx<'_>| match binding.as_deref_mut() {
            Some(b) => self.eval_item::<T, HOST>(n, cx, b),
            None => self.eval_node::<T>(n, cx),
        };
        if let Some(ca) = step.filter {
            match eval(&ca.cond, cx) {
                Ok(Value::Bool(true)) => {}
                Ok(Value::Bool(false)) => return Ok(()),
                Ok(_) => {
                    *acc = Err(EvalError::no_such_overload().at(ca.id));
                    return Ok(());
                }
                Err(e) => {
                    if is_abort(&e) {
                        return Err(e);
                    }
                    *acc = Err(e);
                    return Ok(());
                }
            }
        }
        let append = step.append;
        let elem = eval(&append.elem, cx);
        abort_on!(elem);
        cx.charge::<T>(1 + append.list_cost)?; // the accumulator, the list literal
        match (&mut *acc, elem) {
            (Err(_), _) => {}
            (Ok(_), Err(e)) => *acc = Err(e),
            (Ok(list), Ok(x)) => {
                cx.check_size(list.len() + 1)?;
                list.push(x);
            }
        }
        if T {
            // `_+_` of the new accumulator (`null` when failed) and the
            // failed or consumed `[e]` (`null`), by the built-in rule: the
            // planner picks this shape only without a cost function or hook.
            let len = acc.as_ref().map_or(1, |l| l.len() as u64);
            let cost = append.add.rule.cost_sized(|i| if i == 0 { len } else { 1 });
            cx.charge::<T>(cost)?;
        }
        Ok(())
    }
}

/// The step of a `map`/`filter` fold (see [`Plan::append_fold`]).
struct AppendStep<'a> {
    /// `filter`'s `p ? acc + [e] : acc`; `None` for `map`.
    filter: Option<&'a CondAttr>,
    /// The `acc + [e]`.
    append: &'a AccuAppend,
}

impl Plan {
    /// Any other fold over a list: the loop of `interp.rs`' general path
    /// (each element in the variable, the loop condition, then the step into
    /// the accumulator), with each element borrowed from the range: the
    /// condition and the step run through [`Plan::eval_item`], which binds
    /// the element only for the parts of them that need the general path.
    /// The element the loop ended on is bound before the result is
    /// evaluated, as the general loop leaves it.
    ///
    /// A host's list is read as [`Plan::host_fold`] reads it; an element it
    /// cannot read makes that iteration run through the general path.
    pub(super) fn list_fold<const T: bool>(
        &self,
        c: &Compr,
        cx: &mut Ctx<'_>,
        elements: Elements<'_>,
    ) -> EvalResult<()> {
        match elements {
            Elements::Slice(items) => {
                let mut unbound = None;
                for (i, item) in items.iter().enumerate() {
                    cx.tick()?;
                    let mut b = self.borrow_list_item(c, cx, i, item);
                    let more = self.fold_step_item::<T, false>(c, cx, &mut b)?;
                    unbound = (!b.bound).then_some((b.item.slot, item));
                    if !more {
                        break;
                    }
                }
                if let Some((slot, item)) = unbound {
                    set_slot(cx, slot, Ok(item.clone()));
                }
            }
            Elements::Host(l) => self.host_fold(c, cx, l, |cx, b| match b {
                Some(b) => self.fold_step_item::<T, true>(c, cx, b),
                None => self.fold_step::<T>(c, cx),
            })?,
        }
        Ok(())
    }

    /// The elements of a host's list in order, read as the general loop reads
    /// them (a missing one as `null`), each handed to `step` borrowed; an
    /// element the host cannot read is bound to the variable as the error and
    /// `step` gets `None` (the general path reads it from the slot). An
    /// element `step` left unbound is then moved to the variable, as the
    /// general loop leaves it. Stops when `step` returns `false`.
    fn host_fold(
        &self,
        c: &Compr,
        cx: &mut Ctx<'_>,
        l: &List,
        mut step: impl FnMut(&mut Ctx<'_>, Option<&mut Binding<'_>>) -> EvalResult<bool>,
    ) -> EvalResult<()> {
        for i in 0..l.len() {
            cx.tick()?;
            let more = match l.try_get(i) {
                Ok(v) => {
                    let item = v.unwrap_or(Value::Null);
                    let mut b = self.borrow_list_item(c, cx, i, &item);
                    let more = step(cx, Some(&mut b));
                    let (slot, bound) = (b.item.slot, b.bound);
                    if !bound {
                        set_slot(cx, slot, Ok(item));
                    }
                    more?
                }
                Err(e) => {
                    self.bind_list_result(c, cx, i, Err(e));
                    step(cx, None)?
                }
            };
            if !more {
                break;
            }
        }
        Ok(())
    }

    /// `fold_step` (`interp.rs`) with the element borrowed in `b`.
    #[inline(always)]
    fn fold_step_item<const T: bool, const HOST: bool>(
        &self,
        c: &Compr,
        cx: &mut Ctx<'_>,
        b: &mut Binding<'_>,
    ) -> EvalResult<bool> {
        match self.eval_item::<T, HOST>(&c.cond, cx, b) {
            Ok(Value::Bool(true)) => {}
            Err(e) if is_abort(&e) => return Err(e),
            _ => return Ok(false),
        }
        let v = self.eval_item::<T, HOST>(&c.step, cx, b);
        abort_on!(v);
        set_slot(cx, c.accu_slot, v);
        Ok(true)
    }

    /// Element `i` of the range, `item`, as the fold's variable, borrowed
    /// (see `item.rs`): of a two-variable fold, the index is bound to its
    /// slot and the element is the second variable.
    #[inline(always)]
    fn borrow_list_item<'v>(
        &self,
        c: &Compr,
        cx: &mut Ctx<'_>,
        i: usize,
        item: &'v Value,
    ) -> Binding<'v> {
        match c.iter_slot2 {
            Some(s2) => {
                set_slot(cx, c.iter_slot, Ok(Value::Int(i as i64)));
                Binding::new(s2, item)
            }
            None => Binding::new(c.iter_slot, item),
        }
    }
}

/// The step of `exists` (`acc || p`) and `all` (`acc && p`) on an
/// accumulator that is its neutral value or an error: a deciding predicate
/// wins over an error, an error is kept, a non-bool predicate is an error. A
/// predicate error without a location gets `at` (0: none).
#[inline(always)]
fn quantifier_step(acc: &mut Result<bool, EvalError>, p: EvalResult, exists: bool, at: ExprId) {
    match (&*acc, p) {
        (_, Ok(Value::Bool(b))) if b == exists => *acc = Ok(exists),
        (Err(_), _) => {}
        (Ok(_), Ok(Value::Bool(b))) => *acc = Ok(b),
        (Ok(_), Ok(_)) => *acc = Err(EvalError::no_such_overload()),
        (Ok(_), Err(e)) => *acc = Err(e.at(at)),
    }
}
