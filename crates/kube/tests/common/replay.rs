//! Replaying fuzz inputs as a test, shared by `kcel-kube`'s and `kcel-proto`'s
//! `tests/fuzz_regressions.rs` (the latter includes this file by path): every input runs on one
//! worker thread with a [`STACK`] stack, fails when it panics or takes longer than
//! [`INPUT_LIMIT`] (the fuzz runs' `-timeout`), and the run prints `N passed, N failed, N skipped`
//! (nothing is skipped) and fails when it ran fewer inputs than it was given.

#![allow(dead_code)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Stack of the thread the inputs run on (libFuzzer runs the targets on an 8 MiB main thread;
/// debug builds need more).
pub const STACK: usize = 64 << 20;

/// Longest an input may take.
pub const INPUT_LIMIT: Duration = Duration::from_secs(10);

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

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".into())
}

/// Runs `run(&state, bytes, target)` for every input, `state` made once by `setup` on the
/// worker thread; prints the counts and fails on any failure.
pub fn replay_all<T, S>(
    inputs: Vec<(PathBuf, T)>,
    setup: impl FnOnce() -> S + Send + 'static,
    run: impl Fn(&S, &[u8], T) + Send + 'static,
) where
    T: Copy + Send + 'static,
{
    let expected = inputs.len();
    let results: Vec<(PathBuf, Result<(), String>)> = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let state = setup();
            inputs
                .into_iter()
                .map(|(path, target)| {
                    let result = std::fs::read(&path)
                        .map_err(|e| format!("cannot read: {e}"))
                        .and_then(|bytes| {
                            let started = Instant::now();
                            catch_unwind(AssertUnwindSafe(|| run(&state, &bytes, target)))
                                .map_err(|p| format!("panicked: {}", panic_message(&*p)))?;
                            let took = started.elapsed();
                            if took > INPUT_LIMIT {
                                return Err(format!("took {took:?} (limit {INPUT_LIMIT:?})"));
                            }
                            Ok(())
                        });
                    (path, result)
                })
                .collect()
        })
        .expect("a worker thread")
        .join()
        .unwrap_or_else(|p| panic!("the worker died: {}", panic_message(&*p)));
    let failed: Vec<String> = results
        .iter()
        .filter_map(|(p, r)| r.as_ref().err().map(|e| format!("{}: {e}", p.display())))
        .collect();
    println!(
        "{} passed, {} failed, 0 skipped",
        results.len() - failed.len(),
        failed.len()
    );
    assert_eq!(results.len(), expected, "fewer inputs ran than given");
    assert!(!results.is_empty(), "no regression inputs");
    assert!(failed.is_empty(), "{failed:#?}");
}
