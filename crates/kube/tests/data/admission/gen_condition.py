"""Writes condition.json: the tables of k8s.io/apiserver pkg/admission/plugin/cel/condition_test.go
(TestCompile, TestCondition, TestRuntimeCELCostBudget, TestCompilationErrors), transcribed by
hand below with each case's Go source line.

The Go test's typed fixtures are written here as the JSON their typed values read as in CEL
(`common.SchemalessTypedToVal`, json tags, `omitempty` fields left out when empty):

* `newValidAttribute(object, isDelete)`: namespace `default`, name `foo`, empty kind and
  resource, operation CREATE (also when `isDelete`), no user; `object` defaults to the
  Endpoints `endpoints1` with one subset; with `isDelete` the object is null and the old object
  an unnamed Endpoints with the same subset.
* `endpointCreateAttributes()`: the same Endpoints with its TypeMeta, kind/resource v1
  Endpoints/endpoints, namespace `default`, name `endpoints1`, CREATE.
* `endpointStatusUpdateAttributes()`: that object as object and old object, subresource
  `status`, UPDATE.

Each record is one Go subtest (`t.Run(tc.name)`), with the expectation in the Go test's terms:

* `compile` (TestCompile): `compileErrors` maps an expression to a substring its compilation
  error must contain (`strings.Contains`); every other expression must compile.
* `condition` (TestCondition): `results`, one per expression, `{"value": bool}` or
  `{"error": substring}` (`strings.Contains` on the evaluation error).
* `budget` (TestRuntimeCELCostBudget): `exceedBudget` (the list error contains the budget
  text, no results, remaining -1), `exceedPerCallLimit` (some result's error contains the
  per-call limit text), `remaining` (the remaining budget, when the Go case checks it).
* `compilationErrors` (TestCompilationErrors): hand-built `CompilationResult`s whose errors are
  `apiservercel.Error{Detail: "error1"}`..., and the list `CompilationErrors()` returns. There is
  no expression to compile: the runner skips these (see admission_cel.skip).

`authorizer` describes the Go test's fake authorizer (`fakeAuthorizer`): `denyAll` (Deny,
reason "fake reason"), `errorAll` (NoOpinion, error "fake authz error"), or `allowMatch` with the
`authorizer.AttributesRecord` it allows (every other request Deny, no reason).

`budget` defaults to `celconfig.RuntimeCELCostBudget` (10,000,000), `perCallLimit` to
`celconfig.PerCallLimit` (1,000,000) (TestRuntimeCELCostBudget's `-1` budget means the
default); `compatibilityVersion` absent is `environment.DefaultCompatibilityVersion()`; `envType`
absent is NewExpressions.

Run: python3 gen_condition.py > condition.json
then record the real 1.35 code's answers again: tests/gen/admission_cel (cel.server.json).
"""
import json

REPO = "kubernetes/apiserver"
COMMIT = "24a394e516bfda066d7e2221d7d92c052de27c54"
FILE = "pkg/admission/plugin/cel/condition_test.go"


def endpoints(name=None, type_meta=False):
    meta = {"creationTimestamp": None}
    if name is not None:
        meta["name"] = name
    o = {"metadata": meta, "subsets": [{"addresses": [{"ip": "127.0.0.0"}]}]}
    if type_meta:
        o = {"kind": "Endpoints", "apiVersion": "v1", **o}
    return o


GVK_EMPTY = {"group": "", "version": "", "kind": ""}
GVR_EMPTY = {"group": "", "version": "", "resource": ""}

POD = {
    "metadata": {"name": "foo", "creationTimestamp": None},
    "spec": {"containers": None, "nodeName": "testnode"},
    "status": {},
}


def valid_attribute(obj=None, is_delete=False):
    if is_delete:
        obj, old = None, endpoints()
    else:
        obj, old = (endpoints("endpoints1") if obj is None else obj), None
    return {"kind": GVK_EMPTY, "resource": GVR_EMPTY, "subresource": "", "namespace": "default",
            "name": "foo", "operation": "CREATE", "object": obj, "oldObject": old}


