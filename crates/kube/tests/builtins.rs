//! Built-in kinds (`kcel_kube::builtins`): decoding against the real Go decoder's answers
//! (`data/builtin_decode.jsonl`, written by `gen/builtin_decode` from `data/builtins/decode.yaml`),
//! and each feature of schema-level validation on several kinds.

use std::collections::HashMap;

use kcel_kube::pipeline::FieldValidation;
use kcel_kube::{Error, KubeVersion, Request, Validator, Verdict};
use serde_json::{Value, json};

mod common;
use common::skip_list;

fn kv(minor: u32) -> KubeVersion {
    KubeVersion::new(minor).expect("supported")
}

fn validator() -> Validator {
    Validator::builder().kube_version(kv(35)).build()
}

fn yaml(text: &str) -> Value {
    let docs = kcel_kube::yaml::parse_stream(text).expect("YAML");
    docs.into_iter().next().expect("a document").value
}

fn create(v: &Validator, text: &str) -> Verdict {
    v.validate(Request::create(yaml(text))).expect("answered")
}

/// `<code> <message>` of a verdict.
fn answer(v: &Verdict) -> String {
    format!("{} {}", v.status.code.unwrap_or(0), v.status.message)
}

#[test]
fn decoding_matches_the_go_decoder() {
    let skips = skip_list(include_str!("builtins.skip"));
    let docs =
        kcel_kube::yaml::parse_stream(include_str!("data/builtins/decode.yaml")).expect("YAML");
    let go: Vec<Value> = include_str!("data/builtin_decode.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(docs.len(), go.len(), "one Go answer per document");
    let v = validator();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for (i, (doc, want)) in docs.into_iter().zip(&go).enumerate() {
        let key = format!("decode.yaml#{i}");
        if skips.contains_key(&key) {
            skipped += 1;
            continue;
        }
        let want = want.get("error").and_then(Value::as_str).unwrap_or("");
        let kind = doc
            .value
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let api_version = doc
            .value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let version = api_version.rsplit('/').next().unwrap_or("").to_string();
        let got = v.validate(Request::create(doc.value)).expect("answered");
        let ok = if want.is_empty() {
            got.decode_error.is_none() && !got.status.message.contains("cannot be handled")
        } else {
            let text =
                format!("{kind} in version {version:?} cannot be handled as a {kind}: {want}");
            got.status.code == Some(400) && got.status.message == text
        };
        if ok {
            passed += 1;
        } else {
            failed += 1;
            eprintln!("FAIL {key}: got {}\n  Go: {want}", answer(&got));
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(failed, 0);
    assert_eq!(passed + skipped, go.len());
}

const POD: &str =
    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n";

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec: {containers: [{name: c, image: i}]}
";

#[test]
fn valid_objects_of_several_kinds() {
    let v = validator();
    for text in [
        POD,
        DEPLOYMENT,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n",
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80, targetPort: http}], selector: {a: b}}\n",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules: [{apiGroups: [''], resources: [pods], verbs: [get]}]\n",
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: j}\nspec: {schedule: '* * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}}}}\n",
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}\nspec: {rules: [{host: a.example.com}]}\n",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ws.example.com}\nspec: {group: example.com, names: {kind: W, plural: ws}, scope: Namespaced, versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}}]}\n",
    ] {
        let got = create(&v, text);
        assert!(got.is_valid(), "{text}: {}", answer(&got));
    }
}

#[test]
fn status_names_core_kinds_without_a_group() {
    let v = validator();
    let got = create(
        &v,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 'A'}\n",
    );
    assert!(
        got.status
            .message
            .starts_with("ConfigMap \"A\" is invalid: metadata.name"),
        "{}",
        answer(&got)
    );
    let details = got.status.details.as_ref().expect("details");
    assert_eq!(
        (details.group.as_str(), details.kind.as_str()),
        ("", "ConfigMap")
    );
    let got = create(&v, &DEPLOYMENT.replace("name: d", "name: 'D'"));
    assert!(
        got.status
            .message
            .starts_with("Deployment.apps \"D\" is invalid: "),
        "{}",
        answer(&got)
    );
    assert_eq!(got.status.details.as_ref().expect("details").group, "apps");
}

