#!/usr/bin/env bash
# kcel against the peer CEL implementations, in one run.
#
# Runs kcel's driver (benches/peer_driver.rs) and every peer of ../shared/bench
# (installed by ../shared/bench/setup.sh into $PEERS, default
# $HOME/.cache/cel-peers) RUNS times each (default 3) as separate processes,
# round-robin, with the shared timing protocol, then prints the table of
# compare_peers.py (medians over runs; ratio = peer / kcel, >1 = kcel faster).
# kcel runs twice: on the `kcel` binary's allocator (mimalloc) and on the system
# allocator (`kcel-system`), each with its own tables.
#
# Usage: crates/cel/benches/compare_peers.sh [RUNS] [peer-label ...]
# Results: $OUT (default target/peer-bench/<timestamp>), table in $OUT/table.md.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
SHARED="${KCEL_SHARED:-$ROOT/../shared}"
BENCH="$SHARED/bench"
[ -f "$BENCH/protocol.json" ] || { echo "no benchmark protocol at $BENCH (set KCEL_SHARED)" >&2; exit 1; }
RUNS="${1:-3}"; shift || true
ONLY=("$@")
OUT="${OUT:-$ROOT/target/peer-bench/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$OUT"

# kcel's driver, built in release mode (the bench profile).
KCEL=$("$(dirname "$0")/peer_driver_path.sh" || true)
[ -x "$KCEL" ] || { echo "cannot build the kcel peer driver" >&2; exit 1; }
# The same driver on the system allocator (the library's default).
KCEL_SYSTEM=$("$(dirname "$0")/peer_driver_path.sh" peer_driver_system || true)
[ -x "$KCEL_SYSTEM" ] || { echo "cannot build the kcel peer driver (system allocator)" >&2; exit 1; }

# The peers' commands: PEER_CMDS=("label|command prefix" ...).
source "$BENCH/peers.sh"
[ -d "$PEERS/js" ] && cp "$BENCH/peer_js.mjs" "$PEERS/js/peer_js.mjs"
CMDS=("kcel|$KCEL" "kcel-system|$KCEL_SYSTEM" "${PEER_CMDS[@]}")

{ echo "date: $(date -u +%FT%TZ)"; echo "nproc: $(nproc)"; grep -m1 'model name' /proc/cpuinfo; uname -srm
  echo "kcel: $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null)"; echo "loadavg before: $(cat /proc/loadavg)"; } > "$OUT/machine.txt"
for run in $(seq 1 "$RUNS"); do
  for pc in "${CMDS[@]}"; do
    label="${pc%%|*}"; cmd="${pc#*|}"
    if [ ${#ONLY[@]} -gt 0 ] && [[ "$label" != kcel* ]] && [[ ! " ${ONLY[*]} " =~ " $label " ]]; then continue; fi
    echo "run $run: $label" >&2
    timeout 900 $cmd bench "$BENCH/protocol.json" "$BENCH/bench_data.json" \
      > "$OUT/bench_${label}_$run.jsonl" 2> "$OUT/bench_${label}_$run.stderr" \
      || echo "WARN: $label run $run exited $?" >&2
  done
done
echo "loadavg after: $(cat /proc/loadavg)" >> "$OUT/machine.txt"
python3 "$(dirname "$0")/compare_peers.py" "$BENCH/protocol.json" "$OUT" | tee "$OUT/table.md"
