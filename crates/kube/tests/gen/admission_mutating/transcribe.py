#!/usr/bin/env python3
"""Transcribes the table tests of k8s.io/apiserver's MutatingAdmissionPolicy plugin into JSON.

Expressions, case names, expected error texts and Go source lines are read from the Go test
files (the cases' `name:`, `expression:` and `expectedErr:` fields); the objects (Go struct
literals) are transcribed by hand below as minimal JSON, each under its case name. `normalize`
(Go, next to this script) then passes every object through its Go type, so the data holds the
objects as the typed code encodes them.

Usage: transcribe.py <dir with the Go test files> > mutating.src.json
"""
import json
import re
import sys

REPO = "kubernetes/apiserver"
COMMIT = "24a394e516bfda066d7e2221d7d92c052de27c54"
BASE = "pkg/admission/plugin/policy/mutating/"


def go_string(s):
    """A Go interpreted string literal's value (the escapes the tests use)."""
    return json.loads(s)


def cases(path, test):
    """(line, name, expression, expectedErr) of each table case of `test` in `path`: the
    expression is the case's one backquoted string."""
    out = []
    for line, name, raws, err in blocks(path):
        assert len(raws) == 1, (path, name, raws)
        out.append((line, name, raws[0], err))
    return out


DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment"}


def dep(spec=None, labels=None, annotations=None, typemeta=False, name=None, namespace=None):
    d = {}
    if typemeta:
        d.update(DEPLOY)
    meta = {}
    if name:
        meta["name"] = name
    if namespace:
        meta["namespace"] = namespace
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    d["metadata"] = meta
    d["spec"] = spec or {}
    return d


def pod(containers=None, init=None, **extra):
    spec = {}
    if init is not None:
        spec["initContainers"] = init
    if containers is not None:
        spec["containers"] = containers
    spec.update(extra)
    return {"template": {"spec": spec}}


def with_containers(cs, **kw):
    return dep(pod(cs), **kw)


def with_init(init, cs, **kw):
    return dep(pod(cs, init), **kw)


def c(name, image=None, command=None, args=None, ports=None, resources=None, env=None):
    fields = {"name": name, "image": image, "command": command, "args": args,
              "ports": ports, "resources": resources, "env": env}
    return {k: v for k, v in fields.items() if v}


def complex_pod():
    return dep(pod([c("a", "nginx")],
                   affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                       "nodeSelectorTerms": [{"matchExpressions": [
                           {"key": "foo", "operator": "In", "values": ["bar", "baz"]}]}]}}},
                   tolerations=[{"key": "taint", "operator": "Exists"}]))


def replicas(n, typemeta=False):
    return dep({"replicas": n}, typemeta=typemeta)


ma, mb, mc = c("a"), c("b"), c("c")
req = lambda cpu, mem: {"requests": {"cpu": cpu, "memory": mem}}
both = lambda cpu, mem: {"requests": {"cpu": cpu, "memory": mem}, "limits": {"cpu": cpu, "memory": mem}}