#[test]
fn required_fields() {
    let v = validator();
    let got = create(
        &v,
        &DEPLOYMENT.replace("  selector: {matchLabels: {a: b}}\n", ""),
    );
    assert_eq!(
        answer(&got),
        "422 Deployment.apps \"d\" is invalid: spec.selector: Required value"
    );
    let got = create(
        &v,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n",
    );
    assert_eq!(
        answer(&got),
        "422 Pod \"p\" is invalid: spec.containers: Required value"
    );
    // The overlay: pkg/apis/core/validation validateContainerCommon.
    let got = create(&v, &POD.replace(", image: i", ""));
    assert_eq!(
        answer(&got),
        "422 Pod \"p\" is invalid: spec.containers[0].image: Required value"
    );
    let got = create(&v, &DEPLOYMENT.replace(", image: i", ""));
    assert_eq!(
        answer(&got),
        "422 Deployment.apps \"d\" is invalid: spec.template.spec.containers[0].image: Required value"
    );
}

#[test]
fn enums() {
    let v = validator();
    let got = create(
        &v,
        &POD.replace(
            "image: i}",
            "image: i, ports: [{containerPort: 80, protocol: tcp}]}",
        ),
    );
    assert_eq!(
        answer(&got),
        "422 Pod \"p\" is invalid: spec.containers[0].ports[0].protocol: Unsupported value: \"tcp\": supported values: \"SCTP\", \"TCP\", \"UDP\""
    );
    // In a Deployment's template too.
    let got = create(
        &v,
        &DEPLOYMENT.replace(
            "image: i}",
            "image: i, ports: [{containerPort: 80, protocol: X}]}",
        ),
    );
    assert!(
        got.status.message.contains(
            "spec.template.spec.containers[0].ports[0].protocol: Unsupported value: \"X\""
        ),
        "{}",
        answer(&got)
    );
}

#[test]
fn formats_and_integer_ranges() {
    let v = validator();
    // int-or-string: a string or an int32.
    for ok in ["25%", "1"] {
        let got = create(
            &v,
            &DEPLOYMENT.replace(
                "  selector:",
                &format!("  strategy: {{rollingUpdate: {{maxSurge: {ok}}}}}\n  selector:"),
            ),
        );
        assert!(got.is_valid(), "{ok}: {}", answer(&got));
    }
    let got = create(
        &v,
        &DEPLOYMENT.replace(
            "  selector:",
            "  strategy: {rollingUpdate: {maxSurge: 1.5}}\n  selector:",
        ),
    );
    assert_eq!(
        answer(&got),
        "400 Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal number 1.5 into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32"
    );
    // quantity: strings and numbers in its syntax (more cases in data/builtins/decode.yaml).
    for (q, valid) in [("100m", true), ("0.5", true), ("1Gi", true), ("1GB", false)] {
        let got = create(
            &v,
            &POD.replace(
                "image: i}",
                &format!("image: i, resources: {{limits: {{cpu: {q}}}}}}}"),
            ),
        );
        assert_eq!(got.is_valid(), valid, "{q}: {}", answer(&got));
        if !valid {
            assert!(got.status.message.ends_with("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"), "{}", answer(&got));
        }
    }
    // int32 bounds.
    for (port, valid) in [
        ("2147483647", true),
        ("2147483648", false),
        ("-2147483649", false),
    ] {
        let got = create(
            &v,
            &POD.replace(
                "image: i}",
                &format!("image: i, ports: [{{containerPort: {port}}}]}}"),
            ),
        );
        assert_eq!(got.is_valid(), valid, "{port}: {}", answer(&got));
    }
    // date-time: RFC 3339 (a field kept on create).
    let got = create(
        &v,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\nstatus: {startTime: '2024-01-01T00:00:00Z'}\n",
    );
    assert!(got.is_valid(), "{}", answer(&got));
}

