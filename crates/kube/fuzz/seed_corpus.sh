#!/usr/bin/env bash
# Seeds corpus/documents and corpus/crd from real files: the bundled examples, the manifests and
# CRDs of ../shared/corpora (or $KCEL_SHARED/corpora; files up to 64 KiB for documents, 128 KiB
# for CRDs), and the minimised corpora checked in under regressions/corpus-{documents,crd}/.
# The corpora are not committed (see .gitignore).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SHARED="${KCEL_SHARED:-$HERE/../../../../shared}"
ROOT="$HERE/../../.."
seed() { # target max_bytes files...
    local target=$1 max=$2; shift 2
    mkdir -p "$HERE/corpus/$target"
    for f in "$@"; do
        if [ -f "$f" ] && [ "$(stat -c %s "$f")" -le "$max" ]; then
            cp "$f" "$HERE/corpus/$target/$(sha1sum "$f" | cut -c1-40)"
        fi
    done
}
mapfile -t manifests < <(find "$ROOT/examples" "$SHARED/corpora/kubectl-validate" \
    "$SHARED/corpora/gateway-api/examples" "$SHARED/corpora/gateway-api/hack/invalid-examples" \
    "$SHARED/corpora/gateway-api-ratcheting" \
    -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) 2>/dev/null)
seed documents 65536 "${manifests[@]}"
mapfile -t crds < <(grep -rlZ --include='*.yaml' --include='*.yml' --include='*.json' \
    'CustomResourceDefinition' "$ROOT/examples" "$SHARED/corpora/crd-schema-checker" \
    "$SHARED/corpora/crossplane" "$SHARED/corpora/cluster-api" "$SHARED/corpora/gateway-api/config" \
    "$SHARED/corpora/kube-openapi-jsonschema" "$SHARED/corpora/kubectl-validate" 2>/dev/null | tr '\0' '\n')
seed crd 131072 "${crds[@]}"
for target in documents crd; do
    if [ -d "$HERE/regressions/corpus-$target" ]; then
        cp "$HERE/regressions/corpus-$target"/* "$HERE/corpus/$target/" 2>/dev/null || true
    fi
    echo "$(ls "$HERE/corpus/$target" | wc -l) seeds in $HERE/corpus/$target"
done
