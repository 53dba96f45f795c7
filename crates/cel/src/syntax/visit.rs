//! Read-only navigation of an expression tree, as cel-go's `ast.NavigableExpr`
//! (`common/ast/navigable.go`: `Children`) and `ast.PreOrderVisit`
//! (`common/ast/navigable.go`, `visit`).
//!
//! Neither walk recurses: [`PreOrder`] keeps its own stack, so a host can walk
//! any tree the parser accepted without regard to its depth.

use super::ast::{Expr, ExprKind};

/// The direct sub-expressions of one node, in cel-go's order: a selection's
/// operand; a call's receiver, then its arguments; a list's elements; each map
/// entry's key, then its value; each message field's value; a comprehension's
/// range, accumulator initializer, loop condition, loop step and result.
#[derive(Clone, Debug)]
pub struct Children<'a> {
    expr: &'a Expr,
    index: usize,
}

impl<'a> Iterator for Children<'a> {
    type Item = &'a Expr;

    fn next(&mut self) -> Option<&'a Expr> {
        let i = self.index;
        self.index += 1;
        match &self.expr.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => None,
            ExprKind::Select(s) => (i == 0).then_some(&s.operand),
            ExprKind::Call(c) => match &c.target {
                Some(target) if i == 0 => Some(target),
                Some(_) => c.args.get(i - 1),
                None => c.args.get(i),
            },
            ExprKind::List(l) => l.elements.get(i),
            ExprKind::Map(entries) => entries.get(i / 2).map(|m| {
                if i.is_multiple_of(2) {
                    &m.key
                } else {
                    &m.value
                }
            }),
            ExprKind::Struct(s) => s.fields.get(i).map(|f| &f.value),
            ExprKind::Comprehension(c) => match i {
                0 => Some(&c.iter_range),
                1 => Some(&c.accu_init),
                2 => Some(&c.loop_condition),
                3 => Some(&c.loop_step),
                4 => Some(&c.result),
                _ => None,
            },
        }
    }
}

/// Every node of a tree, each before its sub-expressions, sub-expressions left
/// to right in [`Children`]'s order (cel-go's `PreOrderVisit`).
#[derive(Clone, Debug)]
pub struct PreOrder<'a> {
    stack: Vec<&'a Expr>,
}

impl<'a> Iterator for PreOrder<'a> {
    type Item = &'a Expr;

    fn next(&mut self) -> Option<&'a Expr> {
        let e = self.stack.pop()?;
        let first = self.stack.len();
        self.stack.extend(e.children());
        self.stack[first..].reverse();
        Some(e)
    }
}

impl Expr {
    /// The direct sub-expressions of this node (see [`Children`]).
    pub fn children(&self) -> Children<'_> {
        Children {
            expr: self,
            index: 0,
        }
    }

    /// This node and all its descendants in pre-order (see [`PreOrder`]).
    pub fn preorder(&self) -> PreOrder<'_> {
        PreOrder { stack: vec![self] }
    }
}

#[cfg(test)]
mod tests {
    use crate::syntax::{ParserOptions, parse};

    fn preorder_ids(text: &str) -> Vec<String> {
        let options = ParserOptions {
            macros: crate::syntax::macros::standard(),
            ..ParserOptions::default()
        };
        let ast = parse(text, &options, None).expect("parses");
        ast.expr
            .preorder()
            .map(|e| match &e.kind {
                crate::syntax::ExprKind::Ident(n) => n.to_string(),
                crate::syntax::ExprKind::Literal(l) => format!("{l:?}"),
                crate::syntax::ExprKind::Call(c) => c.function.to_string(),
                crate::syntax::ExprKind::Select(s) => format!(".{}", s.field),
                crate::syntax::ExprKind::List(_) => "[]".to_string(),
                crate::syntax::ExprKind::Map(_) => "{}".to_string(),
                crate::syntax::ExprKind::Struct(s) => s.type_name.to_string(),
                crate::syntax::ExprKind::Comprehension(_) => "fold".to_string(),
            })
            .collect()
    }

    #[test]
    fn preorder_visits_receivers_before_arguments_left_to_right() {
        assert_eq!(
            preorder_ids("a.f(b, [c, {d: e}]).g"),
            [".g", "f", "a", "b", "[]", "c", "{}", "d", "e"]
        );
    }

    #[test]
    fn preorder_enters_comprehensions_in_cel_go_order() {
        // exists: range, init (false), condition (!accu), step (accu || p), result (accu).
        let ids = preorder_ids("l.exists(x, x)");
        assert_eq!(ids[0], "fold");
        assert_eq!(ids[1], "l");
        assert_eq!(ids[2], "Bool(false)");
        assert_eq!(ids.len(), 10);
    }
}
