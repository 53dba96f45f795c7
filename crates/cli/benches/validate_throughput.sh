#!/usr/bin/env bash
# `kcel validate` throughput on many small documents: the Gateway API examples of the
# standard channel (../shared/corpora/gateway-api; the documents of the group
# gateway.networking.k8s.io, other kinds left out) repeated to COUNT documents in one
# multi-document YAML file, validated against the channel's CRDs on one core (taskset when
# present). Prints the median of RUNS runs in seconds and in MB/s of input.
#
#   crates/cli/benches/validate_throughput.sh        env: KCEL, COUNT (50000), RUNS (3), JOBS
set -euo pipefail
RUNS=${RUNS:-3}
source "$(dirname "$0")/common.sh"
gw=$shared/corpora/gateway-api
count=${COUNT:-50000}

docs=$tmp/documents.yaml
python3 - "$gw/examples/standard" "$count" > "$docs" <<'PY'
import pathlib, sys

root, count = pathlib.Path(sys.argv[1]), int(sys.argv[2])
pool = []
for f in sorted(root.rglob("*.yaml")):
    doc = []
    for line in f.read_text().splitlines() + ["---"]:
        if line.rstrip() == "---":
            text = "\n".join(doc).strip("\n")
            if "apiVersion: gateway.networking.k8s.io/" in text:
                pool.append(text)
            doc = []
        else:
            doc.append(line)
if not pool:
    sys.exit(f"no Gateway API documents under {root}")
out = sys.stdout
for i in range(count):
    out.write("---\n" + pool[i % len(pool)] + "\n")
PY
bytes=$(wc -c < "$docs")
echo "$count documents, $bytes bytes"

pin=()
if command -v taskset > /dev/null && [ -z "${JOBS:-}" ]; then pin=(taskset -c 0); fi
jobs=()
if [ -n "${JOBS:-}" ]; then jobs=(-j "$JOBS"); fi
median=$(median_us "${pin[@]}" "$kcel" validate "${jobs[@]}" --crd "$gw/config/crd/standard" "$docs")
grep -c . "$tmp/out" | xargs echo "output lines:"
awk -v t="$median" -v b="$bytes" 'BEGIN { printf "kcel validate: %.3fs, %.1f MB/s\n", t / 1e6, b / t }'
