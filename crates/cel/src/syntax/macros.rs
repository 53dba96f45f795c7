//! Macros: calls the parser expands into other expressions (mostly
//! comprehensions), exactly as cel-go expands them.
//!
//! Sets of macros, as cel-go groups them:
//! * [`standard`]: `has`, `all`, `exists`, `exists_one`, `existsOne`, `map` (2 and
//!   3 arguments), `filter` (cel-go's `parser.AllMacros`);
//! * [`optional`]: `optMap`, `optFlatMap` (cel-go's `OptionalTypes`);
//! * [`bindings`]: `cel.bind` (ext `Bindings`);
//! * [`block`]: `cel.index`, `cel.iterVar`, `cel.accuVar` (ext `Bindings` with block support);
//! * [`two_var_comprehensions`]: `all`, `exists`, `existsOne`, `exists_one` with two
//!   variables, `transformList`, `transformMap`, `transformMapEntry`;
//! * [`lists`]: `sortBy` (ext `Lists` v2+).

// Expanders must match the `Expander` signature, which takes `&mut Vec` so that
// expanders may also grow or shrink the argument list.
#![allow(clippy::ptr_arg)]

use super::ExprId;
use super::ast::{
    Call, CallArgs, Comprehension, Expr, ExprKind, List, Literal, MapEntry, Name, Select,
};

/// The accumulator variable of every built-in comprehension macro (cel-go's
/// `HiddenAccumulatorName`: not writable in source, so it cannot collide).
pub(crate) const ACCUMULATOR: &str = "@result";

/// [`ACCUMULATOR`] as a name, built at compile time (copied into each node).
static ACCUMULATOR_NAME: Name = Name::const_new(ACCUMULATOR);

/// The functions the built-in expanders call, built at compile time.
static NOT_STRICTLY_FALSE: Name = Name::const_new("@not_strictly_false");
static NOT: Name = Name::const_new("!_");
static AND: Name = Name::const_new("_&&_");
static OR: Name = Name::const_new("_||_");
static ADD: Name = Name::const_new("_+_");
static EQUALS: Name = Name::const_new("_==_");
static CONDITIONAL: Name = Name::const_new("_?_:_");

/// The accumulator name older cel-go versions used; still rejected as an
/// iteration variable name.
pub(crate) const LEGACY_ACCUMULATOR: &str = "__result__";

/// The iteration variable of bind-style comprehensions over an empty list.
pub(crate) const UNUSED_ITER_VAR: &str = "#unused";

/// What an expander gets to build new nodes with: fresh ids carrying the
/// position of the macro call, and error reporting.
pub struct MacroContext<'a> {
    /// Filled in by the parser.
    pub(crate) inner: &'a mut dyn MacroHost,
}

/// The parser side of [`MacroContext`].
pub(crate) trait MacroHost {
    /// Whether the expression has reached its node limit (copies then stop).
    fn exhausted(&self) -> bool;
    /// A fresh id positioned at the macro call.
    fn next_id(&mut self) -> ExprId;
    /// A fresh id with the position of node `like`.
    fn next_id_like(&mut self, like: ExprId) -> ExprId;
}

