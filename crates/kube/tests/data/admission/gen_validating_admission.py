"""Writes validating_admission.json: the scenarios of the ValidatingAdmissionPolicy plugin's
end-to-end tests (k8s.io/apiserver pkg/admission/plugin/policy/validating/admission_test.go)
and the behaviour tables of the generic policy source
(pkg/admission/plugin/policy/generic/policy_source_test.go, policy_dispatcher_test.go),
transcribed by hand below with the Go source line of each dispatch.

`crds`: the test's REST mappings (`setupTestCommon`): `ParamsConfig` (namespaced,
`paramsconfigs`) and `ClusterScopedParamsConfig` (cluster-scoped,
`clusterscopedparamsconfigs`) in `example.com/v1`; `openapi`: the third,
`ValidatingAdmissionPolicy` in `admissionregistration.k8s.io/v1beta1` (cluster-scoped), as an
OpenAPI v3 document serving it; the other built-in kinds (ConfigMap) come from the built-in
schemas.

`dispatch` records: `documents` (policies, bindings, params: the objects the test's trackers
hold at the time of the dispatch), `request` (the object of `attributeRecord(nil, object,
Create)`), and what the Go test checks of that dispatch:

* `error`: `null` for `require.NoError`, else a substring of the error (`require.ErrorContains`);
* `warnings` (when checked): the exact set of warnings;
* `annotationKeys` (when checked): the exact set of audit annotation keys;
* `validationFailures` (when checked): the `validation_failure` annotation's JSON items, as a
  multiset (`ElementsMatch`), or in order when `validationFailuresOrdered`;
* `annotationParts` (when checked): an annotation's `, `-joined values, as a multiset;
* `evaluations` (when checked): how many times each binding's policy was evaluated (the tests'
  `evaluations` counters, per dispatch);
* `observed` (when checked): the messages of the denying decisions evaluated, as a multiset:
  the transcribed validations name the param they were evaluated with, so this is the test's
  `observeParam` list (`ElementsMatch`);
* `hooks` (when checked): the policies the dispatcher saw with each binding evaluated, or `null`
  for a policy whose configuration error was reported (`Source.Hooks()`).

The test's fake compiler returns canned decisions for a policy; each is transcribed as
validations that decide the same for the record's request (`Deny` with message `Denied` is
`false` with message `Denied`; a decision that depends on the params is an expression over
`params`). The fake matcher matches everything (`MATCH_ALL`); `TestDefinitionDoesntMatch`'s
match function (names of even length) is a match condition. `numCompiles` counts the fake
compiler's cache and is not transcribed.

`collect` records (TestCollectParamsHandlesMissingCRD): `generic.CollectParams` for a namespaced
param kind of which no object exists: `paramRef`, `namespace`, the expected error substring
(`null`: none) and the number of params.

Cases that cannot be data carry `skip` with the reason (listed in admission_validating.skip).

Run: python3 gen_validating_admission.py > validating_admission.json
"""
import copy
import json

REPO = "kubernetes/apiserver"
COMMIT = "24a394e516bfda066d7e2221d7d92c052de27c54"
ADMISSION = "pkg/admission/plugin/policy/validating/admission_test.go"
SOURCE = "pkg/admission/plugin/policy/generic/policy_source_test.go"
DISPATCHER = "pkg/admission/plugin/policy/generic/policy_dispatcher_test.go"


def crd(kind, plural, scope):
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": plural + ".example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": kind, "plural": plural, "singular": kind.lower(),
                      "listKind": kind + "List"},
            "scope": scope,
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                "openAPIV3Schema": {"type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True}}}],
        },
    }


CRDS = [crd("ParamsConfig", "paramsconfigs", "Namespaced"),
        crd("ClusterScopedParamsConfig", "clusterscopedparamsconfigs", "Cluster")]

# The test's third REST mapping, `ValidatingAdmissionPolicy` in
# `admissionregistration.k8s.io/v1beta1` (cluster-scoped), which a default server does not
# serve: an OpenAPI v3 document serving it from a cluster-scoped path.
VAP_V1BETA1 = {"group": "admissionregistration.k8s.io", "version": "v1beta1",
               "kind": "ValidatingAdmissionPolicy"}
