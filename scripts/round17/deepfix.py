#!/usr/bin/python3
"""Where wrong coordinates are, and how the deep ones (x_i > 1.5 at the incumbent) get fixed
(seventeenth round): deepfix.py OUT LABEL...
Prints the incumbent's wrong coordinates (x_i > 0) split into shallow (0 < x_i <= 1.5, on the
slope above the ridge at 0.157) and deep (x_i > 1.5), after steps 8, 12, 24, 48, 72; and for each
accepted step that moves a deep wrong coordinate to x < 0: the step index, its length, how many
coordinates moved by > 0.1, that coordinate's move and the improvement in f."""
import json, sys, pathlib
import numpy as np
root = pathlib.Path(sys.argv[1]); labels = sys.argv[2:]
for lab in labels:
    W = {k: [] for k in (8, 12, 24, 48, 72)}; deep = []
    for p in sorted((root / "traces" / "styblinski_tang" / lab).glob("seed-*.jsonl")):
        ev = [json.loads(l) for l in p.read_text().splitlines()[1:] if l.startswith('{"i"')]
        X = np.array([e["x"] for e in ev]); y = np.array([e["y"] for e in ev])
        for k in W:
            inc = X[int(np.argmax(y[:k]))]
            W[k].append((((inc > 0) & (inc <= 1.5)).sum(), (inc > 1.5).sum()))
        for t in range(8, len(y)):
            b = int(np.argmax(y[:t])); inc = X[b]; x = X[t]
            if y[t] > y[:t].max():
                for i in np.where((inc > 1.5) & (x < 0))[0]:
                    deep.append((t + 1, np.linalg.norm(x - inc) / 10, (np.abs(x - inc) / 10 > 0.1).sum(), (x[i] - inc[i]) / 10, x[i], y[t] - y[b], p.stem))
    n = len(W[8])
    print(f"{lab} ({n} runs): wrong shallow/deep after " + ", ".join(f"{k}: {np.mean([a for a, b in v]):.2f}/{np.mean([b for a, b in v]):.2f}" for k, v in W.items()))
    print(f"   deep fixes accepted: {len(deep)} ({len(deep) / n:.2f}/run)")
    for d in deep[:12]:
        print(f"     step {d[0]}, length {d[1]:.3f}, coords > 0.1: {d[2]}, move {d[3]:+.3f} to x = {d[4]:+.2f}, y gain {d[5]:.1f} ({d[6]})")
