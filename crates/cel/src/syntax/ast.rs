//! The abstract syntax tree, shaped like cel-go's (`cel.expr.Expr`).
//!
//! Every node carries an [`ExprId`]. Ids are dense, start at 1 and are assigned in
//! the order the parser creates nodes, so side tables ([`SourceInfo::offsets`], the
//! checker's type map) can be vectors indexed by id. Macros are expanded by the
//! parser into [`ExprKind::Comprehension`] nodes exactly as cel-go expands them:
//! the cost model of the checker and of the interpreter depends on those shapes.

use std::collections::HashMap;
use std::sync::Arc;

/// Identifier of an expression node, unique within one [`Ast`].
pub type ExprId = i64;

/// A name in the tree: an identifier, a field, a function or operator, a
/// comprehension variable, a message type. Names of up to 24 bytes (nearly
/// all) are stored inline, so building, copying and dropping a tree allocates
/// nothing for them.
pub type Name = compact_str::CompactString;

/// A call's arguments: one or two (nearly every call: operators, most
/// functions) are held in the call's own box, not in an allocation of their
/// own.
pub type CallArgs = smallvec::SmallVec<[Expr; 2]>;

/// One expression node.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The node's id, unique within its [`Ast`].
    pub id: ExprId,
    /// What the node is.
    pub kind: ExprKind,
}

/// What an expression node is.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A literal constant.
    Literal(Literal),
    /// A (possibly dotted, after checking) identifier.
    Ident(Name),
    /// `operand.field`, or the presence test `has(operand.field)` when `test_only`.
    Select(Box<Select>),
    /// A global call `f(args)` or a member call `target.f(args)`. Operators are
    /// calls too, named as in cel-go (`_+_`, `_[_]`, `_?_:_`, `!_`, `-_`, ...).
    Call(Box<Call>),
    /// `[e1, e2, ?e3]` (boxed, as the other variants with more than one
    /// field: a node is 40 bytes, which every move of the parser and the
    /// checker copies).
    List(Box<List>),
    /// `{k1: v1, ?k2: v2}`.
    Map(Vec<MapEntry>),
    /// `pkg.Message{field: value, ?other: value}`.
    Struct(Box<Struct>),
    /// The fold every macro expands to.
    Comprehension(Box<Comprehension>),
}

/// A literal constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A signed 64-bit integer (`1`, `-0x10`).
    Int(i64),
    /// An unsigned 64-bit integer (`1u`).
    Uint(u64),
    /// A double (`1.5`, `1e3`).
    Double(f64),
    /// A string, unescaped.
    String(Arc<str>),
    /// A bytes literal, unescaped.
    Bytes(Arc<[u8]>),
}

/// `operand.field` or `has(operand.field)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Select {
    /// The expression selected from.
    pub operand: Expr,
    /// The field name.
    pub field: Name,
    /// True for the presence test produced by the `has()` macro.
    pub test_only: bool,
    /// True for the optional select `operand.?field` (parsed as a call to
    /// `_?._` in cel-go; kept as a call there, this flag is never set by the
    /// parser and exists for callers that build ASTs by hand).
    pub optional: bool,
}

/// A function or operator application.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The receiver of a member call, `None` for a global call.
    pub target: Option<Expr>,
    /// The function or operator name (`size`, `_+_`, `strings.quote`).
    pub function: Name,
    /// The parenthesised arguments, the receiver excluded.
    pub args: CallArgs,
}

/// A list literal.
#[derive(Clone, Debug, PartialEq)]
pub struct List {
    /// The elements, in order.
    pub elements: Vec<Expr>,
    /// Indices into `elements` of the optional entries (`[?e]`).
    pub optional_indices: Vec<usize>,
}

/// One entry of a map literal.
#[derive(Clone, Debug, PartialEq)]
pub struct MapEntry {
    /// The entry's own id (positions of `:`).
    pub id: ExprId,
    /// The key expression.
    pub key: Expr,
    /// The value expression.
    pub value: Expr,
    /// `{?k: v}`: the entry is present only when `v` is a present optional.
    pub optional: bool,
}