OPENAPI = [{
    "openapi": "3.0.0",
    "paths": {"/apis/admissionregistration.k8s.io/v1beta1/validatingadmissionpolicies": {
        "get": {"x-kubernetes-group-version-kind": VAP_V1BETA1}}},
    "components": {"schemas": {
        "io.k8s.api.admissionregistration.v1beta1.ValidatingAdmissionPolicy": {
            "type": "object", "x-kubernetes-group-version-kind": [VAP_V1BETA1]}}},
}]

PARAMS_KIND = {"apiVersion": "example.com/v1", "kind": "ParamsConfig"}
CLUSTER_PARAMS_KIND = {"apiVersion": "example.com/v1", "kind": "ClusterScopedParamsConfig"}
MATCH_ALL = {"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"],
                                "operations": ["*"]}]}
DENIED = [{"expression": "false", "message": "Denied"}]


def policy(name="denypolicy.example.com", param_kind=PARAMS_KIND, validations=DENIED, **extra):
    spec = {"failurePolicy": "Fail", "matchConstraints": MATCH_ALL, "validations": validations}
    if param_kind is not None:
        spec["paramKind"] = param_kind
    spec.update(extra)
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name, "resourceVersion": "1"}, "spec": spec}


def binding(name="denybinding.example.com", policy_name="denypolicy.example.com",
            param_ref=None, actions=("Deny",)):
    spec = {"policyName": policy_name, "validationActions": list(actions)}
    if param_ref is not None:
        spec["paramRef"] = param_ref
    return {"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name, "resourceVersion": "1"}, "spec": spec}


def param(name, namespace="default", labels=None, extra=None):
    o = {"apiVersion": "example.com/v1", "kind": "ParamsConfig",
         "metadata": {"name": name, "namespace": namespace or "default", "resourceVersion": "1"}}
    if labels:
        o["metadata"]["labels"] = labels
    if extra:
        o.update(extra)
    return o


def cluster_param(name, labels=None):
    o = {"apiVersion": "example.com/v1", "kind": "ClusterScopedParamsConfig",
         "metadata": {"name": name, "resourceVersion": "1"}}
    if labels:
        o["metadata"]["labels"] = labels
    return o


def config_map(namespace, coolkey):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "replicas-test.example.com", "namespace": namespace,
                         "resourceVersion": "1"},
            "data": {"coolkey": coolkey}}


FAKE_PARAMS = param("replicas-test.example.com", extra={"maxReplicas": 3})
DENY_REF = {"name": "replicas-test.example.com", "namespace": "default",
            "parameterNotFoundAction": "Deny"}
DENY_POLICY = policy()
DENY_BINDING = binding(param_ref=DENY_REF)
NO_PARAM_REF_BINDING = binding()
NO_PARAMS_POLICY = policy(param_kind=None)
NO_PARAMS_FOUND = "no params found for policy binding with `Deny` parameterNotFoundAction"
SORRY = [{"expression": "false", "message": "I'm sorry Dave"}]
VALIDATION_FAILURE = "validation.policy.admission.k8s.io/validation_failure"

records = []


def dispatch(test, line, case, documents, obj, skip=None, **expect):
    rec = {
        "name": f"{test}/{case}",
        "section": "dispatch",
        "provenance": {"repo": REPO, "commit": COMMIT, "file": expect.pop("file", ADMISSION),
                       "test": test, "case": case, "line": line,
                       "subtest": expect.pop("subtest", "")},
        "documents": documents,
        "request": {"object": obj, "operation": "CREATE"},
    }
    rec.update(expect)
    if skip:
        rec["skip"] = skip
    records.append(rec)


# TestPluginNotReady
dispatch("TestPluginNotReady", 458, "informers not started", [], FAKE_PARAMS,
         error="not yet ready to handle request",
         skip="the plugin before its informers have synced: an offline run has every input "
              "at once")
dispatch("TestPluginNotReady", 470, "informers started", [], FAKE_PARAMS, error=None)

