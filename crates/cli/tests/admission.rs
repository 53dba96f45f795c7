//! End-to-end tests of admission policies in `kcel validate`: the README's examples (validating
//! and mutating), validation actions, params, namespace labels and the API validation of
//! policies.

mod common;
use common::{kcel, root, stderr, stdout};

/// The command and output of a README example (the console block after the
/// `<!-- {marker} -->` marker).
fn readme_example(marker: &str) -> (Vec<String>, String) {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let block = readme
        .split(&format!("<!-- {marker} -->\n```console\n"))
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("the README has the example");
    let (command, output) = block.split_once('\n').expect("a command and its output");
    let args = command
        .strip_prefix("$ kcel ")
        .expect("a kcel command")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    (args, format!("{output}\n"))
}

/// Runs a README example, checks its exact output and returns its exit code.
fn run_readme_example(marker: &str) -> Option<i32> {
    let (args, expected) = readme_example(marker);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = kcel(&args);
    assert_eq!(stdout(&o), expected, "stderr: {}", stderr(&o));
    o.status.code()
}

#[test]
fn readme_example_output_is_exact() {
    assert_eq!(run_readme_example("admission-example"), Some(1));
}

#[test]
fn readme_mutating_example_output_is_exact() {
    assert_eq!(run_readme_example("mutating-example"), Some(0));
}

#[test]
fn mutated_objects_print_only_under_the_text_report() {
    let o = kcel(&[
        "validate",
        "-o",
        "json",
        "--print-mutated",
        "examples/admission-mutating",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--print-mutated needs -o text"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_json_report_carries_the_mutated_object() {
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.35",
        "-o",
        "json",
        "examples/admission-mutating",
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("a JSON report");
    let docs = report["documents"].as_array().expect("documents");
    assert_eq!(
        docs[0]["mutatedObject"]["metadata"]["labels"]["team"],
        "payments"
    );
    // Unchanged objects (the policy documents) have no mutatedObject.
    assert!(
        docs[1..].iter().all(|d| d.get("mutatedObject").is_none()),
        "{report}"
    );
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("written");
    p.to_string_lossy().into_owned()
}

/// A scratch directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kcel-admission-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

const POLICY: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: cm-policy}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
  matchConditions:
  - {name: not-params, expression: "!has(object.metadata.labels) || !('role' in object.metadata.labels)"}
  variables:
  - {name: size, expression: "has(object.data) ? size(object.data) : 0"}
  validations:
  - expression: "variables.size <= int(params.data.max)"
    reason: Forbidden
    messageExpression: "'at most ' + params.data.max + ' keys, got ' + string(variables.size)"
  - expression: "request.userInfo.username != 'mallory'"
  auditAnnotations:
  - {key: keys, valueExpression: "string(variables.size)"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: limits, namespace: default, labels: {role: params}}
data: {max: "2"}
"#;

#[test]
fn actions_params_variables_and_users() {
    let d = scratch("actions");
    let policy = write(&d, "policy.yaml", POLICY);
    let binding = |actions: &str| {
        format!(
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {{name: b}}\nspec:\n  policyName: cm-policy\n  validationActions: {actions}\n  paramRef: {{name: limits, parameterNotFoundAction: Deny}}\n"
        )
    };
    let deny = write(&d, "deny.yaml", &binding("[Deny]"));
    let warn = write(&d, "warn.yaml", &binding("[Warn, Audit]"));
    let cm = write(
        &d,
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {a: '1', b: '2', c: '3'}\n",
    );
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.35",
        "--policy",
        &policy,
        "--policy",
        &deny,
        &cm,
    ]);
    assert_eq!(
        stdout(&o),
        format!(
            "{cm}:1: Audit annotation cm-policy/keys: 3\n{cm}:1: Error from server (Forbidden): configmaps \"big\" is forbidden: ValidatingAdmissionPolicy 'cm-policy' with binding 'b' denied request: at most 2 keys, got 3\n0 valid, 1 invalid, 0 errors, 0 skipped\n"
        ),
        "stderr: {}",
        stderr(&o)
    );
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.35",
        "--policy",
        &policy,
        "--policy",
        &warn,
        "--user",
        "mallory",
        &cm,
    ]);
    let out = stdout(&o);
    assert!(out.contains(&format!("{cm}:1: Warning: Validation failed for ValidatingAdmissionPolicy 'cm-policy' with binding 'b': at most 2 keys, got 3\n")), "{out}");
    assert!(out.contains("Warning: Validation failed for ValidatingAdmissionPolicy 'cm-policy' with binding 'b': failed expression: request.userInfo.username != 'mallory'\n"), "{out}");
    assert!(out.contains("Audit annotation validation.policy.admission.k8s.io/validation_failure: [{\"message\":\"at most 2 keys, got 3\",\"policy\":\"cm-policy\",\"binding\":\"b\",\"expressionIndex\":0,\"validationActions\":[\"Warn\",\"Audit\"]},{\"message\":\"failed expression: request.userInfo.username != 'mallory'\""), "{out}");
    assert!(
        out.ends_with("1 valid, 0 invalid, 0 errors, 0 skipped\n"),
        "{out}"
    );
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn missing_params_and_namespaces_deny_with_the_servers_texts() {
    let d = scratch("missing");
    let policy = write(
        &d,
        "policy.yaml",
        r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    namespaceSelector: {matchLabels: {env: prod}}
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["*"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas < 2"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
"#,
    );
    let deployment = write(
        &d,
        "d.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: team}\nspec:\n  replicas: 3\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: c, image: i}]\n",
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["validate", "--kube-version", "1.35", "--policy", &policy];
        args.extend_from_slice(extra);
        args.push(&deployment);
        stdout(&kcel(&args))
    };
    let out = run(&[]);
    assert!(
        out.contains("The deployments \"d\" is invalid: : ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: namespaces \"team\" not found\n"),
        "{out}"
    );
    let out = run(&["--namespace-labels", "team=env=prod"]);
    assert!(
        out.contains("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object.spec.replicas < 2\n"),
        "{out}"
    );
    let out = run(&["--namespace-labels", "team=env=dev"]);
    assert!(
        out.ends_with("1 valid, 0 invalid, 0 errors, 0 skipped\n"),
        "{out}"
    );
}

#[test]
fn policies_are_checked_as_the_server_checks_them_on_create() {
    let d = scratch("api");
    let policy = write(
        &d,
        "policy.yaml",
        r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: bad}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  validations:
  - expression: "object.spec"
  - expression: "object.a == 1"
    reason: Teapot
"#,
    );
    let o = kcel(&["validate", "--kube-version", "1.35", &policy]);
    assert_eq!(
        stdout(&o),
        format!(
            "{policy}:2: The ValidatingAdmissionPolicy \"bad\" is invalid: \n* spec.validations[0].expression: Invalid value: \"object.spec\": must evaluate to bool but got dyn\n* spec.validations[1].reason: Unsupported value: \"Teapot\": supported values: \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\"\n0 valid, 1 invalid, 0 errors, 0 skipped\n"
        ),
        "stderr: {}",
        stderr(&o)
    );
}

