//! Syntax: the AST, its read-only navigation ([`Expr::children`],
//! [`Expr::preorder`]), macros and source positions; the lexer and parser
//! behind [`crate::Env::parse`].
//!
//! The parser turns text into an [`Ast`] whose macros are already expanded,
//! as cel-go's parser does (same shapes, same id order, same error texts).
//! Parsing never panics and never recurses past [`ParserOptions::max_nesting_depth`]
//! (itself capped at [`MAX_NESTING_DEPTH_CAP`]).
//!
//! Depth guarantee for later passes: a successfully parsed AST has at most
//! `max_nesting_depth` nested selections, indexes, member calls, binary
//! operators and conditionals on any path, and at most `max_nesting_depth`
//! nested parentheses, lists, maps, messages or call argument lists; `&&`/`||`
//! chains are balanced. Recursive passes over such an AST stay within a few
//! thousand frames.

mod ast;
#[cfg(any(test, feature = "internals"))]
pub(crate) mod debug;
#[cfg(test)]
mod fast_path_tests;
mod lexer;
pub mod macros;
mod parser;
mod reserved;
mod source;
mod unescape;
mod visit;

use std::sync::Arc;

pub use ast::{
    Ast, Call, CallArgs, Comprehension, Expr, ExprId, ExprKind, List, Literal, MapEntry, Name,
    Select, SourceInfo, Struct, StructField,
};
pub use macros::{Macro, MacroError};
pub use parser::{MAX_NESTING_DEPTH_CAP, MIN_NESTING_DEPTH};
pub(crate) use parser::{MacroNames, lone_literal};
pub use reserved::{RESERVED_WORDS, is_reserved_word};
pub use source::{Location, Source};
pub use visit::{Children, PreOrder};

/// Parser settings.
#[derive(Clone, Debug)]
pub struct ParserOptions {
    /// Maximum nesting depth of the expression (cel-go: 250). Values are
    /// clamped to [`MIN_NESTING_DEPTH`]..=[`MAX_NESTING_DEPTH_CAP`].
    pub max_nesting_depth: usize,
    /// Maximum expression length in code points (cel-go: 100,000).
    pub max_expression_length: usize,
    /// Accept `a.?b`, `a[?k]`, `{?k: v}`, `[?e]` and `Msg{?f: v}`.
    pub enable_optional_syntax: bool,
    /// Accept backquoted field names (`a.\`b-c\``, `Msg{\`b-c\`: 1}`)
    /// (cel-go's `EnableIdentEscapeSyntax`, off by default).
    pub enable_ident_escape_syntax: bool,
    /// Record the original call of each macro expansion in the source info.
    pub populate_macro_calls: bool,
    /// Error recoveries before the parser gives up (cel-go: 30).
    pub error_recovery_limit: usize,
    /// Syntax errors reported before the parser gives up (cel-go: 100).
    pub error_reporting_limit: usize,
    /// The macros to expand.
    pub macros: Vec<Macro>,
    /// The cel-go release whose error texts are reproduced (an environment
    /// sets it from [`crate::EnvOptions::cel_go`] when it is built).
    pub cel_go: crate::CelGoVersion,
}

impl Default for ParserOptions {
    fn default() -> Self {
        ParserOptions {
            max_nesting_depth: 250,
            max_expression_length: 100_000,
            enable_optional_syntax: false,
            enable_ident_escape_syntax: false,
            populate_macro_calls: false,
            error_recovery_limit: 30,
            error_reporting_limit: 100,
            macros: Vec::new(),
            cel_go: crate::CelGoVersion::default(),
        }
    }
}

/// Parses `text` (described as `<input>` in messages) into a macro-expanded
/// AST; `macro_names` is the filter of `options.macros` when the caller keeps
/// one.
pub(crate) fn parse(
    text: &str,
    options: &ParserOptions,
    macro_names: Option<MacroNames>,
) -> Result<Ast, crate::Issues> {
    if text.len() > options.max_expression_length.saturating_mul(4) {
        // Certainly over the code-point limit: do not copy the text around.
        let size = text.chars().count();
        let mut issues = crate::Issues::new(Arc::new(Source::new(String::new())));
        issues.push(
            None,
            0,
            format!(
                "expression code point size exceeds limit: size: {size}, limit {}",
                options.max_expression_length
            ),
        );
        return Err(issues);
    }
    parser::parse_source(Arc::new(Source::of(text)), options, macro_names)
}

/// Parses the text of `source` into a macro-expanded AST.
#[cfg(feature = "internals")]
pub(crate) fn parse_source(
    source: Arc<Source>,
    options: &ParserOptions,
) -> Result<Ast, crate::Issues> {
    parser::parse_source(source, options, None)
}
