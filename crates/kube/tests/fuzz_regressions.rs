//! Replays the inputs of `fuzz/regressions/` through what the fuzz targets run
//! (`common/fuzz_harness.rs`):
//!
//! - at its top level, inputs that once crashed, hung or ran out of memory, one file each, named
//!   `<target>-<what>-<detail>` (`documents-…` or `crd-…`), replayed by that target;
//! - `corpus-documents/`, `corpus-crd/`: the minimised corpora the targets grew, each replayed by
//!   its target.
//!
//! An input fails when it panics or takes longer than the fuzz runs' `-timeout`; every input runs
//! on one worker thread with a large stack (the engine's `tests/common/replay.rs`, shared), so a
//! recursion without a depth limit aborts the test. The `documents` target validates against the bundled example CRD and,
//! with `../shared` (or `KCEL_SHARED`), Gateway API's standard channel, as the fuzz runs did;
//! without it those inputs still run, against the example alone, after a notice (under `CI=true`
//! a missing folder fails). The runner prints `N passed, N failed, N skipped`; nothing is skipped,
//! and it fails when it ran fewer inputs than the folders hold.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::fuzz_harness;
use common::replay::{Limits, files_in, replay_all};

/// How inputs run: a 64 MiB stack (libFuzzer runs the targets on an 8 MiB main thread; debug
/// builds need more), each within the fuzz runs' `-timeout` of 10 s.
const LIMITS: Limits = Limits {
    stack: 64 << 20,
    input: Duration::from_secs(10),
};

/// Which fuzz target replays an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Documents,
    Crd,
}

/// Every input with the target that replays it.
fn inputs() -> Vec<(PathBuf, Target)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
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

#[test]
fn regressions_replay_without_panic() {
    let shared = common::shared_or_skip("the Gateway API CRDs of the documents target");
    let crd_files = fuzz_harness::crd_files(shared.as_deref());
    replay_all(
        LIMITS,
        inputs(),
        move || fuzz_harness::validator(&crd_files),
        |validator, bytes, target| {
            match target {
                Target::Documents => fuzz_harness::documents(validator, bytes),
                Target::Crd => fuzz_harness::crds(bytes),
            }
            Ok(())
        },
    );
}
