//! The repetition limit: how many times in a row an expression may repeat a
//! self-recursive or repetitive grammar rule.
//!
//! Source: the guideline (*Validation*) requires "32 nested expressions and
//! 32 repetitions of self-recursive or repetitive rules", the minimums of the
//! CEL language definition, which lists what a repetition is: terms separated
//! by `||`, by `&&`, relations in a row, binary arithmetic operators of the
//! same precedence in a row, selection (`.`) operators in a row, indexing
//! (`[_]`) operators in a row, function call arguments, list elements, and map
//! or message fields. A policy environment accepts at least 32 of each
//! ([`super::MIN_REPETITIONS`]) and rejects expressions that go past its
//! configured limit, so that complexity stays bounded by the expression's
//! shape and not only by its length.
//!
//! How repetitions are counted, on the parsed (macro-expanded) AST:
//!
//! * operator chains count *operators*: `a || b || c` repeats `||` twice,
//!   `a + b - c` repeats the additive rule twice. `||` and `&&` are
//!   associative: all directly nested operators of the same kind are one
//!   chain, however the parser balanced or the author parenthesized them.
//!   Relations (`==`, `!=`, `<`, `<=`, `>`, `>=`, `in`), additive (`+`, `-`)
//!   and multiplicative (`*`, `/`, `%`) operators are left-associative: the
//!   chain follows the left operand, so a parenthesized right operand
//!   (`a - (b - c)`) starts a chain of its own;
//! * conditionals count along the else branch (`a ? x : b ? y : z` repeats
//!   the conditional rule twice): the rule `Expr = Or ["?" Or ":" Expr]` is
//!   self-recursive there;
//! * member chains count *operators* of one kind in a row, following the
//!   operand: selections (`a.b.c`, `a.?b`, `has(a.b)`) and receiver calls
//!   (`a.f().g()`), including receiver-style macros (`l.map(x, x).filter(y,
//!   y)` is two selections: chained macros are the repetition the language
//!   definition means by "selection operators in a row"); indexing (`a[0][1]`,
//!   `a[?k]`) separately;
//! * call arguments, list elements, map entries and message fields count
//!   *items*: `f(a, b, c)` has 3 arguments.
//!
//! Nodes the macros generate (their accumulator updates, e.g. the `_&&_` that
//! `all` folds with) are recognised by their operand `@result` and are not
//! counted. Repeated unary operators (`!!!x`, `---x`) are folded by the
//! parser into at most one operator, leave no trace in the AST and cost
//! nothing at evaluation, so they are not counted. Nesting (parentheses,
//! nested calls, lists, maps, and the depth of operator trees) is the parser's
//! `max_nesting_depth` limit, not this one.

use std::fmt;

use crate::syntax::{Ast, Expr, ExprId, ExprKind};

/// A repetitive rule of the CEL grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RepeatedRule {
    /// Terms separated by `||`.
    LogicalOr,
    /// Terms separated by `&&`.
    LogicalAnd,
    /// Relations (`==`, `!=`, `<`, `<=`, `>`, `>=`, `in`) in a row.
    Relation,
    /// `+` and `-` in a row.
    Additive,
    /// `*`, `/` and `%` in a row.
    Multiplicative,
    /// Conditionals chained through their else branch.
    Conditional,
    /// Selections and receiver calls (macros included) in a row.
    Selection,
    /// Index operators in a row.
    Indexing,
    /// Arguments of one call.
    CallArguments,
    /// Elements of one list literal.
    ListElements,
    /// Entries of one map literal.
    MapEntries,
    /// Fields of one message literal.
    MessageFields,
}

impl fmt::Display for RepeatedRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RepeatedRule::LogicalOr => "'||' operators in a row",
            RepeatedRule::LogicalAnd => "'&&' operators in a row",
            RepeatedRule::Relation => "relations in a row",
            RepeatedRule::Additive => "additive operators in a row",
            RepeatedRule::Multiplicative => "multiplicative operators in a row",
            RepeatedRule::Conditional => "chained conditionals",
            RepeatedRule::Selection => "selections or member calls in a row",
            RepeatedRule::Indexing => "index operators in a row",
            RepeatedRule::CallArguments => "call arguments",
            RepeatedRule::ListElements => "list elements",
            RepeatedRule::MapEntries => "map entries",
            RepeatedRule::MessageFields => "message fields",
        })
    }
}

/// The first place an expression repeats a rule more often than allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepetitionExceeded {
    /// The rule repeated too often.
    pub rule: RepeatedRule,
    /// The repetitions found there (at least `limit + 1`).
    pub count: usize,
    /// How many repetitions are allowed.
    pub limit: usize,
    /// The node where the limit was passed.
    pub expr_id: ExprId,
}

/// The largest repetition count of each kind must not pass `limit`.
pub fn check_repetitions(ast: &Ast, limit: usize) -> Result<(), RepetitionExceeded> {
    Counter { limit }.walk(&ast.expr).map(|_| ())
}

