"""Writes matching.json: the table of TestMatcher (k8s.io/apiserver
pkg/admission/plugin/policy/matching/matching_test.go), transcribed by hand below with each
case's Go source line, and the test's equivalent-resource registry (`RegisterKindFor`, in
registration order; deployments of every group share one identity, `/deployments`).

Each record: `criteria` (a MatchResources as JSON; absent selectors are nil), `attrs` (kind,
resource, subresource, namespace, name, operation), and the expectations: `matches`,
`matchKind` (checked when given), `matchResource` (checked when matching; default the request's
resource), `error` (a substring; absent: no error).

Run: python3 gen_matching.py > matching.json
"""
import json

REPO = "kubernetes/apiserver"
COMMIT = "24a394e516bfda066d7e2221d7d92c052de27c54"
FILE = "pkg/admission/plugin/policy/matching/matching_test.go"
FUNC = "TestMatcher"


def gvr(g, v, r):
    return {"group": g, "version": v, "resource": r}


def gvk(g, v, k):
    return {"group": g, "version": v, "kind": k}


REGISTRY = [
    (gvr("extensions", "v1beta1", "deployments"), "", gvk("extensions", "v1beta1", "Deployment")),
    (gvr("apps", "v1", "deployments"), "", gvk("apps", "v1", "Deployment")),
    (gvr("apps", "v1beta1", "deployments"), "", gvk("apps", "v1beta1", "Deployment")),
    (gvr("apps", "v1alpha1", "deployments"), "", gvk("apps", "v1alpha1", "Deployment")),
    (gvr("extensions", "v1beta1", "deployments"), "scale", gvk("extensions", "v1beta1", "Scale")),
    (gvr("apps", "v1", "deployments"), "scale", gvk("autoscaling", "v1", "Scale")),
    (gvr("apps", "v1beta1", "deployments"), "scale", gvk("apps", "v1beta1", "Scale")),
    (gvr("apps", "v1alpha1", "deployments"), "scale", gvk("apps", "v1alpha1", "Scale")),
    (gvr("example.com", "v1", "widgets"), "", gvk("", "", "")),
    (gvr("example.com", "v2", "widgets"), "", gvk("", "", "")),
]


def rule(groups, versions, resources, names=None, scope="*"):
    r = {"operations": ["*"], "apiGroups": groups, "apiVersions": versions, "resources": resources}
    if scope is not None:
        r["scope"] = scope
    if names:
        r["resourceNames"] = names
    return r


def attrs(kind, resource, sub=""):
    return {"kind": kind, "resource": resource, "subresource": sub, "namespace": "ns",
            "name": "name", "operation": "CREATE"}


EMPTY = {}
D = gvk("apps", "v1", "Deployment")
DR = gvr("apps", "v1", "deployments")
S = gvk("autoscaling", "v1", "Scale")
DEP = ["deployments", "deployments/scale"]
POD = gvk("example.apiserver.k8s.io", "v1", "Pod")
PODR = gvr("example.apiserver.k8s.io", "v1", "pods")
BAD_NS = {"matchExpressions": [{"key": "key ", "operator": "In", "values": ["bad value"]}]}
BAD = {"matchExpressions": [{"key": "key", "operator": "In", "values": ["bad value"]}]}


def crit(rules, policy=None, ns=EMPTY, obj=EMPTY, exclude=None):
    c = {"resourceRules": rules}
    if ns is not None:
        c["namespaceSelector"] = ns
    if obj is not None:
        c["objectSelector"] = obj
    if policy:
        c["matchPolicy"] = policy
    if exclude is not None:
        c["excludeResourceRules"] = exclude
    return c