def endpoint_create():
    return {"kind": {"group": "", "version": "v1", "kind": "Endpoints"},
            "resource": {"group": "", "version": "v1", "resource": "endpoints"},
            "subresource": "", "namespace": "default", "name": "endpoints1",
            "operation": "CREATE", "object": endpoints("endpoints1", True), "oldObject": None}


def endpoint_status_update():
    a = endpoint_create()
    a.update({"subresource": "status", "operation": "UPDATE", "oldObject": a["object"]})
    return a


CONFIGMAP_PARAMS = {"metadata": {"name": "foo", "creationTimestamp": None},
                    "data": {"fakeString": "fake"}}
CRD_PARAMS = {"spec": {"testSize": 10}}
NAMESPACE = {
    "metadata": {"name": "test", "creationTimestamp": None,
                 "labels": {"env": "test", "foo": "demo"},
                 "annotations": {"annotation1": "testAnnotation1"},
                 "finalizers": ["f1"]},
    "spec": {"finalizers": ["kubernetes"]},
    "status": {"phase": "Active"},
}

DENY_ALL = {"kind": "denyAll", "decision": "Deny", "reason": "fake reason"}
ERROR_ALL = {"kind": "errorAll", "decision": "NoOpinion", "reason": "", "error": "fake authz error"}


# The resource check the selector cases name: deployments/status `backend` in `test`.
APPS_STATUS = dict(ResourceRequest=True, APIGroup="apps", Resource="deployments",
                   Subresource="status", Namespace="test", Name="backend", Verb="create",
                   APIVersion="*")


def allow_match(**record):
    """newAuthzAllowMatch(authorizer.AttributesRecord{...}): the record's fields by Go name."""
    return {"kind": "allowMatch", "match": record}


T, F = {"value": True}, {"value": False}


def err(s):
    return {"error": s}


records = []


def add(test, line, name, mode, **fields):
    r = {"provenance": {"repo": REPO, "commit": COMMIT, "file": FILE, "test": test,
                        "case": name, "line": line},
         "mode": mode}
    r.update(fields)
    records.append(r)


# TestCompile: conditionCompiler over the default compatibility version, no params, no
# authorizer, NewExpressions; compilation results only.
for line, name, exprs, errs in [
    (68, "invalid syntax", ["1 < 'asdf'", "1 < 2"],
     {"1 < 'asdf'": "found no matching overload for '_<_' applied to '(int, string)"}),
    (82, "valid syntax", [
        "1 < 2",
        "object.spec.string.matches('[0-9]+')",
        "request.kind.group == 'example.com' && request.kind.version == 'v1' && request.kind.kind == 'Fake'",
    ], {}),
]:
    add("TestCompile", line, name, "compile", hasParams=False, hasAuthorizer=False,
        expressions=exprs, compileErrors=errs)

