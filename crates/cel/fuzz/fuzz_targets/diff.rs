//! Fuzz target: differential evaluation. Arbitrary UTF-8 text is compiled and
//! evaluated in two environments that differ only in a cost hook declining
//! every call, which switches the interpreter from its specialised paths to
//! its general ones; value, error and cost must agree, and an evaluation
//! within the cost limit must give the same value untracked.
#![no_main]

#[path = "../../tests/common/full_env.rs"]
mod full_env;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_env.rs"]
mod fuzz_env;
#[path = "../../tests/common/diff_env.rs"]
mod diff_env;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    static HARNESS: OnceLock<diff_env::DiffHarness> = OnceLock::new();
    let harness = HARNESS.get_or_init(|| diff_env::DiffHarness::new(full_env::builder));
    if let Err(difference) = harness.run(text) {
        panic!("{difference}");
    }
});