CASES = [
    (106, "no rules (just write)", crit([], obj=None), attrs(D, DR), False, None, None, None),
    (112, "wildcard rule, match as requested", crit([rule(["*"], ["*"], ["*"])]), attrs(D, DR), True, D, None, None),
    (127, "specific rules, prefer exact match", crit([rule(["extensions"], ["v1"], ["deployments"]), rule(["apps"], ["v1beta1"], ["deployments"]), rule(["apps"], ["v1"], ["deployments"])]), attrs(D, DR), True, D, None, None),
    (152, "specific rules, match miss", crit([rule(["extensions"], ["v1beta1"], ["deployments"]), rule(["apps"], ["v1beta1"], ["deployments"])]), attrs(D, DR), False, None, None, None),
    (171, "specific rules, exact match miss", crit([rule(["extensions"], ["v1beta1"], ["deployments"]), rule(["apps"], ["v1beta1"], ["deployments"])], "Exact"), attrs(D, DR), False, None, None, None),
    (191, "specific rules, equivalent match, prefer extensions", crit([rule(["extensions"], ["v1beta1"], ["deployments"]), rule(["apps"], ["v1beta1"], ["deployments"])], "Equivalent"), attrs(D, DR), True, gvk("extensions", "v1beta1", "Deployment"), gvr("extensions", "v1beta1", "deployments"), None),
    (213, "specific rules, equivalent match, prefer apps", crit([rule(["apps"], ["v1beta1"], ["deployments"]), rule(["extensions"], ["v1beta1"], ["deployments"])], "Equivalent"), attrs(D, DR), True, gvk("apps", "v1beta1", "Deployment"), gvr("apps", "v1beta1", "deployments"), None),
    (236, "specific rules, subresource prefer exact match", crit([rule(["extensions"], ["v1beta1"], DEP), rule(["apps"], ["v1beta1"], DEP), rule(["apps"], ["v1"], DEP)]), attrs(S, DR, "scale"), True, S, None, None),
    (261, "specific rules, subresource match miss", crit([rule(["extensions"], ["v1beta1"], DEP), rule(["apps"], ["v1beta1"], DEP)]), attrs(S, DR, "scale"), False, None, None, None),
    (280, "specific rules, subresource exact match miss", crit([rule(["extensions"], ["v1beta1"], DEP), rule(["apps"], ["v1beta1"], DEP)], "Exact"), attrs(S, DR, "scale"), False, None, None, None),
    (300, "specific rules, subresource equivalent match, prefer extensions", crit([rule(["extensions"], ["v1beta1"], DEP), rule(["apps"], ["v1beta1"], DEP)], "Equivalent"), attrs(S, DR, "scale"), True, gvk("extensions", "v1beta1", "Scale"), gvr("extensions", "v1beta1", "deployments"), None),
    (322, "specific rules, subresource equivalent match, prefer apps", crit([rule(["apps"], ["v1beta1"], DEP), rule(["extensions"], ["v1beta1"], DEP)], "Equivalent"), attrs(S, DR, "scale"), True, gvk("apps", "v1beta1", "Scale"), gvr("apps", "v1beta1", "deployments"), None),
    (344, "specific rules, prefer exact match and name match", crit([rule(["apps"], ["v1"], ["deployments"], ["name"])]), attrs(S, DR), True, S, None, None),
    (360, "specific rules, prefer exact match and name match miss", crit([rule(["apps"], ["v1"], ["deployments"], ["wrong-name"])]), attrs(S, DR), False, None, None, None),
    (375, "specific rules, subresource equivalent match, prefer extensions and name match", crit([rule(["apps"], ["v1"], DEP, ["name"])], "Equivalent"), attrs(S, gvr("extensions", "v1beta1", "deployments"), "scale"), True, S, DR, None),
    (393, "specific rules, subresource equivalent match, prefer extensions and name match miss", crit([rule(["apps"], ["v1"], DEP, ["wrong-name"])], "Equivalent"), attrs(S, gvr("extensions", "v1beta1", "deployments"), "scale"), False, None, None, None),
    (409, "exclude resource match on miss", crit([rule(["*"], ["*"], ["*"])], exclude=[rule(["extensions"], ["v1beta1"], ["deployments"])]), attrs(S, DR), True, S, None, None),
    (431, "exclude resource miss on match", crit([rule(["*"], ["*"], ["*"])], exclude=[rule(["extensions"], ["v1beta1"], ["deployments"])]), attrs(S, gvr("extensions", "v1beta1", "deployments")), False, None, None, None),
    (452, "treat empty ResourceRules as match", crit([], exclude=[rule(["extensions"], ["v1beta1"], ["deployments"])]), attrs(S, DR), True, None, None, None),
    (467, "treat non-empty ResourceRules as no match", crit([{}]), attrs(S, DR), False, None, None, None),
    (477, "erroring namespace selector on otherwise non-matching rule doesn't error", crit([rule(["*"], ["*"], ["deployments"], scope=None)], ns=BAD_NS), attrs(POD, PODR), False, None, None, None),
    (493, "erroring namespace selector on otherwise matching rule errors", crit([rule(["*"], ["*"], ["pods"], scope=None)], ns=BAD), attrs(POD, PODR), False, None, None, "bad value"),
    (509, "erroring object selector on otherwise non-matching rule doesn't error", crit([rule(["*"], ["*"], ["deployments"], scope=None)], obj=BAD), attrs(POD, PODR), False, None, None, None),
    (525, "erroring object selector on otherwise matching rule errors", crit([rule(["*"], ["*"], ["pods"], scope=None)], obj=BAD), attrs(POD, PODR), False, None, None, "bad value"),
]

records = []
for line, name, criteria, a, matches, kind, resource, err in CASES:
    r = {"provenance": {"repo": REPO, "commit": COMMIT, "file": FILE, "test": FUNC, "case": name, "line": line},
         "criteria": criteria, "attrs": a, "matches": matches}
    if kind:
        r["matchKind"] = kind
    if resource:
        r["matchResource"] = resource
    if err:
        r["error"] = err
    records.append(r)
registry = [{"resource": r, "subresource": s, "kind": k} for r, s, k in REGISTRY]
print(json.dumps({"kind": "matching", "registry": registry, "records": records}, indent=1))
