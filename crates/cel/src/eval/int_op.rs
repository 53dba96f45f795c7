//! The standard binary operators on two `int`s, computed in place.
//!
//! An [`Op2`](super::node::Op2) calls its operator through a function
//! pointer that returns the result through memory; on two integers, the
//! common operands of rules (`self.replicas <= self.maxReplicas`, `v % 2 ==
//! 0`), the interpreter computes the result directly instead. Each case is
//! the integer arm of the operator in `library/std/ops.rs`; where that arm
//! fails (overflow, division or modulus by zero) [`IntOp::apply`] declines
//! and the operator itself runs, producing its error.

use crate::value::Value;

/// A standard binary operator with an integer arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl IntOp {
    /// The operator named `name` (`_+_`, `_==_`, ...), if it has an integer arm.
    pub(crate) fn of(name: &str) -> Option<IntOp> {
        Some(match name {
            "_+_" => IntOp::Add,
            "_-_" => IntOp::Sub,
            "_*_" => IntOp::Mul,
            "_/_" => IntOp::Div,
            "_%_" => IntOp::Rem,
            "_==_" => IntOp::Eq,
            "_!=_" => IntOp::Ne,
            "_<_" => IntOp::Lt,
            "_<=_" => IntOp::Le,
            "_>_" => IntOp::Gt,
            "_>=_" => IntOp::Ge,
            _ => return None,
        })
    }

    /// `x <op> y` for the comparisons (`None`: an arithmetic operator).
    #[inline(always)]
    pub(crate) fn compare(self, x: i64, y: i64) -> Option<bool> {
        match self.apply(x, y)? {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// `x <op> y`; `None` where the operator fails.
    #[inline(always)]
    pub(crate) fn apply(self, x: i64, y: i64) -> Option<Value> {
        Some(match self {
            IntOp::Add => Value::Int(x.checked_add(y)?),
            IntOp::Sub => Value::Int(x.checked_sub(y)?),
            IntOp::Mul => Value::Int(x.checked_mul(y)?),
            IntOp::Div => Value::Int(x.checked_div(y)?),
            IntOp::Rem => Value::Int(x.checked_rem(y)?),
            IntOp::Eq => Value::Bool(x == y),
            IntOp::Ne => Value::Bool(x != y),
            IntOp::Lt => Value::Bool(x < y),
            IntOp::Le => Value::Bool(x <= y),
            IntOp::Gt => Value::Bool(x > y),
            IntOp::Ge => Value::Bool(x >= y),
        })
    }
}

impl super::node::Op2 {
    /// The operator on `a` and `b` computed in place: both `int`s, an
    /// integer arm that succeeds, and a charge that no cost function or
    /// host hook can change (`None`: run the operator).
    #[inline(always)]
    pub(super) fn int_result(&self, a: &Value, b: &Value) -> Option<Value> {
        match (self.int, a, b) {
            (Some(op), Value::Int(x), Value::Int(y)) if self.meta.custom.is_none() => {
                op.apply(*x, *y)
            }
            _ => None,
        }
    }

    /// [`Op2::int_result`](super::node::Op2) of a comparison, as a boolean.
    #[inline(always)]
    pub(super) fn int_comparison(&self, a: &Value, b: &Value) -> Option<bool> {
        let (Some(op), Value::Int(x), Value::Int(y)) = (self.int, a, b) else {
            return None;
        };
        if self.meta.custom.is_some() {
            return None;
        }
        op.compare(*x, *y)
    }

    /// The operator's charge on two `int`s (sized 1 each, as cel-go's
    /// `actualSize` of a non-sized value).
    #[inline(always)]
    pub(super) fn int_cost(&self) -> u64 {
        self.meta.rule.cost_sized(|_| 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::planner::builtin_binary;

    /// Every case agrees with the operator it stands for, and declines
    /// exactly where the operator fails.
    #[test]
    fn int_arms_agree_with_the_operators() {
        let names = [
            "_+_", "_-_", "_*_", "_/_", "_%_", "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_",
        ];
        let ints = [
            i64::MIN,
            i64::MIN + 1,
            -7,
            -2,
            -1,
            0,
            1,
            2,
            3,
            7,
            i64::MAX - 1,
            i64::MAX,
        ];
        for name in names {
            let op = IntOp::of(name).expect(name);
            let f = builtin_binary(name).expect(name);
            for x in ints {
                for y in ints {
                    let fast = op.apply(x, y);
                    let slow = f(&Value::Int(x), &Value::Int(y));
                    match (fast, slow) {
                        (Some(a), Ok(b)) => {
                            assert!(a.equals(&b), "{name} {x} {y}: {a:?} {b:?}")
                        }
                        (None, Err(_)) => {}
                        (a, b) => panic!("{name} {x} {y}: {a:?} {b:?}"),
                    }
                }
            }
        }
        assert_eq!(IntOp::of("@in"), None);
    }
}
