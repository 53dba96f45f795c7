//! Evaluating a policy's expressions for one request (`plugin/cel/activation.go`:
//! `newActivation`, `Evaluate`; `composition.go`: lazy variables): the activation binds the
//! admission variables; `variables` is a lazy map whose members are evaluated on first use,
//! once per evaluation of the policy, their cost charged to the expression that used them.
//!
//! Every evaluation runs under the per-call limit (`PerCallLimit`, 1,000,000) and is charged,
//! variables included, to the request's remaining budget (`RuntimeCELCostBudget`,
//! 10,000,000); past it, the server's out-of-budget text.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use cel::value::{Key, KeyRef, Map, MapProvider};
use cel::{EvalError, EvalOptions, EvalResult, Value};

use super::compile::{Compiled, CompiledPolicy, names};
use crate::admission::authorizer::AuthorizerValues;
use crate::rules::env::PER_CALL_LIMIT;

/// `ErrOutOfBudget`'s detail.
pub const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// The values bound for one request, as JSON (absent: `null`).
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    /// `object`: the object being mutated.
    pub object: serde_json::Value,
    /// `oldObject`: the stored object (null for CREATE).
    pub old_object: serde_json::Value,
    /// The `AdmissionRequest` (`CreateAdmissionRequest`), as JSON.
    pub request: serde_json::Value,
    /// `namespaceObject`: the namespace of a namespaced object.
    pub namespace_object: serde_json::Value,
    /// `params`: the binding's param object (null without one).
    pub params: serde_json::Value,
    /// `authorizer` and `authorizer.requestResource` (`None`: unbound).
    pub authorizer: Option<AuthorizerValues>,
}

/// The activation of one policy evaluation; variables are shared by its expressions.
pub struct Activation {
    values: BTreeMap<&'static str, Value>,
    variables: Arc<LazyVariables>,
}

impl fmt::Debug for Activation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Activation").finish_non_exhaustive()
    }
}

struct LazyVariables {
    names: Vec<String>,
    compiled: Vec<Compiled>,
    values: BTreeMap<&'static str, Value>,
    results: Vec<OnceLock<EvalResult>>,
    /// Cost of the variables evaluated since the last expression finished.
    cost: AtomicU64,
    /// The map itself, as the variables' own `variables` (set once built).
    this: OnceLock<Value>,
}

impl fmt::Debug for LazyVariables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyVariables")
            .field("names", &self.names)
            .finish_non_exhaustive()
    }
}

impl LazyVariables {
    fn value(&self, index: usize) -> EvalResult {
        self.results[index]
            .get_or_init(|| {
                let name = &self.names[index];
                let compiled = &self.compiled[index];
                let program = compiled.program.as_ref().map_err(|e| {
                    EvalError::msg(format!(
                        "composited variable {} fails to compile: {e}",
                        cel::go::fmt::quote(name)
                    ))
                })?;
                let activation = |n: &str| -> Option<Value> {
                    if n == names::VARIABLES {
                        return self.this.get().cloned();
                    }
                    self.values.get(n).cloned()
                };
                let eval = program.eval_with(
                    &activation,
                    &EvalOptions {
                        track_cost: true,
                        cost_limit: Some(PER_CALL_LIMIT),
                        ..EvalOptions::default()
                    },
                );
                self.cost
                    .fetch_add(eval.cost.unwrap_or(0), Ordering::Relaxed);
                eval.value.map_err(|e| {
                    EvalError::msg(format!(
                        "composited variable {} fails to evaluate: {e}",
                        cel::go::fmt::quote(name)
                    ))
                })
            })
            .clone()
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

/// The `variables` map.
#[derive(Debug)]
struct VariablesMap(Arc<LazyVariables>);

impl MapProvider for VariablesMap {
    fn len(&self) -> usize {
        self.0.names.len()
    }

    fn get(&self, key: KeyRef<'_>) -> Option<Value> {
        self.try_get(key).ok().flatten()
    }

    fn keys(&self) -> Box<dyn Iterator<Item = Key> + '_> {
        Box::new(self.0.names.iter().map(|n| Key::from(n.as_str())))
    }

    fn try_get(&self, key: KeyRef<'_>) -> EvalResult<Option<Value>> {
        match key {
            KeyRef::String(s) => self.try_field(s),
            _ => Ok(None),
        }
    }

    fn try_field(&self, name: &str) -> EvalResult<Option<Value>> {
        match self.0.index(name) {
            Some(i) => self.0.value(i).map(Some),
            None => Ok(None),
        }
    }
}

impl Activation {
    /// The activation of `policy` for a request with `bindings`.
    pub fn new(policy: &CompiledPolicy, bindings: &Bindings) -> Activation {
        let mut values = BTreeMap::new();
        values.insert(names::OBJECT, Value::from_json(&bindings.object));
        values.insert(names::OLD_OBJECT, Value::from_json(&bindings.old_object));
        values.insert(names::REQUEST, Value::from_json(&bindings.request));
        values.insert(
            names::NAMESPACE,
            Value::from_json(&bindings.namespace_object),
        );
        if policy.policy.spec.param_kind.is_some() {
            values.insert(names::PARAMS, Value::from_json(&bindings.params));
        }
        if let Some(a) = &bindings.authorizer {
            values.insert(names::AUTHORIZER, a.authorizer.clone());
            values.insert(
                names::REQUEST_RESOURCE_AUTHORIZER,
                a.request_resource.clone(),
            );
        }
        let variables = Arc::new(LazyVariables {
            names: policy.variables.iter().map(|(n, _)| n.clone()).collect(),
            compiled: policy.variables.iter().map(|(_, c)| c.clone()).collect(),
            values: values.clone(),
            results: policy.variables.iter().map(|_| OnceLock::new()).collect(),
            cost: AtomicU64::new(0),
            this: OnceLock::new(),
        });
        let map = Value::Map(Map::Provided(Arc::new(VariablesMap(variables.clone()))));
        let _ = variables.this.set(map);
        Activation { values, variables }
    }

    /// `Evaluate`: runs `compiled` with `budget` remaining; returns the value (or the
    /// expression's error, `expression '<e>' resulted in error: ...`) and the budget left, or
    /// `Err` with the text that stops the request (out of budget).
    pub fn evaluate(
        &self,
        compiled: &Compiled,
        budget: &mut i64,
    ) -> Result<Result<Value, String>, String> {
        let program = match &compiled.program {
            Ok(p) => p,
            Err(e) => return Ok(Err(format!("compilation error: {e}"))),
        };
        let lookup = |n: &str| -> Option<Value> {
            if n == names::VARIABLES {
                return self.variables.this.get().cloned();
            }
            self.values.get(n).cloned()
        };
        let eval = program.eval_with(
            &lookup,
            &EvalOptions {
                track_cost: true,
                cost_limit: Some(PER_CALL_LIMIT),
                ..EvalOptions::default()
            },
        );
        let composition = self.variables.cost.swap(0, Ordering::Relaxed);
        let composition = i64::try_from(composition).unwrap_or(i64::MAX);
        if composition > *budget {
            return Err(OUT_OF_BUDGET.into());
        }
        *budget -= composition;
        let cost = i64::try_from(eval.cost.unwrap_or(0)).unwrap_or(i64::MAX);
        if cost > *budget {
            return Err(OUT_OF_BUDGET.into());
        }
        *budget -= cost;
        Ok(eval.value.map_err(|e| {
            format!(
                "expression '{}' resulted in error: {e}",
                compiled.expression
            )
        }))
    }
}
