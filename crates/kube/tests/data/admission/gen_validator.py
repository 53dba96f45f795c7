"""Writes validator.json: the table of TestValidate and the case of TestContextCanceled
(k8s.io/apiserver pkg/admission/plugin/policy/validating/validator_test.go), transcribed by hand
below with each case's Go source line.

The Go test drives `validator.Validate` with fake filters that return canned evaluation
results. Each canned result is transcribed as a CEL expression that evaluates to it for the
record's request (a ConfigMap `foo` created in namespace `default`, as the test's `fakeAttr`
names `default`/`foo`; the runner binds the policy `policy` to it with binding `binding` and
the `Deny` action, and reads the binding's evaluation):

* `True`/`False` -> an expression evaluating to true/false (`FALSE` below, or `TRUE`);
* `Error` -> an expression failing at run time (`ERROR`: `int(object.metadata.name)` of `foo`);
* a message evaluation -> a `messageExpression` with that value (`{}`: no messageExpression);
  a message error -> `ERROR_STRING`; the null message -> `dyn(null)`;
* the fake `celMatcher` -> `matchConditions` (`false` for no match; a failing condition for
  the matcher's error).

A canned `Expression` text (`this.expression == unit.test`) is not CEL; the transcription uses
`FALSE`, and the expected message `failed expression: <expression>` is computed here the way
`Validate` computes it (strings.TrimSpace of the expression). The Go test checks messages with
`strings.Contains`, reasons and actions exactly, the number of decisions and audit annotations,
and each audit annotation's action, value and error exactly; the records check the same
(`messageContains`, `reason`, `action`; `audit` action/value/error, error `null` where no error
is expected). `Elapsed` is a fake's timing and is not transcribed.

Cases that cannot be data (`skip` gives the reason; the runner lists them in
admission_validating.skip): the fake filter's canned `test error` (a filter error no expression
produces), the canned audit annotation error text, and the cancelled context. The test-only cost
budget of 1 is transcribed as the same exhaustion of the plugin's budget (`EXPENSIVE`).

Run: python3 gen_validator.py > validator.json
"""
import json

REPO = "kubernetes/apiserver"
COMMIT = "24a394e516bfda066d7e2221d7d92c052de27c54"
FILE = "pkg/admission/plugin/policy/validating/validator_test.go"

TRUE = "object.metadata.name == 'foo'"
FALSE = "object.metadata.name == 'unit.test'"
ERROR = "int(object.metadata.name) == 1"
ERROR_STRING = "string(int(object.metadata.name))"
# The test's cost budget of 1, shared by the expression (cost 1) and its message (cost 1), is
# a test-only argument of Validate; the plugin passes RuntimeCELCostBudget (10,000,000). The
# same exhaustion at that budget: ten variables, each five nested maps over constant lists
# (10 x 10 x 10 x 10 x 38 iterations, constant lists folded as the server's OptOptimize folds
# them: runtime cost about 0.9M each, under the per-call limit of 1,000,000), all read by the
# validation (about 9.0M: within the budget), two read again by the messageExpression (about
# 1.8M, past the remaining 1.0M: each list evaluation evaluates its variables anew).
TEN = "[0,1,2,3,4,5,6,7,8,9]"
EXPENSIVE = (f"{TEN}.map(a, {TEN}.map(b, {TEN}.map(c, {TEN}.map(d, "
             f"[{','.join(str(i) for i in range(38))}].map(e, 1))))).size()")
EXPENSIVE_VARIABLES = [{"name": f"v{i}", "expression": EXPENSIVE} for i in range(10)]

# The fake attributes match every policy; so do these constraints.
MATCH_ALL = {"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"],
                                "operations": ["*"]}]}


def v(expr, reason=None, message=None, message_expression=None):
    out = {"expression": expr}
    if reason:
        out["reason"] = reason
    if message is not None:
        out["message"] = message
    if message_expression is not None:
        out["messageExpression"] = message_expression
    return out


def d(action, message="", reason=""):
    return {"action": action, "messageContains": message, "reason": reason}


def failed(expr):
    return "failed expression: " + expr.strip()


ADMIT = d("Admit")
DENY = d("Deny")
F = "Forbidden"
U = "Unauthorized"