impl MacroContext<'_> {
    /// A fresh node id, positioned at the macro call.
    pub fn next_id(&mut self) -> ExprId {
        self.inner.next_id()
    }

    /// The accumulator variable name of the built-in macros.
    pub fn accu_name(&self) -> &'static str {
        ACCUMULATOR
    }

    /// A new identifier node.
    pub fn ident(&mut self, name: &str) -> Expr {
        Expr::new(self.next_id(), ExprKind::Ident(name.into()))
    }

    /// A reference to the accumulator.
    pub fn accu_ident(&mut self) -> Expr {
        Expr::new(self.next_id(), ExprKind::Ident(ACCUMULATOR_NAME.clone()))
    }

    /// A new literal node.
    pub fn literal(&mut self, l: Literal) -> Expr {
        Expr::new(self.next_id(), ExprKind::Literal(l))
    }

    /// A new `bool` literal node.
    pub fn bool(&mut self, b: bool) -> Expr {
        self.literal(Literal::Bool(b))
    }

    /// A new `int` literal node.
    pub fn int(&mut self, i: i64) -> Expr {
        self.literal(Literal::Int(i))
    }

    /// A global call (operators included).
    pub fn call(&mut self, function: &str, args: CallArgs) -> Expr {
        let call = Call {
            target: None,
            function: function.into(),
            args,
        };
        Expr::new(self.next_id(), ExprKind::Call(Box::new(call)))
    }

    /// [`MacroContext::call`] of a function whose name the expanders keep.
    fn call_of(&mut self, function: &'static Name, args: CallArgs) -> Expr {
        let call = Call {
            target: None,
            function: function.clone(),
            args,
        };
        Expr::new(self.next_id(), ExprKind::Call(Box::new(call)))
    }

    /// A receiver-style call.
    pub fn member_call(&mut self, function: &str, target: Expr, args: CallArgs) -> Expr {
        let call = Call {
            target: Some(target),
            function: function.into(),
            args,
        };
        Expr::new(self.next_id(), ExprKind::Call(Box::new(call)))
    }

    /// A new list literal node.
    pub fn list(&mut self, elements: Vec<Expr>) -> Expr {
        Expr::new(
            self.next_id(),
            ExprKind::List(Box::new(List {
                elements,
                optional_indices: Vec::new(),
            })),
        )
    }

    /// A map literal with no entries.
    pub fn empty_map(&mut self) -> Expr {
        Expr::new(self.next_id(), ExprKind::Map(Vec::<MapEntry>::new()))
    }

    /// The presence test `has(operand.field)`.
    pub fn presence_test(&mut self, operand: Expr, field: Name) -> Expr {
        let sel = Select {
            operand,
            field,
            test_only: true,
            optional: false,
        };
        Expr::new(self.next_id(), ExprKind::Select(Box::new(sel)))
    }

    /// A one-variable comprehension.
    #[allow(clippy::too_many_arguments)]
    pub fn comprehension(
        &mut self,
        iter_range: Expr,
        iter_var: &str,
        accu_var: &str,
        accu_init: Expr,
        loop_condition: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        self.comprehension2(
            iter_range,
            iter_var,
            None,
            accu_var,
            accu_init,
            loop_condition,
            loop_step,
            result,
        )
    }

    /// A comprehension with an optional second iteration variable.
    #[allow(clippy::too_many_arguments)]
    pub fn comprehension2(
        &mut self,
        iter_range: Expr,
        iter_var: &str,
        iter_var2: Option<&str>,
        accu_var: &str,
        accu_init: Expr,
        loop_condition: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        let c = Comprehension {
            iter_var: iter_var.into(),
            iter_var2: iter_var2.map(Name::from),
            iter_range,
            accu_var: accu_var.into(),
            accu_init,
            loop_condition,
            loop_step,
            result,
        };
        Expr::new(self.next_id(), ExprKind::Comprehension(Box::new(c)))
    }

    /// A one-variable comprehension over the accumulator [`ACCUMULATOR`],
    /// of the iteration variable's name as the expander holds it.
    fn accumulation(
        &mut self,
        iter_range: Expr,
        iter_var: Name,
        [accu_init, loop_condition, loop_step, result]: [Expr; 4],
    ) -> Expr {
        let c = Comprehension {
            iter_var,
            iter_var2: None,
            iter_range,
            accu_var: ACCUMULATOR_NAME.clone(),
            accu_init,
            loop_condition,
            loop_step,
            result,
        };
        Expr::new(self.next_id(), ExprKind::Comprehension(Box::new(c)))
    }

    /// A copy of `e` with fresh ids (each positioned like the node it copies).
    /// The tree is at most as deep as the parser allows, so recursion is bounded.
    pub fn copy(&mut self, e: &Expr) -> Expr {
        let id = self.inner.next_id_like(e.id);
        if self.inner.exhausted() {
            // The parse fails; keep the work bounded.
            return Expr::new(id, ExprKind::Literal(crate::syntax::Literal::Null));
        }
        let kind = match &e.kind {
            ExprKind::Literal(l) => ExprKind::Literal(l.clone()),
            ExprKind::Ident(n) => ExprKind::Ident(n.clone()),
            ExprKind::Select(s) => ExprKind::Select(Box::new(Select {
                operand: self.copy(&s.operand),
                field: s.field.clone(),
                test_only: s.test_only,
                optional: s.optional,
            })),
            ExprKind::Call(c) => {
                let target = c.target.as_ref().map(|t| self.copy(t));
                let args = c.args.iter().map(|a| self.copy(a)).collect();
                ExprKind::Call(Box::new(Call {
                    target,
                    function: c.function.clone(),
                    args,
                }))
            }
            ExprKind::List(l) => ExprKind::List(Box::new(List {
                elements: l.elements.iter().map(|x| self.copy(x)).collect(),
                optional_indices: l.optional_indices.clone(),
            })),
            ExprKind::Map(entries) => ExprKind::Map(
                entries
                    .iter()
                    .map(|en| MapEntry {
                        id: self.inner.next_id_like(en.id),
                        key: self.copy(&en.key),
                        value: self.copy(&en.value),
                        optional: en.optional,
                    })
                    .collect(),
            ),
            ExprKind::Struct(s) => ExprKind::Struct(Box::new(super::ast::Struct {
                type_name: s.type_name.clone(),
                fields: s
                    .fields
                    .iter()
                    .map(|f| super::ast::StructField {
                        id: self.inner.next_id_like(f.id),
                        name: f.name.clone(),
                        value: self.copy(&f.value),
                        optional: f.optional,
                    })
                    .collect(),
            })),
            ExprKind::Comprehension(c) => ExprKind::Comprehension(Box::new(Comprehension {
                iter_var: c.iter_var.clone(),
                iter_var2: c.iter_var2.clone(),
                iter_range: self.copy(&c.iter_range),
                accu_var: c.accu_var.clone(),
                accu_init: self.copy(&c.accu_init),
                loop_condition: self.copy(&c.loop_condition),
                loop_step: self.copy(&c.loop_step),
                result: self.copy(&c.result),
            })),
        };
        Expr::new(id, kind)
    }

    /// An error about node `expr_id`.
    pub fn error(&self, expr_id: ExprId, message: impl Into<String>) -> MacroError {
        MacroError {
            message: message.into(),
            expr_id,
        }
    }
}