# JSON Patch cases: name -> (object, expected object); an error case has expected None.
JSON_PATCH = {
    "jsonPatch with false test operation": (replicas(1), replicas(1)),
    "jsonPatch with true test operation": (replicas(1), replicas(3)),
    "jsonPatch remove to unset field": (replicas(1), dep({})),
    "jsonPatch remove map entry by key": (dep(labels={"x": "1", "y": "1"}), dep(labels={"x": "1"})),
    "jsonPatch remove element in list": (with_containers([ma, mb, mc]), with_containers([ma, mc])),
    "jsonPatch copy map entry by key": (dep(labels={"x": "1"}), dep(labels={"x": "1", "y": "1"})),
    "jsonPatch copy first element to end of list": (with_containers([ma, mb, mc]), with_containers([ma, mb, mc, ma])),
    "jsonPatch move map entry by key": (dep(labels={"x": "1"}), dep(labels={"y": "1"})),
    "jsonPatch move first element to end of list": (with_containers([ma, mb, mc]), with_containers([mb, mc, ma])),
    "jsonPatch add map entry by key and value#1": (dep(labels={"y": "1"}), dep(labels={"y": "1", "x": "2"})),
    "jsonPatch add map value to field": (dep(), dep(labels={"y": "2"})),
    "jsonPatch add map to existing map": (dep(labels={"x": "1"}), dep(labels={"y": "2"})),
    "jsonPatch add to start of list": (with_containers([ma]), with_containers([c("x"), ma])),
    "jsonPatch add to end of list": (with_containers([ma]), with_containers([ma, c("x")])),
    "jsonPatch replace key in map": (dep(labels={"y": "1"}), dep(labels={"y": "1", "x": "2"})),
    "jsonPatch replace map value of unset field": (dep(), dep(labels={"y": "2"})),
    "jsonPatch replace map value of set field": (dep(labels={"x": "1"}), dep(labels={"y": "2"})),
    "jsonPatch replace first element in list": (with_containers([ma]), with_containers([c("x")])),
    "jsonPatch add map entry by key and value#2": (dep(), dep({"selector": {}, "replicas": 10})),
    "JSONPatch patch type has field access": (dep(labels={}), dep(labels={
        "op": "opValue", "path": "pathValue", "from": "fromValue", "value": "valueValue"})),
    "JSONPatch patch type has field testing": (dep(labels={}), dep(labels={
        "op": "true", "path": "true", "from": "true", "value": "true",
        "op-unset": "false", "path-unset": "false", "from-unset": "false", "value-unset": "false"})),
    "JSONPatch patch type equality": (dep(labels={}), dep(labels={
        "empty": "true", "partial": "true", "same-all": "true", "different-op": "false",
        "different-path": "false", "different-from": "false", "different-value": "false"})),
    "JSONPatch key escaping": (dep(labels={}), dep(labels={"k8s.io/x~y": "true"})),
    "jsonPatch with CEL initializer": (with_containers([ma]), with_containers([ma, c("x", ports=[{"containerPort": 8080}])])),
    "jsonPatch invalid CEL initializer field": (with_containers([ma]), None),
    "jsonPatch invalid CEL initializer type": (with_containers([ma]), None),
    "jsonPatch replace end of list with - not allowed": (with_containers([ma]), None),
    "jsonPatch with complex struct as value": (with_containers([ma]), with_containers([ma, ma])),
    "jsonPatch with large complex struct as value": (complex_pod(), complex_pod()),
    "jsonPatch with slice of complex struct as value": (with_containers([c("a", "nginx")]), with_init([c("a", "nginx")], [c("a", "nginx")])),
    "jsonPatch with list concatenation operator": (with_containers([ma]), with_containers([ma, ma])),
    "jsonPatch with list concatenation using constant value": (
        with_containers([c("c1", command=["server", "start"])]),
        with_containers([c("c1", command=["server", "start"], args=["server", "start", "--debug", "-v"])])),
    "jsonPatch with list concatenation reading from other fields": (
        with_init([c("init-setup", "busybox:1.36")], [c("main-app", "nginx:1.24")]),
        with_init([c("init-setup", "busybox:1.36")], [c("init-setup", "busybox:1.36"), c("main-app", "nginx:1.24")])),
    "jsonPatch with list concatenation between typed type and unstructured object (typed + unstructured)": (
        with_containers([c("main-app", "nginx:1.24")]),
        with_init([c("main-app", "nginx:1.24"), c("unstructured-init", "alpine:3.18")], [c("main-app", "nginx:1.24")])),
    "jsonPatch with list concatenation between unstructured object and typed type (unstructured + typed)": (
        with_containers([c("main-app", "nginx:1.24")]),
        with_init([c("unstructured-init", "alpine:3.18"), c("main-app", "nginx:1.24")], [c("main-app", "nginx:1.24")])),
    "jsonPatch with list concatenation between two unstructured objects (unstructured + unstructured)": (
        with_containers([c("main-app", "nginx:1.24")]),
        with_init([c("unstructured-init1", "alpine:3.18"), c("unstructured-init2", "alpine:3.18")], [c("main-app", "nginx:1.24")])),
    "jsonPatch with list concatenation between typed type and structured object (typed + structured)": (
        with_containers([c("main-app", "nginx:1.24")]),
        with_init([c("main-app", "nginx:1.24"), c("init-1", "alpine:3.18", ["echo", "init1"])], [c("main-app", "nginx:1.24")])),
    "jsonPatch with list concatenation between structured object and typed type (structured + typed)": (
        with_containers([c("main-app", "nginx:1.24")]),
        with_init([c("init-1", "alpine:3.18", ["echo", "init1"]), c("main-app", "nginx:1.24")], [c("main-app", "nginx:1.24")])),
    "jsonPatch with list concatenation between two structured objects (structured + structured)": (
        with_containers([c("main-app", "nginx:1.24")]),
        with_init([c("init-1", "alpine:3.18", ["echo", "init1"]), c("init-2", "alpine:3.18", ["echo", "init2"])], [c("main-app", "nginx:1.24")])),
    "jsonPatch with map key comprehension all predicate": (
        dep(labels={"env": "prod", "app": "demo"}), dep(labels={"env": "prod", "app": "demo", "added": "true"})),
    "jsonPatch with scalar int and bool as values": (
        dep({"replicas": 3, "paused": True}),
        dep({"replicas": 3, "progressDeadlineSeconds": 3, "paused": True, "template": {"spec": {"hostNetwork": True}}})),
    "jsonPatch with map of resource quantities as value": (
        with_containers([c("c1", resources=req("100m", "128Mi"))]),
        with_containers([c("c1", resources=both("100m", "128Mi"))])),
    "jsonPatch with slice of scalars as value": (
        with_containers([c("c1", command=["sh", "-c", "echo hello"])]),
        with_containers([c("c1", command=["sh", "-c", "echo hello"], args=["sh", "-c", "echo hello"])])),
    "jsonPatch with map of scalars as value": (
        dep(labels={"env": "prod", "tier": "frontend"}),
        dep(labels={"env": "prod", "tier": "frontend"}, annotations={"env": "prod", "tier": "frontend"})),
    "jsonPatch with map of struct as value": (
        with_containers([c("c1", resources=req("250m", "512Mi"))]),
        with_containers([c("c1", resources=both("250m", "512Mi"))])),
    "jsonPatch with constant complex struct object as value": (
        with_containers([c("main-app", "nginx:1.24")]),
        with_containers([c("main-app", "nginx:1.24"), c("sidecar", "busybox:1.36", ["sh", "-c", "sleep 3600"],
                                                          resources={"limits": {"cpu": "200m", "memory": "256Mi"}})])),
    "jsonPatch with constant complex list of struct objects as value": (
        with_containers([c("main-app", "nginx:1.24")]),
        with_init([c("init-1", "alpine:3.18", ["echo", "init1"]), c("init-2", "alpine:3.18", ["echo", "init2"])], [c("main-app", "nginx:1.24")])),
}

