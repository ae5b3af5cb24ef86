#!/usr/bin/python3
"""Paired difference split by coordinate side (seventeenth round): split.py OUT BASE LABEL
Per seed, the regret of the evaluated points in steps 9-72, summed per coordinate
(h(x_i) - h(-2.9035), h = 0.5 (x^4 - 16 x^2 + 5 x)) and split into coordinates on the wrong side
of the ridge (x_i > 0.157) and the others; each part's paired mean +- 1.96 sd / sqrt(n) and its
share of the variance of the total difference."""
import json, sys, pathlib, math
import numpy as np
root = pathlib.Path(sys.argv[1]); base, lab = sys.argv[2], sys.argv[3]
def h(x): return 0.5 * (x ** 4 - 16 * x ** 2 + 5 * x)
def load(l):
    out = {}
    for p in (root / "traces" / "styblinski_tang" / l).glob("seed-*.jsonl"):
        ev = [json.loads(x) for x in p.read_text().splitlines()[1:] if x.startswith('{"i"')]
        X = np.array([e["x"] for e in ev])[8:]
        per = h(X) - h(-2.903534)
        wrong = X > 0.157
        out[p.name] = (np.where(wrong, per, 0).sum(), np.where(wrong, 0, per).sum(), wrong.sum() / len(X))
    return out
B, L = load(base), load(lab)
s = sorted(set(B) & set(L))
D = np.array([[L[k][j] - B[k][j] for j in range(3)] for k in s])
ci = lambda a: 1.96 * a.std(ddof=1) / math.sqrt(len(a))
tot = D[:, 0] + D[:, 1]
print(f"{lab} minus {base}, {len(s)} seeds, steps 9-72: total {tot.mean():+.0f} +- {ci(tot):.0f}; wrong-side coordinates "
      f"{D[:,0].mean():+.0f} +- {ci(D[:,0]):.0f} (var share {np.cov(D[:,0], tot)[0,1] / tot.var(ddof=1):.2f}); "
      f"right-side {D[:,1].mean():+.0f} +- {ci(D[:,1]):.0f} (var share {np.cov(D[:,1], tot)[0,1] / tot.var(ddof=1):.2f}); "
      f"wrong coordinates per step {D[:,2].mean():+.2f} +- {ci(D[:,2]):.2f}")
