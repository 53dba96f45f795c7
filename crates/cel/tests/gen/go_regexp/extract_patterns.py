#!/usr/bin/env python3
"""Collects every OpenAPI `pattern` of the CRDs under the shared corpora
(`$KCEL_SHARED/corpora`, including `wild/*/crds/`) into crd_patterns.json,
sorted and deduplicated, for main.go to run through Go's regexp.

    python3 extract_patterns.py /work/shared/corpora > crd_patterns.json
"""
import json
import os
import sys

import yaml


def walk(node, out):
    if isinstance(node, dict):
        p = node.get("pattern")
        if isinstance(p, str) and ("type" in node or "format" in node or "maxLength" in node or "minLength" in node):
            out.add(p)
        for v in node.values():
            walk(v, out)
    elif isinstance(node, list):
        for v in node:
            walk(v, out)


def main():
    root = sys.argv[1]
    out = set()
    for dirpath, _, files in os.walk(root):
        if "/wild/" in dirpath + "/" and "/crds" not in dirpath:
            continue
        for f in files:
            if not f.endswith((".yaml", ".yml", ".json")):
                continue
            try:
                with open(os.path.join(dirpath, f), encoding="utf-8") as fh:
                    docs = list(yaml.safe_load_all(fh))
            except Exception:
                continue
            for d in docs:
                if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition":
                    walk(d, out)
    json.dump(sorted(out), sys.stdout, indent=0, ensure_ascii=False)
    print()


main()
