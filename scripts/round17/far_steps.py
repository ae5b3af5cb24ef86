#!/usr/bin/python3
"""Far steps (seventeenth round): far_steps.py OUT LABEL...
Steps 9-72 whose distance to the incumbent (best observed point before the step) exceeds 0.5 in
unit-cube terms: how many per run, how many improved, their mean regret above the incumbent's, and
for each the nearest earlier evaluated point (its index, distance and, for a Phase I point, its rank
among Phase I's 8 values: 0 is the incumbent, 1 the runner-up)."""
import json, sys, pathlib
import numpy as np
root = pathlib.Path(sys.argv[1])
for lab in sys.argv[2:]:
    far = succ = runs = 0; excess = []; rows = []
    for p in sorted((root / "traces" / "styblinski_tang" / lab).glob("seed-*.jsonl")):
        ev = [json.loads(l) for l in p.read_text().splitlines()[1:] if l.startswith('{"i"')]
        X = np.array([e["x"] for e in ev]) / 10; y = np.array([e["y"] for e in ev]); r = np.array([e["regret"] for e in ev])
        runs += 1
        for t in range(8, len(y)):
            b = int(np.argmax(y[:t])); L = np.linalg.norm(X[t] - X[b])
            if L <= 0.5: continue
            far += 1; succ += y[t] > y[b]; excess.append(r[t] - r[b])
            d = np.linalg.norm(X[:t] - X[t], axis=1); j = int(np.argmin(d))
            rank = int((y[:8] > y[j]).sum()) if j < 8 else -1
            rows.append(f"  {p.stem} step {t + 1}: length {L:.2f}, nearest point {j + 1} at {d[j]:.2f} (Phase I rank {rank}), "
                        f"regret {r[t]:.0f} against the incumbent's {r[b]:.0f} and that point's {r[j]:.0f}")
    print(f"{lab}: far steps (> 0.5) per run {far / runs:.2f}, improving {succ}, mean regret above the incumbent "
          f"{np.mean(excess) if excess else 0:+.0f}")
    print("\n".join(rows))
