#!/usr/bin/python3
"""Checkpoint table of BKB / BBKB / gp-ucb-arms traces (`optimist run ... --out TRACE.jsonl`).

Usage: /usr/bin/python3 scripts/bkb_trace_summary.py [--at 100,250,500,1000] [--window 50] TRACE...

For each trace and checkpoint t: the optimizer time of one step (suggest_s + tell_s: ask + tell),
averaged over the `window` steps before t (and its median there), the dictionary size m_t
(`dictionary_size`, or `distinct_pulled` for exact GP-UCB), distinct pulled arms, beta_t, the
cumulative regret at t and the total optimizer time up to t. With several traces of one
group (files named GROUP-SEED.jsonl, else the algorithm) a last line per group gives the mean."""
import json
import os
import statistics
import sys


def read(path):
    meta, rows = None, []
    with open(path) as f:
        for line in f:
            try:
                j = json.loads(line)
            except json.JSONDecodeError:
                break
            if "meta" in j:
                meta = j["meta"]
            elif "i" in j:
                rows.append(j)
    return meta, rows


def checkpoint(rows, t, window):
    if t > len(rows):
        return None
    block = rows[max(0, t - window):t]
    steps = [r.get("suggest_s", 0.0) + r.get("tell_s", 0.0) for r in block]
    r = rows[t - 1]
    m = r.get("dictionary_size", r.get("distinct_pulled"))
    return {
        "step_ms": 1e3 * sum(steps) / len(steps),
        "median_ms": 1e3 * statistics.median(steps),
        "m": m,
        "distinct": r.get("distinct_pulled"),
        "beta": r.get("beta"),
        "regret": r.get("cum_regret"),
        "total_s": sum(x.get("suggest_s", 0.0) + x.get("tell_s", 0.0) for x in rows[:t]),
        "mode": r.get("mode", ""),
    }


def main(argv):
    at, window, paths = [100, 250, 500, 1000], 50, []
    i = 0
    while i < len(argv):
        if argv[i] == "--at":
            at = [int(v) for v in argv[i + 1].split(",")]
            i += 2
        elif argv[i] == "--window":
            window = int(argv[i + 1])
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    groups = {}
    print(f"{'trace':40s} {'t':>5s} {'ms/step':>9s} {'median':>8s} {'m_t':>5s} {'dist':>5s} {'beta':>8s} {'regret':>9s} {'total s':>8s}")
    for p in paths:
        meta, rows = read(p)
        # group: the file name without its trailing "-SEED.jsonl" (else the algorithm)
        base = os.path.basename(p)
        stem = base[:-len(".jsonl")] if base.endswith(".jsonl") else base
        head, _, tail = stem.rpartition("-")
        label = head if tail.isdigit() and head else (meta.get("algorithm", "?") if meta else "?")
        for t in at:
            c = checkpoint(rows, t, window)
            if c is None:
                continue
            groups.setdefault((label, t), []).append(c)
            beta = f"{c['beta']:.4g}" if isinstance(c["beta"], (int, float)) else "-"
            print(f"{p[-40:]:40s} {t:5d} {c['step_ms']:9.2f} {c['median_ms']:8.2f} {str(c['m']):>5s} "
                  f"{str(c['distinct']):>5s} {beta:>8s} {c['regret']:9.1f} {c['total_s']:8.1f} {c['mode']}")
    if any(len(v) > 1 for v in groups.values()):
        print("\nmean over traces")
        for (label, t), cs in sorted(groups.items()):
            def mean(k, digits=1):  # "-" when a trace has no such column (gp-ei has no dictionary)
                vs = [c[k] for c in cs]
                return "-" if any(v is None for v in vs) else f"{sum(vs) / len(vs):.{digits}f}"
            print(f"{label:20s} n={len(cs)} t={t:5d} ms/step {mean('step_ms', 2):>9s}  m_t {mean('m'):>7s}  "
                  f"regret {mean('regret'):>9s}  total {mean('total_s'):>8s} s")


if __name__ == "__main__":
    main(sys.argv[1:])