/// A macro expander. Gets the receiver (for receiver-style macros) and the
/// arguments. Returns the expansion; `Ok(None)` to leave the call as it is (the
/// expander must then leave `target` and `args` untouched); or an error
/// reported at the node it names.
pub type Expander =
    fn(&mut MacroContext<'_>, &mut Option<Expr>, &mut CallArgs) -> Result<Option<Expr>, MacroError>;

/// A macro expansion error, reported as a syntax error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroError {
    /// The error text.
    pub message: String,
    /// The id of the node the error points at.
    pub expr_id: ExprId,
}

/// A macro: a function name, its call style and arity, and its expander.
#[derive(Clone, Debug)]
pub struct Macro {
    /// The function name the macro expands.
    pub name: String,
    /// `target.name(args)` when true, `name(args)` otherwise.
    pub receiver_style: bool,
    /// Exact argument count, or `None` for any count.
    pub arg_count: Option<usize>,
    /// Builds the expansion.
    pub expander: Expander,
}

impl Macro {
    /// A global macro `name(args)` of `arg_count` arguments.
    pub fn global(name: &str, arg_count: usize, expander: Expander) -> Macro {
        Macro {
            name: name.to_string(),
            receiver_style: false,
            arg_count: Some(arg_count),
            expander,
        }
    }

    /// A receiver macro `target.name(args)` of `arg_count` arguments.
    pub fn receiver(name: &str, arg_count: usize, expander: Expander) -> Macro {
        Macro {
            name: name.to_string(),
            receiver_style: true,
            arg_count: Some(arg_count),
            expander,
        }
    }
}

/// cel-go's `parser.AllMacros`.
pub fn standard() -> Vec<Macro> {
    vec![
        Macro::global("has", 1, expand_has),
        Macro::receiver("all", 2, expand_all),
        Macro::receiver("exists", 2, expand_exists),
        Macro::receiver("exists_one", 2, expand_exists_one),
        Macro::receiver("existsOne", 2, expand_exists_one),
        Macro::receiver("map", 2, expand_map),
        Macro::receiver("map", 3, expand_map),
        Macro::receiver("filter", 2, expand_filter),
    ]
}

/// `optMap` and `optFlatMap` (cel-go's optional types library).
pub fn optional() -> Vec<Macro> {
    vec![
        Macro::receiver("optMap", 2, expand_opt_map),
        Macro::receiver("optFlatMap", 2, expand_opt_flat_map),
    ]
}

