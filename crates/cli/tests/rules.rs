//! End-to-end tests of `kcel check` and `kcel validate` on the bundled example
//! (`examples/widget-*.yaml`): outputs, messages and exit codes.

use std::path::Path;

mod common;
use common::{kcel, kcel_stdin, stderr, stdout};

#[test]
fn check_accepts_the_example_crd_and_lists_costs() {
    let o = kcel(&["check", "examples/widget-crd.yaml"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(
        out.contains("CustomResourceDefinition \"widgets.example.com\" accepted"),
        "{out}"
    );
    assert!(
        out.contains(
            "at spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
        ),
        "{out}"
    );
    assert!(out.contains("1 accepted, 0 rejected"), "{out}");
}

#[test]
fn check_rejects_an_unbounded_rule_with_kubernetes_messages() {
    let crd = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: tags.example.com}
spec:
  group: example.com
  names: {kind: Tag, plural: tags}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          tags:
            type: array
            items: {type: string}
            x-kubernetes-validations:
            - rule: "self.all(x, x.contains('gpu'))"
"#;
    let o = kcel_stdin(&["check", "-q", "-"], crd);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(out.contains("The CustomResourceDefinition \"tags.example.com\" is invalid: \n* spec.validation.openAPIV3Schema.properties[tags].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x"), "{out}");
}

#[test]
fn validate_reports_like_kubectl() {
    let o = kcel(&[
        "validate",
        "--crd",
        "examples/widget-crd.yaml",
        "examples/widget-valid.yaml",
        "examples/widget-invalid.yaml",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(
        out.contains("examples/widget-valid.yaml:1: Widget \"w1\" is valid"),
        "{out}"
    );
    assert!(
        out.contains("examples/widget-invalid.yaml:1: The Widget \"w2\" is invalid: \n* spec.minReplicas: Invalid value: minReplicas must not exceed replicas\n* spec.replicas: Invalid value: large widgets allow at most 5 replicas, not 8\n* spec.owner: Invalid value: \"Payments_Team\": owner must be a DNS label\n* spec.tags: Invalid value: tags must start with team- or env-"),
        "{out}"
    );
    let o = kcel(&[
        "validate",
        "--crd",
        "examples/widget-crd.yaml",
        "examples/widget-valid.yaml",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn validate_json_output_holds_each_documents_status() {
    let o = kcel(&[
        "validate",
        "-o",
        "json",
        "examples/widget-crd.yaml",
        "examples/widget-invalid.yaml",
    ]);
    let out = stdout(&o);
    let report: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    // The CRD (accepted), then the Widget.
    assert_eq!(report["documents"][0]["kind"], "CustomResourceDefinition");
    assert_eq!(report["documents"][0]["verdict"], "valid");
    let status = &report["documents"][1]["status"];
    assert_eq!(status["code"], 422);
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(status["details"]["kind"], "Widget");
    assert_eq!(status["details"]["causes"][2]["field"], "spec.owner");
    assert_eq!(
        status["details"]["causes"][2]["reason"],
        "FieldValueInvalid"
    );
    assert!(
        status["message"].as_str().is_some_and(
            |m| m.starts_with("Widget.example.com \"w2\" is invalid: [spec.minReplicas: ")
        ),
        "{out}"
    );
}

#[test]
fn validate_updates_run_transition_rules_and_ratchet() {
    let crd = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  names: {kind: Thing, plural: things}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              id: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf", message: "id is immutable"}]}
              size: {type: integer, x-kubernetes-validations: [{rule: "self < 10", message: "too big"}]}
"#;
    let dir = std::env::temp_dir().join(format!("kcel-rules-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("written");
        p.display().to_string()
    };
    let crd = write("crd.yaml", crd);
    let old = write(
        "old.yaml",
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {id: a, size: 20}\n",
    );
    let new = write(
        "new.yaml",
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\nspec: {id: b, size: 20}\n",
    );
    let o = kcel(&["validate", "--crd", &crd, "--old", &old, &new]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("The Thing \"t\" is invalid: spec.id: Invalid value: \"b\": id is immutable"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{new}:1: Warning: spec.size: Invalid value: 20: too big"
        )),
        "{out}"
    );
    let o = kcel(&["validate", "--crd", &crd, &new]);
    assert!(
        stdout(&o).contains("spec.size: Invalid value: 20: too big"),
        "{}",
        stdout(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn validate_rejects_bad_usage_with_exit_2() {
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.20",
        "examples/widget-valid.yaml",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not supported"), "{}", stderr(&o));
    let o = kcel(&["validate", "examples/widget-valid.yaml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).contains("examples/widget-valid.yaml:1: error: no matches for kind \"Widget\""),
        "{}",
        stdout(&o)
    );
    let o = kcel_stdin(&["validate", "-"], "a: [1,\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).starts_with("<stdin>:2: error: syntax error"),
        "{}",
        stdout(&o)
    );
}

/// A CRD with an unbounded list of objects whose rule is over the per-expression limit, a
/// cheaper rule on a map, and a bounded one.
const UNBOUNDED_CRD: &str = include_str!("testdata/check/unbounded-crd.yaml");

#[test]
fn check_json_has_a_record_per_rule_sorted_by_cost_with_unbounded_hints() {
    let o = kcel_stdin(&["check", "-o", "json", "-"], UNBOUNDED_CRD);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    assert_eq!(doc["limits"]["StaticEstimatedCostLimit"], 10_000_000);
    assert_eq!(doc["limits"]["StaticEstimatedCRDCostLimit"], 100_000_000);
    assert_eq!(doc["rejected"], 1);
    let crd = &doc["crds"][0];
    assert_eq!(crd["name"], "tags.example.com");
    assert_eq!(crd["accepted"], false);
    let exprs = crd["expressions"].as_array().expect("expressions");
    let list: Vec<(&str, bool)> = exprs
        .iter()
        .map(|e| {
            (
                e["expression"].as_str().unwrap_or(""),
                e["overLimit"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        list,
        [
            ("self.all(x, x.contains('gpu'))", true),
            ("self.labels.all(k, self.labels[k] == 'x')", false),
            ("self.owner != ''", false),
        ]
    );
    let totals: Vec<u64> = exprs
        .iter()
        .map(|e| e["total"].as_u64().expect("an estimate"))
        .collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");
    let base = "spec.validation.openAPIV3Schema.properties[spec]";
    let hints = |e: &serde_json::Value| -> Vec<String> {
        e["unbounded"]
            .as_array()
            .expect("unbounded")
            .iter()
            .map(|u| {
                format!(
                    "{} {}",
                    u["path"].as_str().unwrap_or(""),
                    u["missing"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    assert_eq!(
        hints(&exprs[0]),
        [
            format!("{base}.properties[groups] maxItems"),
            format!("{base}.properties[groups].items.properties[tags] maxItems"),
            format!("{base}.properties[groups].items.properties[tags].items maxLength"),
        ]
    );
    assert_eq!(
        hints(&exprs[1]),
        [
            format!("{base}.properties[labels] maxProperties"),
            format!("{base}.properties[labels].additionalProperties maxLength"),
        ]
    );
    assert!(hints(&exprs[2]).is_empty());
    assert_eq!(exprs[0]["limitName"], "StaticEstimatedCostLimit");
    let errors = exprs[0]["errors"].as_array().expect("errors");
    assert!(
        errors[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Forbidden: estimated rule cost exceeds budget")),
        "{errors:?}"
    );
    // The per-CRD total and its error, not about one rule.
    assert_eq!(crd["schemaTotals"][0]["overLimit"], true);
    assert_eq!(
        crd["schemaTotals"][0]["limitName"],
        "StaticEstimatedCRDCostLimit"
    );
    assert_eq!(crd["errors"][0]["field"], "spec.validation.openAPIV3Schema");
}

#[test]
fn check_text_table_marks_rows_over_the_limit_and_names_unbounded_fields() {
    let o = kcel_stdin(&["check", "-"], UNBOUNDED_CRD);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{}", stderr(&o));
    assert!(
        out.contains("StaticEstimatedCostLimit (10,000,000)"),
        "{out}"
    );
    assert!(
        out.contains("StaticEstimatedCRDCostLimit (100,000,000)"),
        "{out}"
    );
    assert!(out.contains("%EXPR-LIMIT %CRD-LIMIT"), "{out}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| {
            l.ends_with("self.all(x, x.contains('gpu'))") || l.ends_with("self.owner != ''")
        })
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows[0].starts_with("  ! "), "{out}");
    assert!(rows[1].starts_with("    "), "{out}");
    assert!(
        out.contains("      unbounded: spec.validation.openAPIV3Schema.properties[spec].properties[groups].items.properties[tags].items (no maxLength)"),
        "{out}"
    );
    assert!(out.contains("  ! total "), "{out}");
}

/// A real over-budget CRD (openshift/crd-schema-checker's test data): the hints name the
/// unbounded list and the string its rule matches, not the field it does not read.
#[test]
fn check_hints_on_a_real_over_budget_crd() {
    let shared = match std::env::var_os("KCEL_SHARED") {
        Some(d) => std::path::PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let file = shared.join("corpora/crd-schema-checker/pkg/manifestcomparators/testdata/must_not_exceed_cost_budget/list_over_budget_x_validation/new.yaml");
    if !file.is_file() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "shared/ is missing under CI"
        );
        eprintln!("NOTICE: {} not found; skipped", file.display());
        return;
    }
    let o = kcel(&["check", "-o", "json", file.to_str().expect("UTF-8 path")]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let e = &doc["crds"][0]["expressions"][0];
    assert_eq!(e["overLimit"], true);
    let base = "spec.validation.openAPIV3Schema.properties[spec].properties[badCELList]";
    assert_eq!(
        e["unbounded"],
        serde_json::json!([
            {"path": base, "missing": "maxItems"},
            {"path": format!("{base}.items.properties[key]"), "missing": "maxLength"},
        ])
    );
}
