//! Replaying fuzz inputs as a test, one runner for the workspace: the engine's
//! `tests/fuzz_regressions.rs` uses it as `common::replay`, and `kcel-kube`'s and `kcel-proto`'s
//! include this file by path. Every input runs on one worker thread with the caller's stack
//! ([`Limits::stack`]: a recursion without a depth limit aborts the test), fails when it panics
//! or takes longer than [`Limits::input`] (the fuzz runs' `-timeout`), and the run prints
//! `N passed, N failed, N skipped` (nothing is skipped) and fails when it ran fewer inputs than
//! it was given.

#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How an input may run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Stack of the worker thread.
    pub stack: usize,
    /// Longest an input may take.
    pub input: Duration,
}

/// The regular files of `dir` (the README excepted), sorted by name.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.file_name().is_none_or(|n| n != "README.md"))
        .collect();
    files.sort();
    files
}

/// The message of a panic payload.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".into())
}

/// Runs `f` on a fresh thread with a `stack`-byte stack; `Err` describes a panic.
pub fn on_thread<T: Send + 'static>(
    stack: usize,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let handle = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(f)
        .map_err(|e| format!("cannot spawn a thread: {e}"))?;
    handle.join().map_err(|panic| panic_message(&*panic))
}

/// Runs `run(&state, bytes, target)` for every input under `limits`, `state` made once by
/// `setup` on the worker thread; `run` fails an input by returning `Err` or panicking. Prints
/// each failure and the counts, and fails on any failure. Returns the inputs that ran, for
/// checks of the caller's own (which folders they came from).
pub fn replay_all<T, S>(
    limits: Limits,
    inputs: Vec<(PathBuf, T)>,
    setup: impl FnOnce() -> S + Send + 'static,
    run: impl Fn(&S, &[u8], T) -> Result<(), String> + Send + 'static,
) -> Vec<PathBuf>
where
    T: Copy + Send + 'static,
{
    let expected = inputs.len();
    let results: Vec<(PathBuf, Result<(), String>)> = on_thread(limits.stack, move || {
        let state = setup();
        inputs
            .into_iter()
            .map(|(path, target)| {
                let result = std::fs::read(&path)
                    .map_err(|e| format!("cannot read: {e}"))
                    .and_then(|bytes| {
                        let started = Instant::now();
                        catch_unwind(AssertUnwindSafe(|| run(&state, &bytes, target)))
                            .map_err(|p| format!("panicked: {}", panic_message(&*p)))??;
                        let took = started.elapsed();
                        if took > limits.input {
                            return Err(format!("took {took:?} (limit {:?})", limits.input));
                        }
                        Ok(())
                    });
                (path, result)
            })
            .collect()
    })
    .unwrap_or_else(|panic| panic!("the worker died: {panic}"));
    let failed: Vec<String> = results
        .iter()
        .filter_map(|(p, r)| r.as_ref().err().map(|e| format!("{}: {e}", p.display())))
        .collect();
    for failure in &failed {
        println!("FAIL {failure}");
    }
    println!(
        "{} passed, {} failed, 0 skipped",
        results.len() - failed.len(),
        failed.len()
    );
    assert_eq!(results.len(), expected, "fewer inputs ran than given");
    assert!(!results.is_empty(), "no regression inputs");
    assert!(
        failed.is_empty(),
        "{} of {expected} inputs failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
    results.into_iter().map(|(p, _)| p).collect()
}
