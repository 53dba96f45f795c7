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

    /// The value of variable `name` borrowed from the activation, for an
    /// activation that holds its values: evaluation reads it in place
    /// instead of copying it. `None` (the default): evaluation asks
    /// [`Activation::resolve`].
    fn resolve_ref(&self, _name: &str) -> Option<&Value> {
        None
    }
}

/// No variables.
impl Activation for () {
    fn resolve(&self, _: &str) -> Option<Value> {
        None
    }
}

/// Up to this many bindings, a [`HashMap`] activation is searched by
/// comparing names: cheaper than hashing the name with the map's SipHash.
const SCAN_BINDINGS_MAX: usize = 4;

impl Activation for HashMap<String, Value> {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.resolve_ref(name).cloned()
    }

    fn resolve_ref(&self, name: &str) -> Option<&Value> {
        // The capacity bound keeps the scan (which visits every bucket) short.
        if self.len() <= SCAN_BINDINGS_MAX && self.capacity() <= 4 * SCAN_BINDINGS_MAX {
            return self
                .iter()
                .find_map(|(k, v)| crate::value::names_equal(k, name).then_some(v));
        }
        self.get(name)
    }
}

impl Activation for BTreeMap<String, Value> {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.get(name).cloned()
    }

    fn resolve_ref(&self, name: &str) -> Option<&Value> {
        self.get(name)
    }
}

impl<F: Fn(&str) -> Option<Value>> Activation for F {
    fn resolve(&self, name: &str) -> Option<Value> {
        self(name)
    }
}
