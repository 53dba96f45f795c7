//! The peer driver (`peer_driver.rs`, same protocol and output) on the system
//! allocator, the allocator a program embedding the library gets by default.
//! Built with `cargo bench -p kcel-cel --bench peer_driver_system --no-run`.

include!("peer_driver/body.rs");
