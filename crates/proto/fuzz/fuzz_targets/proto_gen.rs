//! Fuzz target: arbitrary bytes as a `.proto` file through what `kcel gen` runs
//! (`tests/common/fuzz_harness.rs`).
#![no_main]

#[path = "../../tests/common/fuzz_harness.rs"]
mod fuzz_harness;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    static WORKSPACE: OnceLock<fuzz_harness::Workspace> = OnceLock::new();
    WORKSPACE
        .get_or_init(|| fuzz_harness::Workspace::new("target"))
        .run(bytes);
});
