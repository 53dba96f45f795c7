//! Kubernetes' quantity library (`library/quantity.go`, `kubernetes.quantity`,
//! type `kubernetes.Quantity`), over the [`crate::go::quantity`] port.
//!
//! Two Kubernetes behaviours are kept on purpose:
//! * `compareTo`, `isLessThan` and `isGreaterThan` compare through a pointer to
//!   the receiver, and when either side is in decimal form Go's `Cmp` moves the
//!   *receiver* to decimal form for good; afterwards `isInteger()` on that value
//!   is false. [`QuantityValue`] records this in `promoted`.
//! * `add`/`sub` return a pointer-wrapped value, which Go's `Equal` does not
//!   accept as the right operand: `q.add(x) == quantity(...)` compares, but
//!   `quantity(...) == q.add(x)` is `no such overload`. [`QuantityValue::pointer`]
//!   records the form; [`QuantityValue::equals_checked`] gives the Go outcome.

use std::any::Any;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use cel::value::Opaque;
use cel::{EnvBuilder, EvalError, EvalResult, FnImpl, Function, Library, Overload, Type, Value};

use super::common::{QUANTITY_TYPE_NAME, int_arg, opaque_arg, quantity_type, string_arg};
use crate::go::quantity::{Format, Quantity, QuantityError};

/// A `kubernetes.Quantity` value.
#[derive(Debug)]
pub struct QuantityValue {
    quantity: Quantity,
    /// Made by `add`/`sub` (Go's `*apiservercel.Quantity`).
    pub pointer: bool,
    /// Moved to decimal form by a comparison (see the module notes).
    promoted: AtomicBool,
}

impl QuantityValue {
    /// `quantity` as a value; `pointer`: made by `add`/`sub`.
    pub fn new(quantity: Quantity, pointer: bool) -> Self {
        QuantityValue {
            quantity,
            pointer,
            promoted: AtomicBool::new(false),
        }
    }

    /// The quantity as a CEL value (an opaque `Quantity`).
    pub fn into_value(self) -> Value {
        Value::Opaque(Arc::new(self))
    }

    /// The quantity in the form Kubernetes currently holds it.
    pub fn quantity(&self) -> Quantity {
        if self.promoted.load(AtomicOrdering::Relaxed) {
            self.quantity.to_dec()
        } else {
            self.quantity.clone()
        }
    }

    fn is_dec(&self) -> bool {
        self.quantity.is_dec() || self.promoted.load(AtomicOrdering::Relaxed)
    }

    /// Go's `Quantity.Equal(other)`: `None` (`no such overload`) when `other`
    /// is not a quantity in value form.
    pub fn equals_checked(&self, other: &dyn Opaque) -> Option<bool> {
        let o = other.as_any().downcast_ref::<QuantityValue>()?;
        if o.pointer {
            return None;
        }
        Some(self.quantity().compare(&o.quantity()).ok() == Some(Ordering::Equal))
    }
}

impl Opaque for QuantityValue {
    fn type_name(&self) -> &str {
        QUANTITY_TYPE_NAME
    }

    /// Numeric equality (`200M == 0.2G`). A pointer-form right operand is
    /// unequal here; [`QuantityValue::equals_checked`] reports it as Go does.
    fn equals(&self, other: &dyn Opaque) -> bool {
        self.equals_checked(other).unwrap_or(false)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.quantity())
    }
}

/// The quantity library.
#[derive(Clone, Copy, Debug, Default)]
pub struct QuantityLib;