#[test]
fn list_type_duplicates_and_map_keys() {
    let v = validator();
    // `set`: metadata.finalizers.
    let got = create(
        &v,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, finalizers: [a.io/x, a.io/x]}\n",
    );
    assert_eq!(
        answer(&got),
        "422 ConfigMap \"c\" is invalid: metadata.finalizers[1]: Duplicate value: \"a.io/x\""
    );
    // No finalizer-name warnings: those are the custom-resource strategy's.
    let ok = create(
        &v,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, finalizers: [x]}\n",
    );
    assert!(ok.is_valid() && ok.warnings.is_empty(), "{:?}", ok.warnings);
    // `map` keyed by containerPort and protocol, the protocol defaulted to TCP.
    let got = create(
        &v,
        &POD.replace(
            "image: i}",
            "image: i, ports: [{containerPort: 80}, {containerPort: 80, protocol: TCP}]}",
        ),
    );
    assert_eq!(
        answer(&got),
        "422 Pod \"p\" is invalid: spec.containers[0].ports[1]: Duplicate value: {\"containerPort\":80,\"protocol\":\"TCP\"}"
    );
    let got = create(
        &v,
        &POD.replace(
            "image: i}",
            "image: i, ports: [{containerPort: 80}, {containerPort: 80, protocol: UDP}]}",
        ),
    );
    assert!(got.is_valid(), "{}", answer(&got));
    // `map` keyed by name: two containers of one name.
    let got = create(
        &v,
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{name: a, port: 80}, {name: b, port: 80}]}\n",
    );
    assert_eq!(
        answer(&got),
        "422 Service \"s\" is invalid: spec.ports[1]: Duplicate value: {\"port\":80,\"protocol\":\"TCP\"}"
    );
}

#[test]
fn unknown_fields_strict_warn_ignore() {
    let text = "apiVersion: v1\nkind: Service\nmetadata: {name: s, zz: 1}\nspec: {ports: [{port: 80, b: 1}], a: 1}\n";
    let strict = create(&validator(), text);
    assert_eq!(
        answer(&strict),
        "400 Service in version \"v1\" cannot be handled as a Service: strict decoding error: unknown field \"metadata.zz\", unknown field \"spec.a\", unknown field \"spec.ports[0].b\""
    );
    let warn = Validator::builder()
        .field_validation(FieldValidation::Warn)
        .build();
    let got = create(&warn, text);
    assert!(got.is_valid(), "{}", answer(&got));
    assert_eq!(
        got.warnings,
        [
            "unknown field \"metadata.zz\"",
            "unknown field \"spec.a\"",
            "unknown field \"spec.ports[0].b\""
        ]
    );
    let ignore = Validator::builder()
        .field_validation(FieldValidation::Ignore)
        .build();
    let got = create(&ignore, text);
    assert!(
        got.is_valid() && got.warnings.is_empty(),
        "{}",
        answer(&got)
    );
    let object = got.object.expect("object").into_value();
    assert_eq!(object.pointer("/spec/a"), None);
    assert_eq!(object.pointer("/spec/ports/0/b"), None);
}

#[test]
fn cluster_scoped_kinds() {
    let v = validator();
    for (api_version, kind) in [
        ("v1", "Namespace"),
        ("v1", "Node"),
        ("v1", "PersistentVolume"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole"),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
        ("storage.k8s.io/v1", "StorageClass"),
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        (
            "admissionregistration.k8s.io/v1",
            "ValidatingWebhookConfiguration",
        ),
    ] {
        let object = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x", "namespace": "ns"}});
        let got = v
            .validate(Request::create(object))
            .expect("a built-in kind");
        // A cluster-scoped object keeps no namespace.
        let ns = got
            .object
            .as_ref()
            .and_then(|o| o.as_value().pointer("/metadata/namespace"));
        assert_eq!(ns, None, "{kind}: {}", answer(&got));
    }
    for (api_version, kind) in [
        ("v1", "ConfigMap"),
        ("rbac.authorization.k8s.io/v1", "Role"),
        ("v1", "ServiceAccount"),
    ] {
        let object = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}});
        let got = v
            .validate(Request::create(object))
            .expect("a built-in kind");
        let ns = got
            .object
            .as_ref()
            .and_then(|o| o.as_value().pointer("/metadata/namespace"));
        assert_eq!(ns, Some(&json!("default")), "{kind}: {}", answer(&got));
    }
}

