//! Ports of Go standard-library behaviour.

pub mod regexp;
