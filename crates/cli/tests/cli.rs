//! End-to-end tests of the `kcel` binary: outputs, messages and exit codes.

mod common;
use common::{kcel, stderr, stdout};

/// The README's first command.
#[test]
fn readme_example_evaluates_to_true() {
    let o = kcel(&[
        "eval",
        "self.spec.minReplicas <= self.spec.replicas && self.spec.replicas <= self.spec.maxReplicas",
        "--var",
        "self=@examples/webapp.json",
    ]);
    assert_eq!(stdout(&o), "true\n", "stderr: {}", stderr(&o));
    assert_eq!(o.status.code(), Some(0));
}

/// `-t` shows the checked type; `--cost` the static estimate and the runtime
/// cost (an `exists` over a 3-element literal list: list 10, then per element
/// `@not_strictly_false(!acc)` and `acc || x == 2` until it is found, result 1).
#[test]
fn shows_the_checked_type_and_the_costs() {
    let o = kcel(&["eval", "['a', 'b'].map(s, s + '!')", "-t"]);
    assert_eq!(
        stdout(&o),
        "[\"a!\", \"b!\"]\ntype: list(string)\n",
        "stderr: {}",
        stderr(&o)
    );
    let o = kcel(&[
        "eval",
        "x.size() > 2",
        "--decl",
        "x:string",
        "--var",
        "x=\"abc\"",
        "--cost",
    ]);
    let out = stdout(&o);
    assert!(out.starts_with("true\nestimated cost: {"), "{out}");
    assert!(out.ends_with("actual cost: 3\n"), "{out}");
    let o = kcel(&["eval", "1 + 1", "--cost", "-o", "json"]);
    assert_eq!(stdout(&o), "2\n");
    assert!(stderr(&o).contains("actual cost: 1"), "{}", stderr(&o));
}

#[test]
fn prints_cel_literals_and_json() {
    let o = kcel(&["eval", "[x + 1, 'a', b'\\x00', 2u, 1.0]", "--var", "x=41"]);
    assert_eq!(
        stdout(&o),
        "[42, \"a\", b\"\\x00\", 2u, 1.0]\n",
        "stderr: {}",
        stderr(&o)
    );
    let o = kcel(&["eval", "{'k': [x, null]}", "--var", "x=1", "-o", "json"]);
    assert_eq!(
        stdout(&o),
        "{\n  \"k\": [\n    1,\n    null\n  ]\n}\n",
        "stderr: {}",
        stderr(&o)
    );
}