# (line, name, failurePolicy, policy spec extras, decisions, audit, skip)
CASES = [
    (104, "test pass", None, {"validations": [v(TRUE)]}, [ADMIT], [], None),
    (120, "test multiple pass", None, {"validations": [v(TRUE), v(TRUE)]}, [ADMIT, ADMIT], [], None),
    (145, "test error with failurepolicy ignore", "Ignore", {"validations": [v(ERROR)]}, [ADMIT], [], None),
    (162, "test error with failurepolicy nil", None, {"validations": [v(ERROR)]}, [DENY], [], None),
    (178, "test fail with failurepolicy fail", "Fail", {"validations": [v(ERROR)]}, [DENY], [], None),
    (195, "test fail with failurepolicy ignore with multiple validations", "Ignore",
     {"validations": [v(TRUE), v(ERROR)]}, [ADMIT, ADMIT], [], None),
    (221, "test fail with failurepolicy nil with multiple validations", None,
     {"validations": [v(TRUE), v(ERROR)]}, [ADMIT, DENY], [], None),
    (246, "test fail with failurepolicy fail with multiple validations", "Fail",
     {"validations": [v(TRUE), v(ERROR)]}, [ADMIT, DENY], [], None),
    (272, "test fail with failurepolicy ignore with multiple failed validations", "Ignore",
     {"validations": [v(ERROR), v(ERROR)]}, [ADMIT, ADMIT], [], None),
    (298, "test fail with failurepolicy nil with multiple failed validations", None,
     {"validations": [v(ERROR), v(ERROR)]}, [DENY, DENY], [], None),
    (323, "test fail with failurepolicy fail with multiple failed validations", "Fail",
     {"validations": [v(ERROR), v(ERROR)]}, [DENY, DENY], [], None),
    (349, "test reason for fail no reason set", "Fail", {"validations": [v(FALSE)]},
     [d("Deny", failed(FALSE), "Invalid")], [], None),
    (370, "test reason for fail reason set", "Fail", {"validations": [v(FALSE, F)]},
     [d("Deny", failed(FALSE), F)], [], None),
    (392, "test reason for failed validations multiple validations", "Fail",
     {"validations": [v(FALSE, F), v("object.metadata.namespace == 'unit.test.2'", U)]},
     [d("Deny", failed(FALSE), F),
      d("Deny", failed("object.metadata.namespace == 'unit.test.2'"), U)], [], None),
    (428, "test message for failed validations", "Fail", {"validations": [v(FALSE, F, "test")]},
     [d("Deny", "test", F)], [], None),
    (451, "test message for failed validations multiple validations", "Fail",
     {"validations": [v(FALSE, F, "test1"), v(FALSE, F, "test2")]},
     [d("Deny", "test1", F), d("Deny", "test2", F)], [], None),
    (489, "test filter error", "Fail", {"validations": [v(FALSE, F, "test1")]},
     [d("Deny", "test error")], [],
     "the fake filter's canned error `test error` for the whole list: no expression list fails "
     "with it (a real list fails only when out of budget or cancelled)"),
    (511, "test filter error multiple evaluations", "Fail",
     {"validations": [v(FALSE, F, "test1"), v(FALSE, F, "test2")]}, [d("Deny", "test error")], [],
     "the fake filter's canned error `test error` for the whole list: no expression list fails "
     "with it (a real list fails only when out of budget or cancelled)"),
    (542, "test empty validations with non-empty audit annotations", "Fail",
     {"auditAnnotations": [{"key": "k0", "valueExpression": "'string value'"}]}, [],
     [{"action": "Publish", "value": "string value", "error": ""}], None),
    (562, "test non-empty validations with non-empty audit annotations", "Fail",
     {"validations": [v(TRUE, F, "test1")],
      "auditAnnotations": [{"key": "k0", "valueExpression": "'string value'"}]},
     [ADMIT], [{"action": "Publish", "value": "string value", "error": ""}], None),
    (599, "test audit annotations with null return", "Fail",
     {"auditAnnotations": [{"key": "k0", "valueExpression": "null"},
                           {"key": "k1", "valueExpression": "'string value'"}]},
     [], [{"action": "Exclude", "value": "", "error": ""},
          {"action": "Publish", "value": "string value", "error": ""}], None),
    (630, "test audit annotations with failPolicy=fail", "Fail",
     {"auditAnnotations": [{"key": "k0", "valueExpression": "'this is not valid CEL"}]}, [],
     [{"action": "Error", "value": "",
       "error": "valueExpression ''this is not valid CEL' resulted in error: <nil>"}],
     "the expected error is the fake filter's canned text (`resulted in error: <nil>`), which "
     "no evaluation produces: the expression does not compile"),
    (650, "test audit annotations with failPolicy=ignore", "Ignore",
     {"auditAnnotations": [{"key": "k0", "valueExpression": "'this is not valid CEL"}]}, [],
     [{"action": "Exclude", "value": "",
       "error": "valueExpression ''this is not valid CEL' resulted in error: <nil>"}],
     "the expected error is the fake filter's canned text (`resulted in error: <nil>`), which "
     "no evaluation produces: the expression does not compile"),
    (670, "messageExpression successful, empty message", None,
     {"validations": [v(FALSE, F, None, "'evaluated message'")]},
     [d("Deny", "evaluated message", F)], [], None),
    (697, "messageExpression for multiple validations", None,
     {"validations": [v(FALSE, F, "I am not overwritten"),
                      v(FALSE, F, "I am overwritten", "'evaluated message'")]},
     [d("Deny", "I am not overwritten", F), d("Deny", "evaluated message", F)], [], None),
    (741, "messageExpression successful, overwritten message", None,
     {"validations": [v(FALSE, F, "I am overwritten", "'evaluated message'")]},
     [d("Deny", "evaluated message", F)], [], None),
    (769, "messageExpression user failure", None,
     {"validations": [v(FALSE, F, "test1", ERROR_STRING)]},
     [d("Deny", "test1", F)], [], None),
    (797, "messageExpression eval to empty", None,
     {"validations": [v(FALSE, F, "test1", "' '")]},
     [d("Deny", "test1", F)], [], None),
    (825, "messageExpression eval to multi-line", None,
     {"validations": [v(FALSE, F, "test1", "'hello\\nthere'")]},
     [d("Deny", "test1", F)], [], None),
    (853, "messageExpression eval result too long", None,
     {"validations": [v(FALSE, F, "test1", "'" + "x" * (5 * 1024 + 1) + "'")]},
     [d("Deny", "test1", F)], [], None),
    (880, "messageExpression eval to null", None,
     {"validations": [v(FALSE, F, "test1", "dyn(null)")]},
     [d("Deny", "test1", F)], [], None),
    (908, "messageExpression out of budget after successful eval of expression", None,
     {"variables": EXPENSIVE_VARIABLES,
      "validations": [v(" + ".join(f"variables.v{i}" for i in range(10)) + " < 0", F, "test1",
                        "string(variables.v0 + variables.v1)")]},
     [d("Deny", "running out of cost budget")], [], None),
    (935, "no match surpresses failure", "Fail",
     {"matchConditions": [{"name": "placeholder", "expression": "false"}],
      "validations": [v(ERROR)]}, [], [], None),
    (948, "match error => presumed match", "Fail",
     {"matchConditions": [{"name": "placeholder", "expression": ERROR}],
      "validations": [v(ERROR)]}, [DENY], [], None),
]

