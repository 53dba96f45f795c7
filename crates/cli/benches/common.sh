# Shared by the whole-process benchmarks of this directory (sourced, not run): the paths they
# use, a scratch directory removed on exit, and `median_us CMD...`.
root=$(cd "$(dirname "$0")/../../.." && pwd)
shared=${KCEL_SHARED:-$root/../shared}
kcel=${KCEL:-$root/target/release/kcel}
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The median wall time in microseconds of `CMD...` over $runs runs (its output goes to
# $tmp/out; a failing run still counts).
median_us() {
  local times=() start end
  for _ in $(seq 1 "$runs"); do
    start=$(date +%s%N)
    "$@" > "$tmp/out" 2>&1 || true
    end=$(date +%s%N)
    times+=("$(( (end - start) / 1000 ))")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p"
}