# TestBasicPolicyDefinitionFailure
dispatch("TestBasicPolicyDefinitionFailure", 510, "denied",
         [FAKE_PARAMS, DENY_POLICY, DENY_BINDING], FAKE_PARAMS,
         error="Denied", warnings=[], annotationKeys=[])

# TestDefinitionDoesntMatch: the fake matcher matches names of even length.
EVEN = policy(matchConditions=[{"name": "even-length-name",
                                "expression": "object.metadata.name.size() % 2 == 0"}])
for line, name, err in [(583, "oddlength", None), (602, "evenlength", "Denied")]:
    obj = {"apiVersion": "example.com/v1", "kind": "ParamsConfig",
           "metadata": {"name": name, "resourceVersion": "1"}}
    dispatch("TestDefinitionDoesntMatch", line, name, [FAKE_PARAMS, EVEN, DENY_BINDING], obj,
             error=err)

# TestReconfigureBinding
FAKE_PARAMS_2 = param("replicas-test2.example.com", extra={"maxReplicas": 35})
FAKE_PARAMS_2["metadata"]["resourceVersion"] = "2"
DENY_BINDING_2 = binding(param_ref={"name": "replicas-test2.example.com", "namespace": "default",
                                    "parameterNotFoundAction": "Deny"})
dispatch("TestReconfigureBinding", 667, "first binding",
         [FAKE_PARAMS, DENY_POLICY, DENY_BINDING], FAKE_PARAMS, error="Denied")
dispatch("TestReconfigureBinding", 683, "binding to missing params",
         [FAKE_PARAMS, DENY_POLICY, DENY_BINDING_2], FAKE_PARAMS, error=NO_PARAMS_FOUND)
dispatch("TestReconfigureBinding", 695, "params added",
         [FAKE_PARAMS, DENY_POLICY, DENY_BINDING_2, FAKE_PARAMS_2], FAKE_PARAMS, error="Denied")

# TestRemoveDefinition, TestRemoveBinding
dispatch("TestRemoveDefinition", 738, "with policy", [FAKE_PARAMS, DENY_POLICY, DENY_BINDING],
         FAKE_PARAMS, error="Denied")
dispatch("TestRemoveDefinition", 747, "policy removed", [FAKE_PARAMS, DENY_BINDING],
         FAKE_PARAMS, error=None)
dispatch("TestRemoveBinding", 788, "with binding", [FAKE_PARAMS, DENY_POLICY, DENY_BINDING],
         FAKE_PARAMS, error="Denied")

# TestInvalidParamSourceGVK
BAD_POLICY = policy(param_kind={"apiVersion": "example.com/v1", "kind": "BadParamKind"})
dispatch("TestInvalidParamSourceGVK", 817, "bad param kind", [BAD_POLICY, DENY_BINDING],
         FAKE_PARAMS,
         error="failed to configure policy: failed to find resource referenced by paramKind: "
               "'example.com/v1, Kind=BadParamKind'",
         evaluations={"denybinding.example.com": 0})

# TestInvalidParamSourceInstanceName
dispatch("TestInvalidParamSourceInstanceName", 863, "missing param", [DENY_POLICY, DENY_BINDING],
         FAKE_PARAMS, error=NO_PARAMS_FOUND, evaluations={"denybinding.example.com": 0})

# TestEmptyParamRef: the fake admits when given params, denies with nil params.
dispatch("TestEmptyParamRef", 916, "nil params",
         [policy(validations=[{"expression": "params != null", "message": "Denied"}]),
          NO_PARAM_REF_BINDING], FAKE_PARAMS,
         error="Denied", evaluations={"denybinding.example.com": 1})

# TestEmptyParamSource
dispatch("TestEmptyParamSource", 964, "no param kind", [NO_PARAMS_POLICY, NO_PARAM_REF_BINDING],
         FAKE_PARAMS, error="Denied", evaluations={"denybinding.example.com": 1})

# TestMultiplePoliciesSharedParamType
P1 = policy("denypolicy1.example.com", validations=[{"expression": "true"}])
P2 = policy("denypolicy2.example.com", validations=[{"expression": "false",
                                                      "message": "Policy2Denied"}])
