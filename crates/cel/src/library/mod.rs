//! Function libraries: the standard library and the extensions, each a
//! [`crate::Library`] that an environment opts into.

pub(crate) mod adapt;
pub mod ext;
pub(crate) mod std;

pub use self::std::{Block, GoDurationMilliseconds, Std};

use crate::env::EnvBuilder;
use crate::types::Type;

/// How many `cel.block` index variables (`@index0` …) [`full`] declares, as
/// cel-go's conformance harness declares them.
const BLOCK_INDICES: usize = 30;

/// Every library this crate ships, each at its newest version: the standard
/// library, strings, math, encoders, lists (with `sortBy`), sets, optionals
/// (with the optional syntax), network, `cel.block` (with `@index0` …
/// `@index29` declared `dyn`), bindings, two-variable comprehensions and the
/// `proto.getExt`/`proto.hasExt` macros; plus
/// escaped identifiers (`` a.`b-c` ``) and cross-type numeric comparisons.
/// This is the environment of cel-go's conformance harness and of `kcel eval`;
/// callers add their declarations.
pub fn full() -> EnvBuilder {
    use ext::{
        Bindings, Encoders, Lists, Math, Network, Optionals, Protos, Sets, Strings,
        TwoVarComprehensions,
    };
    let mut b = EnvBuilder::new()
        .library(Std)
        .library(Strings::default())
        .library(Math::default())
        .library(Encoders)
        .library(Lists::default())
        .library(Sets)
        .library(Optionals::default())
        .library(Network)
        .library(std::Block)
        .library(Bindings)
        .library(Protos)
        .library(TwoVarComprehensions);
    for i in 0..BLOCK_INDICES {
        b.add_variable(&std::block::index_ident(i), Type::Dyn);
    }
    let options = b.options_mut();
    options.parser.enable_optional_syntax = true;
    options.parser.enable_ident_escape_syntax = true;
    options.cross_type_numeric_comparisons = true;
    b
}
