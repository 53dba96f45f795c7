//! Cost of ratcheting: update validation of the Gateway API ratcheting corpus
//! (`../shared/corpora/gateway-api-ratcheting`, as apiextensions' `BenchmarkRatcheting` uses it),
//! each object updated to itself through the whole pipeline (OpenAPI validation and CEL rules),
//! with and without ratcheting. The target: ratcheting adds at most 5%. A measurement,
//! not a check: it prints the ratio and asserts nothing about time. Run it optimised, alone:
//! `cargo test --release -p kcel-kube --test ratcheting_bench -- --ignored --nocapture`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kcel_kube::KubeVersion;
use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::pipeline::{Operation, Options, Pipeline};
use kcel_kube::rules::CelRuleStep;
use serde_json::Value;

mod common;
use common::shared_dir;

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml") {
            out.push(p);
        }
    }
}

/// One timed pass over every (pipeline, object) pair.
fn pass(work: &[(Pipeline<'_>, Value)], ratcheting: bool) -> Duration {
    let options = Options {
        ratcheting,
        ..Options::default()
    };
    let start = Instant::now();
    for (p, obj) in work {
        let r = p.run(obj.clone(), &Operation::Update(obj.clone()), &options);
        std::hint::black_box(r);
    }
    start.elapsed()
}

#[test]
#[ignore = "timing benchmark; run with --release --ignored"]
fn ratcheting_overhead() {
    let Some(shared) = shared_dir() else {
        eprintln!("NOTICE: ../shared not found; ratcheting benchmark skipped");
        return;
    };
    let root = shared.join("corpora/gateway-api-ratcheting");
    let crds: Vec<CustomResourceDefinition> =
        kcel_kube::load::load_file(&root.join("crds/standard-install.yaml"))
            .expect("CRDs")
            .into_iter()
            .map(|l| l.crd)
            .collect();
    let mut docs = Vec::new();
    for dir in ["valid", "invalid"] {
        let mut files = Vec::new();
        yaml_files(&root.join(dir), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).expect("read");
            for d in kcel_kube::yaml::parse_stream(&text).expect("yaml") {
                docs.push(d.value);
            }
        }
    }
    // The CEL rules of each CRD's versions, compiled once.
    let mut steps = Vec::new();
    for (i, crd) in crds.iter().enumerate() {
        for v in &crd.spec.versions {
            if let Ok(step) = CelRuleStep::for_version(crd, &v.name, KubeVersion::default()) {
                steps.push((i, v.name.clone(), step));
            }
        }
    }
    let mut work = Vec::new();
    for d in &docs {
        let kind = d.get("kind").and_then(Value::as_str).unwrap_or("");
        let api_version = d.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        if let Some((i, crd)) = crds
            .iter()
            .enumerate()
            .find(|(_, c)| c.spec.group == group && c.spec.names.kind == kind)
            && let Some((_, _, step)) = steps.iter().find(|(j, v, _)| *j == i && v == version)
            && let Ok(p) = Pipeline::new(crd, version, Some(step))
        {
            work.push((p, d.clone()));
        }
    }
    assert!(!work.is_empty(), "no custom resources in the corpus");
    // Warm up, then alternate and keep the fastest of each.
    pass(&work, true);
    pass(&work, false);
    let (mut with, mut without) = (Duration::MAX, Duration::MAX);
    for _ in 0..15 {
        with = with.min(pass(&work, true));
        without = without.min(pass(&work, false));
    }
    let ratio = with.as_secs_f64() / without.as_secs_f64();
    println!(
        "{} updates: with ratcheting {:?}, without {:?}, ratio {ratio:.3}",
        work.len(),
        with,
        without
    );
}
