#!/usr/bin/python3
"""Fate of the incumbent's coordinates (seventeenth round): fate.py OUT LABEL... [--at K]
Bins the coordinates of the incumbent after K evaluations (default 8, Phase I's best) by x_i
(deep right x < -1.5, slope right -1.5..0.157, slope wrong 0.157..1.5, deep wrong > 1.5; the ridge
of h is at x = 0.157) and prints per bin the mean count per run and the share in the wrong basin
(x > 0.157) after MID (--mid, default 24) and 72 evaluations."""
import json, sys, pathlib
import numpy as np
args = sys.argv[1:]; K = 8; MID = 24
if "--mid" in args:
    k = args.index("--mid"); MID = int(args[k + 1]); del args[k:k + 2]
if "--at" in args:
    k = args.index("--at"); K = int(args[k + 1]); del args[k:k + 2]
root = pathlib.Path(args[0])
edges = [-5.01, -1.5, 0.157, 1.5, 5.01]; names = ["deep right", "slope right", "slope wrong", "deep wrong"]
for lab in args[1:]:
    cnt = np.zeros(4); w24 = np.zeros(4); w72 = np.zeros(4); n = 0
    for p in sorted((root / "traces" / "styblinski_tang" / lab).glob("seed-*.jsonl")):
        ev = [json.loads(l) for l in p.read_text().splitlines()[1:] if l.startswith('{"i"')]
        X = np.array([e["x"] for e in ev]); y = np.array([e["y"] for e in ev]); n += 1
        a = X[int(np.argmax(y[:K]))]; b = X[int(np.argmax(y[:MID]))]; c = X[int(np.argmax(y[:72]))]
        bins = np.digitize(a, edges) - 1
        for j in range(4):
            m = bins == j
            cnt[j] += m.sum(); w24[j] += (b[m] > 0.157).sum(); w72[j] += (c[m] > 0.157).sum()
    print(f"{lab} ({n} runs), bins after {K}: " + "; ".join(f"{names[j]} {cnt[j] / n:.2f} (wrong at {MID}: {w24[j] / max(cnt[j], 1):.2f}, at 72: {w72[j] / max(cnt[j], 1):.2f})" for j in range(4)))