#[test]
fn declared_types_are_checked() {
    let o = kcel(&["eval", "x + 1", "--decl", "x:string", "--var", "x=\"a\""]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("found no matching overload for '_+_'"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn compile_errors_show_line_and_caret() {
    let o = kcel(&["eval", "1 + "]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("ERROR: <input>:1:"), "{err}");
    assert!(err.contains("\n | 1 + \n | "), "{err}");
    assert!(err.contains('^'), "{err}");
    assert!(stdout(&o).is_empty());
}

#[test]
fn evaluation_errors_exit_1() {
    let o = kcel(&["eval", "1 / x", "--var", "x=0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("division by zero"), "{}", stderr(&o));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["eval"][..],
        &["eval", "x", "--var", "x"],
        &["eval", "x", "--var", "x={"],
        &["eval", "x", "--var", "x=@/nonexistent/file.json"],
        &["eval", "x", "--decl", "x:nosuchtype"],
        &["eval", "x", "-o", "yaml"],
        &["frobnicate"],
    ] {
        let o = kcel(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}

/// `validate -n`: an object naming another namespace gets the server's 400 BadRequest; one
/// naming none lands in the request's namespace.
#[test]
fn validate_namespace_flag_is_the_request_namespace() {
    let dir = std::env::temp_dir().join(format!("kcel-cli-ns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let obj = dir.join("w.yaml");
    std::fs::write(
        &obj,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: team-a}\n",
    )
    .expect("write object");
    let crd = "crates/cli/tests/testdata/test_cmd/widgets.crd.yaml";
    let obj = obj.to_string_lossy().into_owned();
    let refused = kcel(&["validate", "--crd", crd, "-n", "team-b", &obj]);
    let accepted = kcel(&["validate", "--crd", crd, &obj]);
    let same = kcel(&["validate", "--crd", crd, "--namespace", "team-a", &obj]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stdout(&refused).contains(
            "Error from server (BadRequest): the namespace of the provided object does not match the namespace sent on the request"
        ),
        "{}",
        stdout(&refused)
    );
    assert_eq!(accepted.status.code(), Some(0), "{}", stdout(&accepted));
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
}

/// `--proto` with `-I` and `--container`: a `--var` declared with a message
/// type reads its JSON as that message; construction, selection, `has()`,
/// enums as ints, an unset wrapper as `null`; message results print in CEL
/// syntax or, with `-o json`, in protobuf JSON; a missing file is a usage
/// error.
#[test]
fn evaluates_over_protobuf_messages() {
    let proto = [
        "--proto",
        "crates/cli/tests/testdata/eval_proto/shop.proto",
        "-I",
        "crates/cli/tests/testdata/eval_proto",
        "--container",
        "shop.v1",
    ];
    let mut args = vec!["eval"];
    args.extend(proto);
    args.extend([
        "item.quantity * 2 == 6 && item.kind == Item.Kind.BOOK && item.discount == null \
         && !has(item.discount) && item.tags == ['a'] && item != Item{name: 'x'}",
        "--decl",
        "item:Item",
        "--var",
        r#"item={"name": "x", "quantity": "3", "kind": "BOOK", "tags": ["a"]}"#,
        "-t",
    ]);
    let o = kcel(&args);
    assert_eq!(stdout(&o), "true\ntype: bool\n", "stderr: {}", stderr(&o));

    let mut args = vec!["eval"];
    args.extend(proto);
    args.push("Item{quantity: 2, discount: 0.5}");
    let o = kcel(&args);
    assert_eq!(
        stdout(&o),
        "shop.v1.Item{quantity: 2, discount: 0.5}\n",
        "stderr: {}",
        stderr(&o)
    );

    // `-o json`: messages in the protobuf JSON mapping (lowerCamelCase
    // names, int64 as a string, enums by name, wrappers unwrapped), nested
    // in lists and maps too.
    let mut args = vec!["eval", "-o", "json"];
    args.extend(proto);
    args.push(
        "[Item{quantity: 2, discount: 0.5, kind: Item.Kind.BOOK, tags: ['a']}, {'k': Item{}}]",
    );
    let o = kcel(&args);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(&o), stderr(&o)));
    assert_eq!(
        json,
        serde_json::json!([
            {"quantity": "2", "kind": "BOOK", "discount": 0.5, "tags": ["a"]},
            {"k": {}}
        ])
    );

    let o = kcel(&["eval", "--proto", "no/such.proto", "1"]);
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("no/such.proto"), "{}", stderr(&o));
}

/// `--kube` evaluates with Kubernetes' rule libraries, by release.
#[test]
fn kube_environment_has_the_kubernetes_libraries() {
    for (expr, want) in [
        ("quantity('1Gi').isGreaterThan(quantity('500Mi'))", "true"),
        (
            "url('https://example.com:8443/a?b=c').getPort()",
            "\"8443\"",
        ),
        ("isIP('10.0.0.1') ? ip('10.0.0.1').family() : 0", "4"),
        ("cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", "true"),
        (
            "format.dns1123Label().validate('Bad_Name').hasValue()",
            "true",
        ),
        ("'abc123def45'.findAll('[0-9]+')", "[\"123\", \"45\"]"),
        ("[3, 1, 2].isSorted() || [1, 2, 3].sum() == 6", "true"),
        ("semver('1.2.3').major()", "1"),
        ("sets.contains([1, 2, 3], [2])", "true"),
    ] {
        let o = kcel(&["eval", "--kube", expr]);
        assert_eq!(o.status.code(), Some(0), "{expr}: {}", stderr(&o));
        assert_eq!(stdout(&o), format!("{want}\n"), "{expr}");
    }
    // `format` arrived in 1.31: an older release's environment does not have it.
    let o = kcel(&[
        "eval",
        "--kube",
        "--kube-version",
        "1.30",
        "format.dns1123Label().validate('x').hasValue()",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("undeclared reference to 'format'"),
        "{}",
        stderr(&o)
    );
    // Kubernetes' libraries are not in the plain environment.
    let o = kcel(&["eval", "quantity('1Gi')"]);
    assert_eq!(o.status.code(), Some(1));
    // Flags that need --kube, or do not go with it, are usage errors.
    for args in [
        vec!["eval", "--kube-version", "1.30", "1"],
        vec!["eval", "--kube", "--proto", "x.proto", "1"],
        vec!["eval", "--kube", "--kube-version", "1.2", "1"],
    ] {
        assert_eq!(kcel(&args).status.code(), Some(2), "{args:?}");
    }
}

/// `[1..10]` mapped seven deep: ten million numbers, a cost of about 270 million.
const RUNAWAY: &str = "[1,2,3,4,5,6,7,8,9,10].map(z, [1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10].map(f, a + b + c + d + e + f)))))))";

/// Without flags a runaway expression ends at the default cost limit (Kubernetes' per-call
/// limit with `--kube`), with an error saying which bound and how to raise it.
#[test]
fn runaway_expressions_end_at_the_default_bound() {
    let started = std::time::Instant::now();
    let o = kcel(&["eval", "--kube", RUNAWAY]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert_eq!(
        stderr(&o),
        "evaluation error: operation cancelled: actual cost limit exceeded\n\
         kcel eval: the runtime cost limit (1000000) was reached; raise it with --cost-limit N or lift it with --cost-limit none\n"
    );
    let o = kcel(&["eval", RUNAWAY]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("the runtime cost limit (100000000) was reached"),
        "{}",
        stderr(&o)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // --cost-limit sets the limit; --cost shows where it stopped.
    let o = kcel(&["eval", "--cost", "--cost-limit", "50", RUNAWAY]);
    assert_eq!(o.status.code(), Some(1));
    let actual: u64 = stderr(&o)
        .lines()
        .find_map(|l| l.strip_prefix("actual cost: "))
        .and_then(|n| n.parse().ok())
        .expect("the cost where it stopped");
    assert!((51..100).contains(&actual), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the runtime cost limit (50) was reached"),
        "{}",
        stderr(&o)
    );
}

/// Without a cost limit, the deadline ends it.
#[test]
fn the_timeout_ends_an_evaluation_without_a_cost_limit() {
    let started = std::time::Instant::now();
    let o = kcel(&[
        "eval",
        "--cost-limit",
        "none",
        "--timeout",
        "200ms",
        RUNAWAY,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("kcel eval: the evaluation ran past the timeout (200ms); raise it with --timeout DURATION or lift it with --timeout none"),
        "{}",
        stderr(&o)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    for bad in ["0s", "1x", "-1s"] {
        let o = kcel(&["eval", "--timeout", bad, "1"]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
    let o = kcel(&["eval", "--cost-limit", "many", "1"]);
    assert_eq!(o.status.code(), Some(2));
}
