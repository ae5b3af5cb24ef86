#!/usr/bin/python3
"""Per window: mean regret of the evaluated points = incumbent's regret (before the step) + the step's
excess over it, and the incumbent's wrong-basin coordinates (sixteenth round): decompose.py OUT LABEL..."""
import json, sys, pathlib
import numpy as np
root = pathlib.Path(sys.argv[1]); labels = sys.argv[2:]
wins = [(9, 12), (13, 24), (25, 32), (33, 48), (49, 72)]
for lab in labels:
    rows = {w: [] for w in wins}
    for p in (root / "traces" / "styblinski_tang" / lab).glob("seed-*.jsonl"):
        ev = [json.loads(l) for l in p.read_text().splitlines()[1:] if l.startswith('{"i"')]
        X = np.array([e["x"] for e in ev]); y = np.array([e["y"] for e in ev]); r = np.array([e["regret"] for e in ev])
        for w in wins:
            for t in range(w[0] - 1, w[1]):
                b = int(np.argmax(y[:t]))
                rows[w].append((r[t], r[b], r[t] - r[b], (X[b] > 0).sum()))
    cells = []
    for w in wins:
        a = np.array(rows[w]).mean(0)
        cells.append(f"{w[0]}-{w[1]}: eval {a[0]:.0f} = inc {a[1]:.0f} + excess {a[2]:.0f} (wrong {a[3]:.2f})")
    print(f"{lab:>14}: " + " | ".join(cells))

# The share of the evaluated points' regret in steps 25-72 that their wrong-basin coordinates carry
# (each x_i > 0 costs at least h(2.7468) - h(-2.9035) = 14.1).
def h(x): return 0.5 * (x ** 4 - 16 * x ** 2 + 5 * x)
for lab in labels:
    tot, wrong = [], []
    for p in (root / "traces" / "styblinski_tang" / lab).glob("seed-*.jsonl"):
        ev = [json.loads(l) for l in p.read_text().splitlines()[1:] if l.startswith('{"i"')]
        X = np.array([e["x"] for e in ev])[24:]; r = np.array([e["regret"] for e in ev])[24:]
        per = h(X) - h(-2.903534)
        tot.append(r.sum()); wrong.append(np.where(X > 0, per, 0).sum())
    print(f"{lab:>14}: steps 25-72 regret {np.mean(tot):.0f}, of it on wrong-basin coordinates {np.mean(wrong):.0f}")
