//! The environment the CLI compiles in: the standard library and every
//! extension (strings, math, encoders, lists, sets, optionals with optional
//! syntax, network, bindings, two-variable comprehensions, block), escaped
//! identifiers and cross-type numeric comparisons: the conformance suite's
//! environment.

use cel::library::Std;
use cel::library::ext::{
    Bindings, Encoders, Lists, Math, Network, Optionals, Sets, Strings, TwoVarComprehensions,
};
use cel::library::std::Block;
use cel::syntax::macros;
use cel::{EnvBuilder, Type};

/// How many `cel.block` index variables (`@index0` …) are declared, as in
/// cel-go's conformance environment.
const BLOCK_INDICES: usize = 30;

/// A builder with the full library set; callers add declarations.
pub fn full() -> EnvBuilder {
    let mut b = EnvBuilder::new()
        .library(Std)
        .library(Strings::default())
        .library(Math::default())
        .library(Encoders)
        .library(Lists::default())
        .library(Sets)
        .library(Optionals::default())
        .library(Network)
        .library(Block)
        .library(Bindings)
        .library(TwoVarComprehensions);
    for i in 0..BLOCK_INDICES {
        b.add_variable(&format!("@index{i}"), Type::Dyn);
    }
    // ext.Lists' `sortBy` macro (the Lists library adds its functions only).
    for m in macros::lists() {
        b.add_macro(m);
    }
    let options = b.options_mut();
    options.parser.enable_optional_syntax = true;
    options.parser.enable_ident_escape_syntax = true;
    options.cross_type_numeric_comparisons = true;
    b
}
