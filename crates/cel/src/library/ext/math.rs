//! cel-go's `ext.Math` library.
//!
//! Versions: 0 the macros `math.greatest` / `math.least` (expanding to the
//! internal functions `math.@max` / `math.@min`); 1 adds `ceil floor round
//! trunc isInf isNaN isFinite abs sign bitAnd bitOr bitXor bitNot
//! bitShiftLeft bitShiftRight`; 2 adds `sqrt`. Not available in Kubernetes.
//!
//! Costs: cel-go's default of 1 per call. (cel-go's Math version 3 attaches
//! estimators to `math.@max`/`math.@min`; they are not reproduced here because
//! the library is not part of the Kubernetes environment.)

use super::{LATEST, no_overload};
use crate::env::{EnvBuilder, Library};
use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::syntax::macros::{Macro, MacroContext, MacroError};
use crate::syntax::{Call, CallArgs, Expr, ExprKind, List as ListExpr, Literal};
use crate::types::Type;
use crate::value::{List, Value};
use std::cmp::Ordering;

/// cel-go's `ext.Math(MathVersion(version))`.
#[derive(Clone, Copy, Debug)]
pub struct Math {
    /// The cel-go version of ext.Math (`ext.MathVersion`); [`super::LATEST`] by default.
    pub version: u32,
}

impl Default for Math {
    fn default() -> Self {
        Math { version: LATEST }
    }
}

impl Math {
    /// ext.Math at `version`.
    pub fn version(version: u32) -> Self {
        Math { version }
    }
}

fn g(id: &str, params: Vec<Type>, result: Type, imp: FnImpl) -> Overload {
    Overload::global(id, params, result, Some(imp))
}

/// The overloads of `math.@max` or `math.@min` (`which` is `max` or `min`).
fn min_max_function(
    which: &str,
    pair: fn(&Value, &Value) -> EvalResult,
    list: fn(&Value) -> EvalResult,
) -> Function {
    use Type::{Double, Dyn, Int, Uint};
    let name = format!("math.@{which}");
    let id = |suffix: &str| format!("math_@{which}_{suffix}");
    let mut f = Function::new(&name);
    for (suffix, t) in [("double", Double), ("int", Int), ("uint", Uint)] {
        f = f.overload(g(&id(suffix), vec![t.clone()], t, FnImpl::Unary(identity)));
    }
    for (suffix, t) in [
        ("double_double", Double),
        ("int_int", Int),
        ("uint_uint", Uint),
    ] {
        f = f.overload(g(
            &id(suffix),
            vec![t.clone(), t.clone()],
            t,
            FnImpl::Binary(pair),
        ));
    }
    for (suffix, a, b) in [
        ("int_uint", Int, Uint),
        ("int_double", Int, Double),
        ("double_int", Double, Int),
        ("double_uint", Double, Uint),
        ("uint_int", Uint, Int),
        ("uint_double", Uint, Double),
    ] {
        f = f.overload(g(&id(suffix), vec![a, b], Dyn, FnImpl::Binary(pair)));
    }
    for (suffix, t) in [
        ("list_double", Double),
        ("list_int", Int),
        ("list_uint", Uint),
    ] {
        f = f.overload(g(
            &id(suffix),
            vec![Type::list(t.clone())],
            t,
            FnImpl::Unary(list),
        ));
    }
    f
}

