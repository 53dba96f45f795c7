//! The environment the CLI compiles in: [`cel::library::full`], the
//! conformance suite's environment.

use cel::EnvBuilder;

/// A builder with the full library set; callers add declarations.
pub fn full() -> EnvBuilder {
    cel::library::full()
}
