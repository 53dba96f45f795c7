//! End-to-end tests of `kcel test`: a case file with `-o json` against a hand-written out
//! file, and declarative test suites (pass/fail/skip lines, summary, exit codes, CRD patches
//! and feature gates). Fixtures are in `tests/testdata/test_cmd/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/testdata/test_cmd")
        .join(name)
}

fn kcel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kcel"))
        .args(args)
        .output()
        .expect("the kcel binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn path(name: &str) -> String {
    data(name).to_string_lossy().into_owned()
}

#[test]
fn case_file_json_output_matches_the_out_file() {
    let o = kcel(&["test", &path("cases.yaml"), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let got: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON output");
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("cases.out.json")).expect("out file"))
            .expect("out file is JSON");
    assert_eq!(got, want);
}

/// A fresh folder holding `cases.yaml` and, when given, expected results beside it.
fn case_dir(tag: &str, expected: Option<&str>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kcel-test-cmd-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::copy(data("cases.yaml"), dir.join("cases.yaml")).expect("copy");
    if let Some(text) = expected {
        std::fs::write(dir.join("cases.out.json"), text).expect("write expected");
    }
    dir
}

#[test]
fn case_file_text_output_has_one_line_per_case() {
    // Without expected results: one line per case with its outcome, exit 0.
    let dir = case_dir("plain", None);
    let o = kcel(&["test", dir.join("cases.yaml").to_str().expect("UTF-8")]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "valid: Success\n\
         too-big: Widget.example.com \"b\" is invalid: spec.count: Invalid value: 11: spec.count in body should be less than or equal to 10\n\
         duplicate-and-unknown: Success\n"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn case_file_with_expected_results_beside_it_passes() {
    let o = kcel(&["test", &path("cases.yaml")]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "PASS valid\nPASS too-big\nPASS duplicate-and-unknown\n3 passed, 0 failed, 0 skipped\n"
    );
}

#[test]
fn a_mismatch_exits_1_with_a_diff() {
    let want = std::fs::read_to_string(data("cases.out.json")).expect("out file");
    let changed = want.replace(
        "spec.count in body should be less than or equal to 10",
        "spec.count in body should be less than or equal to 12",
    );
    assert_ne!(want, changed);
    let dir = case_dir("mismatch", Some(&changed));
    let file = dir.join("cases.yaml");
    let o = kcel(&["test", file.to_str().expect("UTF-8")]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(out.contains("PASS valid\n"), "{out}");
    assert!(out.contains("FAIL too-big: --- expected  +++ got\nstatus.details.causes:\n  - FieldValueInvalid|spec.count|Invalid value: 11: spec.count in body should be less than or equal to 12\n  + FieldValueInvalid|spec.count|Invalid value: 11: spec.count in body should be less than or equal to 10\n"), "{out}");
    assert!(out.ends_with("2 passed, 1 failed, 0 skipped\n"), "{out}");
    // With -o json: the results on standard output, the report on standard error.
    let o = kcel(&["test", file.to_str().expect("UTF-8"), "-o", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let results: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON results");
    assert_eq!(results.as_array().map(Vec::len), Some(3));
    assert!(stderr(&o).contains("FAIL too-big"), "{}", stderr(&o));
    // --expected names the file explicitly.
    let o = kcel(&[
        "test",
        file.to_str().expect("UTF-8"),
        "--expected",
        &path("cases.out.json"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn flags_that_do_not_apply_are_usage_errors() {
    let cases = path("cases.yaml");
    let suite = path("widgets.testsuite.yaml");
    let crd = path("widgets.crd.yaml");
    for (args, says) in [
        (
            vec!["test", &cases, "--crd", &crd],
            "--crd applies to test suites",
        ),
        (
            vec!["test", &cases, "--feature-gate", "X"],
            "--feature-gate applies to test suites",
        ),
        (
            vec!["test", &suite, "--crd", &crd, "--expected", &cases],
            "--expected applies to exactly one case file",
        ),
        (
            vec!["test", &suite, &cases, "--crd", &crd, "-o", "json"],
            "-o json prints case results or suite results",
        ),
    ] {
        let o = kcel(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn suites_print_json_records() {
    let o = kcel(&[
        "test",
        "--crd",
        &path("widgets.crd.yaml"),
        &path("widgets.testsuite.yaml"),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let records: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let records = records.as_array().expect("an array");
    assert_eq!(records.len(), 4);
    assert_eq!(records[0]["result"], "pass");
    assert_eq!(records[0]["operation"], "onCreate");
    assert_eq!(records[1]["result"], "fail");
    assert!(
        records[1]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("rejected: ")),
        "{records:?}"
    );
    assert!(stderr(&o).contains("passed, 1 failed"), "{}", stderr(&o));
}

#[test]
fn suite_reports_pass_fail_lines_summary_and_exit_code() {
    let o = kcel(&[
        "test",
        "--crd",
        &path("widgets.crd.yaml"),
        &path("widgets.testsuite.yaml"),
    ]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(
        lines[0],
        "PASS [Stable] Widget / onCreate / Should default the color"
    );
    assert_eq!(
        lines[1],
        "FAIL [Stable] Widget / onCreate / Should accept a count of 11 (it does not): rejected: \
         Widget.example.com \"test\" is invalid: spec.count: Invalid value: 11: spec.count in body \
         should be less than or equal to 10"
    );
    // Passes only if the initial object was written under the patched CRD (no maximum) and
    // its status through the status subresource.
    assert_eq!(
        lines[2],
        "PASS [Stable] Widget / onUpdate / Should keep a count stored before the maximum existed"
    );
    assert_eq!(
        lines[3],
        "PASS [Stable] Widget / onUpdate / Should reject a new count above the maximum"
    );
    assert_eq!(lines[4], "3 passed, 1 failed, 0 skipped");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn suites_needing_feature_gates_are_skipped_with_the_reason() {
    let crd = path("widgets.crd.yaml");
    let suite = path("gated.testsuite.yaml");
    let o = kcel(&["test", "--crd", &crd, &suite]);
    assert_eq!(
        stdout(&o),
        "SKIP [TechPreview] Widget / onCreate / Should accept blue: the suite needs feature gate \
         WidgetColors, which is not enabled (--feature-gate WidgetColors)\n\
         0 passed, 0 failed, 1 skipped\n"
    );
    assert_eq!(o.status.code(), Some(0));

    let o = kcel(&[
        "test",
        "--crd",
        &crd,
        &suite,
        "--feature-gate",
        "WidgetColors,LegacyWidgets",
    ]);
    assert!(
        stdout(&o).contains("needs feature gate LegacyWidgets disabled, but it is enabled"),
        "{}",
        stdout(&o)
    );

    let o = kcel(&[
        "test",
        "--crd",
        &crd,
        &suite,
        "--feature-gate",
        "WidgetColors",
    ]);
    assert_eq!(
        stdout(&o),
        "PASS [TechPreview] Widget / onCreate / Should accept blue\n1 passed, 0 failed, 0 skipped\n"
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_bad_crd_patch_fails_the_test() {
    let dir = std::env::temp_dir().join(format!("kcel-test-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let suite = dir.join("bad-patch.testsuite.yaml");
    std::fs::write(
        &suite,
        "name: S\ncrdName: widgets.example.com\ntests:\n  onUpdate:\n  - name: T\n    \
         initialCRDPatches:\n    - op: remove\n      path: /spec/nosuch\n    initial: |\n      \
         apiVersion: example.com/v1\n      kind: Widget\n    updated: |\n      \
         apiVersion: example.com/v1\n      kind: Widget\n",
    )
    .expect("write suite");
    let o = kcel(&[
        "test",
        "--crd",
        &path("widgets.crd.yaml"),
        &suite.to_string_lossy(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        stdout(&o).starts_with("FAIL S / onUpdate / T: initialCRDPatches:"),
        "{}",
        stdout(&o)
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn unreadable_input_is_a_usage_error() {
    let o = kcel(&["test", &path("no-such-file.yaml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-file.yaml"), "{}", stderr(&o));
}

/// The request's namespace on creates, updates and status updates of cluster-scoped and
/// namespaced kinds, system metadata and finalizer warnings: `namespaces.out.json` is what
/// Kubernetes 1.35 answers (recorded with `shared/oracle-probe`).
#[test]
fn case_file_namespaces_and_metadata_match_kubernetes() {
    let o = kcel(&["test", &path("namespaces.yaml"), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let got: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON output");
    let want: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(data("namespaces.out.json")).expect("out file"),
    )
    .expect("out file is JSON");
    assert_eq!(got, want);
}

/// `-n` is the request's namespace for cases that name none.
#[test]
fn case_file_namespace_flag_applies_to_cases_without_one() {
    let o = kcel(&[
        "test",
        "-n",
        "team-b",
        &path("namespaces.yaml"),
        "-o",
        "json",
    ]);
    let got: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON output");
    let case = |name: &str| {
        got.as_array()
            .and_then(|a| a.iter().find(|r| r["name"] == name))
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        case("namespaced-create-without-namespace")["objectAfterDecode"]["metadata"]["namespace"],
        "team-b"
    );
    assert_eq!(
        case("namespaced-create-own-namespace")["status"]["reason"],
        "BadRequest"
    );
    assert_eq!(
        case("namespaced-create-request-fills")["objectAfterDecode"]["metadata"]["namespace"],
        "team-b"
    );
}

/// A cluster-scoped object that names a namespace loses it, on create and on update.
#[test]
fn suite_cluster_scoped_objects_may_name_a_namespace() {
    let o = kcel(&[
        "test",
        "--crd",
        &path("gadgets.crd.yaml"),
        &path("gadgets.testsuite.yaml"),
    ]);
    assert_eq!(
        stdout(&o).lines().last(),
        Some("2 passed, 0 failed, 0 skipped"),
        "{}",
        stdout(&o)
    );
    assert_eq!(o.status.code(), Some(0));
}

/// With `-n`, objects of namespaced kinds land in that namespace and objects naming another
/// are refused; without it each object's own namespace is used.
#[test]
fn suite_namespace_flag_is_the_request_namespace() {
    let args = |ns: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = vec!["test".into()];
        v.extend(ns.iter().map(|s| s.to_string()));
        v.extend([
            "--crd".into(),
            path("widgets.crd.yaml"),
            path("namespaced.testsuite.yaml"),
        ]);
        v
    };
    let with = args(&["-n", "team-b"]);
    let o = kcel(&with.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        stdout(&o).lines().last(),
        Some("4 passed, 0 failed, 0 skipped"),
        "{}",
        stdout(&o)
    );
    let without = args(&[]);
    let o = kcel(&without.iter().map(String::as_str).collect::<Vec<_>>());
    let out = stdout(&o);
    assert!(
        out.contains("FAIL [Stable] Widget in a namespace / onCreate / Should refuse an object of another namespace: accepted"),
        "{out}"
    );
    assert_eq!(
        out.lines().last(),
        Some("2 passed, 2 failed, 0 skipped"),
        "{out}"
    );
}