B1 = binding("denybinding1.example.com", "denypolicy1.example.com", DENY_REF)
B2 = binding("denybinding2.example.com", "denypolicy2.example.com", DENY_REF)
dispatch("TestMultiplePoliciesSharedParamType", 1058, "both use params",
         [FAKE_PARAMS, P1, B1, P2, B2], FAKE_PARAMS, error="Denied",
         evaluations={"denybinding1.example.com": 1, "denybinding2.example.com": 1})
P1_NO = policy("denypolicy1.example.com", param_kind=None, validations=[{"expression": "true"}])
P1_NO["metadata"]["resourceVersion"] = "2"
B1_NO = binding("denybinding1.example.com", "denypolicy1.example.com")
B1_NO["metadata"]["resourceVersion"] = "2"
dispatch("TestMultiplePoliciesSharedParamType", 1083, "policy1 without params",
         [FAKE_PARAMS, P1_NO, B1_NO, P2, B2], FAKE_PARAMS, error="Policy2Denied",
         evaluations={"denybinding1.example.com": 1, "denybinding2.example.com": 1})

# TestNativeTypeParam: the fake denies with `correct type` when the param is a ConfigMap.
TYPE_CHECK = [{"expression": "false", "messageExpression":
               "params.kind == 'ConfigMap' ? 'correct type' : 'Incorrect param type'"}]
CONFIG_MAP_POLICY = policy(param_kind={"apiVersion": "v1", "kind": "ConfigMap"},
                           validations=TYPE_CHECK)
dispatch("TestNativeTypeParam", 1154, "ConfigMap param",
         [CONFIG_MAP_POLICY, DENY_BINDING, config_map("default", "coolvalue")], FAKE_PARAMS,
         error="correct type", evaluations={"denybinding.example.com": 1})

# TestAuditValidationAction
AP1 = policy("denypolicy1.example.com", param_kind=None, validations=SORRY)
AP2 = policy("denypolicy2.example.com", param_kind=None,
             validations=[{"expression": "false", "message": "I can't do that"}])
AB1 = binding("denybinding1.example.com", "denypolicy1.example.com", actions=["Audit"])
AB2 = binding("denybinding2.example.com", "denypolicy2.example.com", actions=["Audit"])
dispatch("TestAuditValidationAction", 1215, "audit", [AP1, AP2, AB1, AB2], FAKE_PARAMS,
         error=None, warnings=[], annotationKeys=[VALIDATION_FAILURE],
         validationFailures=[
             {"message": "I'm sorry Dave", "policy": "denypolicy1.example.com",
              "binding": "denybinding1.example.com", "expressionIndex": 0,
              "validationActions": ["Audit"]},
             {"message": "I can't do that", "policy": "denypolicy2.example.com",
              "binding": "denybinding2.example.com", "expressionIndex": 0,
              "validationActions": ["Audit"]}])

# TestWarnValidationAction, TestAllValidationActions
SORRY_POLICY = policy(param_kind=None, validations=SORRY)
WARNING = ("Validation failed for ValidatingAdmissionPolicy 'denypolicy.example.com' with "
           "binding 'denybinding.example.com': I'm sorry Dave")
dispatch("TestWarnValidationAction", 1278, "warn",
         [SORRY_POLICY, binding(actions=["Warn"])], FAKE_PARAMS,
         error=None, warnings=[WARNING], annotationKeys=[])
dispatch("TestAllValidationActions", 1320, "deny, warn and audit",
         [SORRY_POLICY, binding(actions=["Deny", "Warn", "Audit"])], FAKE_PARAMS,
         error="I'm sorry Dave", warnings=[WARNING], annotationKeys=[VALIDATION_FAILURE],
         validationFailuresOrdered=True,
         validationFailures=[
             {"message": "I'm sorry Dave", "policy": "denypolicy.example.com",
              "binding": "denybinding.example.com", "expressionIndex": 0,
              "validationActions": ["Deny", "Warn", "Audit"]}])

# TestNamespaceParamRefName: the fake records the namespace of the ConfigMap param.
NS_CHECK = [{"expression": "false", "messageExpression":
             "params.kind == 'ConfigMap' ? 'correct type, param in ' + params.metadata.namespace"
             " : 'Incorrect param type'"}]