# TestCondition: (line, name, expressions, results, attributes, extra fields). hasAuthorizer is
# `tc.authorizer != nil`.
AUTHZ_RESOURCE = "authorizer.group('').resource('endpoints').check('create')"
CONDITION = [
    (202, "valid syntax for object", ["has(object.subsets) && object.subsets.size() < 2"], [T],
     valid_attribute(), {}),
    (217, "valid syntax for metadata", ["object.metadata.name == 'endpoints1'"], [T],
     valid_attribute(), {}),
    (232, "valid syntax for oldObject", ["oldObject == null", "object != null"], [T, T],
     valid_attribute(), {}),
    (253, "valid syntax for request", ["request.operation == 'CREATE'"], [T], valid_attribute(), {}),
    (268, "valid syntax for configMap", ["request.namespace != params.data.fakeString"], [T],
     valid_attribute(), {"hasParams": True, "params": CONFIGMAP_PARAMS}),
    (284, "test failure", ["object.subsets.size() > 2"], [F], valid_attribute(),
     {"hasParams": True, "params": CONFIGMAP_PARAMS}),
    (307, "test failure with multiple validations",
     ["has(object.subsets)", "object.subsets.size() > 2"], [T, F], valid_attribute(),
     {"hasParams": True, "params": CONFIGMAP_PARAMS}),
    (329, "test failure policy with multiple failed validations",
     ["oldObject != null", "object.subsets.size() > 2"], [F, F], valid_attribute(),
     {"hasParams": True, "params": CONFIGMAP_PARAMS}),
    (351, "test Object null in delete", ["oldObject != null", "object == null"], [T, T],
     valid_attribute(None, True), {"hasParams": True, "params": CONFIGMAP_PARAMS}),
    (373, "test runtime error", ["oldObject.x == 100"],
     [err("expression 'oldObject.x == 100' resulted in error")], valid_attribute(None, True),
     {"hasParams": True, "params": CONFIGMAP_PARAMS}),
    (389, "test against crd param", ["object.subsets.size() < params.spec.testSize"], [T],
     valid_attribute(), {"hasParams": True, "params": CRD_PARAMS}),
    (405, "test compile failure",
     ["fail to compile test", "object.subsets.size() > params.spec.testSize"],
     [err("compilation error"), F], valid_attribute(), {"hasParams": True, "params": CRD_PARAMS}),
    (427, "test pod", ["object.spec.nodeName == 'testnode'"], [T], valid_attribute(POD),
     {"hasParams": True, "params": CRD_PARAMS}),
    (443, "test deny paramKind without paramRef", ["params != null"], [F], valid_attribute(POD),
     {"hasParams": True}),
    # params: runtime.Object(nilUnstructured), a nil *Unstructured: null.
    (458, "test allow paramKind without paramRef", ["params == null"], [T], valid_attribute(POD),
     {"hasParams": True}),
    (474, "test authorizer allow resource check",
     [AUTHZ_RESOURCE + ".allowed()", AUTHZ_RESOURCE + ".errored()"], [T, F],
     valid_attribute(POD),
     {"authorizer": allow_match(ResourceRequest=True, Resource="endpoints", Verb="create",
                                APIVersion="*")}),
    (500, "test authorizer allow resource check with all fields",
     ["authorizer.group('apps').resource('deployments').fieldSelector('foo=bar').labelSelector('apple=banana').subresource('status').namespace('test').name('backend').check('create').allowed()"],
     [T], valid_attribute(POD),
     {"authorizer": allow_match(
         **APPS_STATUS,
         FieldSelectorRequirements=[{"Operator": "=", "Field": "foo", "Value": "bar"}],
         LabelSelectorRequirements=[{"key": "apple", "operator": "=", "strValues": ["banana"]}]),
      "compatibilityVersion": "1.31"}),
    (531, "test authorizer allow resource check with parse failures",
     ["authorizer.group('apps').resource('deployments').fieldSelector('foo badoperator bar').labelSelector('apple badoperator banana').subresource('status').namespace('test').name('backend').check('create').allowed()"],
     [T], valid_attribute(POD),
     {"authorizer": allow_match(
         **APPS_STATUS,
         FieldSelectorParsingErr="invalid selector: 'foo badoperator bar'; can't understand 'foo badoperator bar'",
         LabelSelectorParsingErr="unable to parse requirement: found 'badoperator', expected: in, notin, =, ==, !=, gt, lt"),
      "compatibilityVersion": "1.31"}),
    (558, "test authorizer not allowed resource check one incorrect field",
     ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()"],
     [F], valid_attribute(POD),
     {"authorizer": allow_match(**{**APPS_STATUS, "Resource": "deployments-xxxx"})}),
    (583, "test authorizer reason", [AUTHZ_RESOURCE + ".reason() == 'fake reason'"], [T],
     valid_attribute(POD), {"authorizer": DENY_ALL}),
    (598, "test authorizer error",
     [AUTHZ_RESOURCE + ".errored()", AUTHZ_RESOURCE + ".error() == 'fake authz error'",
      AUTHZ_RESOURCE + ".allowed()"], [T, T, F], valid_attribute(POD),
     {"authorizer": ERROR_ALL}),
    (625, "test authorizer allow path check", ["authorizer.path('/healthz').check('get').allowed()"],
     [T], valid_attribute(POD), {"authorizer": allow_match(Path="/healthz", Verb="get")}),
    (643, "test authorizer decision is denied path check",
     ["authorizer.path('/healthz').check('get').allowed() == false"], [T], valid_attribute(POD),
     {"authorizer": DENY_ALL}),
    (658, "test request resource authorizer allow check",
     ["authorizer.requestResource.check('custom-verb').allowed()"], [T], endpoint_create(),
     {"authorizer": allow_match(ResourceRequest=True, APIGroup="", Resource="endpoints",
                                Subresource="", Namespace="default", Name="endpoints1",
                                Verb="custom-verb", APIVersion="*")}),
    (682, "test subresource request resource authorizer allow check",
     ["authorizer.requestResource.check('custom-verb').allowed()"], [T], endpoint_status_update(),
     {"authorizer": allow_match(ResourceRequest=True, APIGroup="", Resource="endpoints",
                                Subresource="status", Namespace="default", Name="endpoints1",
                                Verb="custom-verb", APIVersion="*")}),
    (706, "test serviceAccount authorizer allow check",
     ["authorizer.serviceAccount('default', 'test-serviceaccount').group('').resource('endpoints').namespace('default').name('endpoints1').check('custom-verb').allowed()"],
     [T], endpoint_create(),
     {"authorizer": allow_match(
         User={"Name": "system:serviceaccount:default:test-serviceaccount",
               "Groups": ["system:serviceaccounts", "system:serviceaccounts:default"]},
         ResourceRequest=True, APIGroup="", Resource="endpoints", Namespace="default",
         Name="endpoints1", Verb="custom-verb", APIVersion="*")}),
    (733, "test perCallLimit exceed", ["object.subsets.size() < params.spec.testSize"],
     [err("operation cancelled: actual cost limit exceeded")], valid_attribute(),
     {"hasParams": True, "params": CRD_PARAMS, "perCallLimit": 1}),
    (750, "test namespaceObject", [
        "namespaceObject.metadata.name == 'test'",
        "'env' in namespaceObject.metadata.labels && namespaceObject.metadata.labels.env == 'test'",
        "('fake' in namespaceObject.metadata.labels) && namespaceObject.metadata.labels.fake == 'test'",
        "namespaceObject.spec.finalizers[0] == 'kubernetes'",
        "namespaceObject.status.phase == 'Active'",
        "size(namespaceObject.metadata.managedFields) == 1",
        "size(namespaceObject.metadata.ownerReferences) == 1",
        "'env' in namespaceObject.metadata.annotations",
    ], [T, T, F, T, T, err("undefined field 'managedFields'"),
        err("undefined field 'ownerReferences'"), F], valid_attribute(POD),
     {"namespaceObject": NAMESPACE}),
    (808, "cel lib not recognized in version earlier than introduced version",
     ['isQuantity("20M")'], [err("isQuantity")], valid_attribute(POD),
     {"compatibilityVersion": "1.27"}),
    (823, "cel lib recognized in version later than introduced version",
     ['isQuantity("20M")'], [T], valid_attribute(POD), {"compatibilityVersion": "1.30"}),
    (838, "cel lib always recognized in stored expression", ['isQuantity("20M")'], [T],
     valid_attribute(POD), {"envType": "StoredExpressions", "compatibilityVersion": "1.2"}),
]
for line, name, exprs, results, attrs, extra in CONDITION:
    fields = {"hasParams": False, "params": None, "namespaceObject": None}
    fields.update(extra)
    fields["hasAuthorizer"] = "authorizer" in fields
    add("TestCondition", line, name, "condition", attributes=attrs, expressions=exprs,
        results=results, **fields)

