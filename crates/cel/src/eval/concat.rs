//! String concatenation chains: `a + b + c` built in one buffer.
//!
//! The checker types `a + b + c` as `(a + b) + c`; evaluated as written, every
//! `+` allocates an intermediate string that the next one copies and drops.
//! The planner turns a chain whose every `+` was checked as `add_string`
//! (and has no cost function or hook) into one [`Concat`] node that appends
//! each operand to one buffer; `string(n)` operands of an integer write
//! their digits straight into it.
//!
//! The node keeps the chain's semantics exactly: operands are evaluated left
//! to right; each `+` is charged right after its right operand, by the same
//! rule and sizes (code points) as the operator; a non-string operand (the
//! checker's `dyn` lets one through) makes that `+` run as the general
//! operator, whose error or result flows on as before.

use std::sync::Arc;

use super::Plan;
use super::borrow::peek;
use super::cost;
use super::interp::Ctx;
use super::node::*;
use crate::error::EvalResult;
use crate::library::std::ops;
use crate::value::Value;

/// The left operand accumulated so far.
enum Acc {
    /// Text in the buffer (its size in code points, when tracking).
    Text(u64),
    /// A result that is not a string (or an error).
    Other(EvalResult),
}

impl Plan {
    pub(super) fn eval_concat<const T: bool>(&self, c: &Concat, cx: &mut Ctx<'_>) -> EvalResult {
        let mut buf = std::mem::take(&mut cx.scratch);
        buf.clear();
        let r = self.concat_into::<T>(c, cx, &mut buf);
        cx.scratch = buf;
        r
    }

    fn concat_into<const T: bool>(
        &self,
        c: &Concat,
        cx: &mut Ctx<'_>,
        buf: &mut String,
    ) -> EvalResult {
        let first = self.eval_read::<T>(&c.first, cx);
        abort_on!(first);
        let mut acc = match first {
            Ok(Value::String(s)) => {
                buf.push_str(&s);
                Acc::Text(if T { cost::actual_size_str(&s) } else { 0 })
            }
            other => Acc::Other(other),
        };
        for part in &c.rest {
            // A `string(n)` operand of an integer: digits into the buffer.
            if let Acc::Text(size) = acc
                && part.int_to_string
                && let Node::Call(call) = &part.operand
                && let [arg] = call.args.as_slice()
            {
                self.prepare(arg, cx);
                let mut owned = None;
                if let Some((&Value::Int(n), k)) = peek(arg, cx.slots, &cx.vars, &mut owned) {
                    let before = buf.len();
                    push_int(buf, n);
                    let digits = (buf.len() - before) as u64;
                    if T {
                        let call_cost = call.meta.rule.cost_sized(|_| 1);
                        let add = part
                            .add
                            .rule
                            .cost_sized(|i| if i == 0 { size } else { digits });
                        cx.charge_run::<T>(k, call_cost)?;
                        cx.charge::<T>(add)?;
                    }
                    acc = Acc::Text(size + digits);
                    cx.check_size(buf.len())?;
                    continue;
                }
            }
            let b = self.eval_read::<T>(&part.operand, cx);
            abort_on!(b);
            acc = match (acc, b) {
                (Acc::Text(size), Ok(Value::String(s))) => {
                    buf.push_str(&s);
                    let bsize = if T { cost::actual_size_str(&s) } else { 0 };
                    if T {
                        let add = part
                            .add
                            .rule
                            .cost_sized(|i| if i == 0 { size } else { bsize });
                        cx.charge::<T>(add)?;
                    }
                    cx.check_size(buf.len())?;
                    Acc::Text(size + bsize)
                }
                (acc, b) => {
                    // The general operator on whatever the operands are.
                    let a = match acc {
                        Acc::Text(_) => Ok(Value::String(Arc::from(buf.as_str()))),
                        Acc::Other(r) => r,
                    };
                    let r = self.apply_binary::<T>(&part.add, ops::add, a.as_ref(), b.as_ref(), cx);
                    abort_on!(r);
                    Acc::Other(r)
                }
            };
        }
        match acc {
            Acc::Text(_) => Ok(Value::String(Arc::from(buf.as_str()))),
            Acc::Other(r) => r,
        }
    }
}

/// Appends `n` in decimal.
fn push_int(buf: &mut String, n: i64) {
    let mut digits = [0u8; 20];
    let at = crate::value::decimal(n.unsigned_abs(), n < 0, &mut digits);
    if let Some(Ok(text)) = digits.get(at..).map(std::str::from_utf8) {
        buf.push_str(text);
    }
}
