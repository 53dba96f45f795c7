//! Fuzz target: arbitrary UTF-8 text parsed, checked when it checks (planned
//! unchecked otherwise), and evaluated with a cost limit and a deadline,
//! against a few variables of varied types (with the `proto` feature, the
//! default, also a message `msg`). Nothing may panic, overflow the
//! stack, allocate without bound or run past the deadline.
#![no_main]

// Shared with tests/fuzz_regressions.rs, which uses all of it.
#[path = "../../tests/common/full_env.rs"]
mod full_env;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_env.rs"]
mod fuzz_env;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    static HARNESS: OnceLock<fuzz_env::Harness> = OnceLock::new();
    let harness = HARNESS.get_or_init(|| fuzz_env::Harness::new(full_env::builder()));
    let _ = harness.run(text);
});