impl Library for Math {
    fn install(&self, env: &mut EnvBuilder) {
        use Type::{Bool, Double, Int, Uint};
        env.add_macro(Macro {
            name: "greatest".into(),
            receiver_style: true,
            arg_count: None,
            expander: expand_greatest,
        });
        env.add_macro(Macro {
            name: "least".into(),
            receiver_style: true,
            arg_count: None,
            expander: expand_least,
        });
        env.add_function(min_max_function("max", max_pair, max_list));
        env.add_function(min_max_function("min", min_pair, min_list));
        if self.version >= 1 {
            for (name, id, imp) in [
                (
                    "math.ceil",
                    "math_ceil_double",
                    ceil as fn(&Value) -> EvalResult,
                ),
                ("math.floor", "math_floor_double", floor),
                ("math.round", "math_round_double", round),
                ("math.trunc", "math_trunc_double", trunc),
            ] {
                env.add_function(Function::new(name).overload(g(
                    id,
                    vec![Double],
                    Double,
                    FnImpl::Unary(imp),
                )));
            }
            for (name, id, imp) in [
                (
                    "math.isInf",
                    "math_isInf_double",
                    is_inf as fn(&Value) -> EvalResult,
                ),
                ("math.isNaN", "math_isNaN_double", is_nan),
                ("math.isFinite", "math_isFinite_double", is_finite),
            ] {
                env.add_function(Function::new(name).overload(g(
                    id,
                    vec![Double],
                    Bool,
                    FnImpl::Unary(imp),
                )));
            }
            env.add_function(
                Function::new("math.abs")
                    .overload(g(
                        "math_abs_double",
                        vec![Double],
                        Double,
                        FnImpl::Unary(abs),
                    ))
                    .overload(g("math_abs_int", vec![Int], Int, FnImpl::Unary(abs)))
                    .overload(g("math_abs_uint", vec![Uint], Uint, FnImpl::Unary(abs))),
            );
            env.add_function(
                Function::new("math.sign")
                    .overload(g(
                        "math_sign_double",
                        vec![Double],
                        Double,
                        FnImpl::Unary(sign),
                    ))
                    .overload(g("math_sign_int", vec![Int], Int, FnImpl::Unary(sign)))
                    .overload(g("math_sign_uint", vec![Uint], Uint, FnImpl::Unary(sign))),
            );
            for (name, op) in [
                ("bitAnd", bit_and as fn(&Value, &Value) -> EvalResult),
                ("bitOr", bit_or),
                ("bitXor", bit_xor),
            ] {
                env.add_function(
                    Function::new(&format!("math.{name}"))
                        .overload(g(
                            &format!("math_{name}_int_int"),
                            vec![Int, Int],
                            Int,
                            FnImpl::Binary(op),
                        ))
                        .overload(g(
                            &format!("math_{name}_uint_uint"),
                            vec![Uint, Uint],
                            Uint,
                            FnImpl::Binary(op),
                        )),
                );
            }
            env.add_function(
                Function::new("math.bitNot")
                    .overload(g(
                        "math_bitNot_int_int",
                        vec![Int],
                        Int,
                        FnImpl::Unary(bit_not),
                    ))
                    .overload(g(
                        "math_bitNot_uint_uint",
                        vec![Uint],
                        Uint,
                        FnImpl::Unary(bit_not),
                    )),
            );
            env.add_function(
                Function::new("math.bitShiftLeft")
                    .overload(g(
                        "math_bitShiftLeft_int_int",
                        vec![Int, Int],
                        Int,
                        FnImpl::Binary(shift_left),
                    ))
                    .overload(g(
                        "math_bitShiftLeft_uint_int",
                        vec![Uint, Int],
                        Uint,
                        FnImpl::Binary(shift_left),
                    )),
            );
            env.add_function(
                Function::new("math.bitShiftRight")
                    .overload(g(
                        "math_bitShiftRight_int_int",
                        vec![Int, Int],
                        Int,
                        FnImpl::Binary(shift_right),
                    ))
                    .overload(g(
                        "math_bitShiftRight_uint_int",
                        vec![Uint, Int],
                        Uint,
                        FnImpl::Binary(shift_right),
                    )),
            );
        }
        if self.version >= 2 {
            env.add_function(
                Function::new("math.sqrt")
                    .overload(g(
                        "math_sqrt_double",
                        vec![Double],
                        Double,
                        FnImpl::Unary(sqrt),
                    ))
                    .overload(g("math_sqrt_int", vec![Int], Double, FnImpl::Unary(sqrt)))
                    .overload(g("math_sqrt_uint", vec![Uint], Double, FnImpl::Unary(sqrt))),
            );
        }
    }
}

// ---- macros ----

fn expand_greatest(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    expand_min_max(ctx, target, args, "math.greatest()", "math.@max")
}

fn expand_least(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    expand_min_max(ctx, target, args, "math.least()", "math.@min")
}

