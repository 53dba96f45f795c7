//! The functions of cel-go's optional-types library (`cel.OptionalTypes`).
//!
//! Version 0/1: `optional.of`, `optional.ofNonZeroValue`, `optional.none`,
//! `value`, `hasValue`, `or`, `orValue`; version 2 adds `list.first()`,
//! `list.last()`, `optional.unwrap(list)` and `list.unwrapOpt()`. Kubernetes
//! uses the newest version.
//!
//! Only functions live here. The operators `_?._` and `_[?_]`, the optional
//! overloads of `_[_]`, and the `optMap`/`optFlatMap` macros belong to the
//! evaluator and the parser. cel-go evaluates `or` and `orValue` lazily (the
//! argument is evaluated only when the receiver is `optional.none()`); the
//! implementations here are the strict fallbacks, and the planner should
//! short-circuit calls resolved to `optional_or_optional` and
//! `optional_orValue_value`.
//!
//! Costs: cel-go's default of 1 per call.

use super::{LATEST, as_list, no_overload};
use crate::env::{EnvBuilder, Library};
use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::{Timestamp, Value};

/// The function part of cel-go's `cel.OptionalTypes(OptionalTypesVersion(v))`.
#[derive(Clone, Copy, Debug)]
pub struct Optionals {
    /// The cel-go version of the optional types library (`cel.OptionalTypesVersion`); [`super::LATEST`] by default.
    pub version: u32,
}

impl Default for Optionals {
    fn default() -> Self {
        Optionals { version: LATEST }
    }
}

impl Optionals {
    /// The optional types library at `version`.
    pub fn version(version: u32) -> Self {
        Optionals { version }
    }
}

impl Library for Optionals {
    fn install(&self, env: &mut EnvBuilder) {
        env.options_mut().parser.enable_optional_syntax = true;
        for m in crate::syntax::macros::optional() {
            env.add_macro(m);
        }
        add_optional_operators(env);
        let v = Type::param("V");
        let opt_v = Type::optional(v.clone());
        let g = |id: &str, params: Vec<Type>, result: Type, imp: FnImpl| {
            Overload::global(id, params, result, Some(imp))
        };
        let m = |id: &str, params: Vec<Type>, result: Type, imp: FnImpl| {
            Overload::member(id, params, result, Some(imp))
        };
        env.add_function(Function::new("optional.of").overload(g(
            "optional_of",
            vec![v.clone()],
            opt_v.clone(),
            FnImpl::Unary(optional_of),
        )));
        env.add_function(Function::new("optional.ofNonZeroValue").overload(g(
            "optional_ofNonZeroValue",
            vec![v.clone()],
            opt_v.clone(),
            FnImpl::Unary(optional_of_non_zero_value),
        )));
        env.add_function(Function::new("optional.none").overload(g(
            "optional_none",
            vec![],
            opt_v.clone(),
            FnImpl::Nary(optional_none),
        )));
        env.add_function(Function::new("value").overload(m(
            "optional_value",
            vec![opt_v.clone()],
            v.clone(),
            FnImpl::Unary(value),
        )));
        env.add_function(Function::new("hasValue").overload(m(
            "optional_hasValue",
            vec![opt_v.clone()],
            Type::Bool,
            FnImpl::Unary(has_value),
        )));
        env.add_function(Function::new("or").overload(m(
            "optional_or_optional",
            vec![opt_v.clone(), opt_v.clone()],
            opt_v.clone(),
            FnImpl::Binary(or),
        )));
        env.add_function(Function::new("orValue").overload(m(
            "optional_orValue_value",
            vec![opt_v.clone(), v.clone()],
            v.clone(),
            FnImpl::Binary(or_value),
        )));
        if self.version >= 2 {
            let list_v = Type::list(v.clone());
            let list_opt_v = Type::list(opt_v.clone());
            env.add_function(Function::new("first").overload(m(
                "list_first",
                vec![list_v.clone()],
                opt_v.clone(),
                FnImpl::Unary(first),
            )));
            env.add_function(Function::new("last").overload(m(
                "list_last",
                vec![list_v.clone()],
                opt_v,
                FnImpl::Unary(last),
            )));
            env.add_function(Function::new("optional.unwrap").overload(g(
                "optional_unwrap",
                vec![list_opt_v.clone()],
                list_v.clone(),
                FnImpl::Unary(unwrap),
            )));
            env.add_function(Function::new("unwrapOpt").overload(m(
                "optional_unwrapOpt",
                vec![list_opt_v],
                list_v,
                FnImpl::Unary(unwrap),
            )));
        }
    }
}

