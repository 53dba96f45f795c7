//! Replays the inputs of `fuzz/regressions/` through what the `proto_gen` fuzz target runs
//! (`common/fuzz_harness.rs`: the text as a `.proto` file through `generate`, `generate_crd`, the
//! rule check of `kcel gen` and the YAML writer):
//!
//! - at its top level, inputs that once crashed, hung or ran out of memory, one file each, named
//!   `proto_gen-<what>-<detail>`;
//! - `corpus-proto_gen/`: the minimised corpus the target grew.
//!
//! An input fails when it panics or takes longer than the fuzz run's `-timeout`; every input runs
//! on one worker thread with a large stack (the engine's `tests/common/replay.rs`, shared), so a
//! recursion without a depth limit aborts the test (the parser runs on a thread of its own,
//! `load.rs`). The runner prints `N passed, N failed, N skipped`; nothing is skipped, and it fails when
//! it ran fewer inputs than the folders hold.

#[path = "common/fuzz_harness.rs"]
mod fuzz_harness;
#[path = "../../cel/tests/common/replay.rs"]
mod replay;

use std::path::Path;
use std::time::Duration;

use replay::{Limits, files_in, replay_all};

/// How inputs run: a 64 MiB stack (libFuzzer runs the target on an 8 MiB main thread; debug
/// builds need more), each within the fuzz run's `-timeout` of 10 s.
const LIMITS: Limits = Limits {
    stack: 64 << 20,
    input: Duration::from_secs(10),
};

#[test]
fn regressions_replay_without_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut inputs = files_in(&dir);
    for p in &inputs {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        assert!(
            name.starts_with("proto_gen-"),
            "{name}: a regression input is named proto_gen-…"
        );
    }
    inputs.extend(files_in(&dir.join("corpus-proto_gen")));
    replay_all(
        LIMITS,
        inputs.into_iter().map(|p| (p, ())).collect(),
        || fuzz_harness::Workspace::new("replay"),
        |workspace, bytes, ()| {
            workspace.run(bytes);
            Ok(())
        },
    );
}
