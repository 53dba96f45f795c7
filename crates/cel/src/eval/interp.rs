//! The interpreter: walks evaluation nodes.
//!
//! Every evaluation function is generic over `T` (track cost): with `T =
//! false` all cost bookkeeping compiles away. With `T = true` each node is
//! charged as cel-go's cost observer charges it (see `cost.rs` and the node
//! docs), errors included, and the limit is checked at every charge.
//!
//! CEL errors travel as `Err`; errors that stop evaluation outright (cost
//! limit, cancellation, size limit) are never absorbed by `&&`, `||`, `?:` or
//! comprehension conditions.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use indexmap::Equivalent;

use super::Plan;
use super::borrow::cost_limit_exceeded;
use super::cost;
use super::fold::Elements;
use super::node::*;
use super::planner::map_key;
use crate::activation::Activation;
use crate::error::{ErrorKind, EvalError, EvalResult};
use crate::library::std::ops;
use crate::types::Type;
use crate::value::{KeyRef, List, Map, Value};

/// State of one evaluation.
pub(crate) struct Ctx<'a> {
    pub act: &'a dyn Activation,
    /// Comprehension variables and accumulators (accumulators may hold errors).
    pub slots: &'a mut [EvalResult],
    /// `cel.block` slots, computed on first use.
    pub blocks: Vec<Option<EvalResult>>,
    pub cost: u64,
    pub limit: u64,
    pub cancel: Option<&'a AtomicBool>,
    pub deadline: Option<Instant>,
    pub iterations: u64,
    pub max_size: usize,
    /// Variables resolved so far (see [`VarRef::cache`]).
    pub vars: VarCache<'a>,
    /// A buffer for string building, reused across a evaluation.
    pub scratch: String,
}

pub(super) static NULL: Value = Value::Null;

/// Up to this many members, `x in [constants]` compares `x` with each member
/// instead of hashing it (the key equality the hash lookup uses).
const IN_SET_SCAN_MAX: usize = 8;

/// Errors that end evaluation instead of flowing as CEL error values.
#[inline]
pub(super) fn is_abort(e: &EvalError) -> bool {
    matches!(
        e.kind(),
        ErrorKind::CostLimitExceeded | ErrorKind::Cancelled | ErrorKind::LimitExceeded
    )
}

/// An activation variable's resolution, remembered for one evaluation.
pub(crate) enum Resolution<'a> {
    /// Not asked yet.
    Unknown,
    /// Held by the activation ([`Activation::resolve_ref`]).
    Borrowed(&'a Value),
    /// Built by the activation ([`Activation::resolve`]).
    Owned(Value),
    /// Not bound.
    Absent,
}

impl Resolution<'_> {
    /// The value, once resolved and bound.
    #[inline(always)]
    pub(super) fn value(&self) -> Option<&Value> {
        match self {
            Resolution::Borrowed(v) => Some(v),
            Resolution::Owned(v) => Some(v),
            Resolution::Unknown | Resolution::Absent => None,
        }
    }
}

/// The variable-resolution cache of an evaluation (see [`VarRef::cache`]).
pub(crate) type VarCache<'a> = [Resolution<'a>; VAR_CACHE];

impl<'a> Ctx<'a> {
    /// Asks the activation for `name`: borrowed when it holds the value.
    #[inline]
    fn ask(&self, name: &str) -> Resolution<'a> {
        if let Some(v) = self.act.resolve_ref(name) {
            return Resolution::Borrowed(v);
        }
        match self.act.resolve(name) {
            Some(v) => Resolution::Owned(v),
            None => Resolution::Absent,
        }
    }

    /// Resolves `var` into the cache if it is not there yet.
    #[inline]
    pub(super) fn resolve_into_cache(&mut self, var: &VarRef) {
        if let Some(Resolution::Unknown) = self.vars.get(var.cache) {
            let r = self.ask(&var.name);
            if let Some(entry) = self.vars.get_mut(var.cache) {
                *entry = r;
            }
        }
    }

    /// The value of an activation variable, asking the activation once per
    /// evaluation.
    #[inline]
    fn resolve(&mut self, var: &VarRef) -> Option<Value> {
        if var.cache >= VAR_CACHE {
            return self.act.resolve(&var.name);
        }
        self.resolve_into_cache(var);
        self.vars.get(var.cache)?.value().cloned()
    }

    #[inline(always)]
    pub(super) fn charge<const T: bool>(&mut self, c: u64) -> EvalResult<()> {
        if T {
            self.cost = self.cost.saturating_add(c);
            if self.cost > self.limit {
                return Err(cost_limit_exceeded());
            }
        }
        Ok(())
    }

    /// Counts an iteration; every 100, checks the cancel flag and the deadline
    /// (nothing to do without either).
    #[inline(always)]
    pub(super) fn tick(&mut self) -> EvalResult<()> {
        if self.cancel.is_none() && self.deadline.is_none() {
            return Ok(());
        }
        self.tick_interruptible()
    }

    #[inline(never)]
    fn tick_interruptible(&mut self) -> EvalResult<()> {
        self.iterations += 1;
        if self.iterations.is_multiple_of(100) {
            let cancelled = self.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            if cancelled || late {
                return Err(EvalError::new(
                    ErrorKind::Cancelled,
                    "operation interrupted",
                ));
            }
        }
        Ok(())
    }

    #[inline]
    pub(super) fn check_size(&self, n: usize) -> EvalResult<()> {
        if n > self.max_size {
            return Err(EvalError::new(
                ErrorKind::LimitExceeded,
                format!("value size limit exceeded: {n} > {}", self.max_size),
            ));
        }
        Ok(())
    }

    pub(super) fn check_value_size(&self, v: &Value) -> EvalResult<()> {
        match v {
            Value::String(s) => self.check_size(s.len()),
            Value::Bytes(b) => self.check_size(b.len()),
            Value::List(l) => self.check_size(l.len()),
            Value::Map(m) => self.check_size(m.len()),
            _ => Ok(()),
        }
    }
}