/// What a node contributes to a chain its parent may extend: the rule it
/// repeats (if it is a chain link) and the length of the chain ending there.
type Run = Option<(RepeatedRule, usize)>;

struct Counter {
    limit: usize,
}

impl Counter {
    fn exceeded(
        &self,
        rule: RepeatedRule,
        count: usize,
        id: ExprId,
    ) -> Result<(), RepetitionExceeded> {
        if count > self.limit {
            return Err(RepetitionExceeded {
                rule,
                count,
                limit: self.limit,
                expr_id: id,
            });
        }
        Ok(())
    }

    /// Walks `e`, failing at the first excess, and returns its run. The AST
    /// comes from the parser, whose nesting limit bounds this recursion.
    fn walk(&self, e: &Expr) -> Result<Run, RepetitionExceeded> {
        match &e.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => Ok(None),
            ExprKind::Select(s) => {
                let below = self.walk(&s.operand)?;
                self.link(RepeatedRule::Selection, e.id, below)
            }
            ExprKind::List(l) => {
                self.exceeded(RepeatedRule::ListElements, l.elements.len(), e.id)?;
                for x in &l.elements {
                    self.walk(x)?;
                }
                Ok(None)
            }
            ExprKind::Map(entries) => {
                self.exceeded(RepeatedRule::MapEntries, entries.len(), e.id)?;
                for entry in entries {
                    self.walk(&entry.key)?;
                    self.walk(&entry.value)?;
                }
                Ok(None)
            }
            ExprKind::Struct(s) => {
                self.exceeded(RepeatedRule::MessageFields, s.fields.len(), e.id)?;
                for f in &s.fields {
                    self.walk(&f.value)?;
                }
                Ok(None)
            }
            ExprKind::Comprehension(c) => {
                // A receiver-style macro call: one link of its target's chain.
                let below = self.walk(&c.iter_range)?;
                for x in [&c.accu_init, &c.loop_condition, &c.loop_step, &c.result] {
                    self.walk(x)?;
                }
                self.link(RepeatedRule::Selection, e.id, below)
            }
            ExprKind::Call(call) => {
                let mut runs = Vec::with_capacity(call.args.len() + 1);
                if let Some(t) = &call.target {
                    runs.push(self.walk(t)?);
                }
                for a in &call.args {
                    runs.push(self.walk(a)?);
                }
                let generated = call
                    .args
                    .iter()
                    .any(|a| matches!(&a.kind, ExprKind::Ident(n) if n.starts_with('@')));
                if generated {
                    return Ok(None);
                }
                match operator_rule(&call.function) {
                    Some(rule @ (RepeatedRule::LogicalOr | RepeatedRule::LogicalAnd)) => {
                        let count = 1 + runs.iter().map(|r| same(*r, rule)).sum::<usize>();
                        self.exceeded(rule, count, e.id)?;
                        Ok(Some((rule, count)))
                    }
                    Some(rule @ RepeatedRule::Conditional) => {
                        self.link(rule, e.id, runs.get(2).copied().flatten())
                    }
                    Some(rule) => self.link(rule, e.id, runs.first().copied().flatten()),
                    None => {
                        self.exceeded(RepeatedRule::CallArguments, call.args.len(), e.id)?;
                        if call.target.is_some() {
                            self.link(
                                RepeatedRule::Selection,
                                e.id,
                                runs.first().copied().flatten(),
                            )
                        } else {
                            Ok(None)
                        }
                    }
                }
            }
        }
    }

    /// A link of a `rule` chain whose previous link (operand) has run `below`.
    fn link(&self, rule: RepeatedRule, id: ExprId, below: Run) -> Result<Run, RepetitionExceeded> {
        let count = 1 + same(below, rule);
        self.exceeded(rule, count, id)?;
        Ok(Some((rule, count)))
    }
}

/// The length of `run` if it is a chain of `rule`, else 0.
fn same(run: Run, rule: RepeatedRule) -> usize {
    match run {
        Some((r, n)) if r == rule => n,
        _ => 0,
    }
}

/// The chain an operator belongs to; `None` for functions (and for the
/// unary operators, which do not repeat in parsed ASTs).
fn operator_rule(function: &str) -> Option<RepeatedRule> {
    Some(match function {
        "_||_" => RepeatedRule::LogicalOr,
        "_&&_" => RepeatedRule::LogicalAnd,
        "_==_" | "_!=_" | "_<_" | "_<=_" | "_>_" | "_>=_" | "@in" => RepeatedRule::Relation,
        "_+_" | "_-_" => RepeatedRule::Additive,
        "_*_" | "_/_" | "_%_" => RepeatedRule::Multiplicative,
        "_?_:_" => RepeatedRule::Conditional,
        "_?._" => RepeatedRule::Selection,
        "_[_]" | "_[?_]" => RepeatedRule::Indexing,
        _ => return None,
    })
}
