//! cel-go's `ext.TwoVarComprehensions`: `all`, `exists`, `existsOne`,
//! `transformList`, `transformMap` and `transformMapEntry` with an index (or
//! key) and a value variable, and the `cel.@mapInsert` function their
//! expansions accumulate maps with.

use crate::env::{EnvBuilder, Library};
use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::{Key, KeyRef, Map, Value};

/// The two-variable comprehension extension.
#[derive(Clone, Copy, Debug, Default)]
pub struct TwoVarComprehensions;

impl Library for TwoVarComprehensions {
    fn install(&self, env: &mut EnvBuilder) {
        for m in crate::syntax::macros::two_var_comprehensions() {
            env.add_macro(m);
        }
        let (k, v) = (Type::param("K"), Type::param("V"));
        let map_kv = Type::map(k.clone(), v.clone());
        env.add_function(
            Function::new("cel.@mapInsert")
                .overload(Overload::global(
                    "@mapInsert_map_key_value",
                    vec![map_kv.clone(), k, v],
                    map_kv.clone(),
                    Some(FnImpl::Nary(map_insert_key_value)),
                ))
                .overload(Overload::global(
                    "@mapInsert_map_map",
                    vec![map_kv.clone(), map_kv.clone()],
                    map_kv,
                    Some(FnImpl::Binary(map_insert_map)),
                )),
        );
    }
}

fn key_of(v: &Value) -> EvalResult<Key> {
    match KeyRef::from_value(v) {
        Some(k) if !matches!(v, Value::Double(_)) => Ok(k.to_owned_key()),
        _ => Err(EvalError::msg(format!(
            "unsupported key type: {}",
            v.type_name()
        ))),
    }
}

fn insert(m: &Map, entries: impl IntoIterator<Item = (Key, Value)>) -> EvalResult {
    let mut out: indexmap::IndexMap<Key, Value> = m.entries().collect();
    for (k, v) in entries {
        if out.contains_key(&k) {
            return Err(EvalError::msg(format!(
                "insert failed: key {} already exists",
                k.to_value()
            )));
        }
        out.insert(k, v);
    }
    Ok(Value::Map(Map::new(out)))
}

fn map_insert_key_value(args: &[Value]) -> EvalResult {
    match args {
        [Value::Map(m), k, v] => insert(m, [(key_of(k)?, v.clone())]),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn map_insert_map(a: &Value, b: &Value) -> EvalResult {
    match (a, b) {
        (Value::Map(m), Value::Map(n)) => insert(m, n.entries()),
        _ => Err(EvalError::no_such_overload()),
    }
}
