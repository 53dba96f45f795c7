//! Activations: where evaluation finds the values of variables.

use std::collections::{BTreeMap, HashMap};

use crate::value::Value;

/// Resolves variables by name at evaluation time.
///
/// Resolution is lazy: a host may build the value only when an expression asks
/// for it, or hand out a [`crate::value::MapProvider`] over its own document.
pub trait Activation {
    /// The value of variable `name` (a simple or dotted name), if bound.
    fn resolve(&self, name: &str) -> Option<Value>;
}

/// No variables.
impl Activation for () {
    fn resolve(&self, _: &str) -> Option<Value> {
        None
    }
}

impl Activation for HashMap<String, Value> {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.get(name).cloned()
    }
}

impl Activation for BTreeMap<String, Value> {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.get(name).cloned()
    }
}

impl<F: Fn(&str) -> Option<Value>> Activation for F {
    fn resolve(&self, name: &str) -> Option<Value> {
        self(name)
    }
}