/// Does `v` fit parameter type `t` for runtime dispatch? As cel-go's
/// `IsAssignableRuntimeType`, a list fits `list(E)` when it is empty or its
/// first element fits `E`, a map fits `map(K, V)` when it is empty or its
/// first entry fits (so `dyn([1.0]).sum()` picks the double overload).
#[inline]
pub(crate) fn value_fits(v: &Value, t: &Type) -> bool {
    match (t, v) {
        (Type::Dyn | Type::TypeParam(_) | Type::Any, _) => true,
        (Type::String, Value::String(_)) | (Type::Int, Value::Int(_)) => true,
        _ => value_fits_slow(v, t),
    }
}

#[inline(never)]
fn value_fits_slow(v: &Value, t: &Type) -> bool {
    match t {
        Type::Dyn | Type::TypeParam(_) | Type::Any => true,
        Type::Null => matches!(v, Value::Null),
        Type::Bool => matches!(v, Value::Bool(_)),
        Type::Int => matches!(v, Value::Int(_)),
        Type::Uint => matches!(v, Value::Uint(_)),
        Type::Double => matches!(v, Value::Double(_)),
        Type::String => matches!(v, Value::String(_)),
        Type::Bytes => matches!(v, Value::Bytes(_)),
        Type::Timestamp => matches!(v, Value::Timestamp(_)),
        Type::Duration => matches!(v, Value::Duration(_)),
        Type::List(e) => match v {
            Value::List(l) => is_dyn_param(e) || l.get(0).is_none_or(|x| value_fits(&x, e)),
            _ => false,
        },
        Type::Map(k, e) => match v {
            Value::Map(m) => {
                (is_dyn_param(k) && is_dyn_param(e))
                    || m.entries()
                        .next()
                        .is_none_or(|(key, x)| value_fits(&key.to_value(), k) && value_fits(&x, e))
            }
            _ => false,
        },
        Type::Type(_) => matches!(v, Value::Type(_)),
        Type::Wrapper(p) => matches!(v, Value::Null) || value_fits(v, p),
        Type::Object(_) => matches!(v, Value::Map(_) | Value::Opaque(_)),
        Type::Opaque(name, _) => match v {
            Value::Optional(_) => &**name == crate::types::OPTIONAL_TYPE_NAME,
            Value::Opaque(o) => o.type_name() == &**name,
            _ => false,
        },
        Type::Error => false,
    }
}

impl Candidate {
    /// Do `args` fit this overload's parameters (runtime dispatch)?
    #[inline]
    pub(super) fn accepts<V: std::borrow::Borrow<Value>>(&self, args: &[V]) -> bool {
        self.accepts_all
            || args
                .iter()
                .zip(&self.params)
                .all(|(v, t)| value_fits(v.borrow(), t))
    }
}

/// A parameter type every value fits.
fn is_dyn_param(t: &Type) -> bool {
    matches!(t, Type::Dyn | Type::TypeParam(_) | Type::Any)
}

