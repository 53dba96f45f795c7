//! cel-go's `ext.Protos` (`ext/protos.go`): the `proto.getExt(msg, ext)` and
//! `proto.hasExt(msg, ext)` macros, which turn a fully qualified extension
//! name into a field selection (`msg.<ext>`) or a presence test
//! (`has(msg.<ext>)`) of that name.

use crate::checker::names::qualified_name;
use crate::env::{EnvBuilder, Library};
use crate::syntax::macros::{Macro, MacroContext, MacroError};
use crate::syntax::{CallArgs, Expr, ExprKind, Select};

/// The protos extension.
#[derive(Clone, Copy, Debug, Default)]
pub struct Protos;

impl Library for Protos {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_macro(Macro::receiver("getExt", 2, expand_get_ext));
        env.add_macro(Macro::receiver("hasExt", 2, expand_has_ext));
    }
}

/// The extension's name spelt by the second argument (cel-go's
/// `getExtFieldName`: a selection chain over an identifier).
fn extension_name(ctx: &MacroContext<'_>, e: &Expr) -> Result<String, MacroError> {
    match &e.kind {
        ExprKind::Select(_) => qualified_name(e),
        _ => None,
    }
    .ok_or_else(|| ctx.error(e.id, "invalid extension field"))
}

/// The macro applies only to the `proto` namespace.
fn split_args(target: &Option<Expr>, args: &mut [Expr]) -> Option<(Expr, Expr)> {
    if target.as_ref().and_then(Expr::as_ident) != Some("proto") {
        return None;
    }
    let [msg, ext] = args else {
        return None;
    };
    let placeholder = || Expr::new(0, ExprKind::Literal(crate::syntax::Literal::Null));
    Some((
        std::mem::replace(msg, placeholder()),
        std::mem::replace(ext, placeholder()),
    ))
}

// Expanders have the `Expander` signature, which takes the argument `Vec`.
#[allow(clippy::ptr_arg)]
fn expand_get_ext(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    expand(ctx, target, args, false)
}

#[allow(clippy::ptr_arg)]
fn expand_has_ext(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    expand(ctx, target, args, true)
}

/// `msg.<ext>` (`test_only`: `has(msg.<ext>)`).
fn expand(
    ctx: &mut MacroContext<'_>,
    target: &Option<Expr>,
    args: &mut [Expr],
    test_only: bool,
) -> Result<Option<Expr>, MacroError> {
    let Some((msg, ext)) = split_args(target, args) else {
        return Ok(None);
    };
    let field = extension_name(ctx, &ext)?;
    let sel = Select {
        operand: msg,
        field: field.into(),
        test_only,
        optional: false,
    };
    Ok(Some(Expr::new(
        ctx.next_id(),
        ExprKind::Select(Box::new(sel)),
    )))
}