#[test]
fn releases() {
    // ResourceClaim of resource.k8s.io/v1 is served from 1.34 on.
    let claim = json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"}, "spec": {}});
    let old = Validator::builder().kube_version(kv(28)).build();
    assert!(matches!(
        old.validate(Request::create(claim.clone())),
        Err(Error::NoMatchingCrd { .. })
    ));
    let new = Validator::builder().kube_version(kv(34)).build();
    assert!(new.validate(Request::create(claim)).is_ok());
    for minor in 28..=35 {
        let v = Validator::builder().kube_version(kv(minor)).build();
        assert_eq!(v.builtins_notice(), None);
        assert!(create(&v, POD).is_valid(), "1.{minor}");
    }
    for minor in [36, 37] {
        let v = Validator::builder().kube_version(kv(minor)).build();
        // Only once a built-in kind has served an object.
        assert_eq!(v.builtins_notice(), None);
        assert!(create(&v, POD).is_valid(), "1.{minor}");
        let notice = v.builtins_notice().expect("a notice");
        assert!(
            notice.contains(&format!("1.{minor}")) && notice.contains("1.35"),
            "{notice}"
        );
    }
}

#[test]
fn lookup_order_and_switch() {
    // A CRD serving the group and kind comes first.
    let crd: kcel_kube::crd::CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "deployments.apps"},
        "spec": {"group": "apps", "names": {"kind": "Deployment", "plural": "deployments"}, "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}]}
    }))
    .expect("CRD");
    let v = Validator::builder().crd(crd).build();
    let got = create(
        &v,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {anything: 1}\n",
    );
    assert!(got.is_valid(), "{}", answer(&got));
    // Built-ins off: no kind serves a ConfigMap.
    let off = Validator::builder().builtins(false).build();
    let err = off.validate(Request::create(yaml(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    )));
    assert!(matches!(err, Err(Error::NoMatchingCrd { .. })));
    // Unknown kinds and versions.
    let v = validator();
    for (api_version, kind) in [
        ("v1", "configmap"),
        ("v2", "ConfigMap"),
        ("apps/v1beta1", "Deployment"),
    ] {
        let err = v.validate(Request::create(
            json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}),
        ));
        assert!(
            matches!(err, Err(Error::NoMatchingCrd { .. })),
            "{api_version} {kind}"
        );
    }
}

/// An OpenAPI v3 document as `kubectl get --raw /openapi/v3/apis/example.com/v1` saves it.
fn thing_document(required: &[&str]) -> Value {
    json!({
        "openapi": "3.0.0",
        "paths": {
            "/apis/example.com/v1/things": {"post": {"x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Thing"}}},
            "/apis/example.com/v1/things/{name}": {"get": {"x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Thing"}}},
            "/apis/example.com/v1/things/{name}/status": {"get": {"x-kubernetes-group-version-kind": {"group": "example.com", "version": "v1", "kind": "Thing"}}}
        },
        "components": {"schemas": {
            "com.example.v1.Thing": {
                "type": "object",
                "x-kubernetes-group-version-kind": [{"group": "example.com", "version": "v1", "kind": "Thing"}],
                "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                    "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}},
                    "spec": {"allOf": [{"$ref": "#/components/schemas/com.example.v1.ThingSpec"}]}
                }
            },
            "com.example.v1.ThingSpec": {
                "type": "object",
                "required": required,
                "properties": {
                    "color": {"type": "string", "enum": ["blue", "red"]},
                    "size": {"type": "integer", "format": "int32"},
                    "next": {"$ref": "#/components/schemas/com.example.v1.ThingSpec"}
                }
            },
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}}
            }
        }}
    })
}

