//! The environment the conformance suite runs in: the standard library and
//! every extension, configured as cel-go's conformance harness configures its
//! environment (`cel-go/conformance/conformance_test.go`): optional types and
//! syntax, bindings, encoders, lists, math, strings, sets, network,
//! two-variable comprehensions, `cel.block` with the variables `@index0` …
//! `@index29` declared `dyn` (as cel-go's harness declares them), escaped
//! identifiers (`` a.`b-c` ``) and cross-type numeric comparisons.

use cel::library::Std;
use cel::library::ext::{
    Bindings, Encoders, Lists, Math, Network, Optionals, Sets, Strings, TwoVarComprehensions,
};
use cel::library::std::Block;
use cel::syntax::macros;
use cel::{EnvBuilder, Type};

/// How many `@index<i>` variables cel-go's conformance harness declares.
const BLOCK_INDICES: usize = 30;

/// A builder holding the full library set; callers add declarations and options.
pub fn builder() -> EnvBuilder {
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
