"""Writes composition.json: the tables of k8s.io/apiserver
pkg/admission/plugin/cel/composition_test.go (TestCompositedPolicies, TestCompilerIsolation),
transcribed by hand below with each case's Go source line.

TestCompositedPolicies compiles the case's variables and then one condition with a
`NewCompositedCompiler` over the default compatibility version (no params, no authorizer,
NewExpressions) and evaluates it for `endpointCreateAttributes()` (condition_test.go: the
Endpoints `endpoints1` with its TypeMeta, namespace `default`, CREATE) within `budget`
(`celconfig.RuntimeCELCostBudget` when the case sets none). `error` is a substring of the list
error or, when the list succeeds, of the first result's error (`strings.Contains`); otherwise
`value` is the first result's value.

TestCompilerIsolation compiles one variable into each of two compilers built from the same base
environment (StoredExpressions) and checks that each compiler's `variables` type has its own
field and not the other's: `compilers` lists each compiler's variables, `has`/`lacks` the
fields its `variables` type must have and lack.

Run: python3 gen_composition.py > composition.json
then record the real 1.35 code's answers again: tests/gen/admission_cel (cel.server.json).
"""
import json

REPO = "kubernetes/apiserver"
COMMIT = "24a394e516bfda066d7e2221d7d92c052de27c54"
FILE = "pkg/admission/plugin/cel/composition_test.go"

ENDPOINT_CREATE = {
    "kind": {"group": "", "version": "v1", "kind": "Endpoints"},
    "resource": {"group": "", "version": "v1", "resource": "endpoints"},
    "subresource": "", "namespace": "default", "name": "endpoints1", "operation": "CREATE",
    "object": {"kind": "Endpoints", "apiVersion": "v1",
               "metadata": {"name": "endpoints1", "creationTimestamp": None},
               "subsets": [{"addresses": [{"ip": "127.0.0.0"}]}]},
    "oldObject": None,
}

# (line, name, variables [(name, expression)], expression, outcome, budget)
CASES = [
    (61, "simple", [("name", "object.metadata.name")], "variables.name == 'endpoints1'",
     {"value": True}, None),
    (73, "early compile error", [("name", "1 == '1'")], "variables.name == 'endpoints1'",
     {"error": "found no matching overload for '_==_' applied to '(int, string)'"}, None),
    (86, "delayed eval error", [("count", "object.subsets[114514].addresses.size()")],
     "variables.count == 810",
     {"error": 'composited variable "count" fails to evaluate: index out of bounds: 114514'}, None),
    (99, "out of budget during lazy evaluation", [("name", "object.metadata.name")],
     "variables.name == 'endpoints1'", {"error": "running out of cost budget"}, 4),
    (114, "lazy evaluation, budget counts only once", [("name", "object.metadata.name")],
     "variables.name == 'endpoints1' && variables.name == 'endpoints1' ", {"value": True}, 10),
    (127, "single boolean variable in expression", [("fortuneTelling", "true")],
     "variables.fortuneTelling", {"value": True}, None),
    (139, "variable of a list", [("list", "[1, 2, 3, 4]")], "variables.list.sum() == 10",
     {"value": True}, None),
    (151, "variable of a map", [("dict", '{"foo": "bar"}')],
     "variables.dict['foo'].contains('bar')", {"value": True}, None),
    (163, "variable of a list but confused as a map", [("list", "[1, 2, 3, 4]")],
     "variables.list['invalid'] == 'invalid'",
     {"error": "found no matching overload for '_[_]' applied to '(list(int), string)'"}, None),
    (176, "list of strings, but element is confused as an integer",
     [("list", "['1', '2', '3', '4']")], "variables.list[0] == 1",
     {"error": "found no matching overload for '_==_' applied to '(string, int)'"}, None),
    (189, "exceeds cost budget", [("dict", "'abc 123 def 123'.split(' ')")],
     "size(variables.dict) > 0",
     {"error": "validation failed due to running out of cost budget, no further validation rules will be run"},
     5),
]

records = []
for line, name, variables, expression, outcome, budget in CASES:
    r = {"provenance": {"repo": REPO, "commit": COMMIT, "file": FILE,
                        "test": "TestCompositedPolicies", "case": name, "line": line},
         "mode": "composited",
         "variables": [{"name": n, "expression": e} for n, e in variables],
         "expression": expression,
         "attributes": ENDPOINT_CREATE,
         "budget": 10000000 if budget is None else budget}
    r.update(outcome)
    records.append(r)

records.append({
    "provenance": {"repo": REPO, "commit": COMMIT, "file": FILE, "test": "TestCompilerIsolation",
                   "case": "TestCompilerIsolation", "line": 254},
    "mode": "isolation",
    "envType": "StoredExpressions",
    "compilers": [
        {"variables": [{"name": "foo", "expression": "'bar'"}], "has": ["foo"], "lacks": ["baz"]},
        {"variables": [{"name": "baz", "expression": "'qux'"}], "has": ["baz"], "lacks": ["foo"]},
    ],
})

print(json.dumps({"kind": "composition", "records": records}, indent=1))
