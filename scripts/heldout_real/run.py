"""Runner: python run.py [--tasks a,b] [--methods m1,m2] [--seeds 0-9] [--budget 50] [--out results.jsonl]
Appends one JSON line per (task, method, seed) run; skips runs already in the output file."""
import argparse, json, os, time, math, warnings
import numpy as np
import optimist
import optuna
from optimist.integration import OptimistSampler
from tasks import TASKS
optuna.logging.set_verbosity(optuna.logging.WARNING)

ap = argparse.ArgumentParser()
ap.add_argument("--tasks", default=",".join(TASKS))
ap.add_argument("--methods", default="auto,random,tpe,optuna_random,sampler")
ap.add_argument("--seeds", default="0-9")
ap.add_argument("--budget", type=int, default=50)
ap.add_argument("--out", default="results.jsonl")
a = ap.parse_args()
lo, hi = map(int, a.seeds.split("-"))
seeds = range(lo, hi + 1)
done = set()
if os.path.exists(a.out):
    for line in open(a.out):
        r = json.loads(line); done.add((r["task"], r["method"], r["seed"], r["budget"]))
os.makedirs("traces", exist_ok=True)

def clean(p):
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in p.items()}

for task in a.tasks.split(","):
    spf, obj, osug, noisy = TASKS[task]
    for method in a.methods.split(","):
        if method == "auto_noisy" and not noisy:
            continue
        for s in seeds:
            if (task, method, s, a.budget) in done:
                continue
            rng = np.random.RandomState(1000 + s)  # CV shuffles of a noisy task, same stream for every method
            evals = {"t": 0.0, "n": 0}
            xs, ys = [], []
            def f(p):
                cs = int(rng.randint(1 << 30)) if noisy else 0
                t0 = time.perf_counter()
                v = obj(p, cv_seed=cs)
                evals["t"] += time.perf_counter() - t0; evals["n"] += 1
                xs.append(clean(p)); ys.append(v)
                return v
            info = {}
            t0 = time.perf_counter()
            if method in ("auto", "random", "auto_noisy", "gpei_alt"):
                space = spf(optimist)
                kw = {}
                if method == "random": kw["algorithm"] = "random"
                if method == "gpei_alt": kw.update(algorithm="gp-ei", output_warp="alternate")  # stop 74's check
                if method == "auto_noisy": kw["noisy"] = True
                tr = f"traces/{task}-{method}-b{a.budget}-s{s}.jsonl"
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    res = optimist.minimize(f, space, budget=a.budget, seed=s, trace=tr, **kw)
                info = {"algorithm": res.algorithm, "decisions": res.decisions, "status": res.status,
                        "nfev": res.nfev, "n_failed": res.n_failed,
                        "opt_s": res.timings["suggest_s"] + res.timings["tell_s"],
                        "warnings": sorted({str(x.message)[:200] for x in w if "optimist" in str(x.filename) or "optimist" in str(x.message)}),
                        "recommended_x": clean(res.recommended_x)}
                best_x = clean(res.x)
            else:
                if method == "tpe": sampler = optuna.samplers.TPESampler(seed=s)
                elif method == "optuna_random": sampler = optuna.samplers.RandomSampler(seed=s)
                elif method == "sampler": sampler = OptimistSampler(seed=s)
                elif method == "sampler_noisy": sampler = OptimistSampler(seed=s, noisy=True)
                st = optuna.create_study(sampler=sampler)
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    st.optimize(lambda t: f(osug(t)), n_trials=a.budget)
                best_x = clean(st.best_params)
                info = {"nfev": len(st.trials), "states": sorted({str(t.state) for t in st.trials}),
                        "warnings": sorted({str(x.message)[:200] for x in w if "optimist" in str(x.filename) or "Optimist" in str(x.message)})}
                if method.startswith("sampler"):
                    try:
                        m = getattr(sampler, "_model", None); info["decisions"] = m.optimizer.decisions() if m else None
                    except Exception as e:
                        info["decisions"] = repr(e)
            wall = time.perf_counter() - t0
            ib = int(np.argmin(ys))
            best_x = xs[ib]  # best observed point (identical to res.x / best_params)
            rec = {"task": task, "method": method, "seed": s, "budget": a.budget,
                   "best": float(min(ys)), "best30": float(min(ys[:30])), "best_x": best_x,
                   "ys": ys, "xs": xs, "wall_s": wall, "eval_s": evals["t"], "overhead_s": wall - evals["t"],
                   "n_distinct": len({json.dumps(x, sort_keys=True) for x in xs})}
            if noisy:  # re-evaluate the incumbent on 10 fixed CV shuffles
                rec["true_best"] = float(np.mean([obj(best_x, cv_seed=10_000 + k) for k in range(10)]))
                ib30 = int(np.argmin(ys[:30]))
                rec["true_best30"] = float(np.mean([obj(xs[ib30], cv_seed=10_000 + k) for k in range(10)]))
            rec.update(info)
            with open(a.out, "a") as fo:
                fo.write(json.dumps(rec, default=str) + "\n")
            print(task, method, s, "best %.4f overhead %.2fs n_distinct %d" % (rec["best"], rec["overhead_s"], rec["n_distinct"]),
                  info.get("algorithm", ""), flush=True)
