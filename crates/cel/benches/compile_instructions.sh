#!/usr/bin/env bash
# Instructions per compile (parse + check + plan, and dropping the program) of
# each protocol expression, counted by callgrind: robust under load, unlike
# wall time. For each expression, the peer driver's `profile-compile` runs
# with 1 and with N+1 compiles; the difference over N is one compile (process
# start, environment build and first-use initialisation cancel out).
#
# Usage: crates/cel/benches/compile_instructions.sh [N] [id ...]   (N default 200)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
SHARED="${KCEL_SHARED:-$ROOT/../shared}"
PROTOCOL="$SHARED/bench/protocol.json"
[ -f "$PROTOCOL" ] || { echo "no benchmark protocol at $PROTOCOL (set KCEL_SHARED)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind not found" >&2; exit 1; }
N="${1:-200}"; shift || true
IDS=("$@")
[ ${#IDS[@]} -gt 0 ] || mapfile -t IDS < <(python3 -c 'import json,sys
for e in json.load(open(sys.argv[1]))["expressions"]: print(e["id"])' "$PROTOCOL")
DRIVER=$("$(dirname "$0")/peer_driver_path.sh" || true)
[ -x "$DRIVER" ] || { echo "cannot build the kcel peer driver" >&2; exit 1; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
refs() {
  valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" "$DRIVER" profile-compile "$PROTOCOL" "$1" "$2" 2>&1 \
    | sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}
for id in "${IDS[@]}"; do
  one=$(refs "$id" 1)
  many=$(refs "$id" $((N + 1)))
  echo "$id $(( (many - one) / N ))"
done
