//! Borrowed operands: calls whose arguments are plain reads run on references.
//!
//! Most operands of operators and functions in real expressions are reads: a
//! constant, a comprehension variable, an activation variable, and present
//! fields of maps below them (`i.name`, `self.spec.replicas`). Evaluating
//! such a read through [`Plan::eval_node`] copies the value (a reference
//! count update for strings, lists and maps) only for the call to borrow it
//! and drop the copy. [`peek`] finds the value in place instead, and the call
//! runs on references.
//!
//! A peeked read charges exactly what the general path charges on success
//! (1 for the variable, 1 per field; 0 for a constant), in the same order;
//! anything [`peek`] declines (a missing field, a host's map, an optional
//! selection, an error in a slot, any other node) takes the general path, so
//! results, errors and costs are identical either way.

use super::Plan;
use super::cost;
use super::interp::{Ctx, VarCache};
use super::node::*;
use crate::error::EvalResult;
use crate::functions::FnImpl;
use crate::value::{Map, Value};

/// A fold's iteration variable borrowed from the range it iterates, in
/// place of its slot (see `item.rs`).
#[derive(Clone, Copy)]
pub(super) struct Item<'v> {
    /// The variable's slot.
    pub slot: usize,
    /// Its value for the current iteration.
    pub value: &'v Value,
}

/// Where [`peek`] keeps a value it reads out of a host's map (whose fields are
/// handed out as owned values), so that it can lend it like the values it
/// reads in place.
pub(super) type Owned = Option<Value>;

/// The value `n` reads, with the number of unit charges the general path
/// makes reading it; `None` when `n` is not a plain read that succeeds. A
/// field of a host's map is read into `owned` and lent from there.
///
/// Activation variables are found only once resolved into the cache (see
/// [`Plan::prepare`]).
#[inline(always)]
pub(super) fn peek<'a>(
    n: &'a Node,
    slots: &'a [EvalResult],
    vars: &'a VarCache<'a>,
    owned: &'a mut Owned,
) -> Option<(&'a Value, u64)> {
    peek_item::<false>(n, slots, vars, None, owned)
}

/// [`peek`] with `item`, when given, as the value of its slot; fields of
/// host maps are read only with `HOST` (which the operators and calls of the
/// general walk choose, and the fold bodies when their element is a host's
/// map: a plain map's field the read does not find costs one more test).
#[inline(always)]
pub(super) fn peek_item<'a, const HOST: bool>(
    n: &'a Node,
    slots: &'a [EvalResult],
    vars: &'a VarCache<'a>,
    item: Option<Item<'a>>,
    owned: &'a mut Owned,
) -> Option<(&'a Value, u64)> {
    let slot = |s: usize| match item {
        Some(it) if it.slot == s => Some(it.value),
        _ => match slots.get(s) {
            Some(Ok(v)) => Some(v),
            _ => None,
        },
    };
    match n {
        Node::Const(v) => Some((v, 0)),
        Node::Local(s) => slot(*s).map(|v| (v, 1)),
        Node::Attr(a) => {
            let root = match &a.base {
                Base::Slot(s) => slot(*s)?,
                Base::Vars(cands) => match cands.as_slice() {
                    [var] if var.skip == 0 => vars.get(var.cache)?.value()?,
                    _ => return None,
                },
                _ => return None,
            };
            let mut v = root;
            let mut rest = a.quals.as_slice();
            while let Some((q, tail)) = rest.split_first() {
                match (v, &q.kind) {
                    (Value::Map(m), QualKind::Field(f)) if !q.optional => match f.select_ref(m) {
                        Some(x) => v = x,
                        None => {
                            if !HOST {
                                return None;
                            }
                            let Map::Provided(_) = m else { return None };
                            v = owned.insert(read_host_fields(m, rest)?);
                            break;
                        }
                    },
                    _ => return None,
                }
                rest = tail;
            }
            Some((v, 1 + a.quals.len() as u64))
        }
        _ => None,
    }
}