/// `cel.bind` (cel-go's `ext.Bindings`).
pub fn bindings() -> Vec<Macro> {
    vec![Macro::receiver("bind", 3, expand_bind)]
}

/// `cel.index`, `cel.iterVar`, `cel.accuVar`: the variables of `cel.block`,
/// expanded to the identifiers cel-go uses (`@index0`, `@it:0:0`, `@ac:0:0`).
pub fn block() -> Vec<Macro> {
    vec![
        Macro::receiver("index", 1, expand_block_index),
        Macro::receiver("iterVar", 2, expand_block_iter_var),
        Macro::receiver("accuVar", 2, expand_block_accu_var),
    ]
}

/// The two-variable comprehension macros (cel-go's `ext.TwoVarComprehensions`).
pub fn two_var_comprehensions() -> Vec<Macro> {
    vec![
        Macro::receiver("all", 3, expand_all2),
        Macro::receiver("exists", 3, expand_exists2),
        Macro::receiver("existsOne", 3, expand_exists_one2),
        Macro::receiver("exists_one", 3, expand_exists_one2),
        Macro::receiver("transformList", 3, expand_transform_list),
        Macro::receiver("transformList", 4, expand_transform_list),
        Macro::receiver("transformMap", 3, expand_transform_map),
        Macro::receiver("transformMap", 4, expand_transform_map),
        Macro::receiver("transformMapEntry", 3, expand_transform_map_entry),
        Macro::receiver("transformMapEntry", 4, expand_transform_map_entry),
    ]
}

/// `sortBy` (cel-go's `ext.Lists` version 2 and later).
pub fn lists() -> Vec<Macro> {
    vec![Macro::receiver("sortBy", 2, expand_sort_by)]
}

fn take_target(target: &mut Option<Expr>) -> Expr {
    // Receiver-style macros always get a target; an absent one cannot happen,
    // but a placeholder keeps this total.
    target
        .take()
        .unwrap_or_else(|| Expr::new(0, ExprKind::Literal(Literal::Null)))
}

fn arg(args: &mut [Expr], i: usize) -> Expr {
    args.get_mut(i)
        .map(|a| std::mem::replace(a, Expr::new(0, ExprKind::Literal(Literal::Null))))
        .unwrap_or_else(|| Expr::new(0, ExprKind::Literal(Literal::Null)))
}

fn expand_has(
    ctx: &mut MacroContext<'_>,
    _target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    let a = arg(args, 0);
    match a.kind {
        ExprKind::Select(s) => {
            let s = *s;
            Ok(Some(ctx.presence_test(s.operand, s.field)))
        }
        _ => Err(ctx.error(a.id, "invalid argument to has() macro")),
    }
}

/// The iteration variable of a one-variable macro.
fn iter_var(ctx: &MacroContext<'_>, e: &Expr, not_ident: &str) -> Result<Name, MacroError> {
    let Some(v) = e.as_ident() else {
        return Err(ctx.error(e.id, not_ident));
    };
    if v == ACCUMULATOR || v == LEGACY_ACCUMULATOR {
        return Err(ctx.error(e.id, "iteration variable overwrites accumulator variable"));
    }
    Ok(v.into())
}

#[derive(Clone, Copy)]
enum Quantifier {
    All,
    Exists,
    ExistsOne,
}

fn quantifier_parts(ctx: &mut MacroContext<'_>, kind: Quantifier, pred: Expr) -> [Expr; 4] {
    match kind {
        Quantifier::All => {
            let init = ctx.bool(true);
            let a = ctx.accu_ident();
            let cond = ctx.call_of(&NOT_STRICTLY_FALSE, smallvec::smallvec![a]);
            let a = ctx.accu_ident();
            let step = ctx.call_of(&AND, smallvec::smallvec![a, pred]);
            let result = ctx.accu_ident();
            [init, cond, step, result]
        }
        Quantifier::Exists => {
            let init = ctx.bool(false);
            let a = ctx.accu_ident();
            let not = ctx.call_of(&NOT, smallvec::smallvec![a]);
            let cond = ctx.call_of(&NOT_STRICTLY_FALSE, smallvec::smallvec![not]);
            let a = ctx.accu_ident();
            let step = ctx.call_of(&OR, smallvec::smallvec![a, pred]);
            let result = ctx.accu_ident();
            [init, cond, step, result]
        }
        Quantifier::ExistsOne => {
            let init = ctx.int(0);
            let cond = ctx.bool(true);
            let a = ctx.accu_ident();
            let one = ctx.int(1);
            let plus = ctx.call_of(&ADD, smallvec::smallvec![a, one]);
            let a = ctx.accu_ident();
            let step = ctx.call_of(&CONDITIONAL, smallvec::smallvec![pred, plus, a]);
            let a = ctx.accu_ident();
            let one = ctx.int(1);
            let result = ctx.call_of(&EQUALS, smallvec::smallvec![a, one]);
            [init, cond, step, result]
        }
    }
}