NS_POLICY = policy(param_kind={"apiVersion": "v1", "kind": "ConfigMap"}, validations=NS_CHECK)
NS_BINDING = binding(param_ref={"name": "replicas-test.example.com"})
CMS = [config_map("default", "default"), config_map("mynamespace", "mynamespace"),
       config_map("othernamespace", "othernamespace")]
for line, cm in [(1443, CMS[0]), (1457, CMS[1]), (1471, CMS[2]), (1485, CMS[0])]:
    ns = cm["metadata"]["namespace"]
    dispatch("TestNamespaceParamRefName", line, f"request in {ns} (line {line})",
             [NS_POLICY, NS_BINDING] + CMS, cm, error="correct type",
             evaluations={"denybinding.example.com": 1},
             observed=[f"correct type, param in {ns}"])


# TestParamRef / testParamRefCase: the fake records every param it is evaluated with.
PARAM_ID = ("'Denied by policy: ' + params.kind + ' ' + params.metadata.name + "
            "(has(params.metadata.namespace) ? ' in ' + params.metadata.namespace : '')")


def param_id(p):
    md = p["metadata"]
    s = f"Denied by policy: {p['kind']} {md['name']}"
    if "namespace" in md:
        s += " in " + md["namespace"]
    return s


def selector_matches(selector, labels):
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        return True
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def param_ref_case(cluster, name_set, ns_set, selector_set, deny):
    name = "ParamRef"
    if cluster:
        name = "ClusterScoped" + name
    if name_set:
        name += "WithName"
    elif selector_set:
        name += "WithLabelSelector"
    else:
        name += "WithEverythingSelector"
    if ns_set:
        name += "WithNamespace"
    name += "DenyNotFound" if deny else "AllowNotFound"

    kind = CLUSTER_PARAMS_KIND if cluster else PARAMS_KIND
    ref = {}
    should_error_cluster = not ns_set and not cluster
    matching_name = "replicas-test.example.com"
    matching_labels = {"doesitmatch": "yes"}
    nonmatching = {"doesitmatch": "no"}
    other = {"notaffiliated": "no"}
    if name_set:
        ref["name"] = matching_name
    elif selector_set:
        ref["selector"] = {"matchLabels": matching_labels}
    else:
        ref["selector"] = {}
    if ns_set:
        ref["namespace"] = "mynamespace"
    ref["parameterNotFoundAction"] = "Deny" if deny else "Allow"
    pol = policy(param_kind=kind, validations=[{"expression": "false",
                                                "messageExpression": PARAM_ID}])
    bind = binding(param_ref=ref)
    n = matching_name
    params = [
        param(n, "default", nonmatching), param(n, "mynamespace", nonmatching),
        param(n, "othernamespace", nonmatching),
        param(n + "1", "default", matching_labels), param(n + "1", "mynamespace", matching_labels),
        param(n + "1", "othernamespace", matching_labels),
        param(n + "2", "default", other), param(n + "2", "mynamespace", other),
        param(n + "2", "othernamespace", other),
        param(n + "3", "default", other), param(n + "3", "mynamespace", matching_labels),
        param(n + "3", "othernamespace", matching_labels),
        cluster_param(n, matching_labels), cluster_param(n + "1", nonmatching),
        cluster_param(n + "2", other), cluster_param(n + "3", matching_labels),
        cluster_param(n + "4", nonmatching), cluster_param(n + "5", other),
    ]
    ns_request = param("some param", "othernamespace")
    cluster_request = cluster_param("other param")

    def selected(p, request_ns):
        if p["apiVersion"] != kind["apiVersion"] or p["kind"] != kind["kind"]:
            return False
        md = p["metadata"]
        if "name" in ref and md["name"] != ref["name"]:
            return False
        if "namespace" in ref and md.get("namespace", "") != ref["namespace"]:
            return False
        if not cluster and "namespace" not in ref and md.get("namespace", "") != request_ns:
            return False
        if "selector" in ref and not selector_matches(ref["selector"], md.get("labels", {})):
            return False
        return True

    for_ns = [p for p in params if selected(p, "othernamespace")]
    for_cluster = [] if should_error_cluster else [p for p in params if selected(p, "default")]
    assert for_ns, name
    test = "TestParamRef"
    docs = [pol, bind] + params
    dispatch(test, 1742, name + "/namespaced request", docs, ns_request, subtest=name,
             error="Denied by policy", observed=[param_id(p) for p in for_ns])
    if should_error_cluster:
        dispatch(test, 1791, name + "/cluster-scoped request", docs, cluster_request,
                 subtest=name,
                 error="failed to configure binding: cannot use namespaced paramRef in policy "
                       "binding that matches cluster-scoped resources", observed=[])
    else:
        assert for_cluster, name
        dispatch(test, 1791, name + "/cluster-scoped request", docs, cluster_request,
                 subtest=name, error="Denied by policy",
                 observed=[param_id(p) for p in for_cluster])
    gone = [p for p in params if p not in for_ns and p not in for_cluster]
    docs = [pol, bind] + gone
    dispatch(test, 1816, name + "/namespaced request, params deleted", docs, ns_request,
             subtest=name, error=NO_PARAMS_FOUND if deny else None, observed=[])
    if should_error_cluster:
        err = ("failed to configure binding: cannot use namespaced paramRef in policy binding "
               "that matches cluster-scoped resources")
    elif deny:
        err = NO_PARAMS_FOUND
    else:
        err = None
    dispatch(test, 1824, name + "/cluster-scoped request, params deleted", docs, cluster_request,
             subtest=name, error=err, observed=[])


