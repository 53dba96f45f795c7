"""Writes api_validation.json: the tables of the admission-policy API validation tests of
kubernetes/kubernetes `pkg/apis/admissionregistration/validation/validation_test.go`
(ValidatingAdmissionPolicy, its binding and status, MutatingAdmissionPolicy and its binding,
create and update; not the webhook configuration tests), transcribed by hand below.

Source: the copy of kubernetes/kubernetes stored in the fork unnati2401/kubernetes at commit
a5e8298a09abde4bb7dc5ddf057a162fa850f2bd (Kubernetes development after 1.35: its validation.go
calls `content.IsPathSegmentName`, which apimachinery v0.35.0 lacks). It is the only stored copy
whose MutatingAdmissionPolicy tests use the v1beta1 shape (`patchType`, `applyConfiguration`,
`jsonPatch`); kubernetes/kubernetes' own stored copies are a 1.34-era file and an earlier
alpha-shaped one. The records run with Kubernetes 1.36. The copy could only be read through a
paged index, so a case is located by its test function, its name and its index in the table
(`provenance.index`, from 0), not by line.

Each record: the Go test function (`test`), the validation function it calls (`function`), the
object (`object`; `oldObject` for updates; `status` for the status test) as the JSON of the
internal object the test builds (nil pointers and nil slices absent, empty slices `[]`), and
`expectedError`. Every Go test here checks `strings.Contains(errs.ToAggregate().Error(),
expectedError)` when there are errors (and fails when expectedError is empty), and that there
are none when expectedError is empty; the runner checks the same (`compare: "contains"`).
`testLibrary`: TestValidateValidatingAdmissionPolicyUpdate installs `library.Test()` (a `test()`
function introduced at 1.999, so only the stored-expressions view has it) into the stateless
compiler.

Run: python3 gen_api_validation.py > api_validation.json
"""
import json

REPO = "kubernetes/kubernetes"
FORK = "unnati2401/kubernetes"
COMMIT = "a5e8298a09abde4bb7dc5ddf057a162fa850f2bd"
FILE = "pkg/apis/admissionregistration/validation/validation_test.go"
KUBE_VERSION = "1.36"

X100 = "object.x < 100"
AC_EXPR = "Object{ spec: Object.spec{ replicas: 1 } }"
PARAM_REF = {"name": "xyzlimit-scale-setting.example.com", "parameterNotFoundAction": "Deny"}
POLICY_NAME = "xyzlimit-scale.example.com"


def meta(name="config", rv=None):
    m = {"name": name}
    if rv:
        m["resourceVersion"] = rv
    return m


def rule(ops=("CREATE",), resources=("a",), names=None, groups=("a",), versions=("a",)):
    """A NamedRuleWithOperations; ops=None is a nil operations slice."""
    r = {}
    if names is not None:
        r["resourceNames"] = list(names)
    if ops is not None:
        r["operations"] = list(ops)
    r["apiGroups"] = list(groups)
    r["apiVersions"] = list(versions)
    r["resources"] = list(resources)
    return r


SELECTOR = {"matchLabels": {"a": "b"}}


def full_mc(rules, exclude=None):
    """MatchResources with both selectors and matchPolicy Exact, as the passing cases set."""
    m = {"namespaceSelector": SELECTOR, "objectSelector": SELECTOR, "matchPolicy": "Exact",
         "resourceRules": rules}
    if exclude is not None:
        m["excludeResourceRules"] = exclude
    return m


EMPTY_OPS_RULES = [rule(ops=()), rule(ops=None)]
EMPTY_OPS_ERROR = ", ".join(
    f"{{p}}.{kind}[{i}].operations: Required value"
    for kind in ("resourceRules", "excludeResourceRules") for i in (0, 1))


def vap(spec=None, name="config", rv=None):
    p = {"metadata": meta(name, rv)}
    if spec is not None:
        p["spec"] = spec
    return p


RECORDS = []


def add(test, function, index, case, expected, **inputs):
    r = {"test": test, "function": function, "case": case}
    r.update(inputs)
    r["expectedError"] = expected
    r["compare"] = "contains"
    r["kubeVersion"] = KUBE_VERSION
    r["provenance"] = {"repo": REPO, "storedIn": FORK, "commit": COMMIT, "file": FILE,
                       "test": test, "case": case, "index": index}
    RECORDS.append(r)


def table(test, function, cases, **extra):
    for i, case in enumerate(cases):
        name, expected = case[0], case[-1]
        inputs = case[1] if len(case) == 3 else {}
        add(test, function, i, name, expected, **inputs, **extra)