/// The fields `quals` select from the host's map `m` and the maps below it,
/// each read as the general path reads it first (`FieldName::select`: the
/// same lookup, the same value); `None` when one is not a plain field
/// selection that finds a value.
#[inline(never)]
fn read_host_fields(m: &Map, quals: &[Qual]) -> Option<Value> {
    let (first, rest) = quals.split_first()?;
    let field = |q: &Qual, m: &Map| match &q.kind {
        QualKind::Field(f) if !q.optional => f.select(m),
        _ => None,
    };
    let mut v = field(first, m)?;
    for q in rest {
        let Value::Map(m) = &v else { return None };
        v = field(q, m)?;
    }
    Some(v)
}

impl Ctx<'_> {
    /// `ones` unit charges, then one charge of `then`, as the general path
    /// makes them one by one: within the limit, one addition and one test;
    /// past it, the cost stops where the first charge that passes it stops.
    #[inline(always)]
    pub(super) fn charge_run<const T: bool>(&mut self, ones: u64, then: u64) -> EvalResult<()> {
        if T {
            let first = self.cost.saturating_add(ones);
            if first > self.limit {
                // Unit steps from a cost within the limit stop just past it.
                self.cost = self.limit.saturating_add(1);
                return Err(cost_limit_exceeded());
            }
            self.cost = first;
            self.charge::<T>(then)?;
        }
        Ok(())
    }
}

impl Ctx<'_> {
    /// Charges `costs` in order, as that many separate charges.
    #[inline(always)]
    pub(super) fn charge_seq<const T: bool>(&mut self, costs: &[u64]) -> EvalResult<()> {
        if T {
            let total = costs.iter().fold(0u64, |a, c| a.saturating_add(*c));
            if self.cost.saturating_add(total) > self.limit {
                for c in costs {
                    self.charge::<T>(*c)?;
                }
            }
            self.cost = self.cost.saturating_add(total);
        }
        Ok(())
    }
}

/// The error of a charge past the cost limit (out of line: the hot paths
/// only test and branch).
#[cold]
#[inline(never)]
pub(super) fn cost_limit_exceeded() -> crate::error::EvalError {
    crate::error::EvalError::new(
        crate::error::ErrorKind::CostLimitExceeded,
        "operation cancelled: actual cost limit exceeded",
    )
}

impl Plan {
    /// Evaluates `n`, copying a plain read out of place (no evaluation
    /// through the general path).
    #[inline]
    pub(super) fn eval_read<const T: bool>(&self, n: &Node, cx: &mut Ctx<'_>) -> EvalResult {
        self.read_item::<T, false>(n, cx, None)
            .unwrap_or_else(|| self.eval_node::<T>(n, cx))
    }

    /// The plain read `n` with `item` in its slot, copied out of place;
    /// `None` when `n` is not a plain read that succeeds.
    #[inline(always)]
    pub(super) fn read_item<const T: bool, const HOST: bool>(
        &self,
        n: &Node,
        cx: &mut Ctx<'_>,
        item: Option<Item<'_>>,
    ) -> Option<EvalResult> {
        self.prepare(n, cx);
        let mut owned = None;
        let (v, k) = peek_item::<HOST>(n, cx.slots, &cx.vars, item, &mut owned)?;
        let v = v.clone();
        Some(cx.charge_run::<T>(k, 0).map(|()| v))
    }

    /// Resolves the activation variable `n` reads (if any) into the cache, so
    /// that [`peek`] can borrow it.
    #[inline]
    pub(super) fn prepare(&self, n: &Node, cx: &mut Ctx<'_>) {
        if let Node::Attr(a) = n
            && let Base::Vars(cands) = &a.base
            && let [var] = cands.as_slice()
            && var.skip == 0
        {
            cx.resolve_into_cache(var);
        }
    }

