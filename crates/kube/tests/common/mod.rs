//! Helpers shared by the data-driven pipeline tests: the shared-data folder and status
//! comparison (causes as a multiset, message up to the order of causes).

#![allow(dead_code)]

pub mod fuzz_harness;
pub mod raw_json;
#[path = "../../../cel/tests/common/replay.rs"]
pub mod replay;
pub mod trials;

use std::path::{Path, PathBuf};

use kcel_kube::pipeline::Status;
use serde_json::Value;

pub use fuzz_harness::shared_dir;

/// [`shared_dir`], or `None` after a visible notice that `what` is skipped;
/// under `CI=true` a missing folder fails the test instead.
pub fn shared_or_skip(what: &str) -> Option<PathBuf> {
    let dir = shared_dir();
    if dir.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "shared/ is missing under CI"
        );
        eprintln!("NOTICE: ../shared not found; {what} skipped");
    }
    dir
}

/// A checked-in skip file whose names hold spaces: `<name><TAB><reason>` per line; blank
/// lines and `#` comments ignored.
pub fn tab_skip_list(text: &str) -> std::collections::HashMap<String, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(k, r)| (k.to_string(), r.to_string()))
        .collect()
}

/// A checked-in skip file: `<name> <reason>` per line; blank lines and `#`
/// comments ignored.
pub fn skip_list(text: &str) -> std::collections::HashMap<String, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .map(|(k, r)| (k.to_string(), r.trim().to_string()))
        .collect()
}

// Re-exported for the runners that use them (not every test binary does).
#[allow(unused_imports)]
pub use kcel_kube::case_compare::cause_strings;

pub fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Compares two statuses ([`kcel_kube::case_compare::compare_status_rendered`]): code,
/// reason, causes as a multiset, and the message of our causes in the expected order as `render`
/// gives it.
pub fn compare_status(
    got: &Status,
    want: &Value,
    render: &dyn Fn(&[usize]) -> String,
) -> Result<(), String> {
    kcel_kube::case_compare::compare_status_rendered(got, want, render).map_err(|m| m.to_string())
}

#[allow(unused_imports)]
pub use kcel_kube::case_compare::reorder_message;

/// The YAML files (`*.yaml`, `*.yml`) under `dir`, recursively, sorted, appended to `out`
/// (none when `dir` cannot be read).
pub fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
}