# TestRuntimeCELCostBudget: hasAuthorizer is always true; (line, name, expressions, budget,
# exceedBudget, remaining, extra fields). checkCost is 350000.
CHECK = "!authorizer.group('').resource('endpoints').check('create').allowed()"
LIBRARY = [
    ("isSorted()", "[1,2,3,4].isSorted()", 4),
    ("url", "url('https:://kubernetes.io/').getHostname() == 'kubernetes.io'", 4),
    ("split", "size('abc 123 def 123'.split(' ')) > 0", 5),
    ("join", "size(['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')) > 0", 7),
    ("find", "size('abc 123 def 123'.find('123')) > 0", 4),
    ("quantity", 'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', 6),
]
PARAMS = {"hasParams": True, "params": CONFIGMAP_PARAMS}
BUDGET = [
    (947, "expression exceed RuntimeCELCostBudget at fist expression",
     ["has(object.subsets) && object.subsets.size() < 2", "has(object.subsets)"], 1, True, None, {}),
    (962, "expression exceed RuntimeCELCostBudget at last expression",
     ["has(object.subsets) && object.subsets.size() < 2", "object.subsets.size() > 2"], 5, True,
     None, PARAMS),
    (978, "test RuntimeCELCostBudge is not exceed",
     ["oldObject != null", "object.subsets.size() > 2"], 10, False, 4, PARAMS),
    (995, "test RuntimeCELCostBudge exactly covers",
     ["oldObject != null", "object.subsets.size() > 2"], 6, False, 0, PARAMS),
    (1012, "test RuntimeCELCostBudge exactly covers then constant",
     ["oldObject != null", "object.subsets.size() > 2", "true"], 6, False, 0, PARAMS),
    (1032, "Extended library cost: authz check", [CHECK], 350000 + 5, False, 0,
     {"authorizer": DENY_ALL}),
]
BUDGET += [(1046 + 13 * i, "Extended library cost: " + n, [e], b, False, 0, {})
           for i, (n, e, b) in enumerate(LIBRARY)]
