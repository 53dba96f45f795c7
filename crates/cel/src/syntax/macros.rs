//! Macros: calls the parser expands into other expressions (mostly
//! comprehensions), exactly as cel-go expands them.

use super::ast::Expr;

/// What an expander gets to build new nodes with: fresh ids carrying the
/// position of the macro call, and error reporting.
pub struct MacroContext<'a> {
    /// Filled in by the parser; see `parser.rs`.
    pub(crate) inner: &'a mut dyn MacroHost,
}

/// The parser side of [`MacroContext`].
pub(crate) trait MacroHost {
    /// A fresh id positioned at the macro call.
    fn next_id(&mut self) -> super::ExprId;
}

impl MacroContext<'_> {
    /// A fresh node id, positioned at the macro call.
    pub fn next_id(&mut self) -> super::ExprId {
        self.inner.next_id()
    }
}

/// A macro expander: gets the receiver (for receiver-style macros) and the
/// arguments; returns the expansion, `Ok(None)` to leave the call as it is, or
/// an error message reported at the offending argument.
pub type Expander =
    fn(&mut MacroContext<'_>, Option<Expr>, Vec<Expr>) -> Result<Option<Expr>, MacroError>;

/// A macro expansion error, reported as a syntax error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroError {
    pub message: String,
    /// The id of the node the error points at.
    pub expr_id: super::ExprId,
}

/// A macro: a function name, its call style and arity, and its expander.
#[derive(Clone, Debug)]
pub struct Macro {
    pub name: String,
    /// `target.name(args)` when true, `name(args)` otherwise.
    pub receiver_style: bool,
    /// Exact argument count, or `None` for any count.
    pub arg_count: Option<usize>,
    pub expander: Expander,
}