fn quantifier(
    ctx: &mut MacroContext<'_>,
    kind: Quantifier,
    target: &mut Option<Expr>,
    args: &mut [Expr],
) -> Result<Option<Expr>, MacroError> {
    let v = iter_var(ctx, &args[0], "argument must be a simple name")?;
    let pred = arg(args, 1);
    let parts = quantifier_parts(ctx, kind, pred);
    let range = take_target(target);
    Ok(Some(ctx.accumulation(range, v, parts)))
}

fn expand_all(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    quantifier(ctx, Quantifier::All, target, args)
}

fn expand_exists(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    quantifier(ctx, Quantifier::Exists, target, args)
}

fn expand_exists_one(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    quantifier(ctx, Quantifier::ExistsOne, target, args)
}

/// `r.map(v, f)` and `r.map(v, p, f)`; also used by `sortBy`.
fn make_map(
    ctx: &mut MacroContext<'_>,
    range: Expr,
    args: &mut [Expr],
) -> Result<Expr, MacroError> {
    let v = iter_var(ctx, &args[0], "argument is not an identifier")?;
    let (filter, f) = if args.len() == 3 {
        (Some(arg(args, 1)), arg(args, 2))
    } else {
        (None, arg(args, 1))
    };
    let init = ctx.list(Vec::new());
    let cond = ctx.bool(true);
    let a = ctx.accu_ident();
    let single = ctx.list(vec![f]);
    let mut step = ctx.call_of(&ADD, smallvec::smallvec![a, single]);
    if let Some(filter) = filter {
        let a = ctx.accu_ident();
        step = ctx.call_of(&CONDITIONAL, smallvec::smallvec![filter, step, a]);
    }
    let result = ctx.accu_ident();
    Ok(ctx.accumulation(range, v, [init, cond, step, result]))
}

fn expand_map(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    iter_var(ctx, &args[0], "argument is not an identifier")?;
    let range = take_target(target);
    make_map(ctx, range, args).map(Some)
}

fn expand_filter(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    let v = iter_var(ctx, &args[0], "argument is not an identifier")?;
    let var_ref = arg(args, 0);
    let filter = arg(args, 1);
    let init = ctx.list(Vec::new());
    let cond = ctx.bool(true);
    let a = ctx.accu_ident();
    let single = ctx.list(vec![var_ref]);
    let step = ctx.call_of(&ADD, smallvec::smallvec![a, single]);
    let a = ctx.accu_ident();
    let step = ctx.call_of(&CONDITIONAL, smallvec::smallvec![filter, step, a]);
    let result = ctx.accu_ident();
    let range = take_target(target);
    Ok(Some(ctx.accumulation(range, v, [init, cond, step, result])))
}

fn opt_var(ctx: &MacroContext<'_>, e: &Expr, msg: &str) -> Result<Name, MacroError> {
    e.as_ident()
        .map(Name::from)
        .ok_or_else(|| ctx.error(e.id, msg))
}

fn expand_opt_map(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    let var = opt_var(
        ctx,
        &args[0],
        "optMap() variable name must be a simple identifier",
    )?;
    let map_expr = arg(args, 1);
    let target = take_target(target);
    let copy = ctx.copy(&target);
    let has = ctx.member_call("hasValue", target, CallArgs::new());
    let range = ctx.list(Vec::new());
    let value = ctx.member_call("value", copy, CallArgs::new());
    let cond = ctx.bool(false);
    let step = ctx.ident(&var);
    let comp = ctx.comprehension(range, UNUSED_ITER_VAR, &var, value, cond, step, map_expr);
    let of = ctx.call("optional.of", smallvec::smallvec![comp]);
    let none = ctx.call("optional.none", CallArgs::new());
    Ok(Some(
        ctx.call_of(&CONDITIONAL, smallvec::smallvec![has, of, none]),
    ))
}