const AUTHZ_POLICY: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: scale-check}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
  validations:
  - expression: "authorizer.group('apps').resource('deployments').subresource('scale').namespace(request.namespace).check('update').allowed()"
    message: no scale
  - expression: "authorizer.requestResource.check('create').allowed()"
  auditAnnotations:
  - key: why
    valueExpression: "authorizer.group('apps').resource('deployments').subresource('scale').namespace(request.namespace).check('update').reason()"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: scale-check, validationActions: [Deny]}
"#;

#[test]
fn the_authorizer_answers_from_the_authz_rules() {
    let d = scratch("authz");
    let policy = write(&d, "policy.yaml", AUTHZ_POLICY);
    let rules = write(
        &d,
        "authz.yaml",
        "- users: [alice]\n  resources: [deployments]\n  subresources: [scale]\n  decision: allow\n- users: [alice]\n  resources: [configmaps]\n  namespaces: [default]\n  verbs: [create]\n  decision: allow\n- groups: [interns]\n  decision: deny\n  reason: interns may not\n",
    );
    let cm = write(
        &d,
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["validate", "--kube-version", "1.35", "--policy", &policy];
        args.extend_from_slice(extra);
        args.push(&cm);
        kcel(&args)
    };
    let valid =
        format!("{cm}:1: ConfigMap \"c\" is valid\n1 valid, 0 invalid, 0 errors, 0 skipped\n");
    let o = run(&["--authz", &rules, "--user", "alice"]);
    assert_eq!(stdout(&o), valid, "stderr: {}", stderr(&o));
    let o = run(&["--authz", &rules, "--user", "bob", "--group", "interns"]);
    assert_eq!(
        stdout(&o),
        format!(
            "{cm}:1: Audit annotation scale-check/why: interns may not\n{cm}:1: The configmaps \"c\" is invalid: : ValidatingAdmissionPolicy 'scale-check' with binding 'b' denied request: no scale\n0 valid, 1 invalid, 0 errors, 0 skipped\n"
        ),
        "stderr: {}",
        stderr(&o)
    );
    // Without rules every check is "no opinion": not allowed, no reason.
    let o = run(&["--user", "alice"]);
    assert!(
        stdout(&o).contains("denied request: no scale\n"),
        "{}",
        stdout(&o)
    );
    let o = run(&["--authz-allow-all"]);
    assert_eq!(stdout(&o), valid);
    let o = run(&["--authz-allow-all", "--authz", &rules]);
    assert_eq!(o.status.code(), Some(2));
    let bad = write(&d, "bad.yaml", "- users: [alice]\n  decision: maybe\n");
    let o = run(&["--authz", &bad]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "kcel validate: --authz: {bad}:2: [0].decision: unknown variant `maybe`, expected one of `allow`, `deny`, `noOpinion`\n"
        )
    );
}

