//! Cost of ratcheting: update validation of the Gateway API ratcheting corpus
//! (`../shared/corpora/gateway-api-ratcheting`, as apiextensions' `BenchmarkRatcheting` uses it),
//! each object updated to itself through the whole pipeline (OpenAPI validation and CEL rules),
//! with and without ratcheting. The target: ratcheting adds at most 5%. A measurement,
//! not a check: it prints the ratio and asserts nothing about time. Run it optimised, alone:
//! `cargo test --release -p kcel-kube --test ratcheting_bench -- --ignored --nocapture`.

use std::time::{Duration, Instant};

use kcel_kube::Validator;
use serde_json::Value;

mod common;
use common::{shared_dir, yaml_files};

/// One timed pass over every object, each updated to itself.
fn pass(validator: &Validator, work: &[Value]) -> Duration {
    let start = Instant::now();
    for obj in work {
        let r = validator.validate_update(obj.clone(), obj.clone());
        std::hint::black_box(r).ok();
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
    let crds = root.join("crds/standard-install.yaml");
    let validators = [true, false].map(|ratcheting| {
        let v = Validator::builder()
            .ratcheting(ratcheting)
            .crd_file(&crds)
            .expect("CRDs")
            .build();
        // The CEL rules of each CRD's versions, compiled once (versions whose rules do not
        // compile are left out).
        let _ = v.compile_all();
        v
    });
    let mut work = Vec::new();
    for dir in ["valid", "invalid"] {
        let mut files = Vec::new();
        yaml_files(&root.join(dir), &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).expect("read");
            for d in kcel_kube::yaml::parse_stream(&text).expect("yaml") {
                if validators[0].validate_create(d.value.clone()).is_ok() {
                    work.push(d.value);
                }
            }
        }
    }
    assert!(!work.is_empty(), "no custom resources in the corpus");
    // Warm up, then alternate and keep the fastest of each.
    let [ratcheting, plain] = &validators;
    pass(ratcheting, &work);
    pass(plain, &work);
    let (mut with, mut without) = (Duration::MAX, Duration::MAX);
    for _ in 0..15 {
        with = with.min(pass(ratcheting, &work));
        without = without.min(pass(plain, &work));
    }
    let ratio = with.as_secs_f64() / without.as_secs_f64();
    println!(
        "{} updates: with ratcheting {:?}, without {:?}, ratio {ratio:.3}",
        work.len(),
        with,
        without
    );
}
