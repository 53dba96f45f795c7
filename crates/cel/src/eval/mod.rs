//! The planner and the interpreter.
//!
//! [`Plan::new`] turns an AST (checked or not) into a tree of evaluation nodes:
//! names resolved to variables, comprehension slots or constants; calls bound to
//! their overloads; constant parts folded. [`Plan::eval`] walks that tree.
//!
//! Design notes (performance):
//! * nodes are an enum (`node.rs`), not trait objects;
//! * comprehension variables live in slots of a frame, resolved at plan time;
//! * standard operators call their implementation without dispatch;
//! * `acc + [e]` steps of `map`/`filter` append in place (the accumulator is
//!   uniquely owned), so those macros are linear; recognised fold shapes run
//!   in dedicated loops (`fold.rs`);
//! * operands that are plain reads (constants, variables, present fields) are
//!   borrowed, not copied (`borrow.rs`); string concatenation chains build
//!   one buffer (`concat.rs`);
//! * a program that is a constant returns it without any evaluation state;
//! * cost tracking is a const generic of the evaluation functions: off, it
//!   costs nothing.

/// Returns an error that ends evaluation (see `interp::is_abort`) at once.
macro_rules! abort_on {
    ($r:expr) => {
        if let Err(e) = &$r
            && $crate::eval::interp::is_abort(e)
        {
            return Err(e.clone());
        }
    };
}

mod borrow;
mod concat;
mod cost;
mod fold;
mod int_op;
mod interp;
mod item;
mod node;
mod object;
mod options;
mod planner;

use crate::activation::Activation;
use crate::checker::CheckedAst;
use crate::diagnostics::Issues;
use crate::env::Env;
use crate::syntax::Ast;
use crate::value::Value;

use node::Node;
pub use options::{EvalOptions, Evaluation};
pub(crate) use planner::StdOnly;

/// Plans with at most this many comprehension slots (two or three per
/// comprehension) keep them on the stack: no allocation per evaluation.
const STACK_SLOTS: usize = 8;

/// A planned expression.
pub struct Plan {
    /// The value of a program that is a boolean constant (literal or
    /// folded), kept beside the tree: `Plan::eval` tests this byte and
    /// builds the result from it, which compiles to two stores, where
    /// reading it out of `root` copies the whole node's value.
    constant: Option<bool>,
    root: Node,
    n_slots: usize,
    block_exprs: Vec<Option<Node>>,
    presence_cost: u64,
    max_size: usize,
}

impl Plan {
    /// Plans `ast`; with `checked`, uses its resolved references. Fails on
    /// what cel-go rejects at program creation (invalid constant conversions
    /// and regular expressions under `optimize`, unsupported constructs).
    pub fn new(env: &Env, ast: &Ast, checked: Option<&CheckedAst>) -> Result<Self, Issues> {
        let mut p = planner::Planner::new(env, checked);
        match p.plan(&ast.expr) {
            Ok(root) => Ok(Plan {
                constant: bool_constant(&root),
                root,
                n_slots: p.n_slots,
                block_exprs: std::mem::take(&mut p.block_exprs),
                presence_cost: env.options().presence_test_cost,
                max_size: env.options().max_value_size.unwrap_or(usize::MAX),
            }),
            Err((id, msg)) => {
                let mut issues = Issues::new(ast.source.clone());
                issues.push(ast.source_info.offset(id), id, msg);
                Err(issues)
            }
        }
    }

    /// The plan of an expression that is one literal: no tree was needed to
    /// make it.
    pub(crate) fn literal(env: &Env, lit: &crate::syntax::Literal) -> Self {
        let root = Node::Const(planner::literal(lit));
        Plan {
            constant: bool_constant(&root),
            root,
            n_slots: 0,
            block_exprs: Vec::new(),
            presence_cost: env.options().presence_test_cost,
            max_size: env.options().max_value_size.unwrap_or(usize::MAX),
        }
    }

    /// Evaluates against `activation` with the limits of `options`. Inlined
    /// into the caller so that a constant program costs a test and a copy.
    #[inline(always)]
    pub fn eval(&self, activation: &dyn Activation, options: &EvalOptions<'_>) -> Evaluation {
        let track = options.track_cost || options.cost_limit.is_some();
        // A boolean constant (literal or folded) program, the common
        // constant: built as a fresh boolean, no evaluation state at all.
        // (A clone of the constant would copy through the generic `Value`
        // clone, whose merged copy of the inline variants costs more than
        // the rest of the evaluation; the peer driver's loop measured 1.9 ns
        // from the flag against 2.45 ns from the node.)
        if let Some(b) = self.constant {
            return Evaluation {
                value: Ok(Value::Bool(b)),
                cost: track.then_some(0),
            };
        }
        self.eval_tree(activation, options, track)
    }

    #[inline(never)]
    fn eval_tree(
        &self,
        activation: &dyn Activation,
        options: &EvalOptions<'_>,
        track: bool,
    ) -> Evaluation {
        // Any other constant program: no evaluation state either.
        if let Node::Const(v) = &self.root {
            return Evaluation {
                value: Ok(v.clone()),
                cost: track.then_some(0),
            };
        }
        // Comprehension slots: on the stack for the common plans.
        let mut stack: [crate::EvalResult; STACK_SLOTS];
        let mut heap: Vec<crate::EvalResult>;
        let slots: &mut [crate::EvalResult] = match self.n_slots {
            0 => &mut [],
            n if n <= STACK_SLOTS => {
                stack = std::array::from_fn(|_| Ok(Value::Null));
                stack.get_mut(..n).unwrap_or_default()
            }
            n => {
                heap = vec![Ok(Value::Null); n];
                &mut heap
            }
        };
        let mut cx = interp::Ctx {
            act: activation,
            slots,
            blocks: if self.block_exprs.is_empty() {
                Vec::new()
            } else {
                vec![None; self.block_exprs.len()]
            },
            cost: 0,
            limit: options.cost_limit.unwrap_or(u64::MAX),
            cancel: options.cancel,
            deadline: options.deadline,
            iterations: 0,
            max_size: self.max_size,
            vars: [const { interp::Resolution::Unknown }; node::VAR_CACHE],
            scratch: String::new(),
        };
        if track {
            let value = self.eval_node::<true>(&self.root, &mut cx);
            Evaluation {
                value,
                cost: Some(cx.cost),
            }
        } else {
            let value = self.eval_node::<false>(&self.root, &mut cx);
            Evaluation { value, cost: None }
        }
    }
}

/// The boolean a plan's root is, when it is a boolean constant.
fn bool_constant(root: &Node) -> Option<bool> {
    match root {
        Node::Const(Value::Bool(b)) => Some(*b),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