STRICT = "With StrictCostEnforcementForVAP enabled: "
BUDGET += [
    (1124, STRICT + "expression exceed RuntimeCELCostBudget at fist expression",
     [CHECK, "has(object.subsets)"], 35000, True, None, {"authorizer": DENY_ALL}),
    (1140, STRICT + "expression exceed RuntimeCELCostBudget at last expression",
     [CHECK, CHECK], 700000, True, None, {"authorizer": DENY_ALL}),
    (1156, STRICT + "test RuntimeCELCostBudge is not exceed", [CHECK, CHECK], 700011, False, 1,
     {"authorizer": DENY_ALL, **PARAMS}),
    (1174, STRICT + "test RuntimeCELCostBudge exactly covers", [CHECK, CHECK], 700010, False, 0,
     {"authorizer": DENY_ALL, **PARAMS}),
    (1192, STRICT + "per call limit exceeds", [" && ".join([CHECK] * 3)], -1, False, None,
     {"authorizer": DENY_ALL, "exceedPerCallLimit": True, **PARAMS}),
]
BUDGET += [(1206 + 13 * i, STRICT + "Extended library cost: " + n, [e], b, False, 0, {})
           for i, (n, e, b) in enumerate(LIBRARY)]
for line, name, exprs, budget, exceed, remaining, extra in BUDGET:
    fields = {"hasParams": False, "params": None, "exceedPerCallLimit": False}
    fields.update(extra)
    add("TestRuntimeCELCostBudget", line, name, "budget", hasAuthorizer=True,
        attributes=valid_attribute(), expressions=exprs,
        budget=10000000 if budget < 0 else budget, exceedBudget=exceed, remaining=remaining,
        namespaceObject=None, **fields)

# TestCompilationErrors: `null` is a CompilationResult without error, a string the Detail of
# its apiservercel.Error.
for line, name, results in [
    (1384, "no errors, empty list", []),
    (1389, "no errors, several results", [None, None, None]),
    (1396, "all errors", ["error1", "error2", "error3"]),
    (1421, "mixed errors and non errors",
     [None, "error1", None, "error2", None, None, "error3", None]),
]:
    add("TestCompilationErrors", line, name, "compilationErrors", compilationResults=results,
        expected=[r for r in results if r is not None])

print(json.dumps({"kind": "condition", "records": records}, indent=1))
