//! The environment the conformance suite runs in: the standard library and
//! every extension, configured as cel-go's conformance harness configures its
//! environment (`cel-go/conformance/conformance_test.go`): optional types and
//! syntax, bindings, encoders, lists, math, strings, sets, network,
//! two-variable comprehensions and `cel.block`.

use cel::EnvBuilder;

/// A builder holding the full library set; callers add declarations and options.
pub fn builder() -> EnvBuilder {
    let mut b = EnvBuilder::new();
    let options = b.options_mut();
    options.parser.enable_optional_syntax = true;
    options.cross_type_numeric_comparisons = true;
    b
}