vol = lambda *names: dep(pod(volumes=[{"name": n} for n in names]), typemeta=True)
SMD = {
    "apply configuration add to listType=map": (vol("x"), vol("x", "y")),
    "apply configuration update listType=map entry": (
        vol("x", "y"),
        dep(pod(volumes=[{"name": "x"}, {"name": "y", "hostPath": {"path": "a"}}]), typemeta=True)),
    "apply configuration with conditionals": (replicas(2, True), replicas(3, True)),
    "apply configuration with old object": (replicas(1, True), replicas(3, True), replicas(2, True)),
    "complex apply configuration initialization": (
        dep({}, typemeta=True),
        dep({"replicas": 1, "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [
            c("nginx", "nginx:1.14.2", ports=[{"containerPort": 80}], resources={"limits": {"cpu": "128M"}})]}}},
            typemeta=True)),
    "apply configuration with change to atomic": (replicas(1, True), None),
    "apply configuration with invalid type name": (replicas(1, True), None),
    "apply configuration with invalid field name": (replicas(1, True), None),
    "apply configuration with invalid return type": (replicas(1, True), None),
    "apply configuration with invalid initializer return type": (replicas(1, True), None),
    "apply configuration with duplicate env vars in original object": (
        dep({"replicas": 1, "template": {"spec": {"containers": [c("nginx", env=[{"name": "test", "value": "a"}, {"name": "test", "value": "b"}])]}}}, typemeta=True),
        dep({"replicas": 3, "template": {"spec": {"containers": [c("nginx", env=[{"name": "test", "value": "a"}, {"name": "test", "value": "b"}])]}}}, typemeta=True)),
    "apply configuration modify existing env variable": (
        dep({"replicas": 1, "template": {"spec": {"containers": [c("nginx", env=[{"name": "test", "value": "a"}, {"name": "test", "value": "b"}, {"name": "foo", "value": "bar"}])]}}}, typemeta=True),
        dep({"replicas": 1, "template": {"spec": {"containers": [c("nginx", env=[{"name": "test", "value": "c"}, {"name": "foo", "value": "bar"}])]}}}, typemeta=True)),
}