for cluster in (False, True):
    for name_set in (False, True):
        for ns_set in (False, True):
            if cluster and ns_set:
                continue
            for selector_set in (False, True):
                if selector_set and name_set:
                    continue
                for deny in (False, True):
                    param_ref_case(cluster, name_set, ns_set, selector_set, deny)

# TestNamespaceParamRefClusterScopedParamError
VAP_PARAM_POLICY = policy(param_kind={"apiVersion": "admissionregistration.k8s.io/v1beta1",
                                      "kind": "ValidatingAdmissionPolicy"})
dispatch("TestNamespaceParamRefClusterScopedParamError", 1887, "namespace for cluster-scoped kind",
         [VAP_PARAM_POLICY, binding(param_ref={
             "name": "other-param-to-use-with-no-label.example.com", "namespace": "mynamespace"})],
         FAKE_PARAMS,
         error="paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
         evaluations={"denybinding.example.com": 0})

# TestAuditAnnotations: the fake publishes example-key (special-value for the second params),
# excludes excluded-key and fails error-key with `example error`.
AUDIT_POLICY = policy(validations=[], auditAnnotations=[
    {"key": "example-key", "valueExpression":
     "params.metadata.name == 'replicas-test2.example.com' ? 'special-value' : 'normal-value'"},
    {"key": "excluded-key", "valueExpression": "null"},
    {"key": "error-key", "valueExpression": "{'a': 'b'}['example error']"},
])
FP2 = copy.deepcopy(FAKE_PARAMS)
FP2["metadata"]["name"] = "replicas-test2.example.com"
FP3 = copy.deepcopy(FAKE_PARAMS)
FP3["metadata"]["name"] = "replicas-test3.example.com"
DB2 = binding("denybinding2.example.com", param_ref=dict(DENY_REF, name=FP2["metadata"]["name"]))
DB3 = binding("denybinding3.example.com", param_ref=dict(DENY_REF, name=FP3["metadata"]["name"]))
dispatch("TestAuditAnnotations", 1952, "published, excluded and failed annotations",
         [FAKE_PARAMS, FP2, FP3, AUDIT_POLICY, DENY_BINDING, DB2, DB3], FAKE_PARAMS,
         error="example error", annotationKeys=["denypolicy.example.com/example-key"],
         annotationParts={"denypolicy.example.com/example-key": ["normal-value",
                                                                  "special-value"]})

# policy_source_test.go
SYNC = ("waits for the policy source's informers to sync: an offline run has every input at "
        "once")
dispatch("TestPolicySourceHasSyncedEmpty", 66, "synced", [], FAKE_PARAMS, file=SOURCE,
         skip=SYNC, error=None)


