//! The environment the CLI compiles in: the standard library and every
//! extension (strings, math, encoders, lists, sets, optionals with optional
//! syntax, network, bindings and two-variable comprehensions, block).

use cel::EnvBuilder;

/// A builder with the full library set; callers add declarations.
pub fn full() -> EnvBuilder {
    let mut b = EnvBuilder::new();
    let options = b.options_mut();
    options.parser.enable_optional_syntax = true;
    options.cross_type_numeric_comparisons = true;
    b
}
