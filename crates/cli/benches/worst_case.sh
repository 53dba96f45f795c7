#!/usr/bin/env bash
# The 3 MiB worst case of crates/kube/benches/validation.rs as a whole process: the same
# generated CRD (a rule iterating `spec.items`) and object (about 3 MiB of compact JSON, the API
# server's request limit), validated by `kcel validate`. Prints the median wall time of RUNS
# runs and the peak resident memory (GNU time), with the input size.
#
#   crates/cli/benches/worst_case.sh        env: KCEL, RUNS (5)
set -euo pipefail
source "$(dirname "$0")/common.sh"

python3 - "$tmp" <<'PY'
import json, pathlib, sys

out = pathlib.Path(sys.argv[1])
rule = "self.items.all(i, i.name.startsWith('a') && i.value.size() < 64)"
crd = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.bench.example.com"},
    "spec": {
        "group": "bench.example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                "type": "object",
                "x-kubernetes-validations": [{"rule": rule}],
                "properties": {"items": {
                    "type": "array", "maxItems": 65536,
                    "items": {"type": "object", "required": ["name", "value"], "properties": {
                        "name": {"type": "string", "maxLength": 32},
                        "value": {"type": "string", "maxLength": 64},
                    }},
                }},
            }}}},
        }],
    },
}
(out / "crd.json").write_text(json.dumps(crd))
obj = {"apiVersion": "bench.example.com/v1", "kind": "Widget",
       "metadata": {"name": "big", "namespace": "default"}, "spec": {"items": []}}
size = len(json.dumps(obj, separators=(",", ":")))
items = obj["spec"]["items"]
n = 0
while len(items) < 65536:
    item = {"name": f"a-item-{n:08}", "value": f"value {n:08} of the generated worst-case object"}
    item_size = len(json.dumps(item, separators=(",", ":"))) + 1
    if size + item_size > 3 * 1024 * 1024:
        break
    size += item_size
    items.append(item)
    n += 1
(out / "object.json").write_text(json.dumps(obj, separators=(",", ":")))
PY
bytes=$(wc -c < "$tmp/object.json")
echo "object: $bytes bytes"
t=$(median_us "$kcel" validate --crd "$tmp/crd.json" "$tmp/object.json")
head -n 3 "$tmp/out"
/usr/bin/time -f '%M' -o "$tmp/rss" "$kcel" validate --crd "$tmp/crd.json" "$tmp/object.json" > /dev/null 2>&1 || true
awk -v t="$t" -v r="$(cat "$tmp/rss")" -v b="$bytes" \
  'BEGIN { printf "kcel validate: %.1f ms, peak RSS %.1f MiB (%.1fx the input)\n", t / 1e3, r / 1024, r * 1024 / b }'
