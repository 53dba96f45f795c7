#!/usr/bin/env bash
# Seeds corpus/proto_gen with the crate's own .proto test files (golden inputs, the CLI's test
# data), the cel-spec protos of ../shared (or $KCEL_SHARED), and the minimised corpus checked in
# under regressions/corpus-proto_gen/. The corpus is not committed (see .gitignore).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SHARED="${KCEL_SHARED:-$HERE/../../../../shared}"
ROOT="$HERE/../../.."
mkdir -p "$HERE/corpus/proto_gen"
while IFS= read -r f; do
    cp "$f" "$HERE/corpus/proto_gen/$(sha1sum "$f" | cut -c1-40)"
done < <(find "$ROOT/crates/proto/tests" "$ROOT/crates/cli/tests" "$SHARED/cel-spec/proto" \
    -name '*.proto' -size -64k 2>/dev/null)
if [ -d "$HERE/regressions/corpus-proto_gen" ]; then
    cp "$HERE/regressions/corpus-proto_gen"/* "$HERE/corpus/proto_gen/" 2>/dev/null || true
fi
echo "$(ls "$HERE/corpus/proto_gen" | wc -l) seeds in $HERE/corpus/proto_gen"
