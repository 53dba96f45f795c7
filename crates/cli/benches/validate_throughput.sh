#!/usr/bin/env bash
# `kcel validate` throughput on many small documents, in one of two inputs (INPUT):
#
# - `mixed` (the default; issue 14's benchmark): COUNT documents written by gen_mixed.py
#   --builtins (custom resources with CEL rules from the Widget and Gateway API examples, and the
#   examples' built-in kinds), 500 per file, validated against examples/widget-crd.yaml and the
#   Gateway API standard channel's CRDs;
# - `gateway`: the Gateway API examples of the standard channel (../shared/corpora/gateway-api;
#   the documents of the group gateway.networking.k8s.io) repeated to COUNT documents in one
#   multi-document YAML file, validated against the channel's CRDs.
#
# On one core (taskset when present) unless JOBS is set. Prints the median of RUNS runs in
# seconds and in MB/s of input, and the peak RSS of the last run.
#
#   crates/cli/benches/validate_throughput.sh
#       env: KCEL, COUNT (50000), RUNS (3), JOBS, INPUT (mixed), FORMAT (text)
set -euo pipefail
RUNS=${RUNS:-3}
source "$(dirname "$0")/common.sh"
gw=$shared/corpora/gateway-api
count=${COUNT:-50000}

case ${INPUT:-mixed} in
mixed)
  docs=$tmp/mixed
  python3 "$root/crates/cli/benches/gen_mixed.py" --builtins --count "$count" "$docs" > /dev/null
  crds=(--crd "$root/examples/widget-crd.yaml" --crd "$gw/config/crd/standard")
  ;;
gateway)
  docs=$tmp/documents.yaml
  crds=(--crd "$gw/config/crd/standard")
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
  ;;
*)
  echo "INPUT must be mixed or gateway" >&2
  exit 2
  ;;
esac
bytes=$(find "$docs" -type f -exec cat {} + | wc -c)
echo "$count documents, $bytes bytes"

pin=()
if command -v taskset > /dev/null && [ -z "${JOBS:-}" ]; then pin=(taskset -c 0); fi
jobs=()
if [ -n "${JOBS:-}" ]; then jobs=(-j "$JOBS"); fi
median=$(median_us "${pin[@]}" "$kcel" validate "${jobs[@]}" -o "${FORMAT:-text}" "${crds[@]}" "$docs")
grep -c . "$tmp/out" | xargs echo "output lines:"
/usr/bin/time -o "$tmp/rss" -f %M "${pin[@]}" "$kcel" validate "${jobs[@]}" -o "${FORMAT:-text}" \
  "${crds[@]}" "$docs" > /dev/null 2>&1 || true
awk -v t="$median" -v b="$bytes" 'BEGIN { printf "kcel validate: %.3fs, %.1f MB/s\n", t / 1e6, b / t }'
echo "peak RSS: $(tail -1 "$tmp/rss") KB"
