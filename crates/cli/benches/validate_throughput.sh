#!/usr/bin/env bash
# `kcel validate` throughput on many small documents: the Gateway API examples of the
# standard channel (../shared/corpora/gateway-api; the documents of the group
# gateway.networking.k8s.io, other kinds left out) repeated to COUNT documents in one
# multi-document YAML file, validated against the channel's CRDs on one core (taskset when
# present). Prints the median of RUNS runs in seconds and in MB/s of input.
#
#   crates/cli/benches/validate_throughput.sh        env: KCEL, COUNT (50000), RUNS (3), JOBS
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
shared=${KCEL_SHARED:-$root/../shared}
gw=$shared/corpora/gateway-api
kcel=${KCEL:-$root/target/release/kcel}
count=${COUNT:-50000}
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
times=()
for _ in $(seq 1 "$runs"); do
  start=$(date +%s%N)
  "${pin[@]}" "$kcel" validate "${jobs[@]}" --crd "$gw/config/crd/standard" "$docs" > "$tmp/out" 2>&1 || true
  end=$(date +%s%N)
  times+=("$(( (end - start) / 1000 ))")
done
grep -c . "$tmp/out" | xargs echo "output lines:"
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
awk -v t="$median" -v b="$bytes" 'BEGIN { printf "kcel validate: %.3fs, %.1f MB/s\n", t / 1e6, b / t }'
