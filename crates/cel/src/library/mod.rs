//! Function libraries: the standard library and the extensions, each a
//! [`crate::Library`] that an environment opts into.

pub mod ext;
pub mod std;

pub use self::std::Std;
