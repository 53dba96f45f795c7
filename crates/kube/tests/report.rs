//! The renderings of a validation report, read back by real consumers: JUnit XML parsed with
//! `roxmltree`, SARIF validated against the OASIS SARIF 2.1.0 JSON schema
//! (`tests/data/sarif`), TAP and GitHub workflow commands checked line by line, JSON parsed.
//! The records carry hostile text (markup, control characters, `%`, `:`, `,`, `#`, line breaks)
//! so that every escape is exercised.

use std::path::Path;

use kcel_kube::admission::request::Operation;
use kcel_kube::pipeline::status::Status;
use kcel_kube::report::{Format, Outcome, Record, RenderOptions, Report};
use serde_json::Value;

/// A record of `file:line` with `outcome` and `message`.
fn record(file: &str, line: Option<usize>, outcome: Outcome, message: &str) -> Record {
    Record {
        file: file.into(),
        line,
        index: line.map(|_| 0),
        item: None,
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
        namespace: String::new(),
        name: "w".into(),
        outcome,
        status: (outcome == Outcome::Valid).then(Status::success),
        warnings: Vec::new(),
        message: message.into(),
        audit_annotations: Vec::new(),
        mutated: None,
        operation: matches!(outcome, Outcome::Valid | Outcome::Invalid)
            .then_some(Operation::Create),
    }
}

/// Six records over three files: valid, invalid (with a warning), error, skipped, an error
/// without a line, and an invalid record full of characters every format must escape.
fn report() -> Report {
    let hostile = "bad <x> & \"q\" 'a'\n* spec.a: 100% wrong: a,b # c\r\u{1}end";
    let mut invalid = record(
        "a.yaml",
        Some(5),
        Outcome::Invalid,
        "The Widget \"w\" is invalid: spec.a: Invalid value",
    );
    invalid.warnings.push("unknown field \"spec.x\"".into());
    invalid.operation = Some(Operation::Delete);
    let mut odd = record("dir/b c%,:.yaml", Some(7), Outcome::Invalid, hostile);
    odd.name = "n#1".into();
    odd.namespace = "ns".into();
    Report {
        records: vec![
            record("a.yaml", Some(1), Outcome::Valid, ""),
            invalid,
            record(
                "a.yaml",
                Some(9),
                Outcome::Error,
                "Object 'Kind' is missing",
            ),
            record(
                "b.yaml",
                Some(1),
                Outcome::Skipped,
                "kind skipped (--skip-kinds)",
            ),
            record(
                "missing.yaml",
                None,
                Outcome::Error,
                "No such file or directory (os error 2)",
            ),
            odd,
        ],
        notices: Vec::new(),
    }
}

fn render(report: &Report, format: Format) -> String {
    let mut out = Vec::new();
    report
        .render(format, &RenderOptions::default(), &mut out)
        .expect("renders to a Vec");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn summary_and_exit_code() {
    let r = report();
    assert_eq!(
        r.summary().to_string(),
        "1 valid, 2 invalid, 2 errors, 1 skipped"
    );
    assert_eq!(r.exit_code(), 2);
    let invalid_only = Report {
        records: r
            .records
            .iter()
            .filter(|r| r.outcome != Outcome::Error)
            .cloned()
            .collect(),
        notices: Vec::new(),
    };
    assert_eq!(invalid_only.exit_code(), 1);
    let valid_only = Report {
        records: vec![r.records[0].clone(), r.records[3].clone()],
        notices: Vec::new(),
    };
    assert_eq!(valid_only.exit_code(), 0);
}

#[test]
fn text_names_each_document_and_ends_with_the_summary() {
    let text = render(&report(), Format::Text);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "a.yaml:1: Widget \"w\" is valid");
    assert_eq!(lines[1], "a.yaml:5: Warning: unknown field \"spec.x\"");
    assert_eq!(
        lines[2],
        "a.yaml:5: The Widget \"w\" is invalid: spec.a: Invalid value"
    );
    assert_eq!(lines[3], "a.yaml:9: error: Object 'Kind' is missing");
    assert_eq!(
        lines[4],
        "b.yaml:1: Widget \"w\" skipped: kind skipped (--skip-kinds)"
    );
    assert_eq!(
        lines[5],
        "missing.yaml: error: No such file or directory (os error 2)"
    );
    assert_eq!(
        *lines.last().expect("lines"),
        "1 valid, 2 invalid, 2 errors, 1 skipped"
    );
    assert!(!text.contains('\u{1b}'), "no colour unless asked");
    let mut coloured = Vec::new();
    let options = RenderOptions {
        colour: true,
        ..RenderOptions::default()
    };
    report()
        .render(Format::Text, &options, &mut coloured)
        .expect("renders");
    let coloured = String::from_utf8(coloured).expect("UTF-8");
    assert!(coloured.starts_with("\u{1b}["), "{coloured}");
    assert!(coloured.ends_with("\n1 valid, 2 invalid, 2 errors, 1 skipped\n"));
}