def fake_policy(name, param_kind=None):
    return policy(name, param_kind=param_kind, validations=[{"expression": "true"}])


def fake_binding(name, policy_name):
    return binding(name, policy_name)


S1 = [fake_policy("policy1"), fake_binding("binding1", "policy1")]
dispatch("TestPolicySourceHasSyncedInitialList", 101, "initial list", S1, FAKE_PARAMS,
         file=SOURCE, error=None, hooks=[["policy1", "binding1"]])
S2 = S1 + [fake_policy("policy2"), fake_binding("binding2", "policy2")]
dispatch("TestPolicySourceHasSyncedInitialList", 115, "second policy", S2, FAKE_PARAMS,
         file=SOURCE, error=None, hooks=[["policy1", "binding1"], ["policy2", "binding2"]])
S3 = [S1[0], S1[1], fake_policy("policy2", {"apiVersion": "policy.example.com/v1",
                                            "kind": "FakeParam"}),
      fake_binding("binding2", "policy2"), fake_policy("policy3"),
      fake_binding("binding3", "policy3")]
dispatch("TestPolicySourceHasSyncedInitialList", 138, "third policy, second with a param kind",
         S3, FAKE_PARAMS, file=SOURCE,
         error="failed to configure policy: failed to find resource referenced by paramKind: "
               "'policy.example.com/v1, Kind=FakeParam'",
         hooks=[["policy1", "binding1"], ["policy2", None], ["policy3", "binding3"]])
dispatch("TestPolicySourceBindsToPolicies", 171, "binding to policy1",
         [fake_policy("policy1"), fake_binding("binding1", "policy1")], FAKE_PARAMS,
         file=SOURCE, error=None, hooks=[["policy1", "binding1"]])
dispatch("TestPolicySourceBindsToPolicies", 189, "binding moved to policy2",
         [fake_policy("policy1"), fake_policy("policy2"), fake_binding("binding1", "policy2")],
         FAKE_PARAMS, file=SOURCE, error=None, hooks=[["policy2", "binding1"]])
dispatch("TestCollectParamsHandlesCacheMiss", 354, "param not yet in the informer cache",
         [], FAKE_PARAMS, file=SOURCE, error=None,
         skip="a param the API server has but the informer cache has not yet seen (the "
              "dynamic client fallback): an offline run has no cache")

for line, case, action, err in [
    (430, "no ParameterNotFoundAction returns no params and no error", None, None),
    (450, "ParameterNotFoundAction=Deny returns deny error", "Deny", "no params found"),
    (473, "ParameterNotFoundAction=Allow returns no params and no error", "Allow", None),
]:
    ref = {"name": "some-param", "namespace": "default"}
    if action:
        ref["parameterNotFoundAction"] = action
    records.append({
        "name": f"TestCollectParamsHandlesMissingCRD/{case}",
        "section": "collect",
        "provenance": {"repo": REPO, "commit": COMMIT, "file": SOURCE,
                       "test": "TestCollectParamsHandlesMissingCRD", "case": case, "line": line,
                       "subtest": case},
        "paramKind": {"apiVersion": "missing.example.com/v1", "kind": "MissingCRD"},
        "paramRef": ref,
        "namespace": "default",
        "error": err,
        "params": 0,
    })

# policy_dispatcher_test.go
for line, case in [(45, "typed kind converts to typed object with empty TypeMeta"),
                   (72, "unknown kind stays unstructured"),
                   (90, "typed kind with mismatched data errors")]:
    records.append({
        "name": f"TestConvertParamToInformerRepresentation/{case}",
        "section": "convert",
        "provenance": {"repo": REPO, "commit": COMMIT, "file": DISPATCHER,
                       "test": "TestConvertParamToInformerRepresentation", "case": case,
                       "line": line, "subtest": case},
        "skip": "converts a param between the dynamic client's unstructured and the typed "
                "informer's Go representation; kcel holds every param as its JSON document",
    })

print(json.dumps({"kind": "validating_admission", "crds": CRDS, "openapi": OPENAPI,
                  "records": records}, indent=1))
