//! `kcel check` on ValidatingAdmissionPolicies: API validation errors and the server's type
//! checking warnings (`status.typeChecking`) against built-in kinds and CRDs among the inputs.

mod common;
use common::{kcel_stdin, stderr, stdout};

const POLICY: &str = r#"apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments", "replicasets"]
  validations:
  - expression: "object.spec.replicas <= 5"
  - expression: "object.spec.replica <= 5"
"#;

#[test]
fn check_prints_type_checking_warnings_per_kind() {
    let o = kcel_stdin(&["check", "-"], POLICY);
    let expected = "\
<stdin>:1: ValidatingAdmissionPolicy \"replicas\" accepted
  typeChecking warning at spec.validations[1].expression:
    apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'
     | object.spec.replica <= 5
     | ...........^

    apps/v1, Kind=ReplicaSet: ERROR: <input>:1:12: undefined field 'replica'
     | object.spec.replica <= 5
     | ...........^
1 ValidatingAdmissionPolicy(s) checked with Kubernetes 1.37: 1 accepted, 0 rejected
";
    assert_eq!(stdout(&o), expected, "stderr: {}", stderr(&o));
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn check_json_has_errors_and_warnings_of_each_policy() {
    let bad = POLICY.replace("object.spec.replicas <= 5", "object.spec.replicas <=");
    let o = kcel_stdin(&["check", "-o", "json", "-"], &bad);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let p = &doc["policies"]["policies"][0];
    assert_eq!(doc["policies"]["rejected"], 1);
    assert_eq!(p["accepted"], false);
    assert_eq!(p["errors"][0]["field"], "spec.validations[0].expression");
    let message = p["message"].as_str().expect("a message");
    assert!(
        message.starts_with("The ValidatingAdmissionPolicy \"replicas\" is invalid: spec.validations[0].expression: Invalid value: \"object.spec.replicas <=\": compilation failed: ERROR: <input>:1:"),
        "{message}"
    );
    // The expression that does not parse fails for each kind too.
    let warnings = p["typeChecking"]["expressionWarnings"]
        .as_array()
        .expect("warnings");
    let refs: Vec<&str> = warnings
        .iter()
        .filter_map(|w| w["fieldRef"].as_str())
        .collect();
    assert_eq!(
        refs,
        [
            "spec.validations[0].expression",
            "spec.validations[1].expression"
        ]
    );
}

#[test]
fn crds_among_the_inputs_type_the_policies_of_their_kinds() {
    // The bundled example CRD serves example.com/v1 Widget.
    let policy = POLICY
        .replace("[\"apps\"]", "[\"example.com\"]")
        .replace("[\"deployments\", \"replicasets\"]", "[\"widgets\"]")
        .replace("object.spec.replicas <= 5", "object.spec.size == 'small'");
    let o = kcel_stdin(&["check", "-q", "examples/widget-crd.yaml", "-"], &policy);
    let out = stdout(&o);
    assert!(
        out.contains("example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'replica'"),
        "{out}"
    );
    assert!(!out.contains("validations[0]"), "{out}");
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
}

#[test]
fn check_reports_the_api_validation_errors_of_mutating_policies() {
    let policy = r#"apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: labels
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["DELETE"]
      resources: ["deployments"]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[JSONPatch{op: 'remove', path: '/metadata/labels'}]"
"#;
    let o = kcel_stdin(&["check", "-"], policy);
    let out = stdout(&o);
    assert!(
        out.starts_with("<stdin>:1: MutatingAdmissionPolicy \"labels\" rejected\n"),
        "{out}"
    );
    for line in [
        "spec.matchConstraints.resourceRules.operations: Unsupported value: \"DELETE\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"UPDATE\"",
        "spec.reinvocationPolicy: Required value",
        "1 MutatingAdmissionPolicy(s) checked with Kubernetes 1.37: 0 accepted, 1 rejected",
    ] {
        assert!(out.contains(line), "{line} not in {out}");
    }
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
}
