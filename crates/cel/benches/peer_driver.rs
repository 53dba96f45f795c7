//! kcel as one more "peer" of the shared benchmark harness: follows the timing
//! protocol of `../shared/bench` (same warm-up, rounds, best-round rule and
//! compile loops as the peers' drivers) and prints the same JSON lines, so
//! `compare_peers.sh` can put kcel and the peers in one table from one run.
//!
//! `peer_driver bench <protocol.json> <bench_data.json>` (cargo's `--bench`
//! argument is ignored); kcel's evaluations are timed with cost tracking on.
//! Built with `cargo bench -p kcel-cel --bench peer_driver --no-run`.
//!
//! Memory comes from mimalloc, the allocator of the `kcel` binary
//! (crates/cli/src/main.rs) and of kcel-kube's benches; `peer_driver_system`
//! is the same driver on the system allocator, the library's default.

/// The `kcel` binary's allocator.
#[global_allocator]
static ALLOCATOR: kcel_alloc::MiMalloc = kcel_alloc::MiMalloc;

include!("peer_driver/body.rs");