const DELETE_POLICY: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: protect}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["DELETE"], resources: ["deployments"]}
  validations:
  - expression: "request.operation == 'DELETE' && object == null && !(has(oldObject.metadata.labels) && oldObject.metadata.labels.?protected.orValue('') == 'true')"
    messageExpression: "'deployment ' + oldObject.metadata.name + ' is protected'"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: protect}
spec: {policyName: protect, validationActions: [Deny]}
"#;

#[test]
fn deleted_objects_are_answered_by_the_policies_alone() {
    let d = scratch("delete");
    let policy = write(&d, "policy.yaml", DELETE_POLICY);
    // No schema validation on delete: `spec.bogus` and the missing selector do not matter.
    let gone = write(
        &d,
        "gone.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop, labels: {protected: 'true'}}\nspec: {bogus: 1}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: tmp, namespace: shop}\nspec: {bogus: 1}\n---\napiVersion: example.com/v1\nkind: Nothing\nmetadata: {name: x}\n",
    );
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.35",
        "--policy",
        &policy,
        "--delete",
        &gone,
    ]);
    assert_eq!(
        stdout(&o),
        format!(
            "{gone}:1: Error from server (Forbidden): deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'protect' with binding 'protect' denied request: deployment web is protected\n{gone}:6: Deployment \"shop/tmp\" may be deleted\n{gone}:11: error: no matches for kind \"Nothing\" in version \"example.com/v1\" (neither a CustomResourceDefinition given nor a built-in kind serves it)\n1 valid, 1 invalid, 1 errors, 0 skipped\n"
        ),
        "stderr: {}",
        stderr(&o)
    );
    assert_eq!(o.status.code(), Some(2));
    // The policy matches DELETE only: the same objects created are validated (and invalid).
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.35",
        "--policy",
        &policy,
        "-o",
        "json",
        &gone,
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("a JSON report");
    assert_eq!(report["documents"][0]["operation"], "CREATE");
    assert_eq!(report["documents"][0]["verdict"], "invalid");
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.35",
        "--policy",
        &policy,
        "-o",
        "json",
        "--delete",
        &gone,
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("a JSON report");
    let docs = report["documents"].as_array().expect("documents");
    assert_eq!(docs[0]["operation"], "DELETE");
    assert_eq!(docs[0]["status"]["reason"], "Forbidden");
    assert_eq!(docs[1]["operation"], "DELETE");
    assert_eq!(docs[1]["verdict"], "valid");
}

#[test]
fn policies_see_the_go_defaults_of_built_in_kinds() {
    let d = scratch("defaults");
    let policy = write(
        &d,
        "policy.yaml",
        r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: defaults}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "DELETE"], resources: ["deployments"]}
  validations:
  - expression: "request.operation == 'DELETE' ? oldObject.spec.revisionHistoryLimit == 10 : object.spec.replicas == 1 && object.spec.template.spec.containers[0].imagePullPolicy == 'Always'"
    messageExpression: "'not defaulted'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: defaults}
spec: {policyName: defaults, validationActions: [Deny]}
"#,
    );
    let deployment = write(
        &d,
        "d.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: c, image: nginx}]\n",
    );
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.35",
        "--policy",
        &policy,
        &deployment,
    ]);
    assert_eq!(
        stdout(&o),
        format!(
            "{deployment}:1: Deployment \"d\" is valid\n1 valid, 0 invalid, 0 errors, 0 skipped\n"
        ),
        "stderr: {}",
        stderr(&o)
    );
    let o = kcel(&[
        "validate",
        "--kube-version",
        "1.35",
        "--policy",
        &policy,
        "--delete",
        &deployment,
    ]);
    assert_eq!(
        stdout(&o),
        format!(
            "{deployment}:1: Deployment \"d\" may be deleted\n1 valid, 0 invalid, 0 errors, 0 skipped\n"
        ),
        "stderr: {}",
        stderr(&o)
    );
}