records = []
for line, name, fp, spec, decisions, audit, skip in CASES:
    spec = dict(spec)
    spec.setdefault("validations", [])
    spec["matchConstraints"] = MATCH_ALL
    if fp:
        spec["failurePolicy"] = fp
    rec = {
        "name": "TestValidate/" + name,
        "provenance": {"repo": REPO, "commit": COMMIT, "file": FILE, "test": "TestValidate",
                       "case": name, "line": line, "subtest": name},
        "spec": spec,
        "decisions": decisions,
        "audit": audit,
    }
    if skip:
        rec["skip"] = skip
    records.append(rec)

records.append({
    "name": "TestContextCanceled",
    "provenance": {"repo": REPO, "commit": COMMIT, "file": FILE, "test": "TestContextCanceled",
                   "case": "", "line": 1033, "subtest": ""},
    "spec": {"failurePolicy": "Fail", "matchConstraints": MATCH_ALL, "validations": [v(
        "[1,2,3,4,5,6,7,8,9,10].map(x, [1,2,3,4,5,6,7,8,9,10].map(y, x*y)) == []")]},
    "decisions": [d("Deny", "operation interrupted")],
    "audit": [],
    "skip": "evaluates under an already cancelled context.Context; an offline run has no "
            "request context to cancel",
})

print(json.dumps({"kind": "validator", "records": records}, indent=1))
