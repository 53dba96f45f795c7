"""Writes compile.json: the table of TestCompileValidatingPolicyExpression
(k8s.io/apiserver pkg/admission/plugin/cel/compile_test.go), transcribed by hand below with
each case's Go source line. Each expression yields two records, as the Go test runs two
subtests: the expression as a validation (returns bool) and `string(<expr>)` as an audit
annotation value (returns string or null). `error` is a substring the error must contain
(the Go test checks `strings.Contains`); absent means the expression compiles.

Run: python3 gen_compile.py > compile.json
"""
import json

REPO = "kubernetes/apiserver"
COMMIT = "24a394e516bfda066d7e2221d7d92c052de27c54"
FILE = "pkg/admission/plugin/cel/compile_test.go"
FUNC = "TestCompileValidatingPolicyExpression"

# (line, name, expressions, errorExpressions, hasParams, hasAuthorizer, envType)
CASES = [
    (41, "invalid syntax", [], {
        "1 < 'asdf'": "found no matching overload for '_<_' applied to '(int, string)",
        "'asdf'.contains('x'": "Syntax error: missing ')' at",
    }, False, False, "NewExpressions"),
    (48, "with params", ["object.foo < params.x"], {}, True, False, "NewExpressions"),
    (53, "namespaceObject", ["namespaceObject.metadata.name.startsWith('test')"], {}, True, False, "NewExpressions"),
    (58, "without params", [], {"object.foo < params.x": "undeclared reference to 'params'"}, False, False, "NewExpressions"),
    (63, "oldObject comparison", ["object.foo == oldObject.foo"], {}, False, False, "NewExpressions"),
    (67, "object null checks", ["object == null || oldObject == null || object.foo == oldObject.foo"], {}, False, False, "NewExpressions"),
    (74, "invalid root var", [], {"object.foo < invalid.x": "undeclared reference to 'invalid'"}, False, False, "NewExpressions"),
    (79, "function library", [
        "object.spec.string.matches('[0-9]+')",
        "object.spec.string.findAll('[0-9]+').size() > 0",
        "object.spec.list.isSorted()",
        "url(object.spec.endpoint).getHostname() in ['ok1', 'ok2']",
    ], {}, False, False, "NewExpressions"),
    (89, "valid request", [
        "request.kind.group == 'example.com' && request.kind.version == 'v1' && request.kind.kind == 'Fake'",
        "request.resource.group == 'example.com' && request.resource.version == 'v1' && request.resource.resource == 'fake' && request.subResource == 'scale'",
        "request.requestKind.group == 'example.com' && request.requestKind.version == 'v1' && request.requestKind.kind == 'Fake'",
        "request.requestResource.group == 'example.com' && request.requestResource.version == 'v1' && request.requestResource.resource == 'fake' && request.requestSubResource == 'scale'",
        "request.name == 'fake-name'",
        "request.namespace == 'fake-namespace'",
        "request.operation == 'CREATE'",
        "request.userInfo.username == 'admin'",
        "request.userInfo.uid == '014fbff9a07c'",
        "request.userInfo.groups == ['system:authenticated', 'my-admin-group']",
        "request.userInfo.extra == {'some-key': ['some-value1', 'some-value2']}",
        "request.dryRun == false",
        "request.options == {'whatever': 'you want'}",
    ], {}, False, False, "NewExpressions"),
    (107, "invalid request", [], {
        "request.foo1 == 'nope'": "undefined field 'foo1'",
        "request.resource.foo2 == 'nope'": "undefined field 'foo2'",
        "request.requestKind.foo3 == 'nope'": "undefined field 'foo3'",
        "request.requestResource.foo4 == 'nope'": "undefined field 'foo4'",
        "request.userInfo.foo5 == 'nope'": "undefined field 'foo5'",
    }, False, False, "NewExpressions"),
    (117, "with authorizer", ["authorizer.group('') != null"], {}, False, True, "NewExpressions"),
    (124, "without authorizer", [], {"authorizer.group('') != null": "undeclared reference to 'authorizer'"}, False, False, "NewExpressions"),
    (130, "compile with storage environment should recognize functions available only in the storage environment",
     ["test() == true"], {}, False, False, "StoredExpressions"),
    (137, "compile with supported environment should not recognize functions available only in the storage environment",
     [], {"test() == true": "undeclared reference to 'test'"}, False, False, "NewExpressions"),
    (144, "valid namespaceObject", [
        "namespaceObject.metadata != null",
        "namespaceObject.metadata.name == 'test'",
        "namespaceObject.metadata.generateName == 'test'",
        "namespaceObject.metadata.namespace == 'testns'",
        "'test' in namespaceObject.metadata.labels",
        "'test' in namespaceObject.metadata.annotations",
        "namespaceObject.metadata.UID == '12345'",
        "type(namespaceObject.metadata.creationTimestamp) == google.protobuf.Timestamp",
        "type(namespaceObject.metadata.deletionTimestamp) == google.protobuf.Timestamp",
        "namespaceObject.metadata.deletionGracePeriodSeconds == 5",
        "namespaceObject.metadata.generation == 2",
        "namespaceObject.metadata.resourceVersion == 'v1'",
        "namespaceObject.metadata.finalizers[0] == 'testEnv'",
        "namespaceObject.spec.finalizers[0] == 'testEnv'",
        "namespaceObject.status.phase == 'Active'",
        "namespaceObject.status.conditions[0].status == 'True'",
        "namespaceObject.status.conditions[0].type == 'NamespaceDeletionDiscoveryFailure'",
        "type(namespaceObject.status.conditions[0].lastTransitionTime) == google.protobuf.Timestamp",
        "namespaceObject.status.conditions[0].message == 'Unknow'",
        "namespaceObject.status.conditions[0].reason == 'Invalid'",
    ], {}, False, False, "NewExpressions"),
    (169, "invalid namespaceObject", [], {
        "namespaceObject.foo1 == 'nope'": "undefined field 'foo1'",
        "namespaceObject.metadata.foo2 == 'nope'": "undefined field 'foo2'",
        "namespaceObject.spec.foo3 == 'nope'": "undefined field 'foo3'",
        "namespaceObject.status.foo4 == 'nope'": "undefined field 'foo4'",
        "namespaceObject.status.conditions[0].foo5 == 'nope'": "undefined field 'foo5'",
    }, False, False, "NewExpressions"),
]

records = []
for line, name, ok, bad, params, authz, env in CASES:
    for expr, err in [(e, None) for e in ok] + list(bad.items()):
        for mode, text, returns in [("expression", expr, "bool"),
                                    ("auditAnnotation.valueExpression", "string(" + expr + ")", "string|null")]:
            r = {
                "provenance": {"repo": REPO, "commit": COMMIT, "file": FILE, "test": FUNC,
                               "case": name, "line": line, "subtest": expr + "/" + mode},
                "expression": text,
                "returns": returns,
                "hasParams": params,
                "hasAuthorizer": authz,
                "envType": env,
            }
            if err is not None:
                r["error"] = err
            records.append(r)
print(json.dumps({"kind": "compile", "records": records}, indent=1))
