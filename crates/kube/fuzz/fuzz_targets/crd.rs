//! Fuzz target: arbitrary bytes as a YAML or JSON stream, every CustomResourceDefinition among
//! the documents reviewed (`tests/common/fuzz_harness.rs`).
#![no_main]

#[path = "../../tests/common/fuzz_harness.rs"]
mod fuzz_harness;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    fuzz_harness::crds(bytes);
});
