//! Protobuf enums as CEL values, in the two semantics cel-spec defines
//! (`doc/langdef.md`, "Protocol Buffer Data Conversion"; the conformance
//! suite's `enums` sections `legacy_proto2/3` and `strong_proto2/3`):
//!
//! * [`EnumMode::Legacy`] (the default, and cel-go's and cel-cpp's only
//!   mode): an enum constant, field or element is an `int`.
//! * [`EnumMode::Strong`]: each enum is its own type, named by the enum's full
//!   name (`Type::Opaque(name, [])`); its values are [`EnumValue`]s that equal
//!   only values of the same enum and number. The conversions are functions
//!   the provider declares ([`enum_functions`]): `int(E) -> int`,
//!   `E(int) -> E` (any 32-bit number, named or not; beyond 32 bits a range
//!   error) and `E(string) -> E` (by value name; an unknown name is an error).
//!
//! Neither cel-go nor cel-cpp implements strong enums (both skip the
//! `strong_*` sections: cel-go's `conformance/BUILD.bazel`, cel-cpp's
//! `conformance/BUILD`, "issues/119"), so the behaviour follows the suite's
//! expectations.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use prost_reflect::{DescriptorPool, EnumDescriptor};

use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::{Opaque, Value};

/// How protobuf enums appear in CEL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EnumMode {
    /// Enum values are `int`s (cel-go's behaviour).
    #[default]
    Legacy,
    /// Each enum is a distinct type; values are [`EnumValue`]s.
    Strong,
}

/// A value of a protobuf enum under [`EnumMode::Strong`]: the enum's full
/// name and a number (named by the enum or not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumValue {
    type_name: Arc<str>,
    number: i32,
}

impl EnumValue {
    /// Value `number` of the enum named `type_name` (fully qualified).
    pub fn new(type_name: &str, number: i32) -> Self {
        EnumValue {
            type_name: type_name.into(),
            number,
        }
    }

    /// The enum's full name.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The number.
    pub fn number(&self) -> i32 {
        self.number
    }

    /// As a CEL value.
    pub fn into_value(self) -> Value {
        Value::Opaque(Arc::new(self))
    }
}

impl Opaque for EnumValue {
    fn type_name(&self) -> &str {
        &self.type_name
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<EnumValue>()
            .is_some_and(|o| o == self)
    }

    fn is_zero(&self) -> bool {
        self.number == 0
    }

    /// The number (the enum's JSON form when the name is not known).
    fn to_json(&self) -> Option<EvalResult<serde_json::Value>> {
        Some(Ok(serde_json::Value::from(self.number)))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// As the conversion that builds it: `pkg.E(2)`.
    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.type_name, self.number)
    }
}

/// The CEL type of enum `e` under `mode`.
pub(super) fn enum_type(e: &EnumDescriptor, mode: EnumMode) -> Type {
    match mode {
        EnumMode::Legacy => Type::Int,
        EnumMode::Strong => Type::opaque(e.full_name(), Vec::new()),
    }
}

/// Number `n` of enum `e` as a CEL value under `mode`.
pub(super) fn enum_to_cel(e: &EnumDescriptor, n: i32, mode: EnumMode) -> Value {
    match mode {
        EnumMode::Legacy => Value::Int(i64::from(n)),
        EnumMode::Strong => EnumValue::new(e.full_name(), n).into_value(),
    }
}

/// The number CEL value `v` stores in a field of enum `e`: an `int` in
/// 32-bit range (beyond it, cel-go's int32 conversion error), or a strong
/// value of that enum.
pub(super) fn enum_number(e: &EnumDescriptor, v: &Value) -> Option<EvalResult<i32>> {
    match v {
        Value::Int(i) => Some(i32::try_from(*i).map_err(|_| EvalError::msg("integer overflow"))),
        Value::Opaque(o) => {
            let x = o.as_any().downcast_ref::<EnumValue>()?;
            (x.type_name() == e.full_name()).then_some(Ok(x.number))
        }
        _ => None,
    }
}

fn int_to_number(i: i64) -> EvalResult<i32> {
    i32::try_from(i).map_err(|_| EvalError::msg("enum value out of range"))
}

/// The conversion functions of every enum of `pool` under
/// [`EnumMode::Strong`] (none under [`EnumMode::Legacy`]): `E(int)`,
/// `E(string)` as the function named by the enum's full name, and `int(E)`.
pub(super) fn enum_functions(pool: &DescriptorPool, mode: EnumMode) -> Vec<Function> {
    if mode == EnumMode::Legacy {
        return Vec::new();
    }
    let mut to_int = Function::new("int");
    let mut out = Vec::new();
    for e in pool.all_enums() {
        let name = e.full_name().to_string();
        if name == super::provider::NULL_VALUE {
            continue;
        }
        let t = enum_type(&e, mode);
        let from_int = {
            let name: Arc<str> = name.as_str().into();
            FnImpl::Closure(Arc::new(move |args: &[Value]| match args {
                [Value::Int(i)] => Ok(EnumValue::new(&name, int_to_number(*i)?).into_value()),
                _ => Err(EvalError::no_such_overload()),
            }))
        };
        let from_string = {
            let e = e.clone();
            FnImpl::Closure(Arc::new(move |args: &[Value]| match args {
                [Value::String(s)] => match e.get_value_by_name(s) {
                    Some(v) => Ok(EnumValue::new(e.full_name(), v.number()).into_value()),
                    None => Err(EvalError::msg(format!(
                        "invalid enum value name '{s}' for '{}'",
                        e.full_name()
                    ))),
                },
                _ => Err(EvalError::no_such_overload()),
            }))
        };
        let number = FnImpl::Unary(|v| match v {
            Value::Opaque(o) => match o.as_any().downcast_ref::<EnumValue>() {
                Some(x) => Ok(Value::Int(i64::from(x.number))),
                None => Err(EvalError::no_such_overload()),
            },
            _ => Err(EvalError::no_such_overload()),
        });
        out.push(
            Function::new(&name)
                .overload(Overload::global(
                    &format!("int64_to_{name}"),
                    vec![Type::Int],
                    t.clone(),
                    Some(from_int),
                ))
                .overload(Overload::global(
                    &format!("string_to_{name}"),
                    vec![Type::String],
                    t.clone(),
                    Some(from_string),
                )),
        );
        to_int = to_int.overload(Overload::global(
            &format!("{name}_to_int64"),
            vec![t],
            Type::Int,
            Some(number),
        ));
    }
    out.push(to_int);
    out
}