pub fn optional_of(v: &Value) -> EvalResult {
    Ok(Value::optional_of(v.clone()))
}

pub fn optional_none(_: &[Value]) -> EvalResult {
    Ok(Value::optional_none())
}

/// The zero value of its type (cel-go's `IsZeroValue`): `null`, `false`, `0`,
/// `0u`, `0.0`, `''`, `b''`, `[]`, `{}`, `duration('0s')` and
/// `timestamp('0001-01-01T00:00:00Z')`.
pub fn is_zero_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Duration(d) => d.nanos == 0,
        Value::Timestamp(t) => {
            *t == Timestamp {
                seconds: Timestamp::MIN_SECONDS,
                nanos: 0,
                offset_secs: 0,
            }
        }
        Value::Opaque(o) => o.is_zero(),
        Value::Type(_) | Value::Optional(_) => false,
    }
}

pub fn optional_of_non_zero_value(v: &Value) -> EvalResult {
    Ok(if is_zero_value(v) {
        Value::optional_none()
    } else {
        Value::optional_of(v.clone())
    })
}

pub fn value(v: &Value) -> EvalResult {
    match v {
        Value::Optional(Some(inner)) => Ok((**inner).clone()),
        Value::Optional(None) => Err(EvalError::msg("optional.none() dereference")),
        _ => Err(no_overload()),
    }
}

pub fn has_value(v: &Value) -> EvalResult {
    match v {
        Value::Optional(o) => Ok(Value::Bool(o.is_some())),
        _ => Err(no_overload()),
    }
}

/// `a.or(b)`: `a` when it has a value, else `b`.
pub fn or(a: &Value, b: &Value) -> EvalResult {
    match a {
        Value::Optional(Some(_)) => Ok(a.clone()),
        Value::Optional(None) => match b {
            Value::Optional(_) => Ok(b.clone()),
            _ => Err(no_overload()),
        },
        _ => Err(no_overload()),
    }
}

/// `a.orValue(b)`: the value of `a`, else `b`.
pub fn or_value(a: &Value, b: &Value) -> EvalResult {
    match a {
        Value::Optional(Some(inner)) => Ok((**inner).clone()),
        Value::Optional(None) => Ok(b.clone()),
        _ => Err(no_overload()),
    }
}

pub fn first(v: &Value) -> EvalResult {
    let l = as_list(v)?;
    Ok(l.get(0)
        .map_or_else(Value::optional_none, Value::optional_of))
}

pub fn last(v: &Value) -> EvalResult {
    let l = as_list(v)?;
    Ok(match l.len() {
        0 => Value::optional_none(),
        n => l
            .get(n - 1)
            .map_or_else(Value::optional_none, Value::optional_of),
    })
}

/// `optional.unwrap(list)` / `list.unwrapOpt()`: the values of the optionals
/// that have one.
pub fn unwrap(v: &Value) -> EvalResult {
    let l = as_list(v)?;
    let mut out = Vec::with_capacity(l.len());
    for e in l.iter() {
        match e {
            Value::Optional(Some(inner)) => out.push((*inner).clone()),
            Value::Optional(None) => {}
            other => {
                return Err(EvalError::msg(format!(
                    "value {} is not optional",
                    go_text(&other)
                )));
            }
        }
    }
    Ok(Value::list(out))
}

/// Go's `%v` of a scalar in this error text.
fn go_text(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => crate::go::fmt::general(*d),
        Value::String(s) => s.to_string(),
        other => other.type_name().to_string(),
    }
}