fn expand_opt_flat_map(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    let var = opt_var(
        ctx,
        &args[0],
        "optFlatMap() variable name must be a simple identifier",
    )?;
    let map_expr = arg(args, 1);
    let target = take_target(target);
    let copy = ctx.copy(&target);
    let has = ctx.member_call("hasValue", target, CallArgs::new());
    let range = ctx.list(Vec::new());
    let value = ctx.member_call("value", copy, CallArgs::new());
    let cond = ctx.bool(false);
    let step = ctx.ident(&var);
    let comp = ctx.comprehension(range, UNUSED_ITER_VAR, &var, value, cond, step, map_expr);
    let none = ctx.call("optional.none", CallArgs::new());
    Ok(Some(ctx.call_of(
        &CONDITIONAL,
        smallvec::smallvec![has, comp, none],
    )))
}

fn is_cel_namespace(target: &Option<Expr>) -> bool {
    target.as_ref().and_then(Expr::as_ident) == Some("cel")
}

fn expand_bind(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    if !is_cel_namespace(target) {
        return Ok(None);
    }
    let var = opt_var(
        ctx,
        &args[0],
        "cel.bind() variable names must be simple identifiers",
    )?;
    let init = arg(args, 1);
    let result = arg(args, 2);
    let range = ctx.list(Vec::new());
    let cond = ctx.bool(false);
    let step = ctx.ident(&var);
    Ok(Some(ctx.comprehension(
        range,
        UNUSED_ITER_VAR,
        &var,
        init,
        cond,
        step,
        result,
    )))
}

fn non_negative_int(e: &Expr) -> Option<i64> {
    match e.as_literal() {
        Some(Literal::Int(i)) if *i >= 0 => Some(*i),
        _ => None,
    }
}

fn expand_block_index(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    if !is_cel_namespace(target) {
        return Ok(None);
    }
    let i = non_negative_int(&args[0]).ok_or_else(|| {
        ctx.error(
            args[0].id,
            "cel.index requires a single non-negative int constant arg",
        )
    })?;
    Ok(Some(ctx.ident(&format!("@index{i}"))))
}

fn block_pair(ctx: &MacroContext<'_>, args: &[Expr], what: &str) -> Result<(i64, i64), MacroError> {
    let msg = format!("cel.{what} requires two non-negative int constant args");
    let a = non_negative_int(&args[0]).ok_or_else(|| ctx.error(args[0].id, msg.clone()))?;
    let b = non_negative_int(&args[1]).ok_or_else(|| ctx.error(args[1].id, msg))?;
    Ok((a, b))
}

fn expand_block_iter_var(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    if !is_cel_namespace(target) {
        return Ok(None);
    }
    let (d, u) = block_pair(ctx, args, "iterVar")?;
    Ok(Some(ctx.ident(&format!("@it:{d}:{u}"))))
}

fn expand_block_accu_var(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    if !is_cel_namespace(target) {
        return Ok(None);
    }
    let (d, u) = block_pair(ctx, args, "accuVar")?;
    Ok(Some(ctx.ident(&format!("@ac:{d}:{u}"))))
}

/// The two iteration variables of a two-variable macro.
fn iter_vars(ctx: &MacroContext<'_>, args: &[Expr]) -> Result<(Name, Name), MacroError> {
    let simple = |e: &Expr| -> Result<Name, MacroError> {
        e.as_ident()
            .map(Name::from)
            .ok_or_else(|| ctx.error(e.id, "argument must be a simple name"))
    };
    let v1 = simple(&args[0])?;
    let v2 = simple(&args[1])?;
    if v1 == v2 {
        return Err(ctx.error(args[1].id, format!("duplicate variable name: {v1}")));
    }
    if v1 == ACCUMULATOR || v1 == LEGACY_ACCUMULATOR {
        return Err(ctx.error(
            args[0].id,
            "iteration variable overwrites accumulator variable",
        ));
    }
    if v2 == ACCUMULATOR || v2 == LEGACY_ACCUMULATOR {
        return Err(ctx.error(
            args[1].id,
            "iteration variable overwrites accumulator variable",
        ));
    }
    Ok((v1, v2))
}

