//! Fuzz target: arbitrary bytes as a YAML or JSON stream, every document validated against real
//! CRDs (`tests/common/fuzz_harness.rs`).
#![no_main]

#[path = "../../tests/common/fuzz_harness.rs"]
mod fuzz_harness;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    static VALIDATOR: OnceLock<kcel_kube::Validator> = OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| {
        fuzz_harness::validator(&fuzz_harness::crd_files(
            fuzz_harness::shared_dir().as_deref(),
        ))
    });
    fuzz_harness::documents(validator, bytes);
});