/// The operator overloads cel-go's `OptionalTypes` declares: `_[_]` on
/// optional lists and maps, and the optional index `_[?_]`. The planner
/// evaluates them (like `_?._`, which the checker types itself).
fn add_optional_operators(env: &mut EnvBuilder) {
    let (k, v) = (Type::param("K"), Type::param("V"));
    let opt = Type::optional;
    let decl =
        |id: &str, params: Vec<Type>, result: Type| Overload::global(id, params, result, None);
    env.add_function(
        Function::new("_[_]")
            .overload(decl(
                "optional_list_index_int",
                vec![opt(Type::list(v.clone())), Type::Int],
                opt(v.clone()),
            ))
            .overload(decl(
                "optional_map_index_value",
                vec![opt(Type::map(k.clone(), v.clone())), k.clone()],
                opt(v.clone()),
            )),
    );
    env.add_function(
        Function::new("_[?_]")
            .overload(decl(
                "list_optindex_optional_int",
                vec![Type::list(v.clone()), Type::Int],
                opt(v.clone()),
            ))
            .overload(decl(
                "optional_list_optindex_optional_int",
                vec![opt(Type::list(v.clone())), Type::Int],
                opt(v.clone()),
            ))
            .overload(decl(
                "map_optindex_optional_value",
                vec![Type::map(k.clone(), v.clone()), k.clone()],
                opt(v.clone()),
            ))
            .overload(decl(
                "optional_map_optindex_optional_value",
                vec![opt(Type::map(k.clone(), v.clone())), k],
                opt(v),
            )),
    );
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;
    use crate::value::Duration;

    #[test]
    fn construction_and_access() {
        assert!(
            optional_of(&Value::Int(1))
                .unwrap()
                .equals(&Value::optional_of(Value::Int(1)))
        );
        assert!(
            optional_of_non_zero_value(&Value::Int(0))
                .unwrap()
                .equals(&Value::optional_none())
        );
        assert!(
            optional_of_non_zero_value(&"".into())
                .unwrap()
                .equals(&Value::optional_none())
        );
        assert!(
            optional_of_non_zero_value(&Value::Duration(Duration { nanos: 0 }))
                .unwrap()
                .equals(&Value::optional_none())
        );
        assert!(
            optional_of_non_zero_value(&Value::list(vec![Value::Int(0)]))
                .unwrap()
                .equals(&Value::optional_of(Value::list(vec![Value::Int(0)])))
        );
        assert!(matches!(
            value(&Value::optional_of(Value::Int(2))),
            Ok(Value::Int(2))
        ));
        assert_eq!(
            value(&Value::optional_none()).unwrap_err().message(),
            "optional.none() dereference"
        );
        assert!(matches!(
            has_value(&Value::optional_none()),
            Ok(Value::Bool(false))
        ));
        assert!(value(&Value::Int(1)).is_err());
    }

    #[test]
    fn or_and_or_value() {
        let some = Value::optional_of(Value::Int(1));
        let none = Value::optional_none();
        assert!(or(&none, &some).unwrap().equals(&some));
        assert!(or(&some, &none).unwrap().equals(&some));
        assert!(matches!(or_value(&none, &Value::Int(5)), Ok(Value::Int(5))));
        assert!(matches!(or_value(&some, &Value::Int(5)), Ok(Value::Int(1))));
    }

    #[test]
    fn list_helpers() {
        let l = Value::list(vec![Value::Int(1), Value::Int(2)]);
        assert!(
            first(&l)
                .unwrap()
                .equals(&Value::optional_of(Value::Int(1)))
        );
        assert!(last(&l).unwrap().equals(&Value::optional_of(Value::Int(2))));
        assert!(
            last(&Value::list(vec![]))
                .unwrap()
                .equals(&Value::optional_none())
        );
        let opts = Value::list(vec![
            Value::optional_of(Value::Int(1)),
            Value::optional_none(),
            Value::optional_of(Value::Int(3)),
        ]);
        assert!(
            unwrap(&opts)
                .unwrap()
                .equals(&Value::list(vec![Value::Int(1), Value::Int(3)]))
        );
        assert_eq!(
            unwrap(&Value::list(vec![Value::Int(1)]))
                .unwrap_err()
                .message(),
            "value 1 is not optional"
        );
    }
}