/// A message construction `Type{field: value}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Struct {
    /// The message type's name, as written (fully qualified after checking).
    pub type_name: Name,
    /// The field initializers, in order.
    pub fields: Vec<StructField>,
}

/// One field initializer of a message construction.
#[derive(Clone, Debug, PartialEq)]
pub struct StructField {
    /// The initializer's own id.
    pub id: ExprId,
    /// The field name.
    pub name: Name,
    /// The value assigned.
    pub value: Expr,
    /// `?field: v`: the field is set only when `v` is a present optional.
    pub optional: bool,
}

/// A fold over a list or map, as in cel-go:
///
/// ```text
/// accu = accu_init
/// for (iter_var[, iter_var2]) in iter_range:
///     if !loop_condition: break
///     accu = loop_step
/// return result
/// ```
///
/// With two variables over a list, `iter_var` is the index and `iter_var2` the
/// element; over a map, the key and the value.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    /// The (first) iteration variable.
    pub iter_var: Name,
    /// The second iteration variable of two-variable comprehensions.
    pub iter_var2: Option<Name>,
    /// The list or map iterated over.
    pub iter_range: Expr,
    /// The accumulator variable.
    pub accu_var: Name,
    /// The accumulator's initial value.
    pub accu_init: Expr,
    /// Evaluated before each iteration; `false` stops the loop.
    pub loop_condition: Expr,
    /// The accumulator's next value, evaluated in each iteration.
    pub loop_step: Expr,
    /// The comprehension's value, evaluated after the loop.
    pub result: Expr,
}

/// Positions and macro records of a parsed expression.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceInfo {
    /// Offset in code points from the start of the source, indexed by id.
    /// `-1` where a node has no position (never for parsed nodes).
    pub offsets: Vec<i32>,
    /// The original call of every macro expansion, keyed by the id of the
    /// expansion's root. Filled only when the parser option asks for it.
    pub macro_calls: HashMap<ExprId, Expr>,
}

impl SourceInfo {
    /// The offset (in code points) of node `id`, if it has one.
    pub fn offset(&self, id: ExprId) -> Option<usize> {
        let i = usize::try_from(id).ok()?;
        match self.offsets.get(i) {
            Some(&o) if o >= 0 => Some(o as usize),
            _ => None,
        }
    }

    /// Records the offset of node `id`, growing the table as needed.
    pub fn set_offset(&mut self, id: ExprId, offset: i32) {
        let Ok(i) = usize::try_from(id) else { return };
        if self.offsets.len() <= i {
            self.offsets.resize(i + 1, -1);
        }
        self.offsets[i] = offset;
    }
}

/// A parsed (and macro-expanded) expression with its source.
#[derive(Clone, Debug)]
pub struct Ast {
    /// The root of the tree.
    pub expr: Expr,
    /// Node positions and macro records.
    pub source_info: SourceInfo,
    /// The text parsed.
    pub source: Arc<super::Source>,
    /// One more than the largest id in the tree: the next free id.
    pub next_id: ExprId,
}

impl Expr {
    /// A node with `id` and `kind`.
    pub fn new(id: ExprId, kind: ExprKind) -> Self {
        Expr { id, kind }
    }

    /// The name of an identifier node.
    pub fn as_ident(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Ident(n) => Some(n),
            _ => None,
        }
    }

    /// The call of a call node.
    pub fn as_call(&self) -> Option<&Call> {
        match &self.kind {
            ExprKind::Call(c) => Some(c),
            _ => None,
        }
    }

    /// The literal of a literal node.
    pub fn as_literal(&self) -> Option<&Literal> {
        match &self.kind {
            ExprKind::Literal(l) => Some(l),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_stay_small() {
        // Every variant with more than one field is boxed: parsing and
        // checking move nodes by value.
        assert_eq!(std::mem::size_of::<Expr>(), 40);
    }
}
