//! cel-go's `ext.Bindings`: the `cel.bind(name, init, expr)` macro, which
//! binds `name` to `init` within `expr` (expanded to a comprehension over an
//! empty range, so `init` is evaluated once).

use crate::env::{EnvBuilder, Library};

/// The bindings extension.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bindings;

impl Library for Bindings {
    fn install(&self, env: &mut EnvBuilder) {
        for m in crate::syntax::macros::bindings() {
            env.add_macro(m);
        }
    }
}
