//! Ports of Go standard-library behaviour.

pub mod fmt;
pub mod netip;
pub mod regexp;
