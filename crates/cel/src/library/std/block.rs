//! `cel.block` (cel-go's block extension, used by optimizers for common
//! subexpression elimination): `cel.block([e0, e1, ...], result)` where
//! `cel.index(i)` refers to `ei`, and `cel.iterVar(i, j)` / `cel.accuVar(i, j)`
//! name comprehension variables. The planner evaluates `cel.block`; this
//! library declares it and adds the three naming macros, which expand to the
//! identifiers `@index<i>`, `@it:<i>:<j>` and `@ac:<i>:<j>`.

use crate::env::{EnvBuilder, Library};
use crate::functions::{Function, Overload};
use crate::types::Type;

/// The block extension.
#[derive(Clone, Copy, Debug, Default)]
pub struct Block;

/// The identifier `cel.index(i)` stands for.
pub fn index_ident(i: usize) -> String {
    format!("@index{i}")
}

impl Library for Block {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_function(Function::new("cel.block").overload(Overload::global(
            "cel_block_list",
            vec![Type::list(Type::Dyn), Type::param("T")],
            Type::param("T"),
            None,
        )));
        for m in crate::syntax::macros::block() {
            env.add_macro(m);
        }
    }
}
