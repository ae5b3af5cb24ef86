#!/usr/bin/python3
"""Summed regret per window of steps, paired against a base label, for a bench folder (fifteenth round,
docs/go-ucb.md): windows.py OUT PROBLEM BASE LABEL..."""
import json, sys, pathlib, math
import numpy as np
root = pathlib.Path(sys.argv[1]); prob = sys.argv[2]; base = sys.argv[3]; labs = sys.argv[4:]
def load(lab):
    out = {}
    for p in (root / "traces" / prob / lab).glob("seed-*.jsonl"):
        lines = p.read_text().splitlines()
        ev = [json.loads(l) for l in lines[1:] if l.startswith('{"i"')]
        rec = next(json.loads(l)["recommend"] for l in lines if l.startswith('{"recommend"'))
        out[int(p.stem.split("-")[1])] = (np.array([e["regret"] for e in ev]), rec["simple_regret"])
    return out
B = load(base)
wins = [(0, 8), (8, 12), (12, 16), (16, 24), (24, 32), (32, 48), (48, 72)]
for lab in labs:
    L = load(lab); seeds = sorted(set(B) & set(L))
    cells = []
    for a, b in wins:
        d = np.array([L[s][0][a:b].sum() - B[s][0][a:b].sum() for s in seeds])
        cells.append(f"{a+1}-{b}: {d.mean():+.0f}+-{1.96*d.std(ddof=1)/math.sqrt(len(d)):.0f}")
    sr = np.array([L[s][1] - B[s][1] for s in seeds])
    print(f"{lab} minus {base}: " + " | ".join(cells) + f" | simple regret {sr.mean():+.1f}+-{1.96*sr.std(ddof=1)/math.sqrt(len(sr)):.1f}")
