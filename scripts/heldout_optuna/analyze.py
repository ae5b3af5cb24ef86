"""Markdown tables from the results_*.json that run.py wrote in the current directory.

    cd /tmp/heldout_optuna/run && PYTHONPATH=/work/main/build/python /usr/bin/python3 \
        /work/main/scripts/heldout_optuna/analyze.py [--ref optimist]

Values are oriented so that lower is better ("loss": a maximized accuracy is shown as 1 - accuracy).
Paired differences are ref minus other per seed (negative: ref better), with a 95% t interval;
W/T/L counts seeds where ref is better / equal / worse. Ranks: per (task, budget, seed) the four
samplers are ranked by best value (ties share the mean rank), averaged over seeds, then over tasks.
"""
from __future__ import annotations

import argparse
import glob
import json
import re
from collections import Counter, defaultdict

import numpy as np
from scipy import stats

ORDER = ["optimist", "optimist_flat", "tpe", "random"]


def loss(r):
    if r["best"] is None:
        return float("nan")
    return 1.0 - r["best"] if r["direction"] == "maximize" else r["best"]


def fmt(x):
    return "nan" if x != x else f"{x:.4g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", default="optimist")
    a = ap.parse_args()
    rs = [r for f in sorted(glob.glob("results_*.json")) for r in json.load(open(f))]
    tasks = sorted({r["task"] for r in rs}, key=lambda t: [r["task"] for r in rs].index(t))
    budgets = sorted({r["budget"] for r in rs})
    samplers = [s for s in ORDER if any(r["sampler"] == s for r in rs)]
    by = {(r["task"], r["sampler"], r["budget"], r["seed"]): r for r in rs}
    others = [s for s in samplers if s != a.ref]

    for T in budgets:
        print(f"\n## Budget {T} trials\n")
        print("Mean best loss (standard error), n seeds; lower is better\n")
        print("| task | " + " | ".join(samplers) + " |")
        print("|---" * (len(samplers) + 1) + "|")
        for t in tasks:
            row = []
            for s in samplers:
                v = np.array([loss(r) for (tt, ss, bb, _), r in by.items() if (tt, ss, bb) == (t, s, T)])
                row.append(f"{fmt(v.mean())} ({fmt(v.std(ddof=1) / np.sqrt(len(v)))}) n={len(v)}" if len(v) > 1 else "-")
            print(f"| {t} | " + " | ".join(row) + " |")

        print(f"\nPaired difference {a.ref} minus other (95% t interval), W/T/L for {a.ref}; "
              "'*' = interval excludes 0\n")
        print("| task | " + " | ".join(f"vs {s}" for s in others) + " |")
        print("|---" * (len(others) + 1) + "|")
        for t in tasks:
            row = []
            for s in others:
                seeds = sorted(sd for (tt, ss, bb, sd) in by if (tt, ss, bb) == (t, a.ref, T) and (t, s, T, sd) in by)
                d = np.array([loss(by[(t, a.ref, T, sd)]) - loss(by[(t, s, T, sd)]) for sd in seeds])
                if len(d) < 2:
                    row.append("-")
                    continue
                h = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))
                tol = 1e-12 * max(1.0, np.abs([loss(by[(t, a.ref, T, sd)]) for sd in seeds]).max())
                w, ti, l = int((d < -tol).sum()), int((np.abs(d) <= tol).sum()), int((d > tol).sum())
                star = "*" if abs(d.mean()) > h else ""
                row.append(f"{fmt(d.mean())} ± {fmt(h)}{star} ({w}/{ti}/{l})")
            print(f"| {t} | " + " | ".join(row) + " |")

        print("\nMean rank (1 = best; per seed, averaged over seeds)\n")
        print("| task | " + " | ".join(samplers) + " |")
        print("|---" * (len(samplers) + 1) + "|")
        allr = defaultdict(list)
        for t in tasks:
            seeds = sorted({sd for (tt, ss, bb, sd) in by if (tt, bb) == (t, T)
                            and all((t, s, T, sd) in by for s in samplers)})
            ranks = np.array([stats.rankdata([loss(by[(t, s, T, sd)]) for s in samplers]) for sd in seeds])
            m = ranks.mean(axis=0)
            for s, x in zip(samplers, m):
                allr[s].append(x)
            print(f"| {t} | " + " | ".join(f"{x:.2f}" for x in m) + " |")
        print("| **mean over tasks** | " + " | ".join(f"**{np.mean(allr[s]):.2f}**" for s in samplers) + " |")

        print("\nTime per study: median wall [s] (cached evaluations), median uncached wall estimate [s] "
              "(overhead + first-evaluation cost of its points), mean sampler overhead per trial [ms]\n")
        print("| task | " + " | ".join(samplers) + " |")
        print("|---" * (len(samplers) + 1) + "|")
        for t in tasks:
            row = []
            for s in samplers:
                g = [r for (tt, ss, bb, _), r in by.items() if (tt, ss, bb) == (t, s, T)]
                if not g:
                    row.append("-")
                    continue
                wall = np.median([r["wall"] for r in g])
                unc = np.median([r["overhead"] + r["uncached_eval_time"] for r in g])
                ov = np.mean([1000 * r["overhead"] / max(r["n_trials"], 1) for r in g])
                row.append(f"{wall:.1f} / {unc:.1f} / {ov:.1f}")
            print(f"| {t} | " + " | ".join(row) + " |")

    print("\n## Study health\n")
    print("| task | sampler | budget | studies | errors | not all trials COMPLETE | "
          "trials short of budget | duplicate param sets (total) |")
    print("|---|---|---|---|---|---|---|---|")
    for t in tasks:
        for s in samplers:
            for T in budgets:
                g = [r for (tt, ss, bb, _), r in by.items() if (tt, ss, bb) == (t, s, T)]
                print(f"| {t} | {s} | {T} | {len(g)} | {sum(bool(r['error']) for r in g)} | "
                      f"{sum(r['n_complete'] < r['n_trials'] for r in g)} | "
                      f"{sum(r['n_trials'] < T for r in g)} | {sum(r['n_trials'] - r['n_distinct'] for r in g)} |")

    # is the 30-trial study the first 30 trials of the 50-trial one?
    if len(budgets) >= 2:
        lo, hi = budgets[0], budgets[-1]
        print(f"\nStudies of {lo} trials that are not the first {lo} trials of the {hi}-trial study (same seed):\n")
        nbad = 0
        for t in tasks:
            for s in samplers:
                n = bad = 0
                for (tt, ss, bb, sd), r in by.items():
                    if (tt, ss, bb) == (t, s, lo) and (t, s, hi, sd) in by:
                        n += 1
                        bad += r["params"] != by[(t, s, hi, sd)]["params"][:lo]
                if bad:
                    nbad += 1
                    print(f"- {t} {s}: {bad} of {n}")
        if not nbad:
            print("- none")

    print("\n## Warnings (distinct messages, trial numbers masked; count = studies)\n")
    c = Counter()
    for r in rs:
        for w in {re.sub(r"\(trial \d+\)", "(trial N)", re.sub(r"'width_\d'|'\w+'", "'P'", w)) for w in r["warnings"]}:
            c[(r["sampler"], w)] += 1
    for (s, w), n in sorted(c.items()):
        print(f"- {s} [{n} studies]: {w[:300]}")
    errs = [r for r in rs if r["error"]]
    for r in errs[:5]:
        print(f"\nERROR {r['task']} {r['sampler']} T={r['budget']} seed={r['seed']}:\n```\n{r['error'][-2000:]}\n```")


if __name__ == "__main__":
    main()