impl Plan {
    pub(crate) fn eval_node<const T: bool>(&self, n: &Node, cx: &mut Ctx<'_>) -> EvalResult {
        match n {
            Node::Const(v) => Ok(v.clone()),
            Node::Local(s) => {
                cx.charge::<T>(1)?;
                cx.slots.get(*s).cloned().unwrap_or(Ok(Value::Null))
            }
            Node::Attr(a) => self.eval_attr::<T>(a, cx, true),
            Node::CondAttr(c) => self.eval_cond::<T>(c, cx),
            Node::Has(h) => self.eval_has::<T>(h, cx),
            Node::And(ab) => self.eval_logic::<T>(ab, false, cx),
            Node::Or(ab) => self.eval_logic::<T>(ab, true, cx),
            Node::OptOr(o) => self.eval_opt_or::<T>(o, cx),
            Node::NotStrictlyFalse(nsf) => self.eval_not_strictly_false::<T>(&nsf.0, &nsf.1, cx),
            Node::Op1(op) => self.eval_op1::<T>(op, cx),
            Node::Op2(op) => self.eval_op2::<T>(op, cx),
            Node::Call(c) => self.eval_call::<T>(c, cx),
            Node::Matches(m) => self.eval_matches::<T>(m, cx),
            Node::List(l) => self.eval_list::<T>(l, cx),
            Node::Map(m) => self.eval_map::<T>(m, cx),
            Node::Object(o) => self.eval_object::<T>(o, cx),
            Node::Compr(c) => self.eval_compr::<T>(c, cx),
            Node::InSet(s) => self.eval_in_set::<T>(s, cx),
            Node::AccuAppend(a) => self.eval_append::<T>(a, cx),
            Node::Block(b) => self.eval_block::<T>(b, cx),
            Node::Concat(c) => self.eval_concat::<T>(c, cx),
            Node::Error(e) => Err(e.clone()),
        }
    }

    #[inline(never)]
    fn eval_has<const T: bool>(&self, h: &Has, cx: &mut Ctx<'_>) -> EvalResult {
        self.has_with::<T>(h, cx, |n, cx| self.eval_node::<T>(n, cx))
    }