impl Library for QuantityLib {
    fn install(&self, env: &mut EnvBuilder) {
        let q = quantity_type;
        let unary = |f: fn(&Value) -> EvalResult| Some(FnImpl::Unary(f));
        let binary = |f: fn(&Value, &Value) -> EvalResult| Some(FnImpl::Binary(f));
        let add = |env: &mut EnvBuilder, name: &str, o: Overload| {
            env.add_function(Function::new(name).overload(o));
        };
        add(
            env,
            "quantity",
            Overload::global(
                "string_to_quantity",
                vec![Type::String],
                q(),
                unary(string_to_quantity),
            ),
        );
        add(
            env,
            "isQuantity",
            Overload::global(
                "is_quantity_string",
                vec![Type::String],
                Type::Bool,
                unary(is_quantity),
            ),
        );
        add(
            env,
            "sign",
            Overload::global("quantity_sign", vec![q()], Type::Int, unary(sign)),
        );
        add(
            env,
            "isGreaterThan",
            Overload::member(
                "quantity_is_greater_than",
                vec![q(), q()],
                Type::Bool,
                binary(is_greater_than),
            ),
        );
        add(
            env,
            "isLessThan",
            Overload::member(
                "quantity_is_less_than",
                vec![q(), q()],
                Type::Bool,
                binary(is_less_than),
            ),
        );
        add(
            env,
            "compareTo",
            Overload::member(
                "quantity_compare_to",
                vec![q(), q()],
                Type::Int,
                binary(compare_to),
            ),
        );
        add(
            env,
            "asApproximateFloat",
            Overload::member(
                "quantity_get_float",
                vec![q()],
                Type::Double,
                unary(as_approximate_float),
            ),
        );
        add(
            env,
            "asInteger",
            Overload::member("quantity_get_int", vec![q()], Type::Int, unary(as_integer)),
        );
        add(
            env,
            "isInteger",
            Overload::member(
                "quantity_is_integer",
                vec![q()],
                Type::Bool,
                unary(is_integer),
            ),
        );
        env.add_function(
            Function::new("add")
                .overload(Overload::member(
                    "quantity_add",
                    vec![q(), q()],
                    q(),
                    binary(add_quantity),
                ))
                .overload(Overload::member(
                    "quantity_add_int",
                    vec![q(), Type::Int],
                    q(),
                    binary(add_int),
                )),
        );
        env.add_function(
            Function::new("sub")
                .overload(Overload::member(
                    "quantity_sub",
                    vec![q(), q()],
                    q(),
                    binary(sub_quantity),
                ))
                .overload(Overload::member(
                    "quantity_sub_int",
                    vec![q(), Type::Int],
                    q(),
                    binary(sub_int),
                )),
        );
    }
}

fn err(e: QuantityError) -> EvalError {
    EvalError::msg(e.to_string())
}

/// `quantity(string)`: the parser's error text on failure.
pub fn string_to_quantity(v: &Value) -> EvalResult {
    let q = Quantity::parse(string_arg(v)?).map_err(err)?;
    Ok(QuantityValue::new(q, false).into_value())
}

/// `isQuantity(string)`.
pub fn is_quantity(v: &Value) -> EvalResult {
    Ok(Value::Bool(Quantity::parse(string_arg(v)?).is_ok()))
}

/// `sign(quantity)`.
pub fn sign(v: &Value) -> EvalResult {
    Ok(Value::Int(
        opaque_arg::<QuantityValue>(v)?.quantity.sign() as i64
    ))
}

/// `Cmp` through the receiver's pointer, with Go's promotion side effect.
fn compare(a: &Value, b: &Value) -> EvalResult<Ordering> {
    let a = opaque_arg::<QuantityValue>(a)?;
    let b = opaque_arg::<QuantityValue>(b)?;
    let ord = a.quantity().compare(&b.quantity()).map_err(err)?;
    if a.is_dec() || b.is_dec() {
        a.promoted.store(true, AtomicOrdering::Relaxed);
    }
    Ok(ord)
}

/// `q.isGreaterThan(other)`.
pub fn is_greater_than(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(compare(a, b)? == Ordering::Greater))
}

/// `q.isLessThan(other)`.
pub fn is_less_than(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Bool(compare(a, b)? == Ordering::Less))
}

/// `q.compareTo(other)`: −1, 0 or 1.
pub fn compare_to(a: &Value, b: &Value) -> EvalResult {
    Ok(Value::Int(compare(a, b)? as i64))
}

