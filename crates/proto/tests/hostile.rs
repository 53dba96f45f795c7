//! Hostile inputs end in clear errors, never in a crash, a stack overflow or unbounded memory. The
//! inputs are generated into a temporary folder; tests run on libtest's 2 MiB thread stacks.

use std::fs;
use std::path::PathBuf;

use kcel_proto::{Options, Request, generate};

/// Writes `text` as `name` in a fresh folder and generates from it; returns the rendered
/// diagnostics of the failure (panics if generation succeeds).
fn fails(name: &str, text: &str) -> String {
    fails_with(name, text, Options::default())
}

/// [`fails`] with options.
fn fails_with(name: &str, text: &str, options: Options) -> String {
    let dir =
        std::env::temp_dir().join(format!("kcel-proto-hostile-{}-{name}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join(name);
    fs::write(&file, text).expect("write input");
    let mut req = Request::new(vec![file], vec![dir.clone()]);
    req.options = options;
    let result = generate(&req);
    let _ = fs::remove_dir_all(&dir);
    match result {
        Ok(g) => panic!("{name} generated {} schemas", g.schemas.len()),
        Err(e) => e.to_string(),
    }
}

fn header() -> String {
    "syntax = \"proto3\";\npackage h;\n".to_owned()
}

#[test]
fn deeply_nested_declarations_are_refused_before_parsing() {
    let n = 100_000;
    let text = format!(
        "{}{}{}",
        header(),
        "message A {\n".repeat(n),
        "}\n".repeat(n)
    );
    let err = fails("nest.proto", &text);
    assert!(
        err.contains("nest.proto:131: error: brackets nest more than 128 levels deep"),
        "{err}"
    );
}

#[test]
fn nesting_just_under_the_limit_parses_without_overflow() {
    // 125 levels of option aggregate values, 128 brackets deep with the message's `{`, the
    // options' `[` and the innermost `[h.o]`: the most accepted. protox recurses on each level.
    let n = 125;
    let text = format!(
        "{}import \"google/protobuf/descriptor.proto\";\n\
         extend google.protobuf.FieldOptions {{ google.protobuf.FieldOptions o = 50000; }}\n\
         message X {{ string s = 1 [(o) = {}{}]; }}\n",
        header(),
        "{ [h.o] ".repeat(n),
        "}".repeat(n)
    );
    let dir = std::env::temp_dir().join(format!("kcel-proto-hostile-{}-under", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let file: PathBuf = dir.join("under.proto");
    fs::write(&file, text).expect("write input");
    let result = generate(&Request::new(vec![file], vec![dir.clone()]));
    let _ = fs::remove_dir_all(&dir);
    // The parser must get through (no overflow, no refusal); protox's option checker may still
    // find fault with the value, which is a diagnostic like any other.
    if let Err(e) = result {
        let text = e.to_string();
        assert!(!text.contains("nest more than"), "{text}");
        assert!(text.contains("under.proto:5: error:"), "{text}");
    }
}

#[test]
fn long_chains_of_messages_hit_the_depth_limit_once() {
    let n = 5_000;
    let mut text = header();
    for i in 0..n {
        text.push_str(&format!("message M{i} {{ M{} f = 1; }}\n", i + 1));
    }
    text.push_str(&format!("message M{n} {{ string s = 1; }}\n"));
    let err = fails("chain.proto", &text);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("messages nest more than 100 levels deep"),
        "{err}"
    );
}

#[test]
fn exponential_inlining_is_bounded() {
    let n = 60;
    let mut text = header();
    for i in 0..n {
        text.push_str(&format!(
            "message D{i} {{ D{0} a = 1; D{0} b = 2; }}\n",
            i + 1
        ));
    }
    text.push_str(&format!("message D{n} {{ string s = 1; }}\n"));
    // A small budget keeps the test quick; the default (2,000,000) is bounded the same way.
    let options = Options {
        max_schema_nodes: 50_000,
        ..Options::default()
    };
    let err = fails_with("dag.proto", &text, options);
    assert!(
        err.contains("the generated schemas exceed 50000 nodes"),
        "{err}"
    );
}

#[test]
fn syntax_errors_name_file_and_line() {
    let err = fails(
        "broken.proto",
        &format!("{}message A {{\n  strin g x = 1;\n}}\n", header()),
    );
    assert!(err.starts_with("broken.proto:4: error:"), "{err}");
}

#[test]
fn marker_garbage_is_an_error_not_a_crash() {
    let mut text = header();
    text.push_str("message A {\n");
    for (i, junk) in [
        "+kubebuilder:validation:XValidation:rule=\"\\",
        "+kubebuilder:validation:XValidation:rule=\"a\",rule",
        "+kubebuilder:validation:Enum=\"unterminated",
        "+kubebuilder:validation:MaxLength=99999999999999999999999",
        "+kubebuilder:validation:Maximum=1e999",
        "+kubebuilder:default=[[[[[[[[[[[[",
        "+kubebuilder:validation:Pattern=\"\\u12\"",
        "+kubebuilder:validation:items:XValidation:rule=\"x\"",
    ]
    .iter()
    .enumerate()
    {
        text.push_str(&format!("  // {junk}\n  string f{i} = {};\n", i + 1));
    }
    text.push_str("}\n");
    let err = fails("junk.proto", &text);
    assert_eq!(err.lines().count(), 8, "{err}");
    assert!(err.lines().all(|l| l.starts_with("junk.proto:")), "{err}");
}
