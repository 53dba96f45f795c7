#!/usr/bin/env bash
# Builds kcel's peer driver (benches/peer_driver.rs, release mode: the bench
# profile) and prints the path of its executable; used by compare_peers.sh,
# instructions_per_eval.sh and compile_instructions.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$ROOT" && cargo bench -p kcel-cel --bench peer_driver --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("target",{}).get("name")=="peer_driver" and m.get("executable"):
        print(m["executable"])'
