//! `kcel gen` end to end: the binary on the golden inputs of `crates/proto/tests/golden`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn golden(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../proto/tests/golden")
        .join(case)
}

fn kcel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kcel"))
        .args(args)
        .output()
        .expect("kcel runs")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn gen_schema_prints_the_seed_yaml() {
    let dir = golden("seed_xvalidation");
    let input = dir.join("input.proto");
    let out = kcel(&[
        "gen",
        "schema",
        "--no-check",
        "-I",
        path(&dir),
        path(&input),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = std::fs::read_to_string(dir.join("expected.yaml")).expect("golden");
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}

#[test]
fn gen_schema_selects_one_message() {
    let dir = golden("markers_extra");
    let input = dir.join("input.proto");
    let out = kcel(&[
        "gen",
        "schema",
        "--no-check",
        "--message",
        "extra.Port",
        path(&input),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("schemas:\n  extra.Port:\n"), "{text}");
    assert!(!text.contains("extra.Range"), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.is_empty(),
        "only Port is generated, so no warning: {stderr}"
    );
}

#[test]
fn gen_crd_prints_the_crd() {
    let dir = golden("crd_widget");
    let input = dir.join("input.proto");
    let out = kcel(&[
        "gen",
        "crd",
        "--no-check",
        path(&input),
        "--group",
        "example.com",
        "--kind",
        "Widget",
        "--version",
        "v1",
        "--status-message",
        "widgets.example.com.v1.WidgetStatus",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = std::fs::read_to_string(dir.join("expected.yaml")).expect("golden");
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}

/// The generated CRDs of the tests pass `kcel check`, and `gen crd` (which
/// checks before writing) accepts them.
#[test]
fn generated_crds_pass_kcel_check() {
    let dir = golden("crd_widget");
    let input = dir.join("input.proto");
    let out = kcel(&[
        "gen",
        "crd",
        path(&input),
        "--group",
        "example.com",
        "--kind",
        "Widget",
        "--version",
        "v1",
        "--status-message",
        "widgets.example.com.v1.WidgetStatus",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let check = kcel(&["check", path(&dir.join("expected.yaml"))]);
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(stdout.contains("1 accepted, 0 rejected"), "{stdout}");
}

#[test]
fn recursion_fails_with_the_cycle_and_writes_nothing() {
    let dir = golden("recursion_error");
    let out = kcel(&["gen", "schema", path(&dir.join("input.proto"))]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("input.proto:12: error: recursive message: rec.Recursive.r -> rec.Recursive")
            && stderr.contains("+kubebuilder:validation:Type=object"),
        "{stderr}"
    );
}

#[test]
fn unknown_markers_warn_with_file_and_line() {
    let dir = golden("markers_extra");
    let out = kcel(&[
        "gen",
        "schema",
        "--no-check",
        path(&dir.join("input.proto")),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "input.proto:7: warning: unknown marker +kubebuilder:validation:ExactlyOneOf"
        ),
        "{stderr}"
    );
}

#[test]
fn crd_names_are_validated() {
    let dir = golden("crd_widget");
    let input = dir.join("input.proto");
    let out = kcel(&[
        "gen",
        "crd",
        path(&input),
        "--group",
        "nodot",
        "--kind",
        "Widget",
        "--version",
        "v1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("group \"nodot\""));
}

#[test]
fn missing_files_are_reported() {
    let out = kcel(&[
        "gen",
        "schema",
        "-I",
        "/nonexistent",
        "/nonexistent/x.proto",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!out.stderr.is_empty());
}

#[test]
fn generated_rules_are_checked_before_writing() {
    let dir = std::env::temp_dir().join(format!("kcel-gen-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("bad.proto");
    std::fs::write(
        &file,
        "syntax = \"proto3\";\npackage bad;\nmessage M {\n  // +kubebuilder:validation:XValidation:rule=\"self.x >\"\n  string x = 1;\n}\n",
    )
    .expect("write input");
    let out = kcel(&["gen", "schema", path(&file)]);
    let unchecked = kcel(&["gen", "schema", "--no-check", path(&file)]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "schemas[bad.M].properties[x].x-kubernetes-validations[0].rule: Invalid value:"
        ) && stderr.contains("compilation failed: ERROR: <input>:1:"),
        "{stderr}"
    );
    assert!(unchecked.status.success());
}

#[test]
fn checked_crd_generation_succeeds_on_valid_rules() {
    let dir = golden("crd_widget");
    let out = kcel(&[
        "gen",
        "crd",
        path(&dir.join("input.proto")),
        "--group",
        "example.com",
        "--kind",
        "Widget",
        "--version",
        "v1",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
