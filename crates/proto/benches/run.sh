#!/usr/bin/env bash
# Generates the 200-message benchmark package and times `kcel gen crd` on it (see README.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
cargo build --release -p kcel --bin kcel
cargo build --release -p kcel-proto --example bench_package
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
./target/release/examples/bench_package "$work" >/dev/null
check="${KCEL_BENCH_CHECK:---no-check}"
/usr/bin/time -v ./target/release/kcel gen crd $check -I "$work" "$work/bench/v1/bench.proto" \
  --message bench.v1.Msg0 --group bench.example.com --kind Bench --version v1 \
  -o "$work/crd.yaml" 2>"$work/time.txt" || { cat "$work/time.txt"; exit 1; }
grep -E "Elapsed|Maximum resident" "$work/time.txt"
echo "output: $(wc -c <"$work/crd.yaml") bytes, $(wc -l <"$work/crd.yaml") lines"
