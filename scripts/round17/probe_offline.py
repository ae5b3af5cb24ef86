#!/usr/bin/python3
"""Is a model-chosen one-coordinate probe worth a step? (seventeenth round)
probe_offline.py OUT LABEL [--data]: with rbf_jump_offline.py's flat-tailed Bayesian additive family
(5 bumps of width 0.25), the best one-coordinate move of the incumbent after K evaluations (k = 0
or 1). Counts a probe's value as E[max(gain, 0)] x (72 - K) (an improvement the incumbent keeps to
the end) minus E[max(-gain, 0)] (a failed probe's own excess regret) minus the cost of delaying
the ordinary search by one step, the trace's mean best regret after K minus after 72."""
import sys, json, pathlib
import numpy as np
here = pathlib.Path(__file__).resolve().parent
src = (here / "rbf_jump_offline.py").read_text().split("for K in (9, 12")[0]
src = src.replace('return f"K {K}', 'return gains, f"K {K}')
exec(src)
best = {}
for X, y in runs:
    r = np.array([h(x).sum() for x in X]) - 20 * h(-2.903534)
    for K in (12, 16, 24, 32, 48, 72):
        best.setdefault(K, []).append(r[:K].min())
for K in (12, 16, 24, 32, 48):
    delay = np.mean(best[K]) - np.mean(best[72])
    for kk in (0, 1):
        g, _ = run(K, 5, 0.25, 1.0, 0.01, kk)
        g = np.array(g) if len(g) else np.zeros(1); n = len(runs)
        pos = np.clip(g, 0, None).sum() / n; neg = np.clip(-g, 0, None).sum() / n
        print(f"{'data values' if DATA else 'grid'} K {K} k {kk}: probes {len(g)}/{n}, E[gain+] {pos:.1f}, E[loss] {neg:.1f}, "
              f"kept gain {pos * (72 - K):.0f} - loss {neg:.0f} - one-step delay {delay:.0f} = {pos * (72 - K) - neg - delay:+.0f} per run")
