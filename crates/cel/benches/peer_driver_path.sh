#!/usr/bin/env bash
# Builds kcel's peer driver (benches/peer_driver.rs, or the bench target named
# by $1, e.g. peer_driver_system; release mode: the bench
# profile) and prints the path of its executable; used by compare_peers.sh,
# instructions_per_eval.sh and compile_instructions.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
TARGET="${1:-peer_driver}"
cd "$ROOT" && cargo bench -p kcel-cel --bench "$TARGET" --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("target",{}).get("name")==sys.argv[1] and m.get("executable"):
        print(m["executable"])' "$TARGET"
