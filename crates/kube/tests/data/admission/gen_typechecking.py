"""Writes typechecking.json: the tables of TestExtractTypeNames and TestTypeCheck
(k8s.io/apiserver pkg/admission/plugin/policy/validating/typechecking_test.go), transcribed by
hand below with each case's Go source line, as policy documents and schemas in JSON.

The Go test's RESTMapper (buildTypeChecker) maps v1 pods to Pod and apps/v1 deployments to
Deployment; its SchemaResolver returns the record's `schema` for every kind (absent:
ErrSchemaNotFound). Records of TestExtractTypeNames carry the exact `gvks` of typesToCheck.
TestTypeCheck records carry the Go test's assertions (`fieldRefs`, `length`, `contains`) and
`warnings`: the exact warnings of the real TypeChecker.Check, produced by
`../../gen/typechecking/main.go` (Kubernetes 1.35 code) from this file's records and merged by

    python3 gen_typechecking.py > typechecking.json
    typechecking typechecking.json > typechecking.server.json
    python3 gen_typechecking.py typechecking.server.json > typechecking.json

A record whose check panics in Kubernetes 1.35 (a schema without a CEL type: `declType`
dereferences nil; fixed after 1.35 by kubernetes/kubernetes commit 83bcb0ae) carries the panic's
text as `panic`, and no warnings: the status controller writes none.
"""
import json
import sys

REPO = "kubernetes/apiserver"
COMMIT = "24a394e516bfda066d7e2221d7d92c052de27c54"
FILE = "pkg/admission/plugin/policy/validating/typechecking_test.go"


def rule(groups, versions, resources):
    return {"apiGroups": groups, "apiVersions": versions, "resources": resources}


def policy(validations=None, rules=None, param_kind=None, variables=None):
    spec = {}
    if param_kind:
        spec["paramKind"] = param_kind
    if validations:
        spec["validations"] = validations
    if variables:
        spec["variables"] = variables
    if rules is not None:
        spec["matchConstraints"] = {"resourceRules": rules}
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "typechecking"},
        "spec": spec,
    }


DEPLOYMENTS = [rule(["apps"], ["v1"], ["deployments"])]
DEPLOYMENT = {"group": "apps", "version": "v1", "kind": "Deployment"}
POD = {"group": "", "version": "v1", "kind": "Pod"}

EXTRACT = [
    (65, "empty", policy(), []),
    (70, "specific", policy(rules=DEPLOYMENTS), [DEPLOYMENT]),
    (91, "multiple", policy(rules=DEPLOYMENTS + [rule([""], ["v1"], ["pods"])]), [POD, DEPLOYMENT]),
    (124, "all resources", policy(rules=[rule(["apps"], ["v1"], ["*"])]), []),
    (141, "sub resources", policy(rules=[rule(["apps"], ["v1"], ["pods/*"])]), []),
    (158, "mixtures", policy(rules=DEPLOYMENTS + [rule(["apps"], ["*"], ["deployments"])]), [DEPLOYMENT]),
]


def obj(**props):
    return {"type": "object", "properties": props}


STRING = {"type": "string"}
INT64 = {"type": "integer", "format": "int64"}


def expr(e, message_expression=None):
    v = {"expression": e}
    if message_expression:
        v["messageExpression"] = message_expression
    return v


deployment_policy = policy([expr("object.foo == 'bar'")], DEPLOYMENTS)
no_type_schema_policy = policy([expr("true")], DEPLOYMENTS)
bad_message_policy = policy([expr("object.foo == 'bar'", "object.foo + 114514")], DEPLOYMENTS)
multi_policy = policy([expr("object.foo == 'bar'"), expr("object.bar == 'foo'")], DEPLOYMENTS)
params_policy = policy([expr("object.foo == params.bar")], DEPLOYMENTS,
                       {"apiVersion": "v1", "kind": "DoesNotMatter"})
authorizer_policy = policy(
    [expr("authorizer.group('').resource('endpoints').check('create').allowed()")], DEPLOYMENTS)