#[test]
fn openapi_documents_add_and_override_kinds() {
    let v = Validator::builder()
        .openapi_document(thing_document(&["color"]), "thing.json")
        .try_build()
        .expect("a document");
    let thing = "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\n";
    let got = create(
        &v,
        &format!("{thing}spec: {{color: blue, size: 3, next: {{color: red, next: {{any: 1}}}}}}\n"),
    );
    assert!(got.is_valid(), "{}", answer(&got));
    let got = create(&v, &format!("{thing}spec: {{color: green}}\n"));
    assert_eq!(
        answer(&got),
        "422 Thing.example.com \"t\" is invalid: spec.color: Unsupported value: \"green\": supported values: \"blue\", \"red\""
    );
    let got = create(&v, &format!("{thing}spec: {{size: 1}}\n"));
    assert_eq!(
        answer(&got),
        "422 Thing.example.com \"t\" is invalid: spec.color: Required value"
    );
    let got = create(&v, &format!("{thing}spec: {{color: red, size: x}}\n"));
    assert_eq!(
        answer(&got),
        "400 Thing in version \"v1\" cannot be handled as a Thing: json: cannot unmarshal string into Go struct field ThingSpec.spec.size of type int32"
    );
    // A namespaced kind (its `/namespaces/{namespace}/` path is absent: cluster-scoped here).
    assert_eq!(got.kind, "Thing");
    // Overriding a shipped group-version's kind.
    let mut doc = thing_document(&[]);
    doc["paths"] = json!({"/api/v1/namespaces/{namespace}/configmaps": {"post": {"x-kubernetes-group-version-kind": {"group": "", "version": "v1", "kind": "ConfigMap"}}}});
    doc["components"]["schemas"]["io.k8s.api.core.v1.ConfigMap"] = json!({
        "type": "object", "required": ["data"],
        "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMap"}],
        "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
            "metadata": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
            "data": {"type": "object", "additionalProperties": {"type": "string"}}}
    });
    let v = Validator::builder()
        .openapi_document(doc, "cm.json")
        .try_build()
        .expect("a document");
    let got = create(&v, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    assert_eq!(
        answer(&got),
        "422 ConfigMap \"c\" is invalid: data: Required value"
    );
    // Kinds the document does not define still come from the shipped release.
    assert!(create(&v, POD).is_valid());
    // A document without schemas is an error naming it.
    let err = Validator::builder()
        .openapi_document(json!({"paths": {}}), "empty.json")
        .try_build();
    assert!(
        matches!(&err, Err(e) if e.to_string().starts_with("empty.json: ")),
        "{:?}",
        err.err()
    );
}

#[test]
fn validators_share_converted_kinds_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Validator>();
    let v = validator();
    let answers: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| answer(&create(&v, &POD.replace(", image: i", "")))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    assert!(answers.iter().all(|a| a == &answers[0]), "{answers:?}");
    let _: HashMap<(), ()> = HashMap::new();
}

#[test]
fn time_parsing_never_panics() {
    let valid = "2024-01-01T00:00:00.5+01:00";
    for i in 0..=valid.len() {
        for insert in ["é", "\u{1F600}", "x", "", "9", "\"", "\\"] {
            let s = format!("{}{insert}{}", &valid[..i], &valid[i..]);
            let _ = kcel_kube::go::time::parse_rfc3339(&s);
            let _ = kcel_kube::go::time::parse_rfc3339(&s[..i]);
        }
    }
}

#[test]
fn names_by_kind() {
    let v = validator();
    let cases = [
        (
            "v1",
            "Namespace",
            "a.b",
            Some("metadata.name: Invalid value: \"a.b\": must not contain dots"),
        ),
        ("v1", "Namespace", "ab", None),
        (
            "v1",
            "Service",
            "1abc",
            Some(
                "metadata.name: Invalid value: \"1abc\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
            ),
        ),
        ("v1", "ConfigMap", "a.b", None),
        (
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            "system:aggregate-to-edit",
            None,
        ),
        (
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            "a/b",
            Some("metadata.name: Invalid value: \"a/b\": may not contain '/'"),
        ),
        (
            "v1",
            "ConfigMap",
            "a:b",
            Some("metadata.name: Invalid value: \"a:b\": a lowercase RFC 1123 subdomain"),
        ),
    ];
    for (api_version, kind, name, want) in cases {
        let got = v
            .validate(Request::create(
                json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}}),
            ))
            .expect("a built-in kind");
        match want {
            None => assert!(got.is_valid(), "{kind} {name}: {}", answer(&got)),
            Some(w) => assert!(
                got.status.message.contains(w),
                "{kind} {name}: {}",
                answer(&got)
            ),
        }
    }
}
