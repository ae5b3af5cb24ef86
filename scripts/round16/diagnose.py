#!/usr/bin/python3
"""Step statistics per window for a bench folder on 20-D styblinski_tang (sixteenth round, docs/go-ucb.md):
diagnose.py OUT LABEL... [--from A --to B]   (steps are 1-based evaluation indices, default 25-48)

Per step t of the window, with the incumbent = the best observed y before t:
 len     ||x_t - inc|| in unit-cube coordinates (x / 10)
 imp     fraction of steps whose true f beats the incumbent's true f
 cos     cosine of (x_t - inc) with -grad f(inc)
 maxmove largest single-coordinate move (unit cube)
 wrong   coordinates of the incumbent with x_i > 0 (the local basin near +2.75), at the window's start
 flips   steps that move some coordinate across 0 (a basin change)
 regret split of the incumbent at the window's start: the part from wrong-basin coordinates
         (each costs h(x_i) - h(-2.9035), h = 0.5 (x^4 - 16 x^2 + 5 x)) and the rest."""
import json, sys, pathlib, math
import numpy as np

args = sys.argv[1:]
lo, hi = 25, 48
if "--from" in args:
    k = args.index("--from"); lo = int(args[k + 1]); del args[k:k + 2]
if "--to" in args:
    k = args.index("--to"); hi = int(args[k + 1]); del args[k:k + 2]
root = pathlib.Path(args[0]); labels = args[1:]
XS = -2.903534

def h(x): return 0.5 * (x ** 4 - 16 * x ** 2 + 5 * x)
def f(x): return h(x).sum()
def grad(x): return 0.5 * (4 * x ** 3 - 32 * x + 5)

def load(lab):
    out = {}
    for p in (root / "traces" / "styblinski_tang" / lab).glob("seed-*.jsonl"):
        ev = [json.loads(l) for l in p.read_text().splitlines()[1:] if l.startswith('{"i"')]
        X = np.array([e["x"] for e in ev], float); y = np.array([e["y"] for e in ev], float)
        out[int(p.stem.split("-")[1])] = (X, y)
    return out

for lab in labels:
    runs = load(lab)
    L, IMP, COS, MM, FL, W, RW, RR, GAIN = [], [], [], [], [], [], [], [], []
    for s, (X, y) in sorted(runs.items()):
        for t in range(lo - 1, min(hi, len(y))):
            b = int(np.argmax(y[:t])); inc = X[b]
            step = X[t] - inc
            g = -grad(inc)
            L.append(np.linalg.norm(step) / 10)
            IMP.append(f(X[t]) < f(inc))
            COS.append(step @ g / (np.linalg.norm(step) * np.linalg.norm(g) + 1e-12))
            MM.append(np.abs(step).max() / 10)
            FL.append(np.any(np.sign(X[t]) != np.sign(inc)))
        b = int(np.argmax(y[:lo - 1])); inc = X[b]
        wrong = inc > 0
        W.append(wrong.sum())
        per = h(inc) - h(XS)
        RW.append(per[wrong].sum()); RR.append(per[~wrong].sum())
        b2 = int(np.argmax(y[:min(hi, len(y))])); inc2 = X[b2]
        GAIN.append((f(inc) - f(inc2), (inc > 0).sum() - (inc2 > 0).sum()))
    GAIN = np.array(GAIN)
    m = lambda a: float(np.mean(a))
    print(f"{lab:>16} steps {lo}-{hi} (n={len(runs)}): len {m(L):.3f}  improve {m(IMP):.2f}  cos {m(COS):+.3f}  "
          f"maxmove {m(MM):.3f}  basin-flip steps {m(FL):.2f} | at step {lo}: wrong coords {m(W):.2f}, "
          f"regret wrong-basin {m(RW):.0f} + in-basin {m(RR):.0f} | gain over window {m(GAIN[:,0]):.0f}, "
          f"wrong coords fixed {m(GAIN[:,1]):.2f}")
