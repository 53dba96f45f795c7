#!/usr/bin/env bash
# Seeds corpus/parse, corpus/eval and corpus/diff with every expression of the cel-spec
# conformance suite (../shared/cel-spec/json, or $KCEL_SHARED/cel-spec/json),
# the benchmark protocol and cel-go's parser/checker test inputs, one file
# per distinct expression, plus the minimised corpora checked in under
# regressions/corpus-{parse,eval}/. The corpora are not committed (see .gitignore).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SHARED="${KCEL_SHARED:-$HERE/../../../../shared}"
python3 - "$SHARED" "$HERE/corpus" <<'PY'
import glob, hashlib, json, os, sys
shared, out = sys.argv[1], sys.argv[2]
exprs = set()
def walk(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "expr" and isinstance(v, str):
                exprs.add(v)
            else:
                walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
paths = glob.glob(os.path.join(shared, "cel-spec/json/*.json")) \
    + glob.glob(os.path.join(shared, "cel-spec/cel-go-extra/*.json")) \
    + [os.path.join(shared, "bench/protocol.json")]
for p in paths:
    if os.path.exists(p):
        walk(json.load(open(p)))
if not exprs:
    sys.exit(f"no expressions found under {shared}")
# The harness's message `msg` (type fuzz.M, container fuzz; tests/common/fuzz_env.rs).
exprs.update([
    "msg.i == -3 && msg.u == 7u && msg.s == 'x' && msg.b == b'\\x00\\xff'",
    "msg.m['k'].i + msg.child.child.s.size()", "has(msg.child) && !has(msg.id)",
    "msg.any == M{i: 9}", "msg.st.a[2].b", "msg.w + msg.name", "msg.t.getFullYear()",
    "msg.e == M.E.ONE", "int(msg.e) + 1", "M.E(1) == msg.e", "M.E('ONE')", "type(msg.e) == M.E",
    "M{e: M.E(7)}.e", "M{i: 1, l: [1, 2], m: {'a': M{}}, child: msg}",
    "M{any: msg}.any.child", "M{st: {'a': [1, null]}}.st", "M{w: null}.w == null",
    "M{}.f == 0.0", "msg == M{}", "[msg, M{}].exists(x, x.bo)", "msg.l.map(x, x * 2)",
    "M{name: 'a', id: 2}", "optional.of(msg).?child.?s", "proto.hasExt(msg, fuzz.x)",
])
for target in ("parse", "eval", "diff"):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    for e in exprs:
        data = e.encode()
        with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
print(f"{len(exprs)} expressions written to {out}/{{parse,eval,diff}}")
PY
for target in parse eval; do
    if [ -d "$HERE/regressions/corpus-$target" ]; then
        cp "$HERE/regressions/corpus-$target"/* "$HERE/corpus/$target/"
        echo "$(ls "$HERE/regressions/corpus-$target" | wc -l) checked-in inputs added to $HERE/corpus/$target"
    fi
done
# The differential target starts from what the eval target found.
cp "$HERE/regressions/corpus-eval"/* "$HERE/corpus/diff/" 2>/dev/null || true