fn quantifier2(
    ctx: &mut MacroContext<'_>,
    kind: Quantifier,
    target: &mut Option<Expr>,
    args: &mut [Expr],
) -> Result<Option<Expr>, MacroError> {
    let (v1, v2) = iter_vars(ctx, args)?;
    let pred = arg(args, 2);
    let [init, cond, step, result] = quantifier_parts(ctx, kind, pred);
    let range = take_target(target);
    Ok(Some(ctx.comprehension2(
        range,
        &v1,
        Some(&v2),
        ACCUMULATOR,
        init,
        cond,
        step,
        result,
    )))
}

fn expand_all2(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    quantifier2(ctx, Quantifier::All, target, args)
}

fn expand_exists2(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    quantifier2(ctx, Quantifier::Exists, target, args)
}

fn expand_exists_one2(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    quantifier2(ctx, Quantifier::ExistsOne, target, args)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Transform {
    List,
    Map,
    MapEntry,
}

fn transform(
    ctx: &mut MacroContext<'_>,
    kind: Transform,
    target: &mut Option<Expr>,
    args: &mut [Expr],
) -> Result<Option<Expr>, MacroError> {
    let (v1, v2) = iter_vars(ctx, args)?;
    let (filter, f) = if args.len() == 4 {
        (Some(arg(args, 2)), arg(args, 3))
    } else {
        (None, arg(args, 2))
    };
    let mut step = match kind {
        Transform::List => {
            let a = ctx.accu_ident();
            let single = ctx.list(vec![f]);
            ctx.call_of(&ADD, smallvec::smallvec![a, single])
        }
        Transform::Map => {
            let a = ctx.accu_ident();
            let k = ctx.ident(&v1);
            ctx.call("cel.@mapInsert", smallvec::smallvec![a, k, f])
        }
        Transform::MapEntry => {
            let a = ctx.accu_ident();
            ctx.call("cel.@mapInsert", smallvec::smallvec![a, f])
        }
    };
    if let Some(filter) = filter {
        let a = ctx.accu_ident();
        step = ctx.call_of(&CONDITIONAL, smallvec::smallvec![filter, step, a]);
    }
    let init = if kind == Transform::List {
        ctx.list(Vec::new())
    } else {
        ctx.empty_map()
    };
    let cond = ctx.bool(true);
    let result = ctx.accu_ident();
    let range = take_target(target);
    Ok(Some(ctx.comprehension2(
        range,
        &v1,
        Some(&v2),
        ACCUMULATOR,
        init,
        cond,
        step,
        result,
    )))
}

fn expand_transform_list(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    transform(ctx, Transform::List, target, args)
}

fn expand_transform_map(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    transform(ctx, Transform::Map, target, args)
}

fn expand_transform_map_entry(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    transform(ctx, Transform::MapEntry, target, args)
}

/// The accumulator of the bind-style comprehension `sortBy` expands to.
pub(crate) const SORT_BY_INPUT: &str = "@__sortBy_input__";

fn expand_sort_by(
    ctx: &mut MacroContext<'_>,
    target: &mut Option<Expr>,
    args: &mut CallArgs,
) -> Result<Option<Expr>, MacroError> {
    let input = ctx.ident(SORT_BY_INPUT);
    let t = take_target(target);
    if !matches!(
        t.kind,
        ExprKind::List(_)
            | ExprKind::Select(_)
            | ExprKind::Ident(_)
            | ExprKind::Comprehension(_)
            | ExprKind::Call(_)
    ) {
        return Err(ctx.error(
            t.id,
            "sortBy can only be applied to a list, identifier, comprehension, call or select expression",
        ));
    }
    let range = ctx.copy(&input);
    let keys = make_map(ctx, range, args)?;
    let receiver = ctx.copy(&input);
    let call = ctx.member_call("@sortByAssociatedKeys", receiver, smallvec::smallvec![keys]);
    let empty = ctx.list(Vec::new());
    let cond = ctx.bool(false);
    Ok(Some(ctx.comprehension(
        empty,
        UNUSED_ITER_VAR,
        SORT_BY_INPUT,
        t,
        cond,
        input,
        call,
    )))
}
