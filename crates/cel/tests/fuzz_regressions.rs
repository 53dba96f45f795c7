//! Replays every input of `fuzz/regressions/` (inputs that once crashed, hung
//! or were otherwise interesting to the fuzz targets) through the `eval` fuzz
//! target's pipeline (parse, check, plan, evaluate with limits), and checks
//! that hostile inputs — 100,000 nested parentheses, a 10 MB expression — are
//! refused with errors rather than crashes.
//!
//! Each input runs on a thread with an 8 MiB stack (a main thread's usual
//! size), so a recursion without a depth limit shows as a failure here.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::fuzz_env::{Harness, Outcome};

/// Stack of the thread each input runs on.
const STACK: usize = 8 << 20;

/// Runs `f` on a fresh thread with [`STACK`]; `Err` describes a panic.
fn on_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let handle = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(f)
        .map_err(|e| format!("cannot spawn a thread: {e}"))?;
    handle.join().map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with a non-string payload".into())
    })
}

fn harness() -> Harness {
    Harness::new(common::full_env::builder())
}

#[test]
fn regressions_replay_without_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.file_name().is_none_or(|n| n != "README.md"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // The fuzz targets take UTF-8 only (libFuzzer inputs that are not are skipped).
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let started = Instant::now();
        match on_thread(move || harness().run(&text)) {
            Ok(_) if started.elapsed() > common::fuzz_env::DEADLINE * 5 => failures.push(format!(
                "{}: took {:?} (limit {:?})",
                path.display(),
                started.elapsed(),
                common::fuzz_env::DEADLINE * 5
            )),
            Ok(_) => {}
            Err(panic) => failures.push(format!("{}: panicked: {panic}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    println!("{} regression inputs replayed", files.len());
}

/// Parse must refuse the input; the harness reports whatever happened.
fn expect_parse_error(text: String, what: &str) {
    let started = Instant::now();
    let outcome = on_thread(move || harness().run(&text))
        .unwrap_or_else(|panic| panic!("{what}: panicked: {panic}"));
    assert!(
        matches!(outcome, Outcome::ParseError),
        "{what}: got {outcome:?}, want a parse error"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{what}: took {:?}",
        started.elapsed()
    );
}

#[test]
fn deeply_nested_parentheses_are_an_error() {
    let depth = 100_000;
    let text = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
    expect_parse_error(text, "100,000 nested parentheses");
}

#[test]
fn deeply_nested_lists_and_calls_are_errors() {
    let depth = 100_000;
    expect_parse_error(
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth)),
        "nested lists",
    );
    expect_parse_error(
        format!("{}1{}", "f(".repeat(depth), ")".repeat(depth)),
        "nested calls",
    );
    expect_parse_error(format!("{}1", "-".repeat(depth)), "nested negations");
    expect_parse_error(format!("1{}", ".a".repeat(depth)), "a long select chain");
}

#[test]
fn ten_megabyte_expression_is_an_error() {
    // A valid-looking expression: `1 + 1 + ... + 1`, 10 MB long.
    let terms = 10 * 1024 * 1024 / 4;
    let text = format!("1{}", " + 1".repeat(terms));
    assert!(text.len() >= 10 * 1024 * 1024);
    expect_parse_error(text, "a 10 MB expression");
}
