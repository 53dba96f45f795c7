//! Locating the shared reference data (`../shared` from the workspace root, or
//! `$KCEL_SHARED`).
//!
//! Data-driven suites pass with a visible notice when the data is absent, except
//! under `CI=true`, where its absence is a failure: nothing may be skipped
//! silently in CI.

use std::path::{Path, PathBuf};

/// The shared data folder, if it exists.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("KCEL_SHARED") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    dir.is_dir().then_some(dir)
}

/// True when running under CI (`CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Finds `relative` inside the shared folder.
///
/// `Ok(Some(path))` when present; `Ok(None)` (after printing a notice to
/// stderr) when absent outside CI; `Err(message)` when absent under CI.
pub fn require(relative: &str, what: &str) -> Result<Option<PathBuf>, String> {
    let found = shared_dir()
        .map(|d| d.join(relative))
        .filter(|p| p.exists());
    match found {
        Some(p) => Ok(Some(p)),
        None if in_ci() => Err(format!(
            "CI: {what} not found: {relative} under the shared folder \
             (../shared from the workspace root, or $KCEL_SHARED)"
        )),
        None => {
            eprintln!(
                "NOTICE: {what} not found ({relative} under ../shared or $KCEL_SHARED): \
                 skipping. Under CI=true this is a failure."
            );
            Ok(None)
        }
    }
}
