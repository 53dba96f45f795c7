//! What the binary's end-to-end tests share: running `kcel` from the repository root (so the
//! bundled `examples/` resolve), its outputs as text, and `../shared`.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `kcel args` in the repository root with `stdin` as its standard input (`NO_COLOR`
/// removed, so tests see what a plain run prints).
pub fn kcel_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kcel"))
        .args(args)
        .current_dir(root())
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the kcel binary runs");
    if let Some(mut i) = child.stdin.take() {
        i.write_all(stdin.as_bytes()).expect("stdin written");
    }
    child.wait_with_output().expect("kcel finishes")
}

/// Runs `kcel args` in the repository root with an empty standard input.
pub fn kcel(args: &[&str]) -> Output {
    kcel_stdin(args, "")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `../shared` (or `KCEL_SHARED`); under `CI=true` its absence fails, else a notice says what
/// is skipped (`what`).
pub fn shared(what: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("KCEL_SHARED") {
        Some(d) => PathBuf::from(d),
        None => root().join("../shared"),
    };
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "shared/ is missing under CI"
    );
    eprintln!("NOTICE: ../shared not found; {what} skipped");
    None
}
