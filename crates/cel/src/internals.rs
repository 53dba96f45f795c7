//! The engine's internals, re-exported for kcel-cel's own integration tests,
//! benches, examples and fuzz targets (feature `internals`, enabled only by the
//! crate's dev-dependency on itself). Not part of the public API: no
//! stability, no documentation promise.

#![allow(missing_docs)]

/// The parser and the debug printer of cel-go's parser and checker tests.
pub mod syntax {
    /// cel-go's debug format of an expression tree.
    pub mod debug {
        pub use crate::syntax::debug::*;
    }

    use std::sync::Arc;

    use crate::Issues;
    use crate::syntax::{Ast, ParserOptions, Source};

    /// Parses `text` with `options` (cel-go's `parser.Parse`).
    pub fn parse(text: &str, options: &ParserOptions) -> Result<Ast, Issues> {
        crate::syntax::parse(text, options, None)
    }

    /// Parses the text of `source` with `options`.
    pub fn parse_source(source: Arc<Source>, options: &ParserOptions) -> Result<Ast, Issues> {
        crate::syntax::parse_source(source, options)
    }
}

/// The checker's name resolution and type formatting.
pub mod checker {
    /// Types printed as cel-go prints them.
    pub mod format {
        pub use crate::checker::format::*;
    }
    /// Name resolution, built-in and well-known type names.
    pub mod names {
        pub use crate::checker::names::*;
    }
}

/// The estimators cel-go attaches to ext.Lists and ext.Sets overloads.
pub mod cost {
    pub use crate::cost::library::{install_lists_estimators, install_sets_estimators};
}
