//! Helpers shared by the data-driven tests and the benchmarks of the `cel` crate.
//!
//! Each test target (and `benches/protocol.rs`) includes this module with
//! `mod common;` (or `#[path]`) and uses the parts it needs, hence the
//! `dead_code` allowance.
#![allow(dead_code)]

pub mod diff_env;
pub mod full_env;
pub mod fuzz_env;
pub mod proto_json;
#[cfg(feature = "proto")]
pub mod proto_types;
pub mod replay;
pub mod shared;
pub mod structural;
