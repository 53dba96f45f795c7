//! Fuzz target: arbitrary UTF-8 text through `Env::parse` (lexer, parser,
//! macro expansion, error reporting, the debug printer of the expanded AST)
//! must return, never panic or overflow.
#![no_main]

#[path = "../../tests/common/full_env.rs"]
mod full_env;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    static ENV: OnceLock<cel::Env> = OnceLock::new();
    let env = ENV.get_or_init(|| full_env::builder().build());
    match env.parse(text) {
        Ok(ast) => {
            let _ = cel::internals::syntax::debug::to_debug_string(&ast.expr);
        }
        // Rendering the issues (source line, caret) is part of the surface.
        Err(issues) => {
            let _ = issues.to_string();
        }
    }
});
