//! kubectl-validate's test cases (`../shared/corpora/kubectl-validate/testcases`): every YAML
//! document of `manifests/*.yaml` starts with a comment holding the expected `metav1.Status`
//! (none: success). Custom resources of the CRDs in `crds/` and built-in kinds run through the
//! validator's create pipeline (Kubernetes 1.35); `CustomResourceDefinition` documents through
//! CRD self-validation.
//!
//! Where kubectl-validate's expected status is an artifact of its own (its texts differ from
//! kube-apiserver's), `kubectl_validate.artifacts` lists the document with both texts and the
//! Go source that decides: the test checks that the comment still holds kubectl-validate's text
//! and that kcel answers with kube-apiserver's (code, reason and message).
//!
//! Documents listed in `kubectl_validate.skip` (`<file>#<index> <reason>`) are not run. Closing
//! line: `N passed, N failed, N skipped`.

use std::path::{Path, PathBuf};

use kcel_kube::crd::CustomResourceDefinition;
use kcel_kube::crd_review::schema;
use kcel_kube::pipeline::{KubeVersion, Status};
use kcel_kube::{Error, Request, Validator};
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

/// A document whose expected status kubectl-validate gives in texts of its own.
#[derive(serde::Deserialize)]
struct Artifact {
    /// `<manifest>#<index>`.
    document: String,
    /// kubectl-validate's message (the document's leading comment).
    kubectl_validate: String,
    /// kube-apiserver's answer: `<code> <reason>: <message>`, or, for a request kubectl never
    /// sends, kcel's error.
    kube_apiserver: String,
    /// The Go source (file, function) that decides kube-apiserver's answer.
    decided_by: String,
}

fn artifacts() -> std::collections::HashMap<String, Artifact> {
    let list: Vec<Artifact> = serde_json::from_str(include_str!("kubectl_validate.artifacts"))
        .expect("kubectl_validate.artifacts is a JSON list");
    list.into_iter()
        .inspect(|a| assert!(!a.decided_by.is_empty(), "{}: no source", a.document))
        .map(|a| (a.document.clone(), a))
        .collect()
}

/// kcel's answer as `<code> <reason>: <message>`, or its error.
fn answer_text(doc: &Document, crds: &Validator) -> Result<String, String> {
    let parsed = kcel_kube::yaml::parse_stream(&doc.text).map_err(|e| format!("YAML: {e}"))?;
    let value = parsed
        .into_iter()
        .next()
        .map(|d| d.value)
        .ok_or("empty document")?;
    match crds.validate(Request::create(value)) {
        Ok(v) if v.is_valid() => Ok("Success".into()),
        Ok(v) => Ok(format!(
            "{} {}: {}",
            v.status.code.unwrap_or(0),
            v.status.reason,
            v.status.message
        )),
        Err(e @ Error::NoMatchingCrd { .. }) => Ok(e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// The real decoder's error for each document (`<manifest>#<index>`), as
/// `tests/gen/builtin_decode` printed it (empty: decoded).
fn go_decode_errors() -> std::collections::HashMap<String, String> {
    include_str!("data/builtin_decode_kubectl_validate.jsonl")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let doc = v.get("doc").and_then(Value::as_u64).unwrap_or(0);
            (format!("{}#{doc}", s("file")), s("error"))
        })
        .collect()
}

fn run_artifact(doc: &Document, artifact: &Artifact, crds: &Validator) -> Result<(), String> {
    let comment = doc
        .expected
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("");
    if comment != artifact.kubectl_validate {
        return Err(format!(
            "the comment's message changed:\n  comment:  {comment}\n  artifact: {}",
            artifact.kubectl_validate
        ));
    }
    // A decoding answer is the real decoder's text.
    if let Some(rest) = artifact.kube_apiserver.strip_prefix("400 BadRequest: ") {
        let go = go_decode_errors();
        let want = go.get(&artifact.document).map_or("", String::as_str);
        if want.is_empty() || !rest.ends_with(&format!(": {want}")) {
            return Err(format!(
                "the artifact's text is not the Go decoder's:\n  artifact: {rest}\n  Go:       {want}"
            ));
        }
    }
    let got = answer_text(doc, crds)?;
    if got != artifact.kube_apiserver {
        return Err(format!(
            "kube-apiserver's answer:\n  got:  {got}\n  want: {}",
            artifact.kube_apiserver
        ));
    }
    Ok(())
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
        let errs = schema::validate_crd(&crd, kv);
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
    let request = match crds.find_kind(api_version, kind) {
        Some(crd) => Request::create(value).against_crd(crd),
        None => Request::create(value),
    };
    let got = match crds.validate(request) {
        Ok(got) => got,
        Err(Error::NoMatchingCrd { .. }) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
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
    let artifacts = artifacts();
    let mut artifacts_run = 0;
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
            if let Some(artifact) = artifacts.get(&key) {
                artifacts_run += 1;
                match run_artifact(doc, artifact, &crds) {
                    Ok(()) => passed += 1,
                    Err(e) => {
                        failed += 1;
                        eprintln!("FAIL {key} (artifact): {e}");
                    }
                }
                continue;
            }
            match run_document(doc, &crds) {
                Ok(Some(())) => passed += 1,
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
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(
        artifacts_run,
        artifacts.len(),
        "documents of kubectl_validate.artifacts not found in the corpus"
    );
    assert_eq!(failed, 0, "{failed} kubectl-validate documents failed");
}