    /// `has(operand.field)` with an operand that `eval` evaluates.
    #[inline(always)]
    pub(super) fn has_with<const T: bool>(
        &self,
        h: &Has,
        cx: &mut Ctx<'_>,
        eval: impl FnOnce(&Node, &mut Ctx<'_>) -> EvalResult,
    ) -> EvalResult {
        let v = eval(&h.operand, cx);
        abort_on!(v);
        cx.charge::<T>(self.presence_cost)?;
        let r = match v? {
            // has() on an optional: absent when empty, else on the value.
            Value::Optional(None) => return Ok(Value::Bool(false)),
            Value::Optional(Some(x)) => has_field(&x, &h.field),
            v => has_field(&v, &h.field),
        };
        r.map_err(|e| e.at(h.id))
    }

    /// `a && b` (`or == false`) or `a || b` (`or == true`): the right side
    /// only when the left does not decide.
    #[inline(never)]
    fn eval_logic<const T: bool>(&self, ab: &[Node; 2], or: bool, cx: &mut Ctx<'_>) -> EvalResult {
        logic_with(ab, or, cx, |n, cx| self.eval_node::<T>(n, cx))
    }

    #[inline(never)]
    fn eval_opt_or<const T: bool>(&self, o: &OptOr, cx: &mut Ctx<'_>) -> EvalResult {
        let lhs = self.eval_node::<T>(&o.lhs, cx)?;
        match lhs {
            Value::Optional(Some(v)) if o.value => Ok((*v).clone()),
            Value::Optional(Some(_)) => Ok(lhs),
            Value::Optional(None) => {
                let rhs = self.eval_node::<T>(&o.rhs, cx)?;
                if !o.value && !matches!(rhs, Value::Optional(_)) {
                    return Err(EvalError::no_such_overload().at(o.id));
                }
                Ok(rhs)
            }
            _ if o.non_optional_passes => Ok(lhs),
            _ => Err(EvalError::no_such_overload().at(o.id)),
        }
    }

    #[inline(never)]
    fn eval_not_strictly_false<const T: bool>(
        &self,
        arg: &Node,
        meta: &CallMeta,
        cx: &mut Ctx<'_>,
    ) -> EvalResult {
        let v = self.eval_node::<T>(arg, cx);
        abort_on!(v);
        let out = Value::Bool(!matches!(v, Ok(Value::Bool(false))));
        if T {
            let a = v.as_ref().unwrap_or(&NULL);
            cx.charge::<T>(cost::call_cost(meta, &[a], Some(&out)))?;
        }
        Ok(out)
    }

    #[inline(never)]
    fn eval_op1<const T: bool>(&self, op: &Op1, cx: &mut Ctx<'_>) -> EvalResult {
        op1_with::<T>(op, cx, |n, cx| self.eval_node::<T>(n, cx))
    }

    #[inline(never)]
    fn eval_list<const T: bool>(&self, l: &ListNode, cx: &mut Ctx<'_>) -> EvalResult {
        let r = self.build_list::<T>(l, cx);
        abort_on!(r);
        cx.charge::<T>(10)?;
        r
    }

    #[inline(never)]
    fn eval_map<const T: bool>(&self, m: &MapNode, cx: &mut Ctx<'_>) -> EvalResult {
        let r = self.build_map::<T>(m, cx);
        abort_on!(r);
        cx.charge::<T>(30)?;
        r
    }

    #[inline(never)]
    fn eval_in_set<const T: bool>(&self, s: &InSet, cx: &mut Ctx<'_>) -> EvalResult {
        let v = self.eval_node::<T>(&s.elem, cx)?;
        let Some(k) = KeyRef::from_value(&v) else {
            return Ok(Value::Bool(false));
        };
        // A small set is searched in order: cheaper than hashing the key.
        let found = if s.set.len() <= IN_SET_SCAN_MAX {
            s.set.iter().any(|m| k.equivalent(m))
        } else {
            s.set.contains(&k)
        };
        Ok(Value::Bool(found))
    }

    #[inline(never)]
    fn eval_block<const T: bool>(&self, b: &BlockNode, cx: &mut Ctx<'_>) -> EvalResult {
        for i in b.slots.clone() {
            if let Some(s) = cx.blocks.get_mut(i) {
                *s = None;
            }
        }
        self.eval_node::<T>(&b.result, cx)
    }

    #[inline(never)]
    fn eval_op2<const T: bool>(&self, op: &Op2, cx: &mut Ctx<'_>) -> EvalResult {
        if let Some(r) = self.op2_borrowed::<T, true>(op, cx, None) {
            return r;
        }
        self.op2_with::<T>(op, cx, |n, cx| self.eval_node::<T>(n, cx))
    }

    /// A binary operator whose operands `eval` evaluates (left to right).
    #[inline(always)]
    pub(super) fn op2_with<const T: bool>(
        &self,
        op: &Op2,
        cx: &mut Ctx<'_>,
        mut eval: impl FnMut(&Node, &mut Ctx<'_>) -> EvalResult,
    ) -> EvalResult {
        let a = eval(&op.args[0], cx);
        abort_on!(a);
        // A constant right operand is borrowed, not copied.
        let b_owned;
        let b = match &op.args[1] {
            Node::Const(c) => Ok(c),
            other => {
                b_owned = eval(other, cx);
                abort_on!(b_owned);
                b_owned.as_ref()
            }
        };
        if let (Ok(x), Ok(y)) = (&a, b)
            && let Some(v) = op.int_result(x, y)
        {
            cx.charge::<T>(op.int_cost())?;
            return Ok(v);
        }
        self.apply_binary::<T>(&op.meta, op.f, a.as_ref(), b, cx)
    }

    /// A binary operator on evaluated operands (either may have failed): the
    /// result or the first error, the call's charge, the size limit.
    #[inline(always)]
    pub(super) fn apply_binary<const T: bool>(
        &self,
        meta: &CallMeta,
        f: fn(&Value, &Value) -> EvalResult,
        a: Result<&Value, &EvalError>,
        b: Result<&Value, &EvalError>,
        cx: &mut Ctx<'_>,
    ) -> EvalResult {
        let r = match (a, b) {
            (Ok(x), Ok(y)) => f(x, y).map_err(|e| e.at(meta.id)),
            (Err(e), _) | (_, Err(e)) => Err(e.clone()),
        };
        if T {
            let (x, y) = (a.unwrap_or(&NULL), b.unwrap_or(&NULL));
            cx.charge::<T>(cost::call_cost(meta, &[x, y], r.as_ref().ok()))?;
        }
        if let Ok(v) = &r
            && cx.max_size != usize::MAX
        {
            cx.check_value_size(v)?;
        }
        r
    }

    #[inline(never)]
    fn eval_matches<const T: bool>(&self, m: &Matches, cx: &mut Ctx<'_>) -> EvalResult {
        self.prepare(&m.target, cx);
        let mut owned = None;
        if let Some((t, nt)) = super::borrow::peek(&m.target, cx.slots, &cx.vars, &mut owned) {
            let r = match_target(m, t);
            let c = if T { self.matches_cost(m, t, &r) } else { 0 };
            cx.charge_run::<T>(nt, c)?;
            return r;
        }
        let t = self.eval_node::<T>(&m.target, cx);
        abort_on!(t);
        let r = match &t {
            Ok(t) => match_target(m, t),
            Err(e) => Err(e.clone()),
        };
        if T {
            let c = self.matches_cost(m, t.as_ref().unwrap_or(&NULL), &r);
            cx.charge::<T>(c)?;
        }
        r
    }

    /// The cost of `matches` on target `t` with result `r`.
    fn matches_cost(&self, m: &Matches, t: &Value, r: &EvalResult) -> u64 {
        if m.meta.custom.is_some() {
            cost::call_cost(&m.meta, &[t, &m.pattern], r.as_ref().ok())
        } else {
            let pattern = m.pattern_size;
            m.meta.rule.cost_sized(|i| {
                if i == 0 {
                    cost::actual_size(t)
                } else {
                    pattern
                }
            })
        }
    }

    fn eval_cond<const T: bool>(&self, c: &CondAttr, cx: &mut Ctx<'_>) -> EvalResult {
        match self.eval_node::<T>(&c.cond, cx)? {
            Value::Bool(true) => self.eval_branch::<T>(&c.truthy, cx),
            Value::Bool(false) => self.eval_branch::<T>(&c.falsy, cx),
            _ => Err(EvalError::no_such_overload().at(c.id)),
        }
    }

    /// A branch of `?:`: an attribute there is not charged its own base cost
    /// (cel-go's conditional attribute), only its qualifiers.
    pub(super) fn eval_branch<const T: bool>(&self, n: &Node, cx: &mut Ctx<'_>) -> EvalResult {
        match n {
            Node::Attr(a) => self.eval_attr::<T>(a, cx, false),
            Node::Local(s) => cx.slots.get(*s).cloned().unwrap_or(Ok(Value::Null)),
            Node::CondAttr(c) => self.eval_cond::<T>(c, cx),
            other => self.eval_node::<T>(other, cx),
        }
    }

    fn block_value<const T: bool>(&self, i: usize, cx: &mut Ctx<'_>) -> EvalResult {
        if let Some(Some(r)) = cx.blocks.get(i) {
            return r.clone();
        }
        let Some(Some(expr)) = self.block_exprs.get(i) else {
            return Err(EvalError::msg(format!("no such block index: {i}")));
        };
        let r = self.eval_node::<T>(expr, cx);
        abort_on!(r);
        if let Some(s) = cx.blocks.get_mut(i) {
            *s = Some(r.clone());
        }
        r
    }

    fn eval_attr<const T: bool>(
        &self,
        a: &Attr,
        cx: &mut Ctx<'_>,
        charge_base: bool,
    ) -> EvalResult {
        // A comprehension variable or a (cached) activation variable whose
        // first qualifier is a present field: select it without copying the
        // base value.
        let first = match &a.base {
            Base::Slot(s) => match cx.slots.get(*s) {
                Some(Ok(root)) => first_field(root, &a.quals),
                _ => None,
            },
            Base::Vars(cands) => match cands.as_slice() {
                [var] if var.skip == 0 && var.cache < VAR_CACHE => {
                    cx.resolve_into_cache(var);
                    match cx.vars.get(var.cache).and_then(Resolution::value) {
                        Some(root) => first_field(root, &a.quals),
                        None => None,
                    }
                }
                _ => None,
            },
            _ => None,
        };
        if let Some((v, rest)) = first {
            cx.charge::<T>(1)?;
            let r = self.apply_quals::<T>(v, rest, cx);
            abort_on!(r);
            if charge_base {
                cx.charge::<T>(1)?;
            }
            return r;
        }
        let (base, skip) = match &a.base {
            Base::Slot(s) => (cx.slots.get(*s).cloned().unwrap_or(Ok(Value::Null)), 0),
            Base::BlockSlot(i) => (self.block_value::<T>(*i, cx), 0),
            Base::Rel(n) => (self.eval_node::<T>(n, cx), 0),
            Base::Vars(cands) => {
                let found = cands
                    .iter()
                    .find_map(|var| cx.resolve(var).map(|v| (v, var.skip)));
                match found {
                    Some((v, skip)) => (Ok(v), skip),
                    None => (Err(missing_attribute(a.id, cands)), 0),
                }
            }
        };
        abort_on!(base);
        let r = match base {
            Ok(v) => self.apply_quals::<T>(v, a.quals.get(skip..).unwrap_or(&[]), cx),
            Err(e) => Err(e),
        };
        abort_on!(r);
        if charge_base {
            cx.charge::<T>(1)?;
        }
        r
    }

    fn apply_quals<const T: bool>(
        &self,
        mut v: Value,
        quals: &[Qual],
        cx: &mut Ctx<'_>,
    ) -> EvalResult {
        let mut opt = false;
        for q in quals {
            // The common case: a present field of a map, no optionals.
            if !opt
                && !q.optional
                && let (Value::Map(m), QualKind::Field(f)) = (&v, &q.kind)
                && let Some(x) = f.select(m)
            {
                cx.charge::<T>(1)?;
                v = x;
                continue;
            }
            if let Value::Optional(inner) = &v {
                match inner {
                    None => {
                        cx.charge::<T>(1)?;
                        return Ok(Value::optional_none());
                    }
                    Some(x) => {
                        let x = (**x).clone();
                        v = x;
                        opt = true;
                    }
                }
            }
            let optional = opt || q.optional;
            let r = match &q.kind {
                QualKind::Field(f) => qualify_field(&v, f, optional),
                QualKind::Const(k) => qualify(&v, k, optional),
                QualKind::Dyn(n) => {
                    // cel-go resolves an attribute used as an index (`m[k]`)
                    // as part of the qualifier: its base is not charged.
                    let k = match n {
                        Node::Local(s) => cx.slots.get(*s).cloned().unwrap_or(Ok(Value::Null)),
                        Node::Attr(a) => self.eval_attr::<T>(a, cx, false),
                        other => self.eval_node::<T>(other, cx),
                    };
                    abort_on!(k);
                    match k {
                        Ok(k) => qualify(&v, &k, optional),
                        Err(e) => Err(e),
                    }
                }
            };
            match r {
                Ok(Some(x)) => {
                    cx.charge::<T>(1)?;
                    v = x
                }
                // cel-go charges an optional qualifier only when it finds
                // a value.
                Ok(None) => return Ok(Value::optional_none()),
                Err(e) => {
                    cx.charge::<T>(1)?;
                    return Err(e.at(q.id));
                }
            }
            opt = optional;
        }
        if opt && !matches!(v, Value::Optional(_)) {
            v = Value::optional_of(v);
        }
        Ok(v)
    }

    #[inline(never)]
    fn eval_call<const T: bool>(&self, c: &Call, cx: &mut Ctx<'_>) -> EvalResult {
        if let Some(r) = self.call_borrowed::<T, true>(c, cx, None) {
            return r;
        }
        let n = c.args.len();
        let mut small: [Value; 3] = [Value::Null, Value::Null, Value::Null];
        let mut big: Vec<Value> = Vec::new();
        let mut first_err: Option<EvalError> = None;
        if n > small.len() {
            big.reserve(n);
        }
        for (i, a) in c.args.iter().enumerate() {
            let v = match self.eval_node::<T>(a, cx) {
                Ok(v) => v,
                Err(e) => {
                    if is_abort(&e) {
                        return Err(e);
                    }
                    first_err.get_or_insert(e);
                    Value::Null
                }
            };
            if n > small.len() {
                big.push(v);
            } else {
                small[i] = v;
            }
        }
        let args: &[Value] = if n > small.len() { &big } else { &small[..n] };
        let r = match first_err {
            Some(e) => Err(e),
            None => match c.candidates.iter().find(|k| k.accepts(args)) {
                Some(k) => k.imp.call(args).map_err(|e| e.at(c.meta.id)),
                None => Err(EvalError::no_such_overload().at(c.meta.id)),
            },
        };
        if T {
            let c = match args {
                [] => cost::call_cost(&c.meta, &[], r.as_ref().ok()),
                [a] => cost::call_cost(&c.meta, &[a], r.as_ref().ok()),
                [a, b] => cost::call_cost(&c.meta, &[a, b], r.as_ref().ok()),
                [a, b, d] => cost::call_cost(&c.meta, &[a, b, d], r.as_ref().ok()),
                _ => {
                    let refs: Vec<&Value> = args.iter().collect();
                    cost::call_cost(&c.meta, &refs, r.as_ref().ok())
                }
            };
            cx.charge::<T>(c)?;
        }
        if let Ok(v) = &r
            && cx.max_size != usize::MAX
        {
            cx.check_value_size(v)?;
        }
        r
    }

    #[inline(never)]
    fn build_list<const T: bool>(&self, l: &ListNode, cx: &mut Ctx<'_>) -> EvalResult {
        cx.check_size(l.elems.len())?;
        let mut out = Vec::with_capacity(l.elems.len());
        for (e, opt) in l.elems.iter().zip(&l.optional) {
            let v = self.eval_node::<T>(e, cx)?;
            if *opt {
                match v {
                    Value::Optional(Some(x)) => out.push((*x).clone()),
                    Value::Optional(None) => {}
                    _ => {
                        return Err(EvalError::msg(
                            "cannot initialize optional list element from non-optional value",
                        )
                        .at(l.id));
                    }
                }
            } else {
                out.push(v);
            }
        }
        Ok(Value::List(List::new(out)))
    }

    #[inline(never)]
    fn build_map<const T: bool>(&self, m: &MapNode, cx: &mut Ctx<'_>) -> EvalResult {
        cx.check_size(m.entries.len())?;
        let mut out = indexmap::IndexMap::with_capacity(m.entries.len());
        for (k, v, opt) in &m.entries {
            let k = self.eval_node::<T>(k, cx)?;
            let v = self.eval_node::<T>(v, cx)?;
            let key = map_key(&k).map_err(|e| e.at(m.id))?;
            let Some(v) = entry_value(v, *opt).map_err(|e| e.at(m.id))? else {
                continue;
            };
            if out.insert(key, v).is_some() {
                return Err(EvalError::msg("Failed with repeated key").at(m.id));
            }
        }
        Ok(Value::Map(Map::new(out)))
    }

    #[inline(never)]
    fn eval_compr<const T: bool>(&self, c: &Compr, cx: &mut Ctx<'_>) -> EvalResult {
        let range = self.eval_node::<T>(&c.range, cx)?;
        if c.shape != FoldShape::General
            && let Value::List(l) = &range
        {
            let elements = match l.as_slice() {
                Some(items) => Elements::Slice(items),
                None => Elements::Host(l),
            };
            return match c.shape {
                FoldShape::Append => self.append_fold::<T>(c, cx, elements),
                _ => self.quantifier::<T>(c, cx, elements),
            };
        }
        let init = self.eval_node::<T>(&c.accu_init, cx);
        abort_on!(init);
        set_slot(cx, c.accu_slot, init);
        match &range {
            Value::List(l) => {
                let elements = match l.as_slice() {
                    Some(items) => Elements::Slice(items),
                    None => Elements::Host(l),
                };
                self.list_fold::<T>(c, cx, elements)?;
            }
            Value::Map(m) => {
                for k in m.keys() {
                    cx.tick()?;
                    if let Some(s2) = c.iter_slot2 {
                        let v = m.try_get(k.as_ref()).map(|v| v.unwrap_or(Value::Null));
                        set_slot(cx, s2, v);
                    }
                    set_slot(cx, c.iter_slot, Ok(k.to_value()));
                    if !self.fold_step::<T>(c, cx)? {
                        break;
                    }
                }
            }
            other => {
                return Err(EvalError::msg(format!(
                    "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                    other.type_name()
                ))
                .at(c.id));
            }
        }
        let r = self.eval_node::<T>(&c.result, cx);
        // Release the accumulator and variables.
        set_slot(cx, c.accu_slot, Ok(Value::Null));
        set_slot(cx, c.iter_slot, Ok(Value::Null));
        if let Some(s2) = c.iter_slot2 {
            set_slot(cx, s2, Ok(Value::Null));
        }
        r
    }

    /// Binds element `i` of the range, or the error a host's list gave for
    /// it (data it cannot read): the variable then holds that error.
    #[inline(always)]
    pub(super) fn bind_list_result(&self, c: &Compr, cx: &mut Ctx<'_>, i: usize, item: EvalResult) {
        match c.iter_slot2 {
            Some(s2) => {
                set_slot(cx, c.iter_slot, Ok(Value::Int(i as i64)));
                set_slot(cx, s2, item);
            }
            None => set_slot(cx, c.iter_slot, item),
        }
    }

    /// One iteration: the loop condition (stop unless it is `true`), then the step.
    #[inline]
    pub(super) fn fold_step<const T: bool>(&self, c: &Compr, cx: &mut Ctx<'_>) -> EvalResult<bool> {
        match self.eval_node::<T>(&c.cond, cx) {
            Ok(Value::Bool(true)) => {}
            Err(e) if is_abort(&e) => return Err(e),
            _ => return Ok(false),
        }
        let v = self.eval_node::<T>(&c.step, cx);
        abort_on!(v);
        set_slot(cx, c.accu_slot, v);
        Ok(true)
    }

    /// `acc + [e]`, appending to the accumulator in place when it is not shared.
    fn eval_append<const T: bool>(&self, a: &AccuAppend, cx: &mut Ctx<'_>) -> EvalResult {
        let elem = self.eval_node::<T>(&a.elem, cx);
        abort_on!(elem);
        if T {
            cx.charge::<T>(1 + a.list_cost)?; // the accumulator, the list literal
        }
        let acc = match cx.slots.get_mut(a.slot) {
            Some(s) => std::mem::replace(s, Ok(Value::Null)),
            None => Ok(Value::Null),
        };
        let r = match (acc, elem) {
            (Err(e), _) => Err(e),
            (_, Err(e)) => Err(e),
            (Ok(Value::List(List::Values(mut items))), Ok(x)) => {
                cx.check_size(items.len() + 1)?;
                std::sync::Arc::make_mut(&mut items).push(x);
                Ok(Value::List(List::Values(items)))
            }
            (Ok(acc), Ok(x)) => ops::add(&acc, &Value::list(vec![x])).map_err(|e| e.at(a.add.id)),
        };
        if T {
            let first = r.as_ref().unwrap_or(&NULL);
            let c = cost::call_cost(&a.add, &[first, &NULL], r.as_ref().ok());
            cx.charge::<T>(c)?;
        }
        r
    }
}

/// The value of a map or message entry: as is, or for an optional entry
/// (`?k: v`) the optional's value (`None`: no entry).
pub(super) fn entry_value(v: Value, optional: bool) -> EvalResult<Option<Value>> {
    if !optional {
        return Ok(Some(v));
    }
    match v {
        Value::Optional(x) => Ok(x.map(|x| (*x).clone())),
        _ => Err(EvalError::msg(
            "cannot initialize optional entry from non-optional value",
        )),
    }
}

#[inline]
pub(super) fn set_slot(cx: &mut Ctx<'_>, slot: usize, v: EvalResult) {
    if let Some(s) = cx.slots.get_mut(slot) {
        *s = v;
    }
}

/// `matches` with a compiled pattern on target `t`.
fn match_target(m: &Matches, t: &Value) -> EvalResult {
    match (t, &m.regex) {
        (Value::String(s), Ok(re)) => Ok(Value::Bool(re.is_match(s))),
        (Value::String(_), Err(e)) => Err(e.clone().at(m.meta.id)),
        _ => Err(EvalError::no_such_overload().at(m.meta.id)),
    }
}

/// `a && b` (`or == false`) or `a || b` (`or == true`) with operands that
/// `eval` evaluates: the right side only when the left does not decide.
#[inline(always)]
pub(super) fn logic_with(
    ab: &[Node; 2],
    or: bool,
    cx: &mut Ctx<'_>,
    mut eval: impl FnMut(&Node, &mut Ctx<'_>) -> EvalResult,
) -> EvalResult {
    let l = eval(&ab[0], cx);
    abort_on!(l);
    if matches!(l, Ok(Value::Bool(b)) if b == or) {
        return Ok(Value::Bool(or));
    }
    let r = eval(&ab[1], cx);
    abort_on!(r);
    // Two booleans, the left one not deciding: the right one decides.
    if let (Ok(Value::Bool(_)), Ok(Value::Bool(b))) = (&l, &r) {
        return Ok(Value::Bool(*b));
    }
    logic(l, r, or)
}

/// A standard unary operator on an operand that `eval` evaluates.
#[inline(always)]
pub(super) fn op1_with<const T: bool>(
    op: &Op1,
    cx: &mut Ctx<'_>,
    eval: impl FnOnce(&Node, &mut Ctx<'_>) -> EvalResult,
) -> EvalResult {
    let a = eval(&op.arg, cx);
    abort_on!(a);
    let r = match &a {
        Ok(v) => (op.f)(v).map_err(|e| e.at(op.meta.id)),
        Err(e) => Err(e.clone()),
    };
    if T {
        let a = a.as_ref().unwrap_or(&NULL);
        cx.charge::<T>(cost::call_cost(&op.meta, &[a], r.as_ref().ok()))?;
    }
    r
}

/// `&&` (`or == false`) / `||` (`or == true`) once both sides are known and
/// the left side did not decide: the deciding value wins over errors, then
/// the left error, then the right error.
#[inline]
fn logic(l: EvalResult, r: EvalResult, or: bool) -> EvalResult {
    if matches!(r, Ok(Value::Bool(b)) if b == or) {
        return Ok(Value::Bool(or));
    }
    match (l, r) {
        (Ok(Value::Bool(_)), Ok(Value::Bool(_))) => Ok(Value::Bool(!or)),
        (Err(e), _) => Err(e),
        (_, Err(e)) => Err(e),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn missing_attribute(id: i64, cands: &[VarRef]) -> EvalError {
    let names: Vec<&str> = cands.iter().map(|v| &*v.name).collect();
    EvalError::msg(format!(
        "no such attribute: id: {id}, names: [{}]",
        names.join(" ")
    ))
    .at(id)
}

/// The first qualifier applied to a borrowed base, when it is a plain
/// (non-optional) field selection that finds a value in a map: the value and
/// the remaining qualifiers. `None` leaves the case to the general path.
#[inline]
fn first_field<'q>(root: &Value, quals: &'q [Qual]) -> Option<(Value, &'q [Qual])> {
    let (q, rest) = quals.split_first()?;
    match (root, &q.kind) {
        (Value::Map(m), QualKind::Field(f)) if !q.optional => Some((f.select(m)?, rest)),
        _ => None,
    }
}

/// `has(v.field)`: a map's field read where the site last found it
/// ([`FieldName::is_set`]), anything else as [`ops::has_field`].
#[inline]
fn has_field(v: &Value, field: &FieldName) -> EvalResult {
    match v {
        Value::Map(m) => field.is_set(m).map(Value::Bool),
        v => ops::has_field(v, field),
    }
}

/// `v.field` (`None`: absent in optional mode).
fn qualify_field(v: &Value, field: &str, optional: bool) -> EvalResult<Option<Value>> {
    match v {
        Value::Map(m) => match m.try_field(field)? {
            Some(x) => Ok(Some(x)),
            None if optional => Ok(None),
            None => Err(EvalError::msg(format!("no such key: {field}"))),
        },
        // `m.?f` on an object: empty when the field is not set.
        Value::Opaque(o) if optional && o.has(field).transpose()? == Some(false) => Ok(None),
        _ => ops::select_field(v, field).map(Some),
    }
}

/// `v[key]` (`None`: absent in optional mode).
fn qualify(v: &Value, key: &Value, optional: bool) -> EvalResult<Option<Value>> {
    if optional {
        return match ops::index_optional(v, key)? {
            Value::Optional(Some(x)) => Ok(Some((*x).clone())),
            _ => Ok(None),
        };
    }
    ops::index(v, key).map(Some)
}
