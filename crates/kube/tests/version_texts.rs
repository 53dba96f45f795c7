//! What an expression yields — a compile error, a runtime error or a value, with its exact text —
//! in each Kubernetes release, where the cel-go release Kubernetes vendors decides it. The rows
//! are in `version_texts.json`: an expression, the upstream source of the behaviour, and `want`,
//! keyed by the first release (`1.NN`) each outcome holds from, until the next key. Every row
//! is compiled and evaluated in the rule environment (stored expressions: the runtime view) of
//! every supported release, 1.28 to 1.37.
//!
//! Outcomes: `value: <CEL literal>`, `error: <runtime text>`, `compile: <issues text>`.
//!
//! Prints `N passed, N failed, N skipped` (nothing is skipped: the data is our own).

use kcel_kube::rules::compile::{check_expression, plan};
use kcel_kube::rules::{EnvKind, EnvSpec, KubeVersion};
use serde_json::Value as Json;

/// What `expr` yields in `version`.
fn outcome(version: KubeVersion, expr: &str) -> String {
    let spec = EnvSpec::new(version, EnvKind::StoredExpressions);
    let env = spec.env();
    let checked = check_expression(&env, expr);
    let program = match checked.and_then(|c| plan(&env, &c)) {
        Ok(p) => p,
        Err(issues) => return format!("compile: {issues}"),
    };
    match program.eval(&()) {
        Ok(v) => format!("value: {v}"),
        Err(e) => format!("error: {}", e.message()),
    }
}

/// The expected outcome in `version`: the entry of the latest release not after it.
fn expected(want: &serde_json::Map<String, Json>, version: KubeVersion) -> Option<&str> {
    want.iter()
        .filter_map(|(k, v)| Some((k.parse::<KubeVersion>().ok()?, v.as_str()?)))
        .filter(|(from, _)| *from <= version)
        .max_by_key(|(from, _)| *from)
        .map(|(_, v)| v)
}

#[test]
fn texts_follow_the_cel_go_release() {
    let rows: Vec<Json> = serde_json::from_str(include_str!("version_texts.json"))
        .expect("version_texts.json is a JSON array");
    let versions: Vec<KubeVersion> = (KubeVersion::OLDEST.minor()..=KubeVersion::NEWEST.minor())
        .filter_map(KubeVersion::new)
        .collect();
    let (mut passed, mut failed) = (0usize, Vec::new());
    for row in &rows {
        let expr = row["expr"].as_str().expect("expr");
        assert!(
            row["source"].is_string(),
            "{expr}: every row cites its source"
        );
        let want = row["want"].as_object().expect("want");
        for &v in &versions {
            let Some(want) = expected(want, v) else {
                failed.push(format!("{expr} @ {v}: no expectation"));
                continue;
            };
            let got = outcome(v, expr);
            if got == want {
                passed += 1;
            } else {
                failed.push(format!("{expr} @ {v}:\n  got  {got:?}\n  want {want:?}"));
            }
        }
    }
    println!("{passed} passed, {} failed, 0 skipped", failed.len());
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert_eq!(
        passed,
        rows.len() * versions.len(),
        "fewer cases ran than the data holds"
    );
}
