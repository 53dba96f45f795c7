//! `kcel validate` with built-in kinds: the Gateway API examples (their `Namespace` documents
//! are built-in kinds), `--schemas`, and the notice for releases newer than the shipped schemas.

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{kcel, shared, stderr, stdout};

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
}

#[test]
fn gateway_api_examples_with_namespaces() {
    let Some(shared) = shared("Gateway API examples") else {
        return;
    };
    let root = shared.join("corpora/gateway-api");
    let (mut passed, mut failed) = (0, 0);
    let mut expected = 0;
    for channel in ["standard", "experimental"] {
        let crds = root.join("config/crd").join(channel);
        let crds = crds.to_string_lossy();
        let validate = |input: &Path| {
            let input = input.to_string_lossy();
            kcel(&["validate", "--kube-version", "1.35", "--crd", &crds, &input])
        };
        // Exit 0: every example valid, the Namespaces among them validated as built-in kinds
        // (a kind nothing serves would exit 2).
        let o = validate(&root.join("examples").join(channel));
        if o.status.code() == Some(0) && !stderr(&o).contains("no matches for kind") {
            passed += 1;
        } else {
            failed += 1;
            eprintln!(
                "FAIL examples/{channel}: exit {:?}\n{}",
                o.status.code(),
                stderr(&o)
            );
        }
        let mut invalid = Vec::new();
        yaml_files(
            &root.join("hack/invalid-examples").join(channel),
            &mut invalid,
        );
        assert!(!invalid.is_empty(), "no invalid {channel} examples");
        // The channel's cases: its examples folder as a whole, then each invalid example.
        expected += 1 + invalid.len();
        for f in invalid {
            let o = validate(&f);
            if o.status.code() == Some(1) {
                passed += 1;
            } else {
                failed += 1;
                eprintln!(
                    "FAIL {}: exit {:?}\n{}",
                    f.display(),
                    o.status.code(),
                    stderr(&o)
                );
            }
        }
    }
    println!("{passed} passed, {failed} failed, 0 skipped");
    assert_eq!(failed, 0);
    assert_eq!(
        passed + failed,
        expected,
        "ran fewer cases than the corpus holds"
    );
}

/// `kcel validate --kube-version 1.<minor>` on a file holding `text`.
fn validate_text(name: &str, text: &str, minor: u32) -> Output {
    let dir = tempdir(name);
    let file = dir.join(format!("{name}.yaml"));
    std::fs::write(&file, text).expect("written");
    let version = format!("1.{minor}");
    kcel(&[
        "validate",
        "--kube-version",
        &version,
        &file.to_string_lossy(),
    ])
}

#[test]
fn namespaces_are_built_in_kinds() {
    let o = validate_text(
        "namespaces",
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: ok}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ok, bogus: 1}\n",
        35,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        out.contains("strict decoding error: unknown field \"metadata.bogus\""),
        "{out}"
    );
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kcel-builtins-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

const THING_DOCUMENT: &str = r##"{
  "openapi": "3.0.0",
  "paths": {"/apis/example.com/v1/namespaces/{namespace}/things": {"post": {"x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Thing"}}}},
  "components": {"schemas": {
    "com.example.v1.Thing": {
      "type": "object",
      "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Thing"}],
      "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"type": "object", "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}}},
        "spec": {"type": "object", "required": ["size"], "properties": {"size": {"type": "integer", "format": "int32"}}}}
    }
  }}
}"##;

#[test]
fn schemas_add_kinds() {
    let dir = tempdir("schemas");
    let schemas = dir.join("openapi");
    std::fs::create_dir_all(schemas.join("apis/example.com")).expect("dirs");
    std::fs::write(schemas.join("apis/example.com/v1.json"), THING_DOCUMENT).expect("written");
    let good = dir.join("good.yaml");
    std::fs::write(
        &good,
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {size: 1}\n",
    )
    .expect("written");
    let bad = dir.join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {}\n",
    )
    .expect("written");
    let s = schemas.to_string_lossy();
    let o = kcel(&["validate", "--schemas", &s, &good.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = kcel(&["validate", "--schemas", &s, &bad.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("spec.size: Required value")
            || stderr(&o).contains("spec.size: Required value"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    // Without the schemas, no kind serves it.
    let o = kcel(&["validate", &good.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A document that is not JSON is a usage error naming it.
    std::fs::write(schemas.join("broken.json"), "{").expect("written");
    let o = kcel(&["validate", "--schemas", &s, &good.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("broken.json"), "{}", stderr(&o));
}

#[test]
fn newer_releases_print_a_notice_once() {
    let two = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n";
    let o = validate_text("notice", two, 37);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).matches("schemas of 1.35").count(),
        1,
        "{}",
        stderr(&o)
    );
    let o = validate_text("notice", two, 35);
    assert!(!stderr(&o).contains("schemas of 1.35"), "{}", stderr(&o));
}

#[test]
fn no_notice_without_built_in_kinds() {
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.37",
        "--crd",
        "examples/widget-crd.yaml",
        "examples/widget-valid.yaml",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("notice"), "{}", stderr(&o));
}
