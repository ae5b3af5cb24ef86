"""Tables for report.md from results/TASK/ALGO-T<budget>-s<seed>.json."""
import glob, json, os, sys
import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
ALGOS = ["auto", "random", "tpe"]
TASKS = os.environ.get("TASKS", "svc_digits,gbm_wine,kridge_diabetes,mlp_digits,et_breast_cancer,pick_wine").split(",")
BUDGETS = [30, 50]


NSEEDS = int(os.environ.get("NSEEDS", "10"))   # protocol: seeds 0-9


def load(task, algo, budget):
    out = {}
    for fn in glob.glob(os.path.join(os.getcwd(), "results", task, f"{algo}-T{budget}-s*.json")):
        r = json.load(open(fn))
        if r["seed"] < NSEEDS:
            out[r["seed"]] = r
    return out


def ci(d):
    d = np.asarray(d, float)
    n = len(d)
    m = d.mean()
    if n < 2 or np.all(d == d[0]):
        return m, 0.0
    h = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n)
    return m, h


def fmt(x):
    return f"{x:.4f}"


def main():
    rows = []
    ranks = {a: [] for a in ALGOS}
    seed_ranks = {a: [] for a in ALGOS}
    lines = ["| task | T | auto | random | TPE | auto - random (95% t) | auto - TPE (95% t) | auto's choice |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    worse = []
    for task in TASKS:
        for T in BUDGETS:
            R = {a: load(task, a, T) for a in ALGOS}
            seeds = sorted(set.intersection(*[set(R[a]) for a in ALGOS]))
            if not seeds:
                continue
            best = {a: np.array([R[a][s]["best"] for s in seeds]) for a in ALGOS}
            means = {a: best[a].mean() for a in ALGOS}
            rk = stats.rankdata([means[a] for a in ALGOS])
            for a, r in zip(ALGOS, rk):
                ranks[a].append(r)
            for i in range(len(seeds)):
                rs = stats.rankdata([best[a][i] for a in ALGOS])
                for a, r in zip(ALGOS, rs):
                    seed_ranks[a].append(r)
            cells = []
            for other in ["random", "tpe"]:
                m, h = ci(best["auto"] - best[other])
                sig = ""
                if m - h > 0:
                    sig = " **worse**"
                    worse.append((task, T, other, m, h))
                elif m + h < 0:
                    sig = " better"
                nw = int(np.sum(best["auto"] < best[other])); nl = int(np.sum(best["auto"] > best[other]))
                cells.append(f"{m:+.4f} ± {h:.4f}{sig} (W/T/L {nw}/{len(seeds)-nw-nl}/{nl})")
            ch = {R["auto"][s]["decisions"]["algorithm"] for s in seeds if R["auto"][s].get("decisions")}
            lines.append(f"| {task} | {T} | {fmt(means['auto'])} | {fmt(means['random'])} | {fmt(means['tpe'])} | "
                         f"{cells[0]} | {cells[1]} | {','.join(sorted(ch))} |")
    lines.append("")
    lines.append("Mean rank by row means (1 = best, ties averaged), over %d rows: " % len(ranks["auto"]) +
                 ", ".join(f"{a} {np.mean(ranks[a]):.2f}" for a in ALGOS))
    lines.append("Mean rank per seed (each seed's three final values ranked, averaged over all task-budget-seed triples, n = %d): " % len(seed_ranks["auto"]) +
                 ", ".join(f"{a} {np.mean(seed_ranks[a]):.2f}" for a in ALGOS))
    print("\n".join(lines))
    print()
    print("significantly worse rows:", worse)
    # cost
    print()
    print("| task | eval s / run (mean, T=50, random) | optimizer overhead s / run T=50: auto | TPE |")
    print("| --- | --- | --- | --- |")
    for task in TASKS:
        R = {a: load(task, a, 50) for a in ALGOS}
        if not R["auto"]:
            continue
        def ov(a):
            return np.mean([R[a][s]["wall"] - R[a][s]["eval_time_new"] for s in R[a]])
        print(f"| {task} | {np.mean([R['random'][s]['eval_time_new'] for s in R['random']]):.2f} | {ov('auto'):.2f} | {ov('tpe'):.2f} |")


if __name__ == "__main__":
    main()
