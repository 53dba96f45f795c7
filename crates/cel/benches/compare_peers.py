#!/usr/bin/env python3
"""Table of kcel against each peer from one compare_peers.sh run.

Usage: compare_peers.py <protocol.json> <results-dir>
Reads <results-dir>/bench_<label>_<run>.jsonl; per peer and expression takes the
median over runs of the per-evaluation time (eval_ns) and of the warm compile
time (compile_ns); prints markdown: each peer's time and its ratio to kcel
(peer / kcel: >1 means kcel is faster), and the geometric mean of the ratios.
kcel is the driver on the `kcel` binary's allocator (mimalloc); when the run has
`kcel-system` (the same driver on the system allocator), the tables are printed
again with it as the base.
"""
import glob, json, math, os, re, statistics, sys

ORDER = ["kcel", "celcpp", "celrust", "celrustpy", "bufbuild", "marcbachmann",
         "celpython_interp", "celpython_compiled"]
NAMES = {"kcel": "kcel", "kcel-system": "kcel (system allocator)", "celcpp": "cel-cpp (py)", "celrust": "cel-rust 0.15",
         "celrustpy": "cel-rust 0.14.5 (py)", "bufbuild": "@bufbuild/cel",
         "marcbachmann": "@marcbachmann/cel-js", "celpython_interp": "cel-python interp",
         "celpython_compiled": "cel-python compiled"}


def fmt_ns(x):
    if x is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if x >= scale:
            return f"{x / scale:.2f} {unit}"
    return f"{x:.0f} ns"


def load(results):
    runs = {}
    for path in glob.glob(os.path.join(results, "bench_*_*.jsonl")):
        m = re.match(r"bench_(.*)_(\d+)\.jsonl$", os.path.basename(path))
        if not m:
            continue
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                runs.setdefault(m.group(1), {}).setdefault(r["id"], []).append(r)
    return runs


def medians(runs, field):
    out = {}
    for label, by_id in runs.items():
        for i, rs in by_id.items():
            ok = [r[field] for r in rs if r.get("ok") and field in r]
            out[(label, i)] = statistics.median(ok) if ok and len(ok) == len(rs) else None
    return out


def table(title, ids, peers, med, base_label="kcel"):
    lines = [f"### {title}", "",
             "| expr | " + " | ".join(NAMES.get(p, p) for p in peers) + " |",
             "|---|" + "---|" * len(peers)]
    ratios = {p: [] for p in peers}
    for i in ids:
        base = med.get((base_label, i))
        cells = [fmt_ns(base) if base is not None else "FAIL"]
        for p in peers[1:]:
            v = med.get((p, i))
            if v is None:
                cells.append("FAIL")
            elif base:
                ratios[p].append(v / base)
                cells.append(f"{fmt_ns(v)} ({v / base:.3g}×)")
            else:
                cells.append(fmt_ns(v))
        lines.append(f"| {i} | " + " | ".join(cells) + " |")
    geo = ["" if p == base_label else
           (f"**{math.exp(sum(map(math.log, ratios[p])) / len(ratios[p])):.3g}×** ({len(ratios[p])})"
            if ratios[p] else "-") for p in peers]
    lines.append("| geomean ratio (n) | " + " | ".join(geo) + " |")
    return "\n".join(lines)


def main():
    protocol, results = sys.argv[1], sys.argv[2]
    ids = [e["id"] for e in json.load(open(protocol))["expressions"]]
    runs = load(results)
    peers = [p for p in ORDER if p in runs] + sorted(p for p in runs if p not in ORDER)
    if "kcel" not in peers:
        sys.exit("no kcel results in " + results)
    n_runs = max(len(rs) for by_id in runs.values() for rs in by_id.values())
    print(f"kcel vs peers: median of {n_runs} run(s); ratio = peer / kcel (>1: kcel faster); "
          "FAIL = error or not `true` in some run.\n")
    print(table("Evaluation time per call (kcel with cost tracking on)", ids, peers, medians(runs, "eval_ns")))
    print()
    print(table("Compile time (warm, repeated)", ids, peers, medians(runs, "compile_ns")))
    if "kcel-system" in peers:
        others = ["kcel-system"] + [p for p in peers if p not in ("kcel", "kcel-system")]
        for title, key in (("Evaluation time per call", "eval_ns"), ("Compile time", "compile_ns")):
            print()
            print(table(f"{title}, kcel on the system allocator", ids, others, medians(runs, key),
                        "kcel-system"))
    failures = [f"- {NAMES.get(p, p)} {i}: " + str(r.get("error") or r.get("result")).replace("\n", " ")
                for p in peers for i in ids for r in runs[p].get(i, [])[:1] if not r.get("ok")]
    if failures:
        print("\nFailures (first run):\n" + "\n".join(f[:300] for f in failures))


if __name__ == "__main__":
    main()
