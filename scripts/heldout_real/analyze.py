"""python analyze.py [results.jsonl]: per task/budget mean final best, paired diff vs random (95% CI), ranks."""
import json, sys, collections, numpy as np
f = sys.argv[1] if len(sys.argv) > 1 else "results.jsonl"
R = collections.defaultdict(dict)
for line in open(f):
    r = json.loads(line)
    R[(r["task"], r["method"])][r["seed"]] = r
tasks = sorted({t for t, _ in R}, key=lambda t: t)
methods = ["random", "auto", "sampler", "tpe", "optuna_random", "auto_noisy"]
ranks = collections.defaultdict(list)
for key in ["best30", "best", "true_best30", "true_best"]:
    print(f"\n=== metric: {key} ===")
    for t in tasks:
        rows = {m: R.get((t, m), {}) for m in methods}
        if key not in next(iter(rows["random"].values()), {}):
            continue
        seeds = sorted(set.intersection(*[set(v) for v in rows.values() if v]))
        n = len(seeds)
        line = [f"{t:18s} n={n}"]
        present = [m for m in methods if rows[m]]
        vals = {m: np.array([rows[m][s][key] for s in seeds]) for m in present}
        for m in present:
            d = vals[m] - vals["random"]
            ci = 1.96 * d.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
            flag = "" if m == "random" else ("BETTER" if d.mean() + ci < 0 else "WORSE" if d.mean() - ci > 0 else "level")
            line.append(f"{m}: {vals[m].mean():.4f}" + ("" if m == "random" else f" ({d.mean():+.4f}±{ci:.4f} {flag})"))
        if "tpe" in vals:
            d = vals["auto"] - vals["tpe"]; ci = 1.96 * d.std(ddof=1) / np.sqrt(n)
            line.append(f"auto-tpe {d.mean():+.4f}±{ci:.4f}")
        print(" | ".join(line))
        core = [m for m in ["random", "auto", "sampler", "tpe", "optuna_random"] if m in vals]
        means = np.array([vals[m].mean() for m in core])
        from scipy.stats import rankdata
        rk = rankdata(means)
        for m, x in zip(core, rk):
            ranks[(key if not key.startswith("true") else key.replace("true_", ""), m)].append(x) if not (key.startswith("best") and t.endswith("noisy")) else None
    # mean ranks (noisy task ranked by true_* metric)
for key in ["best30", "best"]:
    print(f"\nmean rank of task means ({key}; noisy task by re-evaluated incumbent):",
          {m: round(float(np.mean(ranks[(key, m)])), 2) for m in ["random", "auto", "sampler", "tpe", "optuna_random"] if ranks[(key, m)]},
          "tasks:", len(ranks[(key, "auto")]))
print("\noverhead (s per run, median) and choices:")
for t in tasks:
    for m in methods:
        if (t, m) in R:
            rs = list(R[(t, m)].values())
            ch = collections.Counter(str((r.get("decisions") or {}).get("algorithm")) for r in rs)
            print(f"  {t:18s} {m:14s} overhead {np.median([r['overhead_s'] for r in rs]):.2f}s  distinct {np.mean([r['n_distinct'] for r in rs]):.1f}  chose {dict(ch)} warn {sorted({w for r in rs for w in r.get('warnings', [])})[:2]}")