# --- TestValidateValidatingAdmissionPolicy -------------------------------------------------
V = [{"expression": X100}]
SUB = lambda resources: {"resourceRules": [rule(resources=resources)]}  # noqa: E731
VAP_CASES = [
    ("metadata.name validation", {"object": vap(name="!!!!")}, 'metadata.name: Invalid value: "!!!!":'),
    ("failure policy validation", {"object": vap({"failurePolicy": "other", "validations": V})},
     'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"'),
    ("failure policy validation", {"object": vap({"failurePolicy": "other"})},
     'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"'),
    ("API version is required in ParamKind",
     {"object": vap({"validations": V, "paramKind": {"kind": "Example", "apiVersion": "test.example.com"}})},
     'spec.paramKind.apiVersion: Invalid value: "test.example.com"'),
    ("API kind is required in ParamKind",
     {"object": vap({"validations": V, "paramKind": {"apiVersion": "test.example.com/v1"}})},
     "spec.paramKind.kind: Required value"),
    ("API version format in ParamKind",
     {"object": vap({"validations": V, "paramKind": {"kind": "Example", "apiVersion": "test.example.com/!!!"}})},
     'pec.paramKind.apiVersion: Invalid value: "!!!":'),
    ("API group format in ParamKind",
     {"object": vap({"validations": V, "paramKind": {"apiVersion": "!!!/v1", "kind": "ReplicaLimit"}})},
     'pec.paramKind.apiVersion: Invalid value: "!!!":'),
    ("Validations is required", {"object": vap({})},
     "spec.validations: Required value: validations or auditAnnotations must contain at least one item"),
    ("Invalid Validations Reason", {"object": vap({"validations": [{"expression": X100, "reason": "other"}]})},
     'spec.validations[0].reason: Unsupported value: "other"'),
    ("MatchConstraints is required", {"object": vap({"validations": V})}, "spec.matchConstraints: Required value"),
    ("matchConstraints.resourceRules is required", {"object": vap({"validations": V, "matchConstraints": {}})},
     "spec.matchConstraints.resourceRules: Required value"),
    ("matchConstraints.resourceRules has at least one explicit rule",
     {"object": vap({"validations": V, "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}})},
     "spec.matchConstraints.resourceRules[0].apiVersions: Required value"),
    ("expression is required", {"object": vap({"validations": [{}]})},
     "spec.validations[0].expression: Required value: expression is not specified"),
    ("matchResources resourceNames check",
     {"object": vap({"validations": V, "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}})},
     'spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "/./."'),
    ("matchResources resourceNames cannot duplicate",
     {"object": vap({"validations": V, "matchConstraints": {"resourceRules": [{"resourceNames": ["test", "test"]}]}})},
     'spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "test"'),
    ("matchResources validation: matchPolicy",
     {"object": vap({"validations": V, "matchConstraints": {"matchPolicy": "other"}})},
     'spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"'),
    ("Operations must not be empty or nil",
     {"object": vap({"validations": V, "failurePolicy": "Fail",
                     "matchConstraints": full_mc(EMPTY_OPS_RULES, EMPTY_OPS_RULES)})},
     EMPTY_OPS_ERROR.format(p="spec.matchConstraints")),
    ('"" is NOT a valid operation',
     {"object": vap({"validations": V, "matchConstraints": {"resourceRules": [rule(ops=("CREATE", ""))]}})},
     'Unsupported value: ""'),
    ("operation must be either create/update",
     {"object": vap({"validations": V, "matchConstraints": {"resourceRules": [rule(ops=("PATCH",))]}})},
     'Unsupported value: "PATCH"'),
    ("wildcard operation cannot be mixed with other strings",
     {"object": vap({"validations": V, "matchConstraints": {"resourceRules": [rule(ops=("CREATE", "*"))]}})},
     "if '*' is present, must not specify other operations"),
    ('resource "*" can co-exist with resources that have subresources',
     {"object": vap({"failurePolicy": "Fail", "validations": V,
                     "matchConstraints": full_mc([rule(resources=("*", "a/b", "a/*", "*/b"))])})}, ""),
    ('resource "*" cannot mix with resources that don\'t have subresources',
     {"object": vap({"validations": V, "matchConstraints": SUB(("*", "a"))})},
     "if '*' is present, must not specify other resources without subresources"),
    ("resource a/* cannot mix with a/x", {"object": vap({"validations": V, "matchConstraints": SUB(("a/*", "a/x"))})},
     "spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x"),
    ("resource a/* can mix with a",
     {"object": vap({"failurePolicy": "Fail", "validations": V,
                     "matchConstraints": full_mc([rule(resources=("a/*", "a"))])})}, ""),
    ("resource */a cannot mix with x/a", {"object": vap({"validations": V, "matchConstraints": SUB(("*/a", "x/a"))})},
     "spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: \"x/a\": if '*/a' is present, must not specify x/a"),
    ("resource */* cannot mix with other resources",
     {"object": vap({"validations": V, "matchConstraints": SUB(("*/*", "a"))})},
     "spec.matchConstraints.resourceRules[0].resources: Invalid value: [\"*/*\",\"a\"]: if '*/*' is present, must not specify other resources"),
    ("invalid expression",
     {"object": vap({"validations": [{"expression": "object.x in [1, 2, "}], "matchConstraints": SUB(("*/*",))})},
     "spec.validations[0].expression: Invalid value: \"object.x in [1, 2, \": compilation failed: ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>"),
    ("invalid messageExpression",
     {"object": vap({"validations": [{"expression": "true", "messageExpression": "object.x in [1, 2, "}],
                     "matchConstraints": SUB(("*/*",))})},
     "spec.validations[0].messageExpression: Invalid value: \"object.x in [1, 2, \": compilation failed: ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>"),
    ("messageExpression of wrong type",
     {"object": vap({"validations": [{"expression": "true", "messageExpression": "0 == 0"}],
                     "matchConstraints": SUB(("*/*",))})},
     'spec.validations[0].messageExpression: Invalid value: "0 == 0": must evaluate to string'),
    ("invalid auditAnnotations key due to key name",
     {"object": vap({"auditAnnotations": [{"key": "@", "valueExpression": "value"}]})},
     'spec.auditAnnotations[0].key: Invalid value: "config/@": name part must consist of alphanumeric characters'),
    ("auditAnnotations keys must be unique",
     {"object": vap({"auditAnnotations": [{"key": "a", "valueExpression": "'1'"},
                                          {"key": "a", "valueExpression": "'2'"}]})},
     'spec.auditAnnotations[1].key: Duplicate value: "a"'),
    ("invalid auditAnnotations key due to metadata.name",
     {"object": vap({"auditAnnotations": [{"key": "key", "valueExpression": "'value'"}]}, name="nope!")},
     'spec.auditAnnotations[0].key: Invalid value: "nope!/key": prefix part a lowercase RFC 1123 subdomain'),
    ("invalid auditAnnotations key due to length",
     {"object": vap({"auditAnnotations": [{"key": "this-is-a-long-name-for-an-audit-annotation-key-xxxxxxxxxxxxxxxxxxxxxxxxxx",
                                           "valueExpression": "'value'"}]},
                    name="this-is-a-long-name-for-a-admission-policy-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")},
     "spec.auditAnnotations[0].key: Invalid value"),
    ("invalid auditAnnotations valueExpression type",
     {"object": vap({"auditAnnotations": [{"key": "something", "valueExpression": "true"}]})},
     'spec.auditAnnotations[0].valueExpression: Invalid value: "true": must evaluate to one of [string null_type]'),
    ("invalid auditAnnotations valueExpression",
     {"object": vap({"auditAnnotations": [{"key": "something", "valueExpression": "object.x in [1, 2, "}]})},
     "spec.auditAnnotations[0].valueExpression: Invalid value: \"object.x in [1, 2, \": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>"),
    ("single match condition must have a name",
     {"object": vap({"matchConditions": [{"expression": "true"}], "validations": V})},
     "spec.matchConditions[0].name: Required value"),
    ("match condition with parameters allowed",
     {"object": vap({"paramKind": {"kind": "Foo", "apiVersion": "foobar/v1alpha1"},
                     "matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Fail",
                     "matchConditions": [{"name": "hasParams", "expression": 'params.foo == "okay"'}],
                     "validations": V})}, ""),
    ("match condition with parameters not allowed if no param kind",
     {"object": vap({"matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Fail",
                     "matchConditions": [{"name": "hasParams", "expression": 'params.foo == "okay"'}],
                     "validations": V})},
     "undeclared reference to 'params'"),
    ("variable composition empty name",
     {"object": vap({"variables": [{"name": "    ", "expression": "true"}], "validations": [{"expression": "true"}]})},
     "spec.variables[0].name: Required value: name is not specified"),
    ("variable composition name is not a valid identifier",
     {"object": vap({"variables": [{"name": "4ever", "expression": "true"}], "validations": [{"expression": "true"}]})},
     'spec.variables[0].name: Invalid value: "4ever": must be a valid CEL identifier'),
    ("variable composition cannot compile",
     {"object": vap({"variables": [{"name": "foo", "expression": "114 + '514'"}],
                     "validations": [{"expression": "true"}]})},
     "spec.variables[0].expression: Invalid value: \"114 + '514'\": compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(int, string)"),
    ("validation referred to non-existing variable",
     {"object": vap({"variables": [{"name": "foo", "expression": "1 + 1"},
                                   {"name": "bar", "expression": "variables.foo + 1"}],
                     "validations": [{"expression": "variables.foo > 1"},
                                     {"expression": "variables.replicas == 2"}]})},
     "spec.validations[1].expression: Invalid value: \"variables.replicas == 2\": compilation failed: ERROR: <input>:1:10: undefined field 'replicas'"),
    ("variables wrong order",
     {"object": vap({"variables": [{"name": "correct", "expression": "object"},
                                   {"name": "bar", "expression": "variables.foo + 1"},
                                   {"name": "foo", "expression": "1 + 1"}],
                     "validations": [{"expression": "variables.foo > 1"}]})},
     "spec.variables[1].expression: Invalid value: \"variables.foo + 1\": compilation failed: ERROR: <input>:1:10: undefined field 'foo'"),
]
table("TestValidateValidatingAdmissionPolicy", "ValidateValidatingAdmissionPolicy", VAP_CASES)

# --- TestValidateValidatingAdmissionPolicyUpdate -------------------------------------------
VALID_VAP_SPEC = {"failurePolicy": "Fail", "validations": V, "matchConstraints": full_mc([rule()])}
HAS_PARAMS = [{"name": "hasParams", "expression": 'params.foo == "okay"'}]


def vap_with(match_conditions, validations, audit):
    """validatingAdmissionPolicyWithExpressions."""
    spec = {"matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Ignore"}
    if match_conditions is not None:
        spec["matchConditions"] = match_conditions
    if validations is not None:
        spec["validations"] = validations
    if audit is not None:
        spec["auditAnnotations"] = audit
    return vap(spec, rv="1")


ENV_MC = lambda e: [{"name": "checkEnvironmentMode", "expression": e}]  # noqa: E731
ENV_AA = lambda e: [{"key": "checkEnvironmentMode", "valueExpression": e}]  # noqa: E731
VAP_UPDATE_CASES = [
    ("should pass on valid new ValidatingAdmissionPolicy",
     {"object": vap(VALID_VAP_SPEC, rv="1"),
      "oldObject": vap({"validations": V, "matchConstraints": {"resourceRules": [rule()]}})}, ""),
    ("should pass on valid new ValidatingAdmissionPolicy with invalid old ValidatingAdmissionPolicy",
     {"object": vap(VALID_VAP_SPEC, rv="1"), "oldObject": vap({})}, ""),
    ("match conditions re-checked if paramKind changes",
     {"oldObject": vap({"paramKind": {"kind": "Foo", "apiVersion": "foobar/v1alpha1"},
                        "matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Fail",
                        "matchConditions": HAS_PARAMS, "validations": V}),
      "object": vap({"matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Fail",
                     "matchConditions": HAS_PARAMS, "validations": V})},
     "undeclared reference to 'params'"),
    ("match conditions not re-checked if no change to paramKind or matchConditions",
     {"oldObject": vap({"matchConstraints": full_mc([rule(ops=("CREATE", "UPDATE"))]), "failurePolicy": "Fail",
                        "matchConditions": HAS_PARAMS, "validations": V}),
      "object": vap({"matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Ignore",
                     "matchConditions": HAS_PARAMS, "validations": [{"expression": "object.x < 50"}]}, rv="1")},
     ""),
    ("expressions that are not changed must be compiled using the StoredExpression environment",
     {"oldObject": vap_with(ENV_MC("test() == true"),
                            [{"expression": "test() == true", "messageExpression": "string(test())"}],
                            ENV_AA("string(test())")),
      "object": vap_with(ENV_MC("test() == true"),
                         [{"expression": "test() == true", "messageExpression": "string(test())"}],
                         ENV_AA("string(test())"))}, ""),
    ("matchCondition expressions that are changed must be compiled using the NewExpression environment",
     {"oldObject": vap_with(ENV_MC("true"), None, None), "object": vap_with(ENV_MC("test() == true"), None, None)},
     "undeclared reference to 'test'"),
    ("validation expressions that are changed must be compiled using the NewExpression environment",
     {"oldObject": vap_with(None, [{"expression": "true"}], None),
      "object": vap_with(None, [{"expression": "test() == true"}], None)},
     "undeclared reference to 'test'"),
    ("validation messageExpressions that are changed must be compiled using the NewExpression environment",
     {"oldObject": vap_with(None, [{"expression": "true", "messageExpression": "'test'"}], None),
      "object": vap_with(None, [{"expression": "true", "messageExpression": "string(test())"}], None)},
     "undeclared reference to 'test'"),
    ("auditAnnotation valueExpressions that are changed must be compiled using the NewExpression environment",
     {"oldObject": vap_with(None, None, ENV_AA("'test'")), "object": vap_with(None, None, ENV_AA("string(test())"))},
     "undeclared reference to 'test'"),
]
table("TestValidateValidatingAdmissionPolicyUpdate", "ValidateValidatingAdmissionPolicyUpdate",
      VAP_UPDATE_CASES, testLibrary=True)


# --- bindings (validating and mutating share most cases) -----------------------------------
def binding(spec=None, name="config", rv=None):
    return vap(spec, name, rv)


def binding_cases(validating):
    """The cases TestValidateValidatingAdmissionPolicyBinding and
    TestValidateMutatingAdmissionPolicyBinding share, in their order; `validating` adds
    validationActions where the validating table sets them and its own cases."""
    deny = {"validationActions": ["Deny"]} if validating else {}
    base = {"policyName": POLICY_NAME, "paramRef": PARAM_REF}
    mr = "spec.matchResources"
    cases = [
        ("metadata.name validation", {"object": binding(name="!!!!")}, 'metadata.name: Invalid value: "!!!!":'),
        ("PolicyName is required", {"object": binding({})}, "spec.policyName: Required value"),
        ("matchResources validation: matchPolicy",
         {"object": binding({**base, "matchResources": {"matchPolicy": "other"}})},
         f'{mr}.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"'),
        ("Operations must not be empty or nil",
         {"object": binding({**base, "matchResources": {"resourceRules": EMPTY_OPS_RULES,
                                                         "excludeResourceRules": EMPTY_OPS_RULES}})},
         EMPTY_OPS_ERROR.format(p=mr)),
        ('"" is NOT a valid operation',
         {"object": binding({**base, "matchResources": {"resourceRules": [rule(ops=("CREATE", ""))]}})},
         'Unsupported value: ""'),
        ("operation must be either create/update/delete/connect" if validating else "operation must be either create/update",
         {"object": binding({**base, "matchResources": {"resourceRules": [rule(ops=("PATCH",))]}})},
         'Unsupported value: "PATCH"'),
    ]
    if not validating:
        cases.append(("operation must not be DELETE",
                      {"object": binding({**base, "matchResources": {"resourceRules": [rule(ops=("DELETE",))]}})},
                      'Unsupported value: "DELETE"'))
    cases += [
        ("wildcard operation cannot be mixed with other strings",
         {"object": binding({**base, **deny, "matchResources": {"resourceRules": [rule(ops=("CREATE", "*"))]}})},
         "if '*' is present, must not specify other operations"),
        ('resource "*" can co-exist with resources that have subresources',
         {"object": binding({**base, **deny, "matchResources": full_mc([rule(resources=("*", "a/b", "a/*", "*/b"))])})},
         ""),
        ('resource "*" cannot mix with resources that don\'t have subresources',
         {"object": binding({**base, **deny, "matchResources": SUB(("*", "a"))})},
         "if '*' is present, must not specify other resources without subresources"),
        ("resource a/* cannot mix with a/x", {"object": binding({**base, **deny, "matchResources": SUB(("a/*", "a/x"))})},
         f"{mr}.resourceRules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x"),
        ("resource a/* can mix with a",
         {"object": binding({**base, **deny, "matchResources": full_mc([rule(resources=("a/*", "a"))])})}, ""),
        ("resource */a cannot mix with x/a", {"object": binding({**base, **deny, "matchResources": SUB(("*/a", "x/a"))})},
         f"{mr}.resourceRules[0].resources[1]: Invalid value: \"x/a\": if '*/a' is present, must not specify x/a"),
        ("resource */* cannot mix with other resources",
         {"object": binding({**base, **deny, "matchResources": SUB(("*/*", "a"))})},
         f"{mr}.resourceRules[0].resources: Invalid value: [\"*/*\",\"a\"]: if '*/*' is present, must not specify other resources"),
    ]
    if validating:
        cases += [
            ("validationActions must be unique", {"object": binding({**base, "validationActions": ["Deny", "Deny"]})},
             'spec.validationActions[1]: Duplicate value: "Deny"'),
            ("validationActions must contain supported values",
             {"object": binding({**base, "validationActions": ["illegal"]})},
             'Unsupported value: "illegal": supported values: "Audit", "Deny", "Warn"'),
        ]
    ref = lambda r: {"policyName": POLICY_NAME, **deny, "paramRef": r}  # noqa: E731
    cases += [
        ("paramRef selector must not be set when name is set",
         {"object": binding(ref({"name": PARAM_REF["name"], "selector": {"matchLabels": {"label": "value"}},
                                 "parameterNotFoundAction": "Deny"}))},
         "spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: name and selector are mutually exclusive"),
        ("paramRef parameterNotFoundAction must be set", {"object": binding(ref({"name": PARAM_REF["name"]}))},
         "spec.paramRef.parameterNotFoundAction: Required value"),
        ("paramRef parameterNotFoundAction must be an valid value",
         {"object": binding(ref({"name": PARAM_REF["name"], "parameterNotFoundAction": "invalid"}))},
         'spec.paramRef.parameterNotFoundAction: Unsupported value: "invalid": supported values: "Deny", "Allow"'),
        ("paramRef one of name or selector", {"object": binding(ref({"parameterNotFoundAction": "Deny"}))},
         "one of name or selector must be specified"),
    ]
    return cases


def binding_update_cases(validating, kind):
    deny = {"validationActions": ["Deny"]} if validating else {}
    spec = {"policyName": POLICY_NAME, "paramRef": PARAM_REF, **deny, "matchResources": full_mc([rule()])}
    return [
        (f"should pass on valid new {kind}", {"object": binding(spec, rv="1"), "oldObject": binding(spec)}, ""),
        (f"should pass on valid new {kind} with invalid old ValidatingAdmissionPolicyBinding",
         {"object": binding(spec, rv="1"), "oldObject": binding({})}, ""),
    ]


table("TestValidateValidatingAdmissionPolicyBinding", "ValidateValidatingAdmissionPolicyBinding",
      binding_cases(True))
table("TestValidateValidatingAdmissionPolicyBindingUpdate", "ValidateValidatingAdmissionPolicyBindingUpdate",
      binding_update_cases(True, "ValidatingAdmissionPolicyBinding"))

# --- TestValidateValidatingAdmissionPolicyStatus -------------------------------------------
W = lambda **w: {"typeChecking": {"expressionWarnings": [w]}}  # noqa: E731
STATUS_CASES = [
    ("empty", {"status": {}}, ""),
    ("type checking", {"status": W(fieldRef="spec.validations[0].expression", warning="message")}, ""),
    ("type checking bad json path", {"status": W(fieldRef="spec[foo]", warning="message")},
     "invalid JSONPath: invalid array index foo"),
    ("type checking missing warning", {"status": W(fieldRef="spec.validations[0].expression")}, "Required value"),
    ("type checking missing fieldRef", {"status": W(warning="message")}, "Required value"),
]
table("TestValidateValidatingAdmissionPolicyStatus", "validateValidatingAdmissionPolicyStatus", STATUS_CASES)

# --- TestValidateMutatingAdmissionPolicy ---------------------------------------------------
REPLICAS_AC_7 = ("Object{\n\t\t\t\t\t\t\tspec: Object.spec{\n\t\t\t\t\t\t\t\treplicas: object.spec.replicas % 2 == 0"
                 "?object.spec.replicas + 1:object.spec.replicas\n\t\t\t\t\t\t\t}\n\t\t\t\t\t\t}")
REPLICAS_AC_8 = ("Object{\n\t\t\t\t\t\t\t\tspec: Object.spec{\n\t\t\t\t\t\t\t\t\treplicas: object.spec.replicas % 2 == 0"
                 "?object.spec.replicas + 1:object.spec.replicas\n\t\t\t\t\t\t\t\t}\n\t\t\t\t\t\t\t}")
JP = lambda body: "[\n\t\t\t\t\t\t\t\t" + body + "\n\t\t\t\t\t\t\t]"  # noqa: E731
AC = [{"applyConfiguration": {"expression": AC_EXPR}, "patchType": "ApplyConfiguration"}]
IF_NEEDED = {"reinvocationPolicy": "IfNeeded"}
MAP_CASES = [
    ("metadata.name validation", {"object": vap(name="!!!!")}, 'metadata.name: Invalid value: "!!!!":'),
    ("failure policy validation",
     {"object": vap({"failurePolicy": "other", **IF_NEEDED,
                     "mutations": [{"applyConfiguration": {"expression": REPLICAS_AC_7}, "patchType": "ApplyConfiguration"}]})},
     'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"'),
    ("unsupported expression type validation",
     {"object": vap({**IF_NEEDED, "mutations": [{"applyConfiguration": {"expression": "1 < 2"},
                                                 "patchType": "ApplyConfiguration"}]})},
     'spec.mutations[0].applyConfiguration.expression: Invalid value: "1 < 2": must evaluate to Object'),
    ("patchType validation",
     {"object": vap({**IF_NEEDED, "mutations": [{"applyConfiguration": {"expression": REPLICAS_AC_8}, "patchType": "other"}]})},
     'spec.mutations[0].patchType: Unsupported value: "other": supported values: "ApplyConfiguration", "JSONPatch"'),
    ("PatchType is JSONPatch but union member is ApplyConfiguration",
     {"object": vap({**IF_NEEDED, "mutations": [{"applyConfiguration": {"expression": REPLICAS_AC_8},
                                                 "patchType": "JSONPatch"}]})},
     'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch'),
    ("PatchType is ApplyConfiguration but union member is JSONPatch",
     {"object": vap({**IF_NEEDED, "mutations": [{"jsonPatch": {"expression": JP('JSONPatch{op: "replace", path: "/spec/repliacs", value: 1}')},
                                                 "patchType": "ApplyConfiguration"}]})},
     'spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration'),
    ("JSONPatch is empty", {"object": vap({**IF_NEEDED, "mutations": [{"patchType": "JSONPatch"}]})},
     "spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch"),
    ("JSONPatch has an empty value expression",
     {"object": vap({**IF_NEEDED, "mutations": [{"jsonPatch": {"expression": "   "}, "patchType": "JSONPatch"}]})},
     "spec.mutations[0].jsonPatch.expression: Required value"),
    ("invalid variable",
     {"object": vap({"variables": [{"name": "x", "expression": "///"}], **IF_NEEDED,
                     "mutations": [{"jsonPatch": {"expression": JP('JSONPatch{op: "add", path: "/spec/repliacs", value: variables.x}')},
                                    "patchType": "JSONPatch"}]})},
     'spec.variables[0].expression: Invalid value: "///": compilation failed'),
    ("Reference to missing variable",
     {"object": vap({"variables": [{"name": "x", "expression": "10 + 10"}], **IF_NEEDED,
                     "mutations": [{"jsonPatch": {"expression": JP('JSONPatch{op: "add", path: "/spec/repliacs", value: variables.x + variables.y}')},
                                    "patchType": "JSONPatch"}]})},
     "undefined field 'y'"),
    ("API version is required in ParamKind",
     {"object": vap({"mutations": AC, "paramKind": {"kind": "Example", "apiVersion": "test.example.com"}})},
     'spec.paramKind.apiVersion: Invalid value: "test.example.com"'),
    ("API kind is required in ParamKind",
     {"object": vap({"mutations": AC, "paramKind": {"apiVersion": "test.example.com/v1"}})},
     "spec.paramKind.kind: Required value"),
    ("API version format in ParamKind",
     {"object": vap({"mutations": AC, "paramKind": {"kind": "Example", "apiVersion": "test.example.com/!!!"}})},
     'pec.paramKind.apiVersion: Invalid value: "!!!":'),
    ("API group format in ParamKind",
     {"object": vap({"mutations": AC, "paramKind": {"apiVersion": "!!!/v1", "kind": "ReplicaLimit"}})},
     'pec.paramKind.apiVersion: Invalid value: "!!!":'),
    ("Validations is required", {"object": vap({})},
     "spec.failurePolicy: Required value, spec.matchConstraints: Required value, spec.mutations: Required value: mutations must contain at least one item"),
    ("MatchConstraints is required", {"object": vap({"mutations": AC})}, "spec.matchConstraints: Required value"),
    ("matchConstraints.resourceRules is required", {"object": vap({"mutations": AC, "matchConstraints": {}})},
     "spec.matchConstraints.resourceRules: Required value"),
    ("matchConstraints.resourceRules has at least one explicit rule",
     {"object": vap({"mutations": AC, "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}})},
     "spec.matchConstraints.resourceRules[0].apiVersions: Required value"),
    ("expression is required",
     {"object": vap({"mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {}}]})},
     "spec.mutations[0].applyConfiguration.expression: Required value"),
    ("matchResources resourceNames check",
     {"object": vap({"mutations": AC, "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}})},
     'spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "/./."'),
    ("matchResources resourceNames cannot duplicate",
     {"object": vap({"mutations": AC, "matchConstraints": {"resourceRules": [{"resourceNames": ["test", "test"]}]}})},
     'spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "test"'),
    ("matchResources validation: matchPolicy", {"object": vap({"mutations": AC, "matchConstraints": {"matchPolicy": "other"}})},
     'spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"'),
    ("Operations must not be empty or nil",
     {"object": vap({"mutations": AC, "failurePolicy": "Fail", "matchConstraints": full_mc(EMPTY_OPS_RULES, EMPTY_OPS_RULES)})},
     EMPTY_OPS_ERROR.format(p="spec.matchConstraints")),
    ('"" is NOT a valid operation',
     {"object": vap({"mutations": AC, "matchConstraints": {"resourceRules": [rule(ops=("CREATE", ""))]}})},
     'Unsupported value: ""'),
    ("operation must be either create/update",
     {"object": vap({"mutations": AC, "matchConstraints": {"resourceRules": [rule(ops=("PATCH",))]}})},
     'Unsupported value: "PATCH"'),
    ("operation must not be delete",
     {"object": vap({"mutations": AC, "matchConstraints": {"resourceRules": [rule(ops=("DELETE",))]}})},
     'Unsupported value: "DELETE"'),
    ("wildcard operation cannot be mixed with other strings",
     {"object": vap({"mutations": AC, "matchConstraints": {"resourceRules": [rule(ops=("CREATE", "*"))]}})},
     "if '*' is present, must not specify other operations"),
    ('resource "*" can co-exist with resources that have subresources',
     {"object": vap({"failurePolicy": "Fail", **IF_NEEDED, "mutations": AC,
                     "matchConstraints": full_mc([rule(resources=("*", "a/b", "a/*", "*/b"))])})}, ""),
    ('resource "*" cannot mix with resources that don\'t have subresources',
     {"object": vap({"mutations": AC, "matchConstraints": SUB(("*", "a"))})},
     "if '*' is present, must not specify other resources without subresources"),
    ("resource a/* cannot mix with a/x", {"object": vap({"mutations": AC, "matchConstraints": SUB(("a/*", "a/x"))})},
     "spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x"),
    ("resource a/* can mix with a",
     {"object": vap({"failurePolicy": "Fail", **IF_NEEDED, "mutations": AC,
                     "matchConstraints": full_mc([rule(resources=("a/*", "a"))])})}, ""),
    ("resource */a cannot mix with x/a", {"object": vap({"mutations": AC, "matchConstraints": SUB(("*/a", "x/a"))})},
     "spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: \"x/a\": if '*/a' is present, must not specify x/a"),
    ("resource */* cannot mix with other resources", {"object": vap({"mutations": AC, "matchConstraints": SUB(("*/*", "a"))})},
     "spec.matchConstraints.resourceRules[0].resources: Invalid value: [\"*/*\",\"a\"]: if '*/*' is present, must not specify other resources"),
    ("patchType required",
     {"object": vap({"mutations": [{"applyConfiguration": {"expression": AC_EXPR}}], "matchConstraints": SUB(("*/*",))})},
     "spec.mutations[0].patchType: Required value"),
    ("single match condition must have a name",
     {"object": vap({"matchConditions": [{"expression": "true"}], "mutations": AC})},
     "spec.matchConditions[0].name: Required value"),
    ("match condition with parameters allowed",
     {"object": vap({"paramKind": {"kind": "Foo", "apiVersion": "foobar/v1alpha1"},
                     "matchConstraints": full_mc([rule(ops=("CREATE", "UPDATE"))]), "failurePolicy": "Fail",
                     "matchConditions": HAS_PARAMS, **IF_NEEDED, "mutations": AC})}, ""),
    ("match condition with parameters not allowed if no param kind",
     {"object": vap({"matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Fail",
                     "matchConditions": HAS_PARAMS, "mutations": AC})},
     "undeclared reference to 'params'"),
]
table("TestValidateMutatingAdmissionPolicy", "ValidateMutatingAdmissionPolicy", MAP_CASES)


# --- TestValidateMutatingAdmissionPolicyUpdate ---------------------------------------------
def map_with(match_conditions, mutations):
    """mutatingAdmissionPolicyWithExpressions."""
    spec = {"matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Ignore"}
    if match_conditions is not None:
        spec["matchConditions"] = match_conditions
    if mutations is not None:
        spec["mutations"] = mutations
    return vap(spec, rv="1")


VALID_MAP_SPEC = {"failurePolicy": "Fail", **IF_NEEDED, "mutations": AC, "matchConstraints": full_mc([rule()])}
MAP_UPDATE_CASES = [
    ("should pass on valid new MutatingAdmissionPolicy",
     {"object": vap(VALID_MAP_SPEC, rv="1"),
      "oldObject": vap({"mutations": AC, "matchConstraints": {"resourceRules": [rule()]}})}, ""),
    ("should pass on valid new MutatingAdmissionPolicy with invalid old MutatingAdmissionPolicy",
     {"object": vap(VALID_MAP_SPEC, rv="1"), "oldObject": vap({})}, ""),
    ("match conditions re-checked if paramKind changes",
     {"oldObject": vap({"paramKind": {"kind": "Foo", "apiVersion": "foobar/v1alpha1"},
                        "matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Fail",
                        "matchConditions": HAS_PARAMS, "mutations": AC}),
      "object": vap({"matchConstraints": full_mc([rule(ops=("*",))]), "failurePolicy": "Fail",
                     "matchConditions": HAS_PARAMS, "mutations": AC})},
     "undeclared reference to 'params'"),
    ("match conditions not re-checked if no change to paramKind or matchConditions",
     {"oldObject": vap({"matchConstraints": full_mc([rule(ops=("CREATE", "UPDATE"))]), "failurePolicy": "Fail",
                        "matchConditions": HAS_PARAMS, **IF_NEEDED, "mutations": AC}),
      "object": vap({"matchConstraints": full_mc([rule(ops=("CREATE", "UPDATE"))]), "failurePolicy": "Ignore",
                     "matchConditions": HAS_PARAMS, **IF_NEEDED, "mutations": AC}, rv="1")},
     ""),
    ("matchCondition expressions that are changed must be compiled using the NewExpression environment",
     {"oldObject": map_with(ENV_MC("true"), None), "object": map_with(ENV_MC("test() == true"), None)},
     "undeclared reference to 'test'"),
]
table("TestValidateMutatingAdmissionPolicyUpdate", "ValidateMutatingAdmissionPolicyUpdate", MAP_UPDATE_CASES)

table("TestValidateMutatingAdmissionPolicyBinding", "ValidateMutatingAdmissionPolicyBinding", binding_cases(False))
table("TestValidateMutatingAdmissionPolicyBindingUpdate", "ValidateMutatingAdmissionPolicyBindingUpdate",
      binding_update_cases(False, "MutatingAdmissionPolicyBinding"))

print(json.dumps(RECORDS, indent=1, ensure_ascii=False))
