//! Fuzz target: arbitrary UTF-8 text through `Env::parse` (lexer, parser,
//! macro expansion, error reporting) must return, never panic or overflow.
#![no_main]

#[path = "../../tests/common/full_env.rs"]
mod full_env;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    static ENV: OnceLock<cel::Env> = OnceLock::new();
    let env = ENV.get_or_init(|| full_env::builder().build());
    if let Err(issues) = env.parse(text) {
        // Rendering the issues (source line, caret) is part of the surface.
        let _ = issues.to_string();
    }
});
