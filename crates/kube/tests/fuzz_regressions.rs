//! Replays the inputs of `fuzz/regressions/` through what the fuzz targets run
//! (`common/fuzz_harness.rs`):
//!
//! - at its top level, inputs that once crashed, hung or ran out of memory, one file each, named
//!   `<target>-<what>-<detail>` (`documents-…` or `crd-…`), replayed by that target;
//! - `corpus-documents/`, `corpus-crd/`: the minimised corpora the targets grew, each replayed by
//!   its target.
//!
//! An input fails when it panics or takes longer than [`INPUT_LIMIT`] (the fuzz runs' `-timeout`).
//! Every input runs on one worker thread with a [`STACK`] stack, so a recursion without a depth
//! limit aborts the test. The `documents` target validates against the bundled example CRD and,
//! with `../shared` (or `KCEL_SHARED`), Gateway API's standard channel, as the fuzz runs did;
//! without it those inputs still run, against the example alone, after a notice (under `CI=true`
//! a missing folder fails). The runner prints `N passed, N failed, N skipped`; nothing is skipped,
//! and it fails when it ran fewer inputs than the folders hold.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::fuzz_harness;

/// Stack of the thread the inputs run on (libFuzzer runs the targets on an 8 MiB main thread;
/// debug builds need more).
const STACK: usize = 64 << 20;

/// Longest an input may take.
const INPUT_LIMIT: Duration = Duration::from_secs(10);

/// Which fuzz target replays an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Documents,
    Crd,
}

fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions")
}

/// The regular files of `dir` (the README excepted), sorted by name.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.file_name().is_none_or(|n| n != "README.md"))
        .collect();
    files.sort();
    files
}

/// Every input with the target that replays it.
fn inputs() -> Vec<(PathBuf, Target)> {
    let dir = regressions_dir();
    let mut inputs = Vec::new();
    for path in files_in(&dir) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let target = if name.starts_with("documents-") {
            Target::Documents
        } else if name.starts_with("crd-") {
            Target::Crd
        } else {
            panic!("{name}: a regression input is named documents-… or crd-…");
        };
        inputs.push((path, target));
    }
    for (corpus, target) in [
        ("corpus-documents", Target::Documents),
        ("corpus-crd", Target::Crd),
    ] {
        inputs.extend(files_in(&dir.join(corpus)).into_iter().map(|p| (p, target)));
    }
    inputs
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".into())
}

#[test]
fn regressions_replay_without_panic() {
    let shared = common::shared_or_skip("the Gateway API CRDs of the documents target");
    let crd_files = fuzz_harness::crd_files(shared.as_deref());
    let inputs = inputs();
    let expected = inputs.len();
    let results: Vec<(PathBuf, Result<(), String>)> = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let validator = fuzz_harness::validator(&crd_files);
            inputs
                .into_iter()
                .map(|(path, target)| {
                    let result = std::fs::read(&path)
                        .map_err(|e| format!("cannot read: {e}"))
                        .and_then(|bytes| {
                            let started = Instant::now();
                            catch_unwind(AssertUnwindSafe(|| match target {
                                Target::Documents => fuzz_harness::documents(&validator, &bytes),
                                Target::Crd => fuzz_harness::crds(&bytes),
                            }))
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
    assert_eq!(
        results.len(),
        expected,
        "fewer inputs ran than the folders hold"
    );
    assert!(!results.is_empty(), "no regression inputs");
    assert!(failed.is_empty(), "{failed:#?}");
}