/// `q.asApproximateFloat()`.
pub fn as_approximate_float(v: &Value) -> EvalResult {
    Ok(Value::Double(
        opaque_arg::<QuantityValue>(v)?
            .quantity()
            .as_approximate_f64(),
    ))
}

/// `q.asInteger()`: `cannot convert value to integer` unless exact (see
/// [`Quantity::as_int64`]).
pub fn as_integer(v: &Value) -> EvalResult {
    opaque_arg::<QuantityValue>(v)?
        .quantity()
        .as_int64()
        .map(Value::Int)
        .ok_or_else(|| EvalError::msg("cannot convert value to integer"))
}

/// `q.isInteger()`.
pub fn is_integer(v: &Value) -> EvalResult {
    Ok(Value::Bool(
        opaque_arg::<QuantityValue>(v)?
            .quantity()
            .as_int64()
            .is_some(),
    ))
}

fn arith(
    a: &Value,
    b: Quantity,
    op: fn(&Quantity, &Quantity) -> Result<Quantity, QuantityError>,
) -> EvalResult {
    let a = opaque_arg::<QuantityValue>(a)?.quantity();
    let r = op(&a, &b).map_err(err)?;
    Ok(QuantityValue::new(r, true).into_value())
}

/// `q.add(quantity)`.
pub fn add_quantity(a: &Value, b: &Value) -> EvalResult {
    arith(a, opaque_arg::<QuantityValue>(b)?.quantity(), Quantity::add)
}

/// `q.add(int)`: the int as a `DecimalExponent` quantity.
pub fn add_int(a: &Value, b: &Value) -> EvalResult {
    arith(
        a,
        Quantity::from_int(int_arg(b)?, Format::DecimalExponent),
        Quantity::add,
    )
}

/// `q.sub(quantity)`.
pub fn sub_quantity(a: &Value, b: &Value) -> EvalResult {
    arith(a, opaque_arg::<QuantityValue>(b)?.quantity(), Quantity::sub)
}

/// `q.sub(int)`.
pub fn sub_int(a: &Value, b: &Value) -> EvalResult {
    arith(
        a,
        Quantity::from_int(int_arg(b)?, Format::DecimalExponent),
        Quantity::sub,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Value {
        string_to_quantity(&Value::from(s)).unwrap()
    }

    #[test]
    fn library_behaviour() {
        assert!(q("200M").equals(&q("0.2G")));
        assert!(!q("200M").equals(&q("0.3G")));
        assert!(matches!(
            compare_to(&q("50M"), &q("50Mi")),
            Ok(Value::Int(-1))
        ));
        let sum = add_int(&q("50k"), &Value::Int(20)).unwrap();
        assert!(matches!(
            is_less_than(&sum, &q("50020")),
            Ok(Value::Bool(false))
        ));
        assert!(sum.equals(&q("50.02k")));
        // The pointer form is not accepted on the right of `==`.
        assert!(!q("50.02k").equals(&sum));
        assert!(matches!(as_integer(&q("50k")), Ok(Value::Int(50000))));
        assert_eq!(
            as_integer(&q("9999999999999999999999999999999999999G"))
                .unwrap_err()
                .message(),
            "cannot convert value to integer"
        );
        assert!(matches!(sign(&q("-1m")), Ok(Value::Int(-1))));
        assert!(
            matches!(as_approximate_float(&q("50.703k")), Ok(Value::Double(x)) if x == 50703.0)
        );
    }

    #[test]
    fn comparison_promotes_the_receiver() {
        let small = q("1");
        assert!(matches!(is_integer(&small), Ok(Value::Bool(true))));
        compare_to(&small, &q("99999999999999999999")).unwrap();
        assert!(matches!(is_integer(&small), Ok(Value::Bool(false))));
        let other = q("2");
        compare_to(&other, &q("3")).unwrap();
        assert!(matches!(is_integer(&other), Ok(Value::Bool(true))));
    }
}
