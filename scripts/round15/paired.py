#!/usr/bin/python3
"""Paired cumulative regret between algorithm labels of a bench folder, plus first-step diagnostics
(styblinski_tang: cosine of step 9 with the true descent direction at the incumbent, gain in best regret)."""
import json, math, sys, pathlib
import numpy as np

def read(path):
    ev = [json.loads(l) for l in path.read_text().splitlines()[1:] if l.startswith('{"i"')]
    return ev

def st_grad_unit(u):  # gradient in unit coords of ST (minimization), x = 10u - 5
    x = 10 * u - 5
    return 10 * 0.5 * (4 * x**3 - 32 * x + 5)

def stats(diffs):
    d = np.array(diffs); n = len(d)
    return f"{d.mean():+.0f} +- {1.96 * d.std(ddof=1) / math.sqrt(n):.0f} (lower on {(d < 0).sum()} of {n})"

def main():
    root = pathlib.Path(sys.argv[1]); prob = sys.argv[2]; base = sys.argv[3]; others = sys.argv[4:]
    labels = [base] + others
    data = {}
    for lab in labels:
        d = root / "traces" / prob / lab
        data[lab] = {int(p.stem.split("-")[1]): read(p) for p in d.glob("seed-*.jsonl")}
    seeds = sorted(set.intersection(*[set(v) for v in data.values()]))
    print(f"{prob}: {len(seeds)} seeds {seeds[0]}..{seeds[-1]}")
    for lab in labels:
        cr = [data[lab][s][-1]["cum_regret"] for s in seeds]
        line = f"{lab:32s} cum {np.mean(cr):8.0f} +- {1.96*np.std(cr,ddof=1)/math.sqrt(len(cr)):5.0f}"
        if lab != base:
            line += "  minus " + base + ": " + stats([data[lab][s][-1]["cum_regret"] - data[base][s][-1]["cum_regret"] for s in seeds])
        if prob.startswith("styblinski"):
            cos, ccos, gain, best = [], [], [], {k: [] for k in (9, 10, 12, 16, 24, 48, 72)}
            for s in seeds:
                ev = data[lab][s]
                lo, hi = -5.0, 5.0
                X = np.array([e["x"] for e in ev]); U = (X - lo) / (hi - lo)
                f = np.array([e["regret"] for e in ev])
                b = int(np.argmin(f[:8])); step = U[8] - U[b]
                g = -st_grad_unit(U[b])
                if np.linalg.norm(step) > 0:
                    cos.append(step @ g / np.linalg.norm(step) / np.linalg.norm(g))
                    cc = 0.5 - U[b]; ccos.append(step @ cc / np.linalg.norm(step) / np.linalg.norm(cc))
                rb = [e["regret"] for e in ev]
                gain.append(min(rb[:8]) - min(rb[:9]))
                for k in best: best[k].append(min(rb[:k]))
            line += f"\n{'':32s} step-9 cos {np.mean(cos):+.3f} (centre {np.mean(ccos):+.2f}), gain {np.mean(gain):.1f}; best regret " + " ".join(f"{k}:{np.mean(v):.0f}" for k, v in best.items())
        print(line)
    if len(others) > 1:
        pass

main()