authorizer_invalid_policy = policy([expr("authorizer.allowed()")], DEPLOYMENTS)
reproducer_policy = policy([expr("has(object.spec.text)")],
                           [rule(["example.com"], ["v1alpha1"], ["reproducers"])])


def var(name, e):
    return {"name": name, "expression": e}


# (line, name, policy, schema or None, fieldRefs or None, length or None, contains)
TYPE_CHECK = [
    (345, "empty", policy(), None, [], None, []),
    (350, "unresolved schema", deployment_policy, None, [], None, []),
    (356, "passed check", deployment_policy, obj(foo=STRING), [], None, []),
    (369, "undefined field", deployment_policy, obj(bar=STRING),
     ["spec.validations[0].expression"], None, ["undefined field 'foo'"]),
    (385, "field type mismatch", deployment_policy, obj(foo=INT64),
     ["spec.validations[0].expression"], None, ["found no matching overload"]),
    (401, "params", params_policy, obj(foo=STRING),
     ["spec.validations[0].expression"], None, ["undefined field 'bar'"]),
    (417, "params with untyped schema",
     policy([expr("params != null")], DEPLOYMENTS, {"apiVersion": "v1", "kind": "Config"}),
     {}, [], None, []),
    (434, "multiple expressions", multi_policy, obj(foo=STRING),
     ["spec.validations[1].expression"], 1, []),
    (450, "message expressions", bad_message_policy, obj(foo=STRING),
     ["spec.validations[0].messageExpression"], 1, []),
    (466, "authorizer", authorizer_policy, obj(foo=STRING), [], None, []),
    (479, "authorizer invalid", authorizer_invalid_policy, obj(foo=STRING),
     ["spec.validations[0].expression"], 1,
     ["found no matching overload for 'allowed' applied to 'kubernetes.authorization.Authorizer"]),
    (496, "additionalProperties: true", reproducer_policy,
     obj(spec=obj(text=STRING),
         status=obj(problematicProperty={"type": "object", "additionalProperties": True})),
     [], None, []),
    (529, "schema without type", no_type_schema_policy, {}, [], None, []),
    (535, "variables valid",
     policy([expr("variables.works")], DEPLOYMENTS, variables=[var("works", "true")]),
     obj(foo=INT64), None, 0, []),
    (562, "variables missing field",
     policy([expr("variables.nonExisting")], DEPLOYMENTS, variables=[var("works", "true")]),
     obj(foo=INT64), ["spec.validations[0].expression"], 1, ["undefined field 'nonExisting'"]),
    (593, "variables field wrong type",
     policy([expr("variables.name == object.foo")], DEPLOYMENTS, variables=[var("name", "'something'")]),
     obj(foo=INT64), ["spec.validations[0].expression"], 1,
     ["found no matching overload for '_==_' applied to '(string, int)"]),
    (624, "error in variables, not reported during type checking.",
     policy([expr("variables.name == object.foo")], DEPLOYMENTS,
            variables=[var("name", "object.foo == 'str'")]),
     obj(foo=INT64), None, 0, []),
]


def provenance(test, line, name):
    return {"repo": REPO, "commit": COMMIT, "file": FILE, "test": test, "case": name, "line": line}


def main():
    server = {}
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as f:
            server = json.load(f)
    records = [
        {"provenance": provenance("TestExtractTypeNames", line, name), "policy": p, "gvks": gvks}
        for line, name, p, gvks in EXTRACT
    ]
    for line, name, p, schema, refs, length, contains in TYPE_CHECK:
        r = {"provenance": provenance("TestTypeCheck", line, name), "policy": p}
        if schema is not None:
            r["schema"] = schema
        if refs is not None:
            r["fieldRefs"] = refs
        if length is not None:
            r["length"] = length
        r["contains"] = contains
        if isinstance(server.get(name), str):
            # Kubernetes 1.35's Check panics (the status controller writes nothing).
            r["panic"] = server[name]
            r["warnings"] = []
        elif name in server:
            r["warnings"] = server[name]
        records.append(r)
    out = {"kind": "typechecking", "restMapper": [POD, DEPLOYMENT], "records": records}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


main()
