"""Mean ranks over tasks (rank of each method's mean, ties averaged) for a chosen set of methods, plus per-seed auto-vs-TPE wins.
python ranks.py results.jsonl"""
import json, sys, collections, numpy as np
from scipy.stats import rankdata
R = collections.defaultdict(dict)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "results.jsonl"):
    r = json.loads(line); R[(r["task"], r["method"])][r["seed"]] = r
tasks = sorted({t for t, _ in R})
def metric(t, key):
    return ("true_" + key) if t.endswith("noisy") else key
for methods in (["random", "auto", "tpe", "optuna_random"], ["random", "auto", "sampler", "tpe", "optuna_random"]):
    for key in ["best30", "best"]:
        rk = collections.defaultdict(list)
        for t in tasks:
            seeds = sorted(set.intersection(*[set(R[(t, m)]) for m in methods]))
            means = [np.mean([R[(t, m)][s][metric(t, key)] for s in seeds]) for m in methods]
            for m, x in zip(methods, rankdata(means)): rk[m].append(x)
        print(key, {m: round(float(np.mean(v)), 2) for m, v in rk.items()})
print("\nper-seed auto vs tpe (wins/ties/losses for auto, lower is better):")
for key in ["best30", "best"]:
    for t in tasks:
        seeds = sorted(set(R[(t, "auto")]) & set(R[(t, "tpe")]))
        a = np.array([R[(t, "auto")][s][metric(t, key)] for s in seeds]); b = np.array([R[(t, "tpe")][s][metric(t, key)] for s in seeds])
        print(f"  {key:6s} {t:18s} {int((a < b).sum())}/{int((a == b).sum())}/{int((a > b).sum())}")
