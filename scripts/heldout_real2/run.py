"""Runner: optimist auto / optimist random / Optuna TPE / Optuna random on tasks.py's tasks.

/usr/bin/python3 run.py [--tasks a,b] [--methods auto,random,tpe,orand] [--seeds 10] [--budget 40]
Writes results/<task>/<method>-<seed>.json in the current folder (values in order, points, timings, decisions);
an existing file is skipped (delete it to rerun). Then `run.py --report` prints the tables.
"""
import argparse
import json
import math
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tasks  # noqa: E402

OUT = os.path.abspath("results")  # in the folder it runs in


def jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return v


def run_optimist(name, algorithm, seed, budget, **options):
    import optimist
    spec = tasks.SPECS[name]
    f = tasks.OBJECTIVES[name]
    space = tasks.optimist_space(spec)
    eval_t = []

    def obj(p):
        t = time.perf_counter()
        v = f(p)
        eval_t.append(time.perf_counter() - t)
        return v
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        res = optimist.minimize(obj, space, algorithm=algorithm, budget=budget, seed=seed, **options)
        wall = time.perf_counter() - t0
    h = res.history
    return {
        "values": [float(v) for v in res.func_vals],
        "points": [jsonable(dict(x)) for x in res.x_iters],
        "decisions": jsonable(res.decisions),
        "status": res.status, "message": res.message, "nfev": int(res.nfev),
        "suggest_s": [float(s) for s in h.suggest_s], "tell_s": [float(s) for s in h.tell_s],
        "eval_s": eval_t, "wall": wall, "timings": jsonable(dict(res.timings)),
        "warnings": [str(x.message) for x in w],
    }


def run_optuna(name, sampler_name, seed, budget):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    spec = tasks.SPECS[name]
    f = tasks.OBJECTIVES[name]
    sampler = (optuna.samplers.TPESampler(seed=seed) if sampler_name == "tpe"
               else optuna.samplers.RandomSampler(seed=seed))
    study = optuna.create_study(sampler=sampler, direction="minimize")
    eval_t = []

    def obj(trial):
        p = tasks.optuna_params(trial, spec)
        t = time.perf_counter()
        v = f(p)
        eval_t.append(time.perf_counter() - t)
        return v
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        study.optimize(obj, n_trials=budget)
    wall = time.perf_counter() - t0
    return {"values": [float(t.value) for t in study.trials],
            "points": [jsonable(t.params) for t in study.trials],
            "eval_s": eval_t, "wall": wall,
            "warnings": sorted({str(x.message)[:200] for x in w})}


METHODS = {"auto": lambda n, s, b: run_optimist(n, "auto", s, b),
           "random": lambda n, s, b: run_optimist(n, "random", s, b),
           "tpe": lambda n, s, b: run_optuna(n, "tpe", s, b),
           "orand": lambda n, s, b: run_optuna(n, "random", s, b),
           # diagnosis only (not a default): gp-ei with Vizier's half-rank output warp
           "gpwarp": lambda n, s, b: run_optimist(n, "gp-ei", s, b, output_warp="half-rank"),
           # stop 74's check: the alternate warp on these spaces, each of which has a categorical
           "gpalt": lambda n, s, b: run_optimist(n, "gp-ei", s, b, output_warp="alternate")}


def best_at(values, k):
    v = [x for x in values[:k] if x is not None and math.isfinite(x)]
    return min(v) if v else float("nan")


def load(name, method, seed):
    path = os.path.join(OUT, name, f"{method}-{seed}.json")
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        return json.load(fh)


def report(task_names, seeds, budget):
    for name in task_names:
        rows = {}
        for m in METHODS:
            rs = [load(name, m, s) for s in range(seeds)]
            if any(r is None for r in rs):
                continue
            rows[m] = rs
        if not rows:
            continue
        print(f"\n== {name} (d={len(tasks.SPECS[name])})")
        print("method   best@10   best@20   best@40   distinct/40")
        for m, rs in rows.items():
            b = [[best_at(r["values"], k) for r in rs] for k in (10, 20, budget)]
            distinct = np.mean([len({json.dumps(p, sort_keys=True) for p in r["points"]}) for r in rs])
            print(f"{m:7s} {np.mean(b[0]):9.4f} {np.mean(b[1]):9.4f} {np.mean(b[2]):9.4f}   {distinct:.1f}")
        if "auto" in rows:
            for other in ("random", "tpe", "orand", "gpwarp", "gpalt"):
                if other not in rows:
                    continue
                for k in (20, budget):
                    d = np.array([best_at(a["values"], k) - best_at(r["values"], k)
                                  for a, r in zip(rows["auto"], rows[other])])
                    half = 1.96 * d.std(ddof=1) / math.sqrt(len(d))
                    print(f"  auto-{other:6s} @{k}: {d.mean():+.4f} +- {half:.4f}  "
                          f"auto better {int((d < 0).sum())}, ties {int((d == 0).sum())}, worse {int((d > 0).sum())}")
            a = rows["auto"]
            chosen = sorted({r["decisions"].get("algorithm", "?") for r in a})
            print("  auto chose:", chosen, "| reason:", a[0]["decisions"].get("reason"),
                  "| resolved:", a[0]["decisions"].get("resolved"))
            sug = np.concatenate([np.array(r["suggest_s"]) + np.array(r["tell_s"]) for r in a])
            print(f"  auto ask+tell per eval: median {np.median(sug)*1e3:.1f} ms, "
                  f"p90 {np.percentile(sug, 90)*1e3:.1f} ms, max {sug.max()*1e3:.1f} ms; "
                  f"wall-minus-eval per run {np.mean([r['wall'] - sum(r['eval_s']) for r in a]):.2f} s")
            ws = sorted({x for r in a for x in r["warnings"]})
            if ws:
                print("  auto warnings:", ws[:5])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default=",".join(tasks.TASKS))
    ap.add_argument("--methods", default="auto,random,tpe,orand")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--budget", type=int, default=40)
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args()
    names = a.tasks.split(",")
    if a.report:
        report(names, a.seeds, a.budget)
        return
    for name in names:
        os.makedirs(os.path.join(OUT, name), exist_ok=True)
        for seed in range(a.seeds):
            for m in a.methods.split(","):
                path = os.path.join(OUT, name, f"{m}-{seed}.json")
                if os.path.exists(path):
                    continue
                t = time.perf_counter()
                try:
                    r = METHODS[m](name, seed, a.budget)
                except Exception as e:  # record, keep going
                    import traceback
                    r = {"error": repr(e), "traceback": traceback.format_exc(), "values": []}
                    print("ERROR", name, m, seed, repr(e), flush=True)
                with open(path, "w") as fh:
                    json.dump(r, fh)
                print(f"{name} {m} seed {seed}: best {best_at(r['values'], a.budget):.4f} "
                      f"({time.perf_counter() - t:.1f} s)", flush=True)
    report(names, a.seeds, a.budget)


if __name__ == "__main__":
    main()