#[test]
fn json_is_one_document_with_a_record_per_document() {
    let v: Value =
        serde_json::from_str(&render(&report(), Format::Json)).expect("one JSON document");
    let docs = v["documents"].as_array().expect("documents");
    assert_eq!(docs.len(), 6);
    assert_eq!(docs[0]["verdict"], "valid");
    assert_eq!(docs[0]["status"]["status"], "Success");
    assert_eq!(docs[0]["status"]["code"], 200);
    assert_eq!(docs[1]["file"], "a.yaml");
    assert_eq!(docs[1]["line"], 5);
    assert_eq!(docs[1]["apiVersion"], "example.com/v1");
    assert_eq!(docs[1]["kind"], "Widget");
    assert_eq!(docs[1]["name"], "w");
    assert_eq!(docs[1]["warnings"][0], "unknown field \"spec.x\"");
    assert_eq!(docs[4]["line"], Value::Null);
    assert_eq!(docs[4]["verdict"], "error");
    assert_eq!(docs[0]["operation"], "CREATE");
    assert_eq!(docs[1]["operation"], "DELETE");
    assert!(docs[4].get("operation").is_none());
    assert_eq!(
        v["summary"],
        serde_json::json!({"valid": 1, "invalid": 2, "errors": 2, "skipped": 1})
    );
}

#[test]
fn json_written_on_several_threads_is_the_same_bytes() {
    // Enough records for several pieces, with audit annotations (one key twice) and a mutated
    // object (nested values) on some of them.
    let base = report();
    let mut records = Vec::new();
    for i in 0..700 {
        let mut r = base.records[i % base.records.len()].clone();
        if i % 7 == 0 {
            r.audit_annotations = vec![
                ("p/k".into(), "v1".into()),
                ("p/j".into(), "w".into()),
                ("p/k".into(), "v2".into()),
            ];
        }
        if i % 11 == 0 {
            r.mutated = Some(serde_json::json!({"spec": {"a": [1, {"b": "x\ny"}], "e": {}}}));
        }
        records.push(r);
    }
    let big = Report {
        records,
        notices: Vec::new(),
    };
    let one = render(&big, Format::Json);
    for jobs in [2, 3, 8] {
        let options = RenderOptions {
            jobs: std::num::NonZeroUsize::new(jobs),
            ..RenderOptions::default()
        };
        let mut out = Vec::new();
        big.render(Format::Json, &options, &mut out)
            .expect("renders");
        assert_eq!(String::from_utf8(out).expect("UTF-8"), one, "jobs {jobs}");
    }
    let parsed: serde_json::Value = serde_json::from_str(&one).expect("JSON");
    assert_eq!(parsed["documents"].as_array().map(Vec::len), Some(700));
}

#[test]
fn junit_parses_with_suites_per_file_and_counts() {
    let xml = render(&report(), Format::Junit);
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let attr = |n: roxmltree::Node, a: &str| n.attribute(a).map(str::to_string);
    assert_eq!(attr(root, "tests").as_deref(), Some("6"));
    assert_eq!(attr(root, "failures").as_deref(), Some("2"));
    assert_eq!(attr(root, "errors").as_deref(), Some("2"));
    assert_eq!(attr(root, "skipped").as_deref(), Some("1"));
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    let names: Vec<_> = suites.iter().filter_map(|s| s.attribute("name")).collect();
    assert_eq!(
        names,
        ["a.yaml", "b.yaml", "missing.yaml", "dir/b c%,:.yaml"]
    );
    let a = suites[0];
    assert_eq!(attr(a, "tests").as_deref(), Some("3"));
    assert_eq!(attr(a, "failures").as_deref(), Some("1"));
    assert_eq!(attr(a, "errors").as_deref(), Some("1"));
    let cases: Vec<_> = a
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 3);
    assert_eq!(
        attr(cases[0], "name").as_deref(),
        Some("Widget \"w\" (line 1)")
    );
    assert_eq!(cases[0].children().filter(|n| n.is_element()).count(), 0);
    let failure = cases[1]
        .children()
        .find(|n| n.has_tag_name("failure"))
        .expect("failure");
    assert_eq!(
        failure.attribute("message"),
        Some("The Widget \"w\" is invalid: spec.a: Invalid value")
    );
    assert!(cases[2].children().any(|n| n.has_tag_name("error")));
    let skipped = suites[1].descendants().find(|n| n.has_tag_name("skipped"));
    assert!(skipped.is_some());
    // Markup and line breaks survive; the control character XML cannot carry is replaced.
    let odd = suites[3]
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .expect("failure");
    assert_eq!(odd.attribute("message"), Some("bad <x> & \"q\" 'a'"));
    assert_eq!(
        odd.text(),
        Some("dir/b c%,:.yaml:7: bad <x> & \"q\" 'a'\n* spec.a: 100% wrong: a,b # c\r\u{FFFD}end")
    );
}