/// cel-go's expansion: one numeric argument or numeric list literal → `f(arg)`;
/// two → `f(a, b)`; more → `f([args...])`. Literal arguments must be numeric.
fn expand_min_max(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
    display: &str,
    function: &str,
) -> Result<Option<Expr>, MacroError> {
    if !matches!(target.as_ref().map(|t| &t.kind), Some(ExprKind::Ident(n)) if n == "math") {
        return Ok(None);
    }
    let args = std::mem::take(args);
    let call = |ctx: &mut MacroContext<'_>, args: CallArgs| Expr {
        id: ctx.next_id(),
        kind: ExprKind::Call(Box::new(Call {
            target: None,
            function: function.into(),
            args,
        })),
    };
    match args.len() {
        0 => Err(MacroError {
            message: format!("{display} requires at least one argument"),
            expr_id: target.as_ref().map_or(0, |t| t.id),
        }),
        1 => {
            let a = &args[0];
            if is_numeric_list_literal(a) || is_numeric_arg(a) {
                Ok(Some(call(ctx, args)))
            } else {
                Err(MacroError {
                    message: format!("{display} invalid single argument value"),
                    expr_id: a.id,
                })
            }
        }
        n => {
            for a in &args {
                if !is_numeric_arg(a) {
                    return Err(MacroError {
                        message: format!("{display} simple literal arguments must be numeric"),
                        expr_id: a.id,
                    });
                }
            }
            if n == 2 {
                Ok(Some(call(ctx, args)))
            } else {
                let list = Expr {
                    id: ctx.next_id(),
                    kind: ExprKind::List(Box::new(ListExpr {
                        elements: args.into_vec(),
                        optional_indices: Vec::new(),
                    })),
                };
                Ok(Some(call(ctx, smallvec::smallvec![list])))
            }
        }
    }
}

fn is_numeric_arg(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Literal(l) => {
            matches!(l, Literal::Int(_) | Literal::Uint(_) | Literal::Double(_))
        }
        ExprKind::List(_) | ExprKind::Map(_) | ExprKind::Struct(_) => false,
        _ => true,
    }
}

fn is_numeric_list_literal(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::List(l) => !l.elements.is_empty() && l.elements.iter().all(is_numeric_arg),
        _ => false,
    }
}

// ---- implementations ----

fn identity(v: &Value) -> EvalResult {
    match v {
        Value::Int(_) | Value::Uint(_) | Value::Double(_) => Ok(v.clone()),
        _ => Err(no_overload()),
    }
}

fn compare_numbers(a: &Value, b: &Value, suffix: &str) -> EvalResult<Ordering> {
    let numeric = |v: &Value| matches!(v, Value::Int(_) | Value::Uint(_) | Value::Double(_));
    if !numeric(a) || !numeric(b) {
        // Same-typed non-numbers (strings...) order, but the list form
        // rejects the result; pairs of other types have no overload.
        return match a.compare(b) {
            Some(o) if std::mem::discriminant(a) == std::mem::discriminant(b) => Ok(o),
            _ => Err(EvalError::msg(format!("no such overload: {suffix}"))),
        };
    }
    a.compare(b)
        .ok_or_else(|| EvalError::msg(format!("NaN values cannot be ordered: {suffix}")))
}

/// `math.@max(a, b)`: `b` when it is greater, else `a`.
pub fn max_pair(a: &Value, b: &Value) -> EvalResult {
    Ok(if compare_numbers(a, b, "math.@max")? == Ordering::Less {
        b.clone()
    } else {
        a.clone()
    })
}

/// `math.@min(a, b)`: `b` when it is smaller, else `a`.
pub fn min_pair(a: &Value, b: &Value) -> EvalResult {
    Ok(
        if compare_numbers(a, b, "math.@min")? == Ordering::Greater {
            b.clone()
        } else {
            a.clone()
        },
    )
}

fn fold_list(v: &Value, which: &str, pair: fn(&Value, &Value) -> EvalResult) -> EvalResult {
    let Value::List(l) = v else {
        return Err(no_overload());
    };
    let l: &List = l;
    let mut it = l.iter();
    let Some(mut acc) = it.next() else {
        return Err(EvalError::msg(format!(
            "math.@{which}(list) argument must not be empty"
        )));
    };
    for e in it {
        acc = pair(&acc, &e)?;
    }
    match acc {
        Value::Int(_) | Value::Uint(_) | Value::Double(_) => Ok(acc),
        _ => Err(EvalError::msg(format!("no such overload: math.@{which}"))),
    }
}

