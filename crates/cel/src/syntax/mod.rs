//! Syntax: lexer, parser, macros, the AST and source positions.
//!
//! [`parse`] turns text into an [`Ast`] whose macros are already expanded.
//! Parsing never panics and never recurses past [`ParserOptions::max_nesting_depth`].

pub mod ast;
mod source;

pub use ast::*;
pub use source::{Location, Source};
pub mod macros;

pub use macros::{Macro, MacroError};

/// Parser settings.
#[derive(Clone, Debug)]
pub struct ParserOptions {
    /// Maximum nesting depth of the expression (cel-go: 250; never below 32).
    pub max_nesting_depth: usize,
    /// Maximum expression length in code points (cel-go: 100,000).
    pub max_expression_length: usize,
    /// Accept `a.?b`, `a[?k]`, `{?k: v}` and `[?e]`.
    pub enable_optional_syntax: bool,
    /// Record the original call of each macro expansion in the source info.
    pub populate_macro_calls: bool,
    /// The macros to expand.
    pub macros: Vec<Macro>,
}

impl Default for ParserOptions {
    fn default() -> Self {
        ParserOptions {
            max_nesting_depth: 250,
            max_expression_length: 100_000,
            enable_optional_syntax: false,
            populate_macro_calls: false,
            macros: Vec::new(),
        }
    }
}

/// Parses `text` into a macro-expanded AST.
pub fn parse(text: &str, options: &ParserOptions) -> Result<Ast, crate::Issues> {
    let _ = options;
    let source = std::sync::Arc::new(Source::new(text));
    let mut issues = crate::Issues::new(source);
    issues.push(Some(0), 0, "parser not implemented yet");
    Err(issues)
}