    /// A binary operator on two borrowed operands; `None` when either is not
    /// a plain read.
    #[inline(always)]
    pub(super) fn op2_borrowed<const T: bool, const HOST: bool>(
        &self,
        op: &Op2,
        cx: &mut Ctx<'_>,
        item: Option<Item<'_>>,
    ) -> Option<EvalResult> {
        self.prepare(&op.args[0], cx);
        self.prepare(&op.args[1], cx);
        let (mut owned_a, mut owned_b) = (None, None);
        let (a, na) = peek_item::<HOST>(&op.args[0], cx.slots, &cx.vars, item, &mut owned_a)?;
        let (b, nb) = peek_item::<HOST>(&op.args[1], cx.slots, &cx.vars, item, &mut owned_b)?;
        if let Some(v) = op.int_result(a, b) {
            return Some(cx.charge_run::<T>(na + nb, op.int_cost()).map(|()| v));
        }
        let r = (op.f)(a, b).map_err(|e| e.at(op.meta.id));
        let c = if !T {
            0
        } else if op.meta.custom.is_some() {
            cost::call_cost(&op.meta, &[a, b], r.as_ref().ok())
        } else {
            let rhs = if op.args[1].as_const().is_some() {
                op.const_size
            } else {
                cost::actual_size(b)
            };
            op.meta
                .rule
                .cost_sized(|i| if i == 0 { cost::actual_size(a) } else { rhs })
        };
        Some(self.finish::<T>(cx, r, na + nb, c))
    }

    /// A call of one or two borrowed arguments; `None` when an argument is
    /// not a plain read.
    #[inline(always)]
    pub(super) fn call_borrowed<const T: bool, const HOST: bool>(
        &self,
        c: &Call,
        cx: &mut Ctx<'_>,
        item: Option<Item<'_>>,
    ) -> Option<EvalResult> {
        for a in &c.args {
            self.prepare(a, cx);
        }
        let (r, args_cost, cost) = match c.args.as_slice() {
            [x] => {
                let mut owned = None;
                let (a, na) = peek_item::<HOST>(x, cx.slots, &cx.vars, item, &mut owned)?;
                let r = self.dispatch(c, &[a]);
                let cost = if T {
                    cost::call_cost(&c.meta, &[a], r.as_ref().ok())
                } else {
                    0
                };
                (r, na, cost)
            }
            [x, y] => {
                let (mut owned_a, mut owned_b) = (None, None);
                let (a, na) = peek_item::<HOST>(x, cx.slots, &cx.vars, item, &mut owned_a)?;
                let (b, nb) = peek_item::<HOST>(y, cx.slots, &cx.vars, item, &mut owned_b)?;
                let r = self.dispatch(c, &[a, b]);
                let cost = if T {
                    cost::call_cost(&c.meta, &[a, b], r.as_ref().ok())
                } else {
                    0
                };
                (r, na + nb, cost)
            }
            _ => return None,
        };
        Some(self.finish::<T>(cx, r, args_cost, cost))
    }

    /// Runtime dispatch over the call's candidates, on borrowed arguments.
    #[inline]
    fn dispatch(&self, c: &Call, args: &[&Value]) -> EvalResult {
        let Some(k) = c.candidates.iter().find(|k| k.accepts(args)) else {
            return Err(crate::error::EvalError::no_such_overload().at(c.meta.id));
        };
        let r = match (&k.imp, args) {
            (FnImpl::Unary(f), [a]) => f(a),
            (FnImpl::Binary(f), [a, b]) => f(a, b),
            (imp, args) => {
                let owned: Vec<Value> = args.iter().map(|v| (*v).clone()).collect();
                imp.call(&owned)
            }
        };
        r.map_err(|e| e.at(c.meta.id))
    }

    /// The charges of the operands and the call, then the size limit.
    #[inline(always)]
    fn finish<const T: bool>(
        &self,
        cx: &mut Ctx<'_>,
        r: EvalResult,
        args_cost: u64,
        cost: u64,
    ) -> EvalResult {
        cx.charge_run::<T>(args_cost, cost)?;
        if let Ok(v) = &r
            && cx.max_size != usize::MAX
        {
            cx.check_value_size(v)?;
        }
        r
    }
}
