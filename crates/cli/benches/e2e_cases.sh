#!/usr/bin/env bash
# End to end, whole processes: `kcel test` on an oracle case file whose cases are repeated
# REPEAT times (the CRDs once), against the oracle probe (Kubernetes 1.35's Go code, see
# ../shared/oracle-probe) on the same file when PROBE names it. Prints the median of RUNS runs
# of each, in seconds, and their ratio.
#
#   crates/cli/benches/e2e_cases.sh [CASES]   (default ../shared/oracle/cases_gw.yaml)
#   env: KCEL (default target/release/kcel), PROBE, REPEAT (5), RUNS (5)
set -euo pipefail
source "$(dirname "$0")/common.sh"
cases=${1:-$shared/oracle/cases_gw.yaml}
repeat=${REPEAT:-5}

# The file's `cases:` list (top-level key, cases named by `  name:` lines) repeated, each copy's
# names prefixed with its number, then the rest of the file (`crds:`).
input=$tmp/cases.yaml
first=$(grep -n '^cases:' "$cases" | cut -d: -f1)
end=$(awk -v f="$first" 'NR > f && /^[^ -]/ { print NR - 1; exit }' "$cases")
end=${end:-$(wc -l < "$cases")}
{
  head -n "$first" "$cases"
  for r in $(seq 1 "$repeat"); do
    sed -n "$((first + 1)),${end}p" "$cases" | sed "s|^  name: |  name: r$r/|"
  done
  tail -n "+$((end + 1))" "$cases"
} > "$input"
echo "$(grep -c '^  name: ' "$input") cases in $input ($(wc -c < "$input") bytes)"

k=$(median_us "$kcel" test "$input" | awk '{ printf "%.3f", $1 / 1e6 }')
echo "kcel test: ${k}s"
if [ -n "${PROBE:-}" ]; then
  p=$(median_us "$PROBE" "$input" | awk '{ printf "%.3f", $1 / 1e6 }')
  echo "probe:     ${p}s"
  awk -v k="$k" -v p="$p" 'BEGIN { printf "probe / kcel: %.2f\n", p / k }'
fi
