//! `cel.block` (cel-go's block extension, used by optimizers for common
//! subexpression elimination): `cel.block([e0, e1, ...], result)` where
//! `cel.index(i)` refers to `ei`, and `cel.iterVar(i, j)` / `cel.accuVar(i, j)`
//! name comprehension variables. The planner evaluates `cel.block`; this
//! library declares it and adds the three naming macros, which expand to the
//! identifiers `@index<i>`, `@it:<i>:<j>` and `@ac:<i>:<j>`.

use crate::env::{EnvBuilder, Library};
use crate::functions::{Function, Overload};
use crate::syntax::macros::{MacroContext, MacroError};
use crate::syntax::{Expr, ExprKind, Literal, Macro};
use crate::types::Type;

/// The block extension.
#[derive(Clone, Copy, Debug, Default)]
pub struct Block;

/// The identifier `cel.index(i)` stands for.
pub fn index_ident(i: usize) -> String {
    format!("@index{i}")
}

fn is_cel(target: &Option<Expr>) -> bool {
    matches!(target.as_ref().and_then(Expr::as_ident), Some("cel"))
}

fn non_negative_int(e: &Expr) -> Result<i64, MacroError> {
    match e.as_literal() {
        Some(Literal::Int(i)) if *i >= 0 => Ok(*i),
        _ => Err(MacroError {
            message: "argument must be a non-negative integer literal".into(),
            expr_id: e.id,
        }),
    }
}

fn expand_index(
    ctx: &mut MacroContext<'_>,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Option<Expr>, MacroError> {
    if !is_cel(&target) {
        return Ok(None);
    }
    let [arg] = args.as_slice() else {
        return Ok(None);
    };
    let i = non_negative_int(arg)?;
    Ok(Some(Expr::new(
        ctx.next_id(),
        ExprKind::Ident(format!("@index{i}")),
    )))
}

fn expand_var(
    prefix: &str,
    ctx: &mut MacroContext<'_>,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Option<Expr>, MacroError> {
    if !is_cel(&target) {
        return Ok(None);
    }
    let [a, b] = args.as_slice() else {
        return Ok(None);
    };
    let (i, j) = (non_negative_int(a)?, non_negative_int(b)?);
    Ok(Some(Expr::new(
        ctx.next_id(),
        ExprKind::Ident(format!("@{prefix}:{i}:{j}")),
    )))
}

fn expand_iter_var(
    ctx: &mut MacroContext<'_>,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Option<Expr>, MacroError> {
    expand_var("it", ctx, target, args)
}

fn expand_accu_var(
    ctx: &mut MacroContext<'_>,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Option<Expr>, MacroError> {
    expand_var("ac", ctx, target, args)
}

impl Library for Block {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_function(Function::new("cel.block").overload(Overload::global(
            "cel_block_list",
            vec![Type::list(Type::Dyn), Type::param("T")],
            Type::param("T"),
            None,
        )));
        for (name, arity, expander) in [
            ("index", 1, expand_index as crate::syntax::macros::Expander),
            ("iterVar", 2, expand_iter_var),
            ("accuVar", 2, expand_accu_var),
        ] {
            env.add_macro(Macro {
                name: name.into(),
                receiver_style: true,
                arg_count: Some(arity),
                expander,
            });
        }
    }
}
