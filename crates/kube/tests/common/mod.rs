//! Helpers shared by the data-driven pipeline tests: the shared-data folder and status
//! comparison (causes as a multiset, message up to the order of causes).

#![allow(dead_code)]

pub mod raw_json;

use std::path::{Path, PathBuf};

use kcel_kube::pipeline::Status;
use serde_json::Value;

/// `../shared` (or `KCEL_SHARED`), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("KCEL_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    dir.is_dir().then_some(dir)
}

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

/// A checked-in skip file: `<name> <reason>` per line; blank lines and `#`
/// comments ignored.
pub fn skip_list(text: &str) -> std::collections::HashMap<String, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(' '))
        .map(|(k, r)| (k.to_string(), r.trim().to_string()))
        .collect()
}

/// Causes as `field: message` strings.
pub fn cause_strings(status: &Value) -> Vec<String> {
    status
        .pointer("/details/causes")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    format!(
                        "{}|{}|{}",
                        c.get("reason").and_then(Value::as_str).unwrap_or(""),
                        c.get("field").and_then(Value::as_str).unwrap_or(""),
                        c.get("message").and_then(Value::as_str).unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Compares two statuses: code, reason, causes as a multiset, and the message after putting our
/// causes in the expected order.
pub fn compare_status(
    got: &Status,
    want: &Value,
    render: &dyn Fn(&[usize]) -> String,
) -> Result<(), String> {
    let got_v = serde_json::to_value(got).map_err(|e| e.to_string())?;
    for k in ["status", "code", "reason"] {
        if got_v.get(k) != want.get(k) {
            return Err(format!(
                "{k}: got {:?}, want {:?}",
                got_v.get(k),
                want.get(k)
            ));
        }
    }
    for k in ["name", "group", "kind"] {
        let g = got_v.pointer(&format!("/details/{k}"));
        let w = want.pointer(&format!("/details/{k}"));
        if g != w {
            return Err(format!("details.{k}: got {g:?}, want {w:?}"));
        }
    }
    let gc = cause_strings(&got_v);
    let wc = cause_strings(want);
    if sorted(gc.clone()) != sorted(wc.clone()) {
        return Err(format!(
            "causes differ:\n  got:  {:#?}\n  want: {:#?}",
            sorted(gc),
            sorted(wc)
        ));
    }
    // Reorder our causes as the expected ones, then the message must match exactly.
    let mut used = vec![false; gc.len()];
    let mut order = Vec::with_capacity(wc.len());
    for w in &wc {
        if let Some(i) = (0..gc.len()).find(|&i| !used[i] && gc[i] == *w) {
            used[i] = true;
            order.push(i);
        }
    }
    let msg = if gc.is_empty() {
        got.message.clone()
    } else {
        render(&order)
    };
    let want_msg = want.get("message").and_then(Value::as_str).unwrap_or("");
    if msg != want_msg {
        return Err(format!("message:\n  got:  {msg}\n  want: {want_msg}"));
    }
    Ok(())
}

/// The status message with our causes in `order`, rebuilt from the cause strings.
pub fn reorder_message(status: &Status, order: &[usize]) -> String {
    let Some(details) = &status.details else {
        return status.message.clone();
    };
    let strings: Vec<String> = order
        .iter()
        .filter_map(|&i| details.causes.get(i))
        .map(|c| format!("{}: {}", c.field, c.message))
        .collect();
    let qualified = if details.group.is_empty() {
        details.kind.clone()
    } else {
        format!("{}.{}", details.kind, details.group)
    };
    match kcel_kube::pipeline::status::aggregate(&strings) {
        Some(agg) => format!(
            "{qualified} {} is invalid: {agg}",
            kcel_kube::gofmt::quote(&details.name)
        ),
        None => status.message.clone(),
    }
}
