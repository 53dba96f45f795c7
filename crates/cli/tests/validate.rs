//! `kcel validate` as a CI gate: it fails closed (every unreadable input, document without a
//! kind, rejected or conflicting CRD is an error naming file and line, exit 2, and the other
//! inputs are still validated), selects kinds, renders each report format, and prints the same
//! bytes whatever `-j` says.

use std::path::PathBuf;
use std::process::Output;

mod common;
use common::{kcel, kcel_stdin, root, stdout};

const CRD: &str = "examples/widget-crd.yaml";

/// A fresh directory for one test, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("kcel-validate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    /// Writes `bytes` to `name` in the directory and returns its path.
    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("parent dir");
        }
        std::fs::write(&path, bytes).expect("write");
        path.to_string_lossy().into_owned()
    }

    fn path(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn widget(name: &str, replicas: u32) -> String {
    format!(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {name}\nspec:\n  size: small\n  replicas: {replicas}\n"
    )
}

/// The summary line of a text report.
fn summary(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or("").to_string()
}

/// The run's output must hold `line` (a whole line).
fn assert_line(o: &Output, line: &str) {
    let out = stdout(o);
    assert!(
        out.lines().any(|l| l == line),
        "no line {line:?} in:\n{out}"
    );
}

#[test]
fn unreadable_and_malformed_files_in_a_directory_are_errors_and_the_rest_is_validated() {
    let dir = TempDir::new("dir");
    dir.write("a.yaml", widget("a", 1));
    let bad = dir.write("b.yaml", "apiVersion: v1\nkind: [unclosed\n");
    let binary = dir.write("c.yaml", b"apiVersion: v1\n\xff\xfe\x00binary");
    dir.write("d.yaml", widget("d", 2));
    let o = kcel(&["validate", "--crd", CRD, &dir.path()]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert_line(
        &o,
        &format!("{}/a.yaml:1: Widget \"a\" is valid", dir.path()),
    );
    assert_line(
        &o,
        &format!("{}/d.yaml:1: Widget \"d\" is valid", dir.path()),
    );
    let out = stdout(&o);
    assert!(
        out.contains(&format!("{bad}:3: error: syntax error")),
        "{out}"
    );
    assert_line(
        &o,
        &format!("{binary}:2: error: not UTF-8 text (a binary file?)"),
    );
    assert_eq!(summary(&o), "2 valid, 0 invalid, 2 errors, 0 skipped");

    let o = kcel(&["validate", "--crd", CRD, "no/such/file.yaml", &dir.path()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).starts_with("no/such/file.yaml: error: "),
        "{}",
        stdout(&o)
    );
    assert_eq!(summary(&o), "2 valid, 0 invalid, 3 errors, 0 skipped");
}

#[test]
fn documents_without_kind_or_api_version_are_errors_empty_ones_are_fine() {
    let dir = TempDir::new("nokind");
    let f = dir.write(
        "f.yaml",
        format!(
            "---\n# only a comment\n---\napiVersion: example.com/v1\nmetadata: {{name: x}}\n---\nkind: Widget\nmetadata: {{name: y}}\n---\n{}",
            widget("ok", 1)
        ),
    );
    let o = kcel(&["validate", "--crd", CRD, &f]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert_line(&o, &format!("{f}:4: error: Object 'Kind' is missing"));
    assert_line(&o, &format!("{f}:7: error: Object 'apiVersion' is missing"));
    assert_line(&o, &format!("{f}:10: Widget \"ok\" is valid"));
    assert_eq!(summary(&o), "1 valid, 0 invalid, 2 errors, 0 skipped");
}

/// A CRD kube-apiserver rejects (a type misspelt, as kubectl-validate's `error_crd_typo.yaml`)
/// is an error at its own line, given with `--crd` or among the inputs, and the objects of its
/// kind are errors naming it; the other inputs are validated.
#[test]
fn rejected_crds_are_errors_and_not_used() {
    let dir = TempDir::new("badcrd");
    let good = std::fs::read_to_string(root().join(CRD)).expect("CRD");
    let typo = good
        .replacen("widgets.example.com", "gadgets.example.com", 1)
        .replace("kind: Widget", "kind: Gadget")
        .replace("plural: widgets", "plural: gadgets")
        .replace("singular: widget", "singular: gadget")
        .replacen("type: integer", "type: intger", 1);
    assert_ne!(typo, good);
    let crd = dir.write("gadget-crd.yaml", format!("# a comment\n{typo}"));
    let gadget = dir.write(
        "g.yaml",
        "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {size: small, replicas: 1}\n",
    );
    let w = dir.write("w.yaml", widget("w", 1));
    let o = kcel(&["validate", "--crd", CRD, "--crd", &crd, &gadget, &w]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let out = stdout(&o);
    let expected = format!(
        "{crd}:4: error: The CustomResourceDefinition \"gadgets.example.com\" is invalid: \n* spec.validation.openAPIV3Schema.properties[spec].properties[replicas].type: Unsupported value: \"intger\""
    );
    assert!(out.starts_with(&expected), "{out}");
    assert_line(
        &o,
        &format!(
            "{gadget}:1: error: no usable CustomResourceDefinition serves kind \"Gadget\" in version \"example.com/v1\": the CustomResourceDefinition at {crd}:4 is rejected"
        ),
    );
    assert_line(&o, &format!("{w}:1: Widget \"w\" is valid"));
    // Among the inputs, the same.
    let o = kcel(&["validate", "--crd", CRD, &crd, &w]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stdout(&o).starts_with(&expected), "{}", stdout(&o));
}

#[test]
fn different_crds_of_one_name_are_an_error_identical_ones_are_fine() {
    let dir = TempDir::new("dupcrd");
    let good = std::fs::read_to_string(root().join(CRD)).expect("CRD");
    let same = dir.write("same.yaml", &good);
    let other = dir.write("other.yaml", good.replace("maxLength: 63", "maxLength: 62"));
    assert_ne!(good, std::fs::read_to_string(&other).expect("written"));
    let w = dir.write("w.yaml", widget("w", 1));
    let o = kcel(&["validate", "--crd", CRD, "--crd", &same, &w]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(summary(&o), "1 valid, 0 invalid, 0 errors, 0 skipped");
    let o = kcel(&["validate", "--crd", CRD, "--crd", &other, &w]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stdout(&o).starts_with(&format!(
            "{other}:3: error: CustomResourceDefinition \"widgets.example.com\" differs from the one of the same name at {CRD}:3; only that one is used\n"
        )),
        "{}",
        stdout(&o)
    );
    assert_line(&o, &format!("{w}:1: Widget \"w\" is valid"));
}

#[test]
fn missing_schemas_are_errors_unless_ignored() {
    let dir = TempDir::new("missing");
    let f = dir.write(
        "f.yaml",
        format!(
            "apiVersion: other.io/v1\nkind: Thing\nmetadata: {{name: t}}\n---\n{}",
            widget("w", 1)
        ),
    );
    let o = kcel(&["validate", "--crd", CRD, &f]);
    assert_eq!(o.status.code(), Some(2));
    assert_line(
        &o,
        &format!(
            "{f}:1: error: no matches for kind \"Thing\" in version \"other.io/v1\" (neither a CustomResourceDefinition given nor a built-in kind serves it)"
        ),
    );
    let o = kcel(&["validate", "--crd", CRD, "--ignore-missing-schemas", &f]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_line(
        &o,
        &format!("{f}:1: Thing \"t\" skipped: no schema (--ignore-missing-schemas)"),
    );
    assert_eq!(summary(&o), "1 valid, 0 invalid, 0 errors, 1 skipped");
}

#[test]
fn skip_and_reject_kinds_as_kubeconform() {
    let dir = TempDir::new("kinds");
    let f = dir.write(
        "f.yaml",
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\n---\n{}",
            widget("w", 1)
        ),
    );
    let o = kcel(&[
        "validate",
        "--crd",
        CRD,
        "--skip-kinds",
        "ConfigMap, apps/v1/Deployment",
        &f,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(summary(&o), "1 valid, 0 invalid, 0 errors, 2 skipped");
    // An apiVersion/Kind pattern matches that version only; repeated flags add up.
    let o = kcel(&[
        "validate",
        "--crd",
        CRD,
        "--skip-kinds",
        "v1/ConfigMap",
        "--skip-kinds",
        "apps/v1beta1/Deployment",
        &f,
    ]);
    // The Deployment, not skipped, is validated as a built-in kind (it has no spec).
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(summary(&o), "1 valid, 1 invalid, 0 errors, 1 skipped");
    // Skipping wins over rejecting; a rejected kind is an error.
    let o = kcel(&[
        "validate",
        "--crd",
        CRD,
        "--skip-kinds",
        "ConfigMap,Deployment",
        "--reject-kinds",
        "ConfigMap,Widget",
        &f,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_line(
        &o,
        &format!("{f}:9: error: prohibited resource kind Widget"),
    );
    assert_eq!(summary(&o), "0 valid, 0 invalid, 1 errors, 2 skipped");
}

#[test]
fn field_validation_modes() {
    let dir = TempDir::new("fields");
    let f = dir.write("f.yaml", format!("{}  colour: red\n", widget("w", 1)));
    let strict = kcel(&["validate", "--crd", CRD, &f]);
    assert_eq!(strict.status.code(), Some(1), "{}", stdout(&strict));
    assert!(
        stdout(&strict).contains("unknown field \"spec.colour\""),
        "{}",
        stdout(&strict)
    );
    let warn = kcel(&["validate", "--crd", CRD, "--validate", "warn", &f]);
    assert_eq!(warn.status.code(), Some(0), "{}", stdout(&warn));
    assert_line(
        &warn,
        &format!("{f}:1: Warning: unknown field \"spec.colour\""),
    );
    let ignore = kcel(&["validate", "--crd", CRD, "--validate", "ignore", &f]);
    assert_eq!(ignore.status.code(), Some(0));
    assert!(!stdout(&ignore).contains("colour"), "{}", stdout(&ignore));
}

#[test]
fn list_items_report_at_their_own_lines() {
    let dir = TempDir::new("list");
    let f = dir.write(
        "list.yaml",
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: a}\n  spec: {size: small, replicas: 1}\n- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: b}\n  spec: {size: small}\n",
    );
    let o = kcel(&["validate", "--crd", CRD, &f]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert_line(&o, &format!("{f}:4: Widget \"a\" is valid"));
    assert!(
        stdout(&o).contains(&format!("{f}:8: The Widget \"b\" is invalid")),
        "{}",
        stdout(&o)
    );
}

/// The inputs stream file by file, yet a CRD among them serves the objects of every file, those
/// before it too: in a later file, on standard input, and with its kind escaped in a JSON string
/// (which a first pass finds by the backslash).
#[test]
fn crds_among_the_inputs_serve_objects_read_before_them() {
    let dir = TempDir::new("late-crd");
    let crd = std::fs::read_to_string(root().join(CRD)).expect("CRD");
    let objects = dir.write("a.yaml", widget("a", 1));
    let late = dir.write("b.yaml", &crd);
    for jobs in ["1", "2", "3"] {
        let o = kcel(&["validate", "-j", jobs, &objects, &late]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        assert_line(&o, &format!("{objects}:1: Widget \"a\" is valid"));
        let o = kcel_stdin(&["validate", "-j", jobs, &objects, "-"], &crd);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        assert_line(&o, &format!("{objects}:1: Widget \"a\" is valid"));
    }
    let value: serde_json::Value = first_document(&crd);
    let json = serde_json::to_string(&value).expect("JSON").replace(
        "\"CustomResourceDefinition\"",
        "\"\\u0043ustomResourceDefinition\"",
    );
    assert!(json.contains("u0043ustom"), "kind escaped");
    let escaped = dir.write("c.json", json);
    let o = kcel(&["validate", "-j", "2", &objects, &escaped]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_line(&o, &format!("{objects}:1: Widget \"a\" is valid"));
}

/// The first document of `text` (YAML), read as `kcel` reads documents.
fn first_document(text: &str) -> serde_json::Value {
    kcel_kube::documents::parse_documents("crd.yaml", text)
        .expect("parses")
        .into_iter()
        .next()
        .expect("one document")
        .value
}

/// Many documents across files, valid, invalid and errors: every `-j` and every format prints
/// the same bytes as `-j 1`.
#[test]
fn parallel_output_is_byte_identical() {
    let dir = TempDir::new("jobs");
    for f in 0..8 {
        let mut text = String::new();
        for d in 0..40 {
            let doc = match (f * 40 + d) % 5 {
                0 => "apiVersion: example.com/v1\nmetadata: {name: nokind}\n".to_string(),
                1 => {
                    widget(&format!("big-{f}-{d}"), 3).replace("small", "large")
                        + "  minReplicas: 4\n"
                }
                2 => "apiVersion: other.io/v1\nkind: Thing\nmetadata: {name: t}\n".to_string(),
                _ => widget(&format!("w-{f}-{d}"), d % 4 + 1),
            };
            text.push_str("---\n");
            text.push_str(&doc);
        }
        dir.write(&format!("f{f}.yaml"), text);
    }
    for format in ["text", "json", "junit", "tap", "sarif", "github"] {
        let one = kcel(&[
            "validate",
            "--crd",
            CRD,
            "-j",
            "1",
            "-o",
            format,
            &dir.path(),
        ]);
        assert_eq!(one.status.code(), Some(2), "{format}");
        assert!(one.stdout.len() > 1000, "{format}");
        for jobs in ["2", "3", "8"] {
            let many = kcel(&[
                "validate",
                "--crd",
                CRD,
                "-j",
                jobs,
                "-o",
                format,
                &dir.path(),
            ]);
            assert_eq!(many.status.code(), Some(2));
            assert!(
                one.stdout == many.stdout,
                "-o {format} -j {jobs} differs from -j 1"
            );
        }
    }
    let o = kcel(&["validate", "--crd", CRD, "-j", "2", &dir.path()]);
    assert_eq!(summary(&o), "128 valid, 64 invalid, 128 errors, 0 skipped");
}

#[test]
fn each_format_through_the_command_line() {
    let o = |format: &str| {
        kcel(&[
            "validate",
            "--crd",
            CRD,
            "-o",
            format,
            "examples/widget-valid.yaml",
            "examples/widget-invalid.yaml",
        ])
    };
    let json = o("json");
    assert_eq!(json.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON document");
    assert_eq!(v["documents"][1]["file"], "examples/widget-invalid.yaml");
    assert_eq!(v["documents"][1]["verdict"], "invalid");
    assert_eq!(v["documents"][1]["status"]["reason"], "Invalid");
    assert_eq!(v["summary"]["invalid"], 1);
    let junit = stdout(&o("junit"));
    assert!(junit.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kcel validate\" tests=\"2\" failures=\"1\""), "{junit}");
    let tap = stdout(&o("tap"));
    assert!(
        tap.starts_with(
            "TAP version 14\n1..2\nok 1 - examples/widget-valid.yaml:1 Widget \"w1\"\nnot ok 2 - "
        ),
        "{tap}"
    );
    let sarif: serde_json::Value = serde_json::from_slice(&o("sarif").stdout).expect("JSON");
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "examples/widget-invalid.yaml"
    );
    let github = stdout(&o("github"));
    assert!(
        github.starts_with("::error file=examples/widget-invalid.yaml,line=1,title=Widget \"w2\" is invalid::The Widget \"w2\" is invalid: %0A* spec.minReplicas"),
        "{github}"
    );
    // Not a terminal: no colour.
    assert!(!stdout(&o("text")).contains('\u{1b}'));
}

#[test]
fn completion_and_version() {
    for shell in ["bash", "zsh", "fish"] {
        let o = kcel(&["completion", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        assert!(stdout(&o).contains("validate"), "{shell}");
        assert!(stdout(&o).contains("skip-kinds"), "{shell}");
    }
    let version = kcel(&["version"]);
    let text = stdout(&version);
    assert!(
        text.starts_with(&format!(
            "kcel {}\nKubernetes 1.28 to ",
            env!("CARGO_PKG_VERSION")
        )),
        "{text}"
    );
    assert_eq!(stdout(&kcel(&["--version"])), text);
}