#[test]
fn sarif_validates_against_the_oasis_schema() {
    let schema_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif/sarif-schema-2.1.0.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).expect("schema")).expect("JSON");
    let validator = jsonschema::draft4::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let sarif: Value = serde_json::from_str(&render(&report(), Format::Sarif)).expect("JSON");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema itself rejects what it should (so the check above can fail).
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken));

    let results = sarif["runs"][0]["results"].as_array().expect("results");
    // 1 warning, 2 invalid, 2 errors.
    assert_eq!(results.len(), 5);
    let rule = |r: &Value| r["ruleId"].as_str().map(str::to_string);
    assert_eq!(rule(&results[0]).as_deref(), Some("object-warning"));
    assert_eq!(rule(&results[1]).as_deref(), Some("invalid-object"));
    assert_eq!(rule(&results[2]).as_deref(), Some("input-error"));
    assert_eq!(results[1]["properties"]["operation"], "DELETE");
    assert!(results[2].get("properties").is_none());
    let location = &results[1]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "a.yaml");
    assert_eq!(location["region"]["startLine"], 5);
    assert!(
        results[3]["locations"][0]["physicalLocation"]
            .get("region")
            .is_none()
    );
    let odd = &results[4]["locations"][0]["physicalLocation"];
    assert_eq!(odd["artifactLocation"]["uri"], "dir/b%20c%25,%3A.yaml");
}

#[test]
fn tap_has_a_plan_a_point_per_document_and_yaml_diagnostics() {
    let tap = render(&report(), Format::Tap);
    let lines: Vec<&str> = tap.lines().collect();
    assert_eq!(lines[0], "TAP version 14");
    assert_eq!(lines[1], "1..6");
    let points: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("ok ") || l.starts_with("not ok "))
        .collect();
    assert_eq!(points.len(), 6);
    assert_eq!(points[0], "ok 1 - a.yaml:1 Widget \"w\"");
    assert_eq!(points[1], "not ok 2 - a.yaml:5 Widget \"w\"");
    assert_eq!(
        points[3],
        "ok 4 - b.yaml:1 Widget \"w\" # SKIP kind skipped (--skip-kinds)"
    );
    assert_eq!(
        points[5],
        "not ok 6 - dir/b c%,:.yaml:7 Widget \"ns/n\\#1\""
    );
    let block_start = lines
        .iter()
        .position(|l| *l == "not ok 2 - a.yaml:5 Widget \"w\"")
        .expect("point 2");
    assert_eq!(
        &lines[block_start + 1..block_start + 7],
        [
            "  ---",
            "  verdict: invalid",
            "  message: \"The Widget \\\"w\\\" is invalid: spec.a: Invalid value\"",
            "  file: \"a.yaml\"",
            "  line: 5",
            "  ...",
        ]
    );
    assert!(tap.contains("# Warning: unknown field \"spec.x\"\n"));
    assert!(tap.contains(
        "  message: \"bad <x> & \\\"q\\\" 'a'\\n* spec.a: 100% wrong: a,b # c\\r\\u0001end\"\n"
    ));
    assert_eq!(
        *lines.last().expect("lines"),
        "# 1 valid, 2 invalid, 2 errors, 1 skipped"
    );
}

#[test]
fn github_commands_escape_data_and_properties() {
    let out = render(&report(), Format::Github);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "::warning file=a.yaml,line=5,title=Widget \"w\" warning::unknown field \"spec.x\"",
            "::error file=a.yaml,line=5,title=Widget \"w\" is invalid::The Widget \"w\" is invalid: spec.a: Invalid value",
            "::error file=a.yaml,line=9,title=kcel validate error::Object 'Kind' is missing",
            "::error file=missing.yaml,title=kcel validate error::No such file or directory (os error 2)",
            "::error file=dir/b c%25%2C%3A.yaml,line=7,title=Widget \"ns/n#1\" is invalid::bad <x> & \"q\" 'a'%0A* spec.a: 100%25 wrong: a,b # c%0D\u{1}end",
            "1 valid, 2 invalid, 2 errors, 1 skipped",
        ]
    );
}