def record(file, test, line, name, kind=None, **fields):
    """A record with its provenance; `kind` defaults to apps/v1 Deployment."""
    return {"name": name,
            "provenance": {"repo": REPO, "commit": COMMIT, "file": BASE + file, "test": test, "line": line},
            "kind": kind or DEPLOY, **fields}


def single(mutation_type):
    return lambda expr: {"mutations": [{"patchType": mutation_type, mutation_key(mutation_type): {"expression": expr}}]}


def mutation_key(t):
    return "jsonPatch" if t == "JSONPatch" else "applyConfiguration"


def table(file, test, objects, patch_type):
    out = []
    seen = {}
    for line, name, expr, err in cases(f"{sys.argv[1]}/{file.split('/')[-1]}", test):
        seen[name] = seen.get(name, 0) + 1
        key = name if name in objects else f"{name}#{seen[name]}"
        entry = objects[key]
        obj, want = entry[0], entry[1]
        old = entry[2] if len(entry) > 2 else None
        case = record(file, test, line, name if key == name else key,
                      policy=single(patch_type)(expr), object=obj)
        if old is not None:
            case["oldObject"] = old
        if err is not None:
            case["expectedError"] = err
        else:
            case["expectedObject"] = want
        out.append(case)
    assert len(out) == len(objects), (file, len(out), len(objects))
    return out


def blocks(path):
    """(line, name, [backquoted strings in order], expectedErr) of each table case."""
    lines = open(path).read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r'^\t\t\tname:\s+("(?:[^"\\]|\\.)*")', lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while not re.match(r"^\t\t\}", lines[j]):
            j += 1
        body = "\n".join(lines[i:j])
        raws = re.findall(r"`([^`]*)`", body)
        err = re.search(r'expectedErr:\s+("(?:[^"\\]|\\.)*")', body)
        out.append((i + 1, go_string(m.group(1)), raws, go_string(err.group(1)) if err else None))
        i = j
    return out


def jp(e):
    return {"patchType": "JSONPatch", "jsonPatch": {"expression": e}}


def ac(e):
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": e}}


def var(name, e):
    return {"name": name, "expression": e}


