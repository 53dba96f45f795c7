//! kubectl-validate's test cases (`../shared/corpora/kubectl-validate/testcases`): every YAML
//! document of `manifests/*.yaml` starts with a comment holding the expected `metav1.Status`
//! (none: success). Custom resources of the CRDs in `crds/` run through the create pipeline
//! (Kubernetes 1.35); `CustomResourceDefinition` documents through CRD self-validation.
//!
//! Documents listed in `kubectl_validate.skip` (`<file>#<index> <reason>`) are not run; a
//! document of a kind no CRD defines (a native kind) must be listed there. Closing line:
//! `N passed, N failed, N skipped`.

use std::path::{Path, PathBuf};

use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::pipeline::{KubeVersion, Status, crd_validation};
use kcel_kube::{Request, Validator};
use serde_json::Value;

mod common;
use common::{compare_status, reorder_message, shared_or_skip, skip_list};

/// One document: its expected status (from the leading comment) and its text.
struct Document {
    expected: Value,
    text: String,
}

/// Splits a manifest at `---` lines and reads each document's leading comment block as JSON.
fn documents(text: &str) -> Vec<Document> {
    let mut docs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let flush = |lines: &mut Vec<&str>, docs: &mut Vec<Document>| {
        let mut comment = String::new();
        for l in lines.iter() {
            let t = l.trim_start();
            if let Some(c) = t.strip_prefix('#') {
                comment.push_str(c.strip_prefix(' ').unwrap_or(c));
                comment.push('\n');
            } else if t.is_empty() && comment.is_empty() {
                continue;
            } else {
                break;
            }
        }
        let expected = serde_json::from_str(&comment)
            .unwrap_or_else(|_| serde_json::json!({"status": "Success"}));
        docs.push(Document {
            expected,
            text: lines.join("\n"),
        });
        lines.clear();
    };
    for line in text.lines() {
        if line.trim_end() == "---" {
            flush(&mut current, &mut docs);
        } else {
            current.push(line);
        }
    }
    flush(&mut current, &mut docs);
    docs
}

/// A validator of the CRDs of `dir`'s files (files that do not load are left out).
fn load_crds(dir: &Path, kv: KubeVersion) -> Validator {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let mut builder = Validator::builder().kube_version(kv);
    for f in files {
        let _ = builder.add_crd_file(&f);
    }
    builder.build()
}

fn run_document(doc: &Document, crds: &Validator) -> Result<Option<()>, String> {
    let kv = crds.kube_version();
    let parsed = kcel_kube::yaml::parse_stream(&doc.text).map_err(|e| format!("YAML: {e}"))?;
    let Some(value) = parsed.into_iter().next().map(|d| d.value) else {
        // An empty document: nothing to validate.
        return compare_status(&Status::success(), &doc.expected, &|_| String::new()).map(Some);
    };
    if value.is_null() {
        return compare_status(&Status::success(), &doc.expected, &|_| String::new()).map(Some);
    }
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = value
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    if kind == "CustomResourceDefinition" {
        let crd: CustomResourceDefinition =
            serde_json::from_value(value.clone()).map_err(|e| format!("CRD decode: {e}"))?;
        let errs = crd_validation::validate_crd(&crd, kv);
        let status = if errs.is_empty() {
            Status::success()
        } else {
            Status::invalid(
                "apiextensions.k8s.io",
                "CustomResourceDefinition",
                &crd.metadata.name,
                &errs,
                kv,
            )
        };
        return compare_status(&status, &doc.expected, &|o| reorder_message(&status, o)).map(Some);
    }
    let Some(crd) = crds.find_kind(api_version, kind) else {
        return Ok(None);
    };
    let got = crds
        .validate(Request::create(value).against_crd(crd))
        .map_err(|e| e.to_string())?;
    compare_status(&got.status, &doc.expected, &|o| {
        reorder_message(&got.status, o)
    })
    .map(Some)
}

#[test]
fn kubectl_validate_cases() {
    let Some(shared) = shared_or_skip("kubectl-validate cases") else {
        return;
    };
    let skips = skip_list(include_str!("kubectl_validate.skip"));
    let root = shared.join("corpora/kubectl-validate/testcases");
    let crds = load_crds(&root.join("crds"), KubeVersion::new(35).expect("supported"));
    assert!(!crds.is_empty(), "no CRDs loaded from {}", root.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("manifests"))
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "yaml"));
    files.sort();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for f in files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&f).expect("read manifest");
        for (i, doc) in documents(&text).iter().enumerate() {
            let key = format!("{name}#{i}");
            if skips.contains_key(&key) {
                skipped += 1;
                continue;
            }
            match run_document(doc, &crds) {
                Ok(Some(())) => passed += 1,
                Ok(None) => {
                    failed += 1;
                    eprintln!("FAIL {key}: kind defined by no CRD and not listed in the skip file");
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("FAIL {key}: {e}");
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(failed, 0, "{failed} kubectl-validate documents failed");
}
