//! Replays the inputs of `fuzz/regressions/` and checks that hostile inputs —
//! 100,000 nested parentheses, a 10 MB expression — are refused with errors
//! rather than crashes.
//!
//! `fuzz/regressions/` holds:
//! - at its top level, inputs that once crashed, hung or ran out of memory in
//!   a fuzz target, one file each (`<target>-<what>-<detail>`), replayed
//!   through the `eval` target's pipeline (parse, check, cost estimate, plan,
//!   evaluate with limits), which includes everything the `parse` target does;
//! - `corpus-parse/`: the minimised corpus the `parse` target grew, replayed
//!   as that target runs them (parse, debug print, render the issues);
//! - `corpus-eval/`: the minimised corpus the `eval` target grew, replayed
//!   through the `eval` pipeline;
//! - `corpus-diff/`: what the `diff` target's minimised corpus adds to
//!   `corpus-eval`, replayed the same way; both also run through the
//!   differential check (`common/diff_env.rs`).
//!
//! An input fails when it panics or runs past five times the harness
//! deadline. Every input runs on one worker thread with an 8 MiB stack (a main
//! thread's usual size, which is what libFuzzer runs the targets on), so a
//! recursion without a depth limit aborts the test. The fuzz targets take
//! UTF-8 text only, so a file that is not UTF-8 is a failure (it would never
//! have been run). The runner prints one closing line `N passed, N failed,
//! N skipped`; nothing is skipped.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::diff_env::DiffHarness;
use common::fuzz_env::{DEADLINE, Harness, Outcome};
use common::replay::{Limits, files_in, on_thread, replay_all};

/// Stack of the thread the inputs run on.
const STACK: usize = 8 << 20;

/// How inputs run: on an 8 MiB stack, each within five times the harness deadline (its
/// evaluation alone has [`DEADLINE`]).
const LIMITS: Limits = Limits {
    stack: STACK,
    input: Duration::from_secs(DEADLINE.as_secs() * 5),
};

fn harness() -> Harness {
    Harness::new(common::full_env::builder())
}

/// How an input is replayed: as the fuzz target that found it runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// `fuzz_targets/parse.rs`: parse, debug-print the AST or render the issues.
    Parse,
    /// `fuzz_targets/eval.rs`: [`Harness::run`].
    Eval,
}

/// The regression directory.
fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions")
}

/// Every input with the target that replays it.
fn inputs() -> Vec<(PathBuf, Target)> {
    let dir = regressions_dir();
    let mut inputs: Vec<_> = files_in(&dir)
        .into_iter()
        .map(|p| (p, Target::Eval))
        .collect();
    inputs.extend(
        files_in(&dir.join("corpus-parse"))
            .into_iter()
            .map(|p| (p, Target::Parse)),
    );
    for corpus in ["corpus-eval", "corpus-diff"] {
        inputs.extend(
            files_in(&dir.join(corpus))
                .into_iter()
                .map(|p| (p, Target::Eval)),
        );
    }
    inputs
}

/// Runs one input as `target` does; `Err` says why it failed.
fn replay(harness: &Harness, bytes: &[u8], target: Target) -> Result<(), String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| "not UTF-8: the fuzz targets never run such inputs".to_string())?;
    match target {
        Target::Parse => match harness.env().parse(text) {
            Ok(ast) => {
                let _ = cel::internals::syntax::debug::to_debug_string(&ast.expr);
            }
            Err(issues) => {
                let _ = issues.to_string();
            }
        },
        Target::Eval => {
            let _ = harness.run(text);
        }
    }
    Ok(())
}

#[test]
fn regressions_replay_without_panic() {
    let ran = replay_all(LIMITS, inputs(), harness, replay);
    let corpus = |name: &str| {
        let dir = regressions_dir().join(name);
        ran.iter().filter(|p| p.starts_with(&dir)).count()
    };
    assert!(
        corpus("corpus-parse") > 0 && corpus("corpus-eval") > 0,
        "the fuzz corpora under {} are missing",
        regressions_dir().display()
    );
}

/// Every input of the eval and diff corpora evaluates to the same value, error and cost
/// through the specialised and the general paths of the interpreter, and
/// untracked as tracked (see `common/diff_env.rs`; the `diff` fuzz target
/// drives the same check).
#[test]
fn specialised_paths_agree_with_general_paths_on_the_corpus() {
    let dir = regressions_dir();
    let files: Vec<PathBuf> = ["corpus-eval", "corpus-diff"]
        .iter()
        .flat_map(|c| files_in(&dir.join(c)))
        .collect();
    let total = files.len();
    let failures: Vec<String> = on_thread(STACK, move || {
        let diff = DiffHarness::new(common::full_env::builder);
        files
            .iter()
            .filter_map(|path| {
                let text = String::from_utf8(std::fs::read(path).ok()?).ok()?;
                diff.run(&text).err()
            })
            .collect()
    })
    .unwrap_or_else(|panic| panic!("the differential thread panicked: {panic}"));
    for failure in &failures {
        println!("FAIL {failure}");
    }
    println!(
        "{} passed, {} failed, 0 skipped",
        total - failures.len(),
        failures.len()
    );
    assert!(total > 0, "no corpus under {}", dir.display());
    assert!(failures.is_empty(), "{} differences", failures.len());
}

/// Parse must refuse the input; the harness reports whatever happened.
fn expect_parse_error(text: String, what: &str) {
    let started = Instant::now();
    let outcome = on_thread(STACK, move || harness().run(&text))
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