pub fn max_list(v: &Value) -> EvalResult {
    fold_list(v, "max", max_pair)
}

pub fn min_list(v: &Value) -> EvalResult {
    fold_list(v, "min", min_pair)
}

fn double(v: &Value) -> EvalResult<f64> {
    match v {
        Value::Double(d) => Ok(*d),
        _ => Err(no_overload()),
    }
}

fn ceil(v: &Value) -> EvalResult {
    Ok(Value::Double(double(v)?.ceil()))
}

fn floor(v: &Value) -> EvalResult {
    Ok(Value::Double(double(v)?.floor()))
}

/// Go's `math.Round`: half away from zero.
fn round(v: &Value) -> EvalResult {
    Ok(Value::Double(double(v)?.round()))
}

fn trunc(v: &Value) -> EvalResult {
    Ok(Value::Double(double(v)?.trunc()))
}

fn is_inf(v: &Value) -> EvalResult {
    Ok(Value::Bool(double(v)?.is_infinite()))
}

fn is_nan(v: &Value) -> EvalResult {
    Ok(Value::Bool(double(v)?.is_nan()))
}

fn is_finite(v: &Value) -> EvalResult {
    Ok(Value::Bool(double(v)?.is_finite()))
}

fn abs(v: &Value) -> EvalResult {
    match v {
        Value::Double(d) => Ok(Value::Double(d.abs())),
        Value::Int(i) => i
            .checked_abs()
            .map(Value::Int)
            .ok_or_else(|| EvalError::msg("integer overflow")),
        Value::Uint(_) => Ok(v.clone()),
        _ => Err(no_overload()),
    }
}

fn sign(v: &Value) -> EvalResult {
    match v {
        Value::Double(d) if d.is_nan() => Ok(v.clone()),
        Value::Double(d) => Ok(Value::Double(if *d > 0.0 {
            1.0
        } else if *d < 0.0 {
            -1.0
        } else {
            0.0
        })),
        Value::Int(i) => Ok(Value::Int(i.signum())),
        Value::Uint(u) => Ok(Value::Uint(u64::from(*u != 0))),
        _ => Err(no_overload()),
    }
}

fn bitwise(a: &Value, b: &Value, fi: fn(i64, i64) -> i64, fu: fn(u64, u64) -> u64) -> EvalResult {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(Value::Int(fi(*x, *y))),
        (Value::Uint(x), Value::Uint(y)) => Ok(Value::Uint(fu(*x, *y))),
        _ => Err(no_overload()),
    }
}

fn bit_and(a: &Value, b: &Value) -> EvalResult {
    bitwise(a, b, |x, y| x & y, |x, y| x & y)
}

fn bit_or(a: &Value, b: &Value) -> EvalResult {
    bitwise(a, b, |x, y| x | y, |x, y| x | y)
}

fn bit_xor(a: &Value, b: &Value) -> EvalResult {
    bitwise(a, b, |x, y| x ^ y, |x, y| x ^ y)
}

fn bit_not(v: &Value) -> EvalResult {
    match v {
        Value::Int(i) => Ok(Value::Int(!i)),
        Value::Uint(u) => Ok(Value::Uint(!u)),
        _ => Err(no_overload()),
    }
}

fn shift_amount(bits: &Value, name: &str) -> EvalResult<u32> {
    match bits {
        Value::Int(b) if *b < 0 => Err(EvalError::msg(format!(
            "math.{name}() negative offset: {b}"
        ))),
        // Shifting by 64 or more clears every bit, as in Go.
        Value::Int(b) => Ok(u32::try_from(*b).unwrap_or(u32::MAX)),
        _ => Err(no_overload()),
    }
}

fn shift_left(v: &Value, bits: &Value) -> EvalResult {
    let v = match v {
        Value::Int(_) | Value::Uint(_) => v,
        _ => return Err(no_overload()),
    };
    let n = shift_amount(bits, "bitShiftLeft")?;
    Ok(match v {
        Value::Int(i) => Value::Int(i.checked_shl(n).unwrap_or(0)),
        Value::Uint(u) => Value::Uint(u.checked_shl(n).unwrap_or(0)),
        _ => return Err(no_overload()),
    })
}

