#!/usr/bin/env bash
# Instructions per evaluation of each protocol expression, with cost tracking
# on, counted by callgrind: robust under load, unlike wall time.
#
# For each expression the peer driver's `profile` mode runs once with 1
# evaluation and once with 1 + N; the difference over N is the per-evaluation
# count (compile, set-up and the first evaluation cancel out).
#
# Usage: crates/cel/benches/instructions_per_eval.sh [id ...]   (default: all)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
BENCH="${KCEL_SHARED:-$ROOT/../shared}/bench"
DRIVER=$("$(dirname "$0")/peer_driver_path.sh")
[ -x "$DRIVER" ] || { echo "cannot build the kcel peer driver" >&2; exit 1; }
# Evaluations per measured run: enough to dwarf noise, few for the big lists.
declare -A N=([E0]=100000 [E1]=100000 [E2]=200 [E3]=200 [E4]=10000 [E5]=10 [E5s]=100 [E6]=200)
IDS=("$@")
[ ${#IDS[@]} -gt 0 ] || IDS=(E0 E1 E2 E3 E4 E5 E5s E6)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
count() { # id evaluations -> instructions of the whole run
  valgrind --tool=callgrind --callgrind-out-file="$OUT/cg" "$DRIVER" profile \
    "$BENCH/protocol.json" "$BENCH/bench_data.json" "$1" "$2" tracked 2>&1 >/dev/null \
    | sed -n 's/.*Collected : //p'
}
for id in "${IDS[@]}"; do
  n=${N[$id]:-100}
  base=$(count "$id" 1)
  more=$(count "$id" $((n + 1)))
  echo "$id $(( (more - base) / n ))"
done
