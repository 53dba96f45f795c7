//! The environment the conformance suite runs in: [`cel::library::full`],
//! configured as cel-go's conformance harness configures its environment
//! (`cel-go/conformance/conformance_test.go`).

use cel::EnvBuilder;

/// A builder holding the full library set; callers add declarations and options.
pub fn builder() -> EnvBuilder {
    cel::library::full()
}
