//! cel-go's `ext.Sets` library: `sets.contains(list, list)`,
//! `sets.equivalent(list, list)`, `sets.intersects(list, list)`, all global,
//! comparing elements with CEL equality (so `1`, `1u` and `1.0` match).
//! Enabled in Kubernetes from 1.29.
//!
//! Costs (cel-go estimators and trackers, k8s-cel.md §11.2): `contains` and
//! `intersects` cost 1 + |a|·|b|, `equivalent` 1 + 2·|a|·|b|; see
//! [`super::cost::sets_runtime_cost`] and [`super::cost::sets_estimated_cost`].

use super::as_list;
use crate::env::{EnvBuilder, Library};
use crate::error::EvalResult;
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::{List, Value};

/// cel-go's `ext.Sets()`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sets;

impl Library for Sets {
    fn install(&self, env: &mut EnvBuilder) {
        crate::cost::install_sets_estimators(env);
        let list_t = Type::list(Type::param("T"));
        for (name, id, imp) in [
            (
                "sets.contains",
                "list_sets_contains_list",
                sets_contains as fn(&Value, &Value) -> EvalResult,
            ),
            (
                "sets.equivalent",
                "list_sets_equivalent_list",
                sets_equivalent,
            ),
            (
                "sets.intersects",
                "list_sets_intersects_list",
                sets_intersects,
            ),
        ] {
            env.add_function(Function::new(name).overload(Overload::global(
                id,
                vec![list_t.clone(), list_t.clone()],
                Type::Bool,
                Some(FnImpl::Binary(imp)),
            )));
        }
    }
}

fn list_contains(l: &List, v: &Value) -> bool {
    match l.as_slice() {
        Some(s) => s.iter().any(|e| e.equals(v)),
        None => l.iter().any(|e| e.equals(v)),
    }
}

fn contains_all(a: &List, b: &List) -> bool {
    b.iter().all(|e| list_contains(a, &e))
}

/// Every element of the second list is in the first.
pub fn sets_contains(a: &Value, b: &Value) -> EvalResult {
    let (a, b) = (as_list(a)?, as_list(b)?);
    Ok(Value::Bool(contains_all(a, b)))
}

/// Each list contains the other.
pub fn sets_equivalent(a: &Value, b: &Value) -> EvalResult {
    let (a, b) = (as_list(a)?, as_list(b)?);
    Ok(Value::Bool(contains_all(a, b) && contains_all(b, a)))
}

/// The lists share an element.
pub fn sets_intersects(a: &Value, b: &Value) -> EvalResult {
    let (a, b) = (as_list(a)?, as_list(b)?);
    Ok(Value::Bool(a.iter().any(|e| list_contains(b, &e))))
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    fn l(v: Vec<Value>) -> Value {
        Value::list(v)
    }

    #[test]
    fn set_relations_use_cel_equality() {
        let a = l(vec![Value::Int(1), Value::Int(2), Value::Int(3)]);
        assert!(matches!(
            sets_contains(&a, &l(vec![Value::Uint(1), 3.0.into()])),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            sets_contains(&a, &l(vec![Value::Int(4)])),
            Ok(Value::Bool(false))
        ));
        assert!(matches!(
            sets_contains(&a, &l(vec![])),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            sets_equivalent(
                &l(vec![Value::Int(1), Value::Int(1)]),
                &l(vec![Value::Uint(1)])
            ),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            sets_equivalent(&a, &l(vec![Value::Int(1)])),
            Ok(Value::Bool(false))
        ));
        assert!(matches!(
            sets_intersects(&a, &l(vec![3.0.into()])),
            Ok(Value::Bool(true))
        ));
        assert!(matches!(
            sets_intersects(&a, &l(vec![])),
            Ok(Value::Bool(false))
        ));
        let nested = l(vec![
            l(vec![Value::Int(1)]),
            l(vec![Value::Int(2), Value::Int(3)]),
        ]);
        assert!(matches!(
            sets_intersects(&nested, &l(vec![l(vec![Value::Int(2), 3.0.into()])])),
            Ok(Value::Bool(true))
        ));
        assert!(sets_contains(&Value::Int(1), &a).is_err());
    }
}
