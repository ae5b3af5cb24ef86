#!/usr/bin/python3
"""Paired cumulative regret pooled over several bench folders (sixteenth round):
pooled.py PROBLEM BASE LABEL -- OUT..."""
import json, sys, pathlib, math
import numpy as np
k = sys.argv.index("--"); prob, base, lab = sys.argv[1:4]; outs = sys.argv[k + 1:]
def last(p): return json.loads([l for l in p.read_text().splitlines() if l.startswith('{"i"')][-1])["cum_regret"]
d = []
for o in outs:
    B = {p.name: last(p) for p in (pathlib.Path(o) / "traces" / prob / base).glob("seed-*.jsonl")}
    L = {p.name: last(p) for p in (pathlib.Path(o) / "traces" / prob / lab).glob("seed-*.jsonl")}
    d += [L[s] - B[s] for s in sorted(set(B) & set(L))]
d = np.array(d)
print(f"{lab} minus {base}, {len(d)} seeds: {d.mean():+.0f} +- {1.96 * d.std(ddof=1) / math.sqrt(len(d)):.0f} (lower on {(d < 0).sum()} of {len(d)})")