/// Logical shift: ints are shifted as their unsigned bit pattern, as cel-go does.
fn shift_right(v: &Value, bits: &Value) -> EvalResult {
    let v = match v {
        Value::Int(_) | Value::Uint(_) => v,
        _ => return Err(no_overload()),
    };
    let n = shift_amount(bits, "bitShiftRight")?;
    Ok(match v {
        Value::Int(i) => Value::Int((*i as u64).checked_shr(n).unwrap_or(0) as i64),
        Value::Uint(u) => Value::Uint(u.checked_shr(n).unwrap_or(0)),
        _ => return Err(no_overload()),
    })
}

fn sqrt(v: &Value) -> EvalResult {
    Ok(Value::Double(match v {
        Value::Double(d) => d.sqrt(),
        Value::Int(i) => (*i as f64).sqrt(),
        Value::Uint(u) => (*u as f64).sqrt(),
        _ => return Err(no_overload()),
    }))
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    #[test]
    fn greatest_and_least_keep_the_first_of_equals() {
        assert!(matches!(
            max_pair(&Value::Int(1), &Value::Double(1.0)),
            Ok(Value::Int(1))
        ));
        assert!(matches!(
            max_pair(&Value::Int(-7), &Value::Int(5)),
            Ok(Value::Int(5))
        ));
        assert!(matches!(
            min_pair(&Value::Uint(3), &Value::Int(-1)),
            Ok(Value::Int(-1))
        ));
        let l = Value::list(vec![
            5.4.into(),
            Value::Int(10),
            Value::Uint(3),
            (-5.0).into(),
            3.5.into(),
        ]);
        assert!(matches!(max_list(&l), Ok(Value::Int(10))));
        assert!(matches!(min_list(&l), Ok(Value::Double(d)) if d == -5.0));
        assert_eq!(
            max_list(&Value::list(vec![])).unwrap_err().message(),
            "math.@max(list) argument must not be empty"
        );
        assert_eq!(
            max_list(&Value::list(vec!["a".into(), "b".into()]))
                .unwrap_err()
                .message(),
            "no such overload: math.@max"
        );
    }

    #[test]
    fn rounding_sign_abs() {
        assert!(matches!(round(&Value::Double(-1.5)), Ok(Value::Double(d)) if d == -2.0));
        assert!(matches!(round(&Value::Double(2.5)), Ok(Value::Double(d)) if d == 3.0));
        assert!(matches!(trunc(&Value::Double(-1.7)), Ok(Value::Double(d)) if d == -1.0));
        assert_eq!(
            abs(&Value::Int(i64::MIN)).unwrap_err().message(),
            "integer overflow"
        );
        assert!(matches!(sign(&Value::Uint(100)), Ok(Value::Uint(1))));
        assert!(matches!(sign(&Value::Int(-11)), Ok(Value::Int(-1))));
        assert!(sign(&Value::Bool(true)).is_err());
        assert!(ceil(&Value::Int(1)).is_err());
    }

    #[test]
    fn bit_operations() {
        assert!(matches!(
            bit_or(&Value::Int(4), &Value::Int(-2)),
            Ok(Value::Int(-2))
        ));
        assert!(matches!(
            bit_xor(&Value::Int(4), &Value::Int(-2)),
            Ok(Value::Int(-6))
        ));
        assert!(matches!(
            bit_not(&Value::Uint(1)),
            Ok(Value::Uint(18446744073709551614))
        ));
        assert!(matches!(
            shift_left(&Value::Int(-1), &Value::Int(200)),
            Ok(Value::Int(0))
        ));
        assert!(matches!(
            shift_right(&Value::Int(-1024), &Value::Int(3)),
            Ok(Value::Int(2305843009213693824))
        ));
        assert!(matches!(
            shift_right(&Value::Int(-1024), &Value::Int(64)),
            Ok(Value::Int(0))
        ));
        assert_eq!(
            shift_left(&Value::Uint(1), &Value::Int(-1))
                .unwrap_err()
                .message(),
            "math.bitShiftLeft() negative offset: -1"
        );
        assert!(bit_and(&Value::Uint(2), &Value::from("")).is_err());
    }
}
