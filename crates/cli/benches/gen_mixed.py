#!/usr/bin/env python3
"""Writes a mixed set of documents for timing `kcel validate` (default 50,000 documents).

The documents are custom resources with CEL rules, cycled from the bundled Widget examples
(`examples/widget-{valid,invalid}.yaml`) and the Gateway API examples
(`$KCEL_SHARED/corpora/gateway-api/examples/standard`) whose kinds the standard-channel CRDs
serve; with `--builtins`, the examples' built-in kinds (Namespace, Service, ...) too. They go
into `--per-file` documents per file under `OUT`.

    python3 crates/cli/benches/gen_mixed.py /tmp/mixed
    kcel validate -j 1 -o json --crd examples/widget-crd.yaml \
        --crd "$KCEL_SHARED/corpora/gateway-api/config/crd/standard" /tmp/mixed > /dev/null

Only the standard library is used; documents are split on `---` lines, as the examples are
written.
"""

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def documents(path):
    """The non-empty documents of a YAML stream file, as text."""
    text = path.read_text(encoding="utf-8")
    for doc in re.split(r"(?m)^---[ \t]*$", text):
        if re.search(r"(?m)^kind:", doc):
            yield doc.strip("\n") + "\n"


def kind_of(doc):
    m = re.search(r"(?m)^kind:\s*(\S+)", doc)
    return m.group(1) if m else ""


def served_kinds(crd_dir):
    """The kinds the CRDs of `crd_dir` define (their `spec.names.kind`)."""
    kinds = set()
    for f in sorted(crd_dir.glob("*.yaml")):
        kinds.update(re.findall(r"(?m)^  names:\n(?:    .*\n)*?    kind: (\S+)", f.read_text()))
    return kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--count", type=int, default=50_000)
    ap.add_argument("--per-file", type=int, default=500)
    ap.add_argument("--builtins", action="store_true", help="keep the examples' built-in kinds")
    ap.add_argument("--shared", type=Path, default=Path(os.environ.get("KCEL_SHARED", ROOT.parent / "shared")))
    args = ap.parse_args()

    gateway = args.shared / "corpora/gateway-api"
    kinds = served_kinds(gateway / "config/crd/standard")
    if not kinds:
        sys.exit(f"no CRDs under {gateway / 'config/crd/standard'}")
    pool = []
    for f in ("examples/widget-valid.yaml", "examples/widget-invalid.yaml"):
        pool.extend(documents(ROOT / f))
    for f in sorted((gateway / "examples/standard").rglob("*.yaml")):
        pool.extend(d for d in documents(f) if args.builtins or kind_of(d) in kinds)
    args.out.mkdir(parents=True, exist_ok=True)
    written = 0
    while written < args.count:
        n = min(args.per_file, args.count - written)
        docs = [pool[(written + i) % len(pool)] for i in range(n)]
        (args.out / f"mixed-{written // args.per_file:04}.yaml").write_text("---\n".join(docs))
        written += n
    print(f"{written} documents ({len(pool)} distinct) in {args.out}")


if __name__ == "__main__":
    main()
