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