# TestCompilation: name -> (policy spec from the case's backquoted expressions, object,
# expected object, extra inputs).
COMPILATION = {
    "applyConfiguration then jsonPatch": (lambda x: {"mutations": [ac(x[0]), jp(x[1])]}, replicas(1, True), replicas(111, True), {}),
    "jsonPatch then applyConfiguration": (lambda x: {"mutations": [jp(x[0]), ac(x[1])]}, replicas(1, True), replicas(111, True), {}),
    "jsonPatch with variable": (lambda x: {"variables": [var("desired", "10")], "mutations": [jp(x[0])]}, replicas(1, True), replicas(11, True), {}),
    "apply configuration with variable": (lambda x: {"variables": [var("desired", "10")], "mutations": [ac(x[0])]}, replicas(1, True), replicas(11, True), {}),
    "apply configuration with params": (lambda x: {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}, "mutations": [ac(x[0])]},
                                        replicas(1, True), replicas(100, True), {"params": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}, "data": {"k1": "100"}}}),
    "jsonPatch with excessive cost": (lambda x: {"variables": [var("list", "[0,1,2,3,4,5,6,7,8,9]")], "mutations": [jp(x[0])]}, replicas(1, True), None, {}),
    "applyConfiguration with excessive cost": (lambda x: {"variables": [var("list", "[0,1,2,3,4,5,6,7,8,9]")], "mutations": [ac(x[0])]}, replicas(1, True), None, {}),
    "request variable": (lambda x: {"mutations": [jp(x[0])]}, replicas(1, True), replicas(10, True), {}),
    "namespace request variable": (lambda x: {"mutations": [jp(x[0])]}, replicas(1, True), replicas(10, True),
                                   {"namespaceObject": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns1"}}}),
    "authorizer check": (lambda x: {"mutations": [jp(x[0])]}, replicas(1, True), replicas(10, True), {"authorizer": "allow"}),
    "object type has field access": (lambda x: {"mutations": [jp(x[0])]}, dep(labels={}, typemeta=True), dep(labels={"value": "fieldValue"}, typemeta=True), {}),
    "object type has field testing": (lambda x: {"mutations": [jp(x[0])]}, dep(labels={}, typemeta=True),
                                      dep(labels={"field": "true", "field-unset": "false"}, typemeta=True), {}),
    "object type equality": (lambda x: {"mutations": [jp(x[0])]}, dep(labels={}, typemeta=True),
                             dep(labels={"empty": "true", "same": "true", "different": "false"}, typemeta=True), {}),
    "object types are not fully type checked": (lambda x: {"mutations": [jp(x[0])]}, dep(labels={}, typemeta=True),
                                                dep({"replicas": 1}, labels={}, typemeta=True), {}),
}

# The request every TestCompilation case binds (`CreateAdmissionRequest` of a create of a
# Deployment through apps/v1 deployments).
COMPILATION_REQUEST = {
    "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
    "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
    "requestKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
    "requestResource": {"group": "apps", "version": "v1", "resource": "deployments"},
    "name": "", "namespace": "", "operation": "CREATE",
    "userInfo": {}, "dryRun": False,
    "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"},
}


def transcribed(file, test, table, fields):
    """The records of `test`'s cases in `file`: each case's fields from its `table` entry,
    its backquoted strings and its expected error."""
    out = [record(file, test, line, name, **fields(table[name], raws, err))
           for line, name, raws, err in blocks(f"{sys.argv[1]}/{file}")]
    assert len(out) == len(table), (file, len(out))
    return out


def outcome(err, want):
    return {"expectedError": err} if err is not None else {"expectedObject": want}


def compilation():
    def fields(entry, raws, err):
        policy, obj, want, extra = entry
        return {"policy": policy(raws), "object": obj, "request": COMPILATION_REQUEST,
                **extra, **outcome(err, want)}
    return transcribed("compilation_test.go", "TestCompilation", COMPILATION, fields)


def policy(name, spec):
    return {"name": name, "spec": spec}


def hook(name, spec, param_ref=None):
    binding = {"name": "binding", "policyName": name}
    if param_ref:
        binding["paramRef"] = param_ref
    return {"policy": policy(name, spec), "binding": binding}


def mc(e):
    return [{"name": "prodonly", "expression": e}]


VOL_X = {"template": {"spec": {"volumes": [{"name": "x"}]}}}
ROLLING = {"strategy": {"type": "RollingUpdate"}}
D1 = dict(name="d1", namespace="default", typemeta=True)


def spec(**fields):
    return {**VOL_X, **fields}


