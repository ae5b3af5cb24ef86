#!/usr/bin/python3
"""How much of the paired difference is basin luck? (seventeenth round): luck.py OUT BASE LABEL
Per seed: cumulative regret of LABEL minus BASE, against the difference in the mean number of
wrong-basin coordinates (x_i > 0.157, the ridge of h) of the incumbent over steps 9-72. Prints the
regression slope (regret per wrong coordinate held over the run), R^2, and the paired mean of
the difference left after removing the basin part (the in-basin part)."""
import json, sys, pathlib, math
import numpy as np
root = pathlib.Path(sys.argv[1]); base, lab = sys.argv[2], sys.argv[3]
def load(l):
    out = {}
    for p in (root / "traces" / "styblinski_tang" / l).glob("seed-*.jsonl"):
        ev = [json.loads(x) for x in p.read_text().splitlines()[1:] if x.startswith('{"i"')]
        X = np.array([e["x"] for e in ev]); y = np.array([e["y"] for e in ev])
        w = np.mean([(X[int(np.argmax(y[:t]))] > 0.157).sum() for t in range(8, len(y))])
        out[p.name] = (ev[-1]["cum_regret"], w)
    return out
B, L = load(base), load(lab)
s = sorted(set(B) & set(L))
d = np.array([L[k][0] - B[k][0] for k in s]); w = np.array([L[k][1] - B[k][1] for k in s])
slope = (w @ d) / (w @ w); r2 = 1 - ((d - slope * w) ** 2).sum() / ((d - d.mean()) ** 2).sum()
res = d - slope * w
ci = lambda a: 1.96 * a.std(ddof=1) / math.sqrt(len(a))
print(f"{lab} minus {base}, {len(s)} seeds: {d.mean():+.0f} +- {ci(d):.0f}; wrong coordinates (mean over steps 9-72) "
      f"{w.mean():+.2f} +- {ci(w):.2f}; slope {slope:.0f} regret per coordinate, R^2 {r2:.2f}; the rest {res.mean():+.0f} +- {ci(res):.0f}")
