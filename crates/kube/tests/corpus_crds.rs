//! Loads every CRD under `../shared/corpora` (YAML and JSON, recursively), converts each version's
//! schema to a structural schema and builds its CEL declarations.
//!
//! Files listed in `corpus_crds.skip` (path relative to the corpora folder, then the reason) are
//! not loaded. Files that hold no CRD are not counted. Closing line: `N passed, N failed, N skipped`.

mod common;

use std::path::{Path, PathBuf};

use common::shared_or_skip;
use std::sync::Arc;

use kcel_kube::decl::{DeclType, DeclTypeProvider};
use kcel_kube::load::load_file;
use kcel_kube::structural::Structural;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            // `wild/oracle/` holds what Kubernetes answered for the corpus, not inputs.
            if p.file_name().is_some_and(|n| n == "oracle") {
                continue;
            }
            files(&p, out);
        } else if p
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        {
            out.push(p);
        }
    }
}

/// Whether a file may hold a CRD (cheap text check before parsing).
fn mentions_crd(p: &Path) -> bool {
    std::fs::read_to_string(p).is_ok_and(|t| t.contains("CustomResourceDefinition"))
}

/// The CRD documents of `p` (`kind: List` items included), read with the YAML reader alone;
/// one for a file that is not YAML.
fn crd_documents(p: &Path) -> usize {
    let Ok(text) = std::fs::read_to_string(p) else {
        return 1;
    };
    let is_crd = |v: &serde_json::Value| v["kind"] == "CustomResourceDefinition";
    kcel_kube::yaml::parse_stream(&text).map_or(1, |docs| {
        docs.iter()
            .map(|d| match d.value["items"].as_array() {
                Some(items) if d.value["kind"] == "List" => {
                    items.iter().filter(|i| is_crd(i)).count()
                }
                _ => usize::from(is_crd(&d.value)),
            })
            .sum()
    })
}

#[test]
fn corpus_crds_load_and_build() {
    let Some(shared) = shared_or_skip("corpus CRD test") else {
        return;
    };
    let corpora = shared.join("corpora");
    let skip_text = include_str!("corpus_crds.skip");
    let skips: Vec<(&str, &str)> = skip_text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            l.split_once(char::is_whitespace)
                .map_or((l, ""), |(a, b)| (a, b.trim()))
        })
        .collect();
    let mut all = Vec::new();
    files(&corpora, &mut all);
    // The cases, counted apart from the run: the CRD documents of every file (`kind: List` items
    // included), one per file that is not YAML (it fails as a whole) or is skipped.
    let relative = |path: &Path| {
        path.strip_prefix(&corpora)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let expected: usize = all
        .iter()
        .map(|p| {
            if skips.iter().any(|(s, _)| *s == relative(p)) {
                1
            } else if mentions_crd(p) {
                crd_documents(p)
            } else {
                0
            }
        })
        .sum();
    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for path in all {
        let rel = path
            .strip_prefix(&corpora)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        if let Some((_, reason)) = skips.iter().find(|(p, _)| *p == rel) {
            eprintln!("skip {rel}: {reason}");
            skipped += 1;
            continue;
        }
        if !mentions_crd(&path) {
            continue;
        }
        let crds = match load_file(&path) {
            Ok(c) => c,
            Err(e) => {
                failed += crd_documents(&path).max(1);
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        if crds.len() != crd_documents(&path) {
            failures.push(format!(
                "{rel}: {} CRDs loaded, {} CRD documents in the file",
                crds.len(),
                crd_documents(&path)
            ));
        }
        for loaded in crds {
            let name = format!("{rel} {}", loaded.crd.metadata.name);
            let mut problem = None;
            let mut versions = 0;
            for v in &loaded.crd.spec.versions {
                let Some(schema) = v.open_api_v3_schema() else {
                    continue;
                };
                versions += 1;
                match Structural::from_props(schema) {
                    Err(e) => problem = Some(format!("{name} {}: structural: {e}", v.name)),
                    Ok(s) => {
                        let s = Arc::new(s);
                        match DeclType::from_schema(&s, true, "selfType0") {
                            None => {
                                problem =
                                    Some(format!("{name} {}: root not visible to CEL", v.name))
                            }
                            Some(d) => {
                                let provider = DeclTypeProvider::new(&d);
                                if provider.object("selfType0.metadata").is_none() {
                                    problem = Some(format!("{name} {}: no metadata type", v.name));
                                }
                            }
                        }
                    }
                }
            }
            if versions == 0 && loaded.crd.spec.versions.is_empty() {
                problem = Some(format!("{name}: no versions"));
            }
            match problem {
                None => passed += 1,
                Some(p) => {
                    failed += 1;
                    failures.push(p);
                }
            }
        }
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert!(passed > 150, "too few CRDs found: {passed}");
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(
        passed + failed + skipped,
        expected,
        "ran fewer CRDs than the corpora hold"
    );
}