# TestDispatcher: name -> (invocations from the case's backquoted strings, object, expected,
# params). Every policy's matchConstraints match the request (apps/v1 deployments, all
# operations); the test's defaulter sets `spec.strategy.type: RollingUpdate` when empty.
DISPATCHER = {
    "simple patch": (lambda x: [hook("policy1", {"mutations": [ac(x[0])]})],
                     dep(spec(replicas=1), **D1), dep(spec(replicas=101, **ROLLING), **D1), None),
    "with param": (lambda x: [hook("policy1", {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}, "mutations": [ac(x[0])]},
                                   {"name": "cm1", "namespace": "default"})],
                   dep(spec(replicas=1, **ROLLING), **D1), dep(spec(replicas=11, **ROLLING), **D1),
                   [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm1", "namespace": "default"}, "data": {"key": "10"}}]),
    "both policies reinvoked": (lambda x: [hook("policy1", {"mutations": [ac(x[0])]}), hook("policy2", {"mutations": [ac(x[1])]})],
                                dep(spec(**ROLLING), **D1), dep(spec(**ROLLING), labels={"policy1": "2", "policy2": "2"}, **D1), None),
    "1st policy sets match condition that 2nd policy matches": (
        lambda x: [hook("policy1", {"mutations": [ac(x[0])]}), hook("policy2", {"matchConditions": mc(x[1]), "mutations": [ac(x[2])]})],
        dep(spec(**ROLLING), **D1), dep(spec(**ROLLING), labels={"environment": "production", "policy1invoked": "true"}, **D1), None),
    "1st policy still does not match after 2nd policy sets match condition": (
        lambda x: [hook("policy1", {"matchConditions": mc(x[0]), "mutations": [ac(x[1])]}), hook("policy2", {"mutations": [ac(x[2])]})],
        dep(spec(**ROLLING), **D1), dep(spec(**ROLLING), labels={"environment": "production"}, **D1), None),
}


def dispatcher():
    def fields(entry, raws, err):
        invocations, obj, want, params = entry
        return {"invocations": invocations(raws), "object": obj,
                **({"paramObjects": params} if params else {}), **outcome(err, want)}
    return transcribed("dispatcher_test.go", "TestDispatcher", DISPATCHER, fields)


CM = {"apiVersion": "v1", "kind": "ConfigMap"}
POD = {"apiVersion": "v1", "kind": "Pod"}
CM_PATCH = {**CM, "metadata": {"annotations": {"foo": "bar"}}, "data": {"myfield": "myvalue"}}
CM_WANT = {"metadata": {"annotations": {"foo": "bar"}}, "data": {"myfield": "myvalue"}}

# plugin_test.go: the tests whose patcher is ApplyStructuredMergeDiff with a fixed patch
# (`smdPatcher`): (test function, Go line of the function, kind, object, patch, expected).
APPLY = [
    ("TestJSONPatch", CM, {}, CM_PATCH, CM_WANT),
    ("TestSSAPatch", CM, {}, CM_PATCH, CM_WANT),
    ("TestSSAMapList", POD,
     {"metadata": {}, "spec": {"initContainers": [{"name": "init-container", "image": "image"}]}},
     {**POD, "metadata": {"annotations": {"foo": "bar"}}, "spec": {"initContainers": [{"name": "injected-init-container", "image": "injected-image"}]}},
     {"metadata": {"annotations": {"foo": "bar"}}, "spec": {"initContainers": [
         {"name": "init-container", "image": "image"}, {"name": "injected-init-container", "image": "injected-image"}]}}),
]


def apply_records():
    text = open(f"{sys.argv[1]}/plugin_test.go").read().split("\n")
    out = []
    for test, kind, obj, patch, want in APPLY:
        line = next(i + 1 for i, l in enumerate(text) if l.startswith(f"func {test}("))
        out.append(record("plugin_test.go", test, line, test, kind,
                          object=obj, patch=patch, expectedObject=want))
    return out


def main():
    data = {
        "json_patch": table("patch/json_patch_test.go", "TestJSONPatch", JSON_PATCH, "JSONPatch"),
        "smd": table("patch/smd_test.go", "TestApplyConfiguration", SMD, "ApplyConfiguration"),
        "compilation": compilation(),
        "dispatcher": dispatcher(),
        "apply": apply_records(),
    }
    json.dump(data, sys.stdout, indent=1)


main()
