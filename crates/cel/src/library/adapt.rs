//! An environment made to behave as an older cel-go release ([`CelGoVersion`]):
//! the libraries' older declarations and implementations swapped in once, when
//! the environment is built.

use crate::cel_go::CelGoVersion;
use crate::env::EnvBuilder;

/// Makes the environment being built behave as `b`'s chosen release: called
/// once by `EnvBuilder::build`; a no-op for the newest release.
pub(crate) fn adapt(b: &mut EnvBuilder) {
    let v = b.options.cel_go;
    b.options.parser.cel_go = v;
    if v >= CelGoVersion::V0_29 {
        return;
    }
    crate::library::std::convert::adapt(b, v);
    crate::library::ext::strings::adapt(b, v);
    crate::library::ext::lists::adapt(b, v);
    crate::library::std::adapt_accessors(b, v);
}
