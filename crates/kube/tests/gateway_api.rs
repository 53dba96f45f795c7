//! Gateway API examples (`../shared/corpora/gateway-api`), in both channels: every document of
//! `examples/<channel>` must be accepted by the create pipeline with the channel's CRDs
//! (`config/crd/<channel>`; `Namespace` documents as built-in kinds), every document of
//! `hack/invalid-examples/<channel>` rejected.
//!
//! Documents listed in `gateway_api.skip` (`<path>#<index> <reason>`) are not run. Closing line:
//! `N passed, N failed, N skipped`.

use std::path::{Path, PathBuf};

use kcel_kube::{Error, KubeVersion, Request, Validator};
use serde_json::Value;

mod common;
use common::{shared_or_skip, skip_list, yaml_files};

/// The Kubernetes release the expected outputs come from.
const KUBE_1_35: KubeVersion = KubeVersion::new(35).expect("a supported version");

/// A validator of every CRD under `dir` (files that do not load are left out), Kubernetes 1.35.
fn load_crds(dir: &Path) -> Validator {
    let mut files = Vec::new();
    yaml_files(dir, &mut files);
    let mut builder = Validator::builder().kube_version(KUBE_1_35);
    for f in &files {
        let _ = builder.add_crd_file(f);
    }
    builder.build()
}

/// `Some((accepted, summary))`, or `None` for a kind neither a CRD nor a built-in kind serves.
fn validate(doc: Value, crds: &Validator) -> Result<Option<(bool, String)>, String> {
    let s = |k: &str| doc.get(k).and_then(Value::as_str).unwrap_or("");
    let request = match crds.find_kind(s("apiVersion"), s("kind")) {
        Some(crd) => Request::create(doc).against_crd(crd),
        None => Request::create(doc),
    };
    match crds.validate(request) {
        Ok(r) => Ok(Some((r.is_valid(), r.status.message))),
        Err(Error::NoMatchingCrd { .. }) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

#[test]
fn gateway_api_examples() {
    let Some(shared) = shared_or_skip("Gateway API examples") else {
        return;
    };
    let skips = skip_list(include_str!("gateway_api.skip"));
    let root = shared.join("corpora/gateway-api");
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut expected = 0;
    for channel in ["standard", "experimental"] {
        let crds = load_crds(&root.join("config/crd").join(channel));
        assert!(!crds.is_empty(), "no {channel} CRDs");
        for (dir, want_valid) in [
            (root.join("examples").join(channel), true),
            (root.join("hack/invalid-examples").join(channel), false),
        ] {
            let mut files = Vec::new();
            yaml_files(&dir, &mut files);
            expected += example_documents(&files);
            for f in files {
                let rel = f
                    .strip_prefix(&root)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                let text = std::fs::read_to_string(&f).expect("read example");
                let docs = match kcel_kube::yaml::parse_stream(&text) {
                    Ok(d) => d,
                    Err(e) => {
                        failed += 1;
                        eprintln!("FAIL {rel}: YAML: {e}");
                        continue;
                    }
                };
                for (i, d) in docs.into_iter().enumerate() {
                    let key = format!("{rel}#{i}");
                    if d.value.is_null() {
                        continue;
                    }
                    if skips.contains_key(&key) {
                        skipped += 1;
                        continue;
                    }
                    match validate(d.value, &crds) {
                        Ok(Some((accepted, _))) if accepted == want_valid => passed += 1,
                        Ok(Some((accepted, msg))) => {
                            failed += 1;
                            eprintln!("FAIL {key}: accepted={accepted}, want {want_valid}: {msg}");
                        }
                        Ok(None) => {
                            failed += 1;
                            eprintln!("FAIL {key}: no CRD and no built-in kind serves it");
                        }
                        Err(e) => {
                            failed += 1;
                            eprintln!("FAIL {key}: {e}");
                        }
                    }
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(failed, 0, "{failed} Gateway API examples failed");
    assert!(expected > 0, "no Gateway API examples found");
    assert_eq!(
        passed + failed + skipped,
        expected,
        "ran fewer examples than the corpus holds"
    );
}

/// The cases `files` hold, counted apart from the run: their non-empty documents, or one for a
/// file that is not YAML (it fails as a whole).
fn example_documents(files: &[PathBuf]) -> usize {
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("read example");
            kcel_kube::yaml::parse_stream(&text)
                .map_or(1, |docs| docs.iter().filter(|d| !d.value.is_null()).count())
        })
        .sum()
}
