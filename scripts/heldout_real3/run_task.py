"""Run auto / random (optimist) and Optuna TPE on one task, budgets 30 and 50, seeds 0-9.

usage: PYTHONPATH=build/python nice -n 10 /usr/bin/python3 run_task.py TASK [seeds] [budgets] [methods]

methods (comma-separated, default random,tpe,auto) may add `sampler`: OptimistSampler("auto") inside
Optuna, with the space written define-by-run as TPE's (a conditional parameter is suggested only
where its condition holds, so the sampler infers the conditions from the trials), and
`sampler-flat`: the same with infer_conditions=False (the sampler before stop 70).

Every run is a separate run (its own optimizer, its own budget).  The objective is
deterministic, so its values are memoized on disk (cache/TASK.pkl, keyed on the exact
parameter values): a point seen before by any run costs nothing; that changes no value
any optimizer sees.  Results: results/TASK/ALGO-T<budget>-s<seed>.json
"""
import json, os, pickle, sys, time, math, warnings
import numpy as np
import optimist
import optuna
from tasks import TASKS

optuna.logging.set_verbosity(optuna.logging.ERROR)

HERE = os.path.dirname(os.path.abspath(__file__))


class Cached:
    def __init__(self, task):
        self.task = task
        self.f = TASKS[task][1]
        self.path = os.path.join(os.getcwd(), "cache", task + ".pkl")
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.cache = pickle.load(open(self.path, "rb")) if os.path.exists(self.path) else {}
        self.hits = self.misses = 0
        self.eval_time = 0.0

    @staticmethod
    def key(p):
        return tuple(sorted((k, repr(v), type(v).__name__) for k, v in p.items()))

    def __call__(self, p):
        k = self.key(p)
        if k in self.cache:
            self.hits += 1
            return self.cache[k]
        t = time.perf_counter()
        v = self.f(p)
        self.eval_time += time.perf_counter() - t
        self.misses += 1
        self.cache[k] = v
        return v

    def save(self):
        tmp = self.path + ".tmp"
        pickle.dump(self.cache, open(tmp, "wb"))
        os.replace(tmp, self.path)


def run_optimist(obj, space, algo, budget, seed):
    calls = []

    def f(p):
        v = obj(p)
        calls.append((dict(p), v))
        return v
    t = time.perf_counter()
    res = optimist.minimize(f, space, algorithm=algo, budget=budget, seed=seed)
    wall = time.perf_counter() - t
    ys = [float(v) for v in res.func_vals]
    xs = [dict(x) for x in res.x_iters]
    return dict(ys=ys, xs=[{k: repr(v) for k, v in x.items()} for x in xs], wall=wall,
                decisions=json.loads(json.dumps(res.decisions, default=str)) if res.decisions else None,
                status=res.status, nfev=int(res.nfev), suggest_s=float(res.timings["suggest_s"]),
                tell_s=float(res.timings["tell_s"]))


def run_tpe(obj, space, budget, seed, sampler=None):
    def f(trial):
        p = {}
        for name, par in space.items():
            when = getattr(par, "when", None)
            if when is not None and (when.parent not in p or p[when.parent] not in when.values):
                continue  # a conditional parameter that does not matter here: not suggested (define-by-run)
            if isinstance(par, optimist.Float):
                p[name] = trial.suggest_float(name, par.low, par.high, log=par.log)
            elif isinstance(par, optimist.Int):
                p[name] = trial.suggest_int(name, par.low, par.high, log=par.log)
            else:
                p[name] = trial.suggest_categorical(name, list(par.choices))
        return obj(p)
    t = time.perf_counter()
    st = optuna.create_study(direction="minimize", sampler=sampler or optuna.samplers.TPESampler(seed=seed))
    st.optimize(f, n_trials=budget)
    wall = time.perf_counter() - t
    ys = [float(tr.value) for tr in st.trials]
    xs = [{k: repr(v) for k, v in tr.params.items()} for tr in st.trials]
    return dict(ys=ys, xs=xs, wall=wall, decisions=None, status="budget", nfev=len(ys))


def main():
    task = sys.argv[1]
    seeds = range(int(sys.argv[2])) if len(sys.argv) > 2 else range(10)
    budgets = [int(b) for b in sys.argv[3].split(",")] if len(sys.argv) > 3 else [30, 50]
    methods = sys.argv[4].split(",") if len(sys.argv) > 4 else ["random", "tpe", "auto"]
    space = TASKS[task][0](optimist)
    obj = Cached(task)
    out = os.path.join(os.getcwd(), "results", task)
    os.makedirs(out, exist_ok=True)
    t0 = time.perf_counter()
    for budget in sorted(budgets, reverse=True):   # 50 first: the 30-runs of random/TPE then hit the cache
        for algo in methods:
            for s in seeds:
                fn = os.path.join(out, f"{algo}-T{budget}-s{s}.json")
                if os.path.exists(fn):
                    continue
                h0, m0, e0 = obj.hits, obj.misses, obj.eval_time
                if algo == "tpe":
                    r = run_tpe(obj, space, budget, s)
                elif algo in ("sampler", "sampler-flat"):
                    from optimist.integration import OptimistSampler
                    sampler = OptimistSampler("auto", seed=s, budget=budget, infer_conditions=algo == "sampler")
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # parameters sampled independently, named once each
                        r = run_tpe(obj, space, budget, s, sampler)
                else:
                    r = run_optimist(obj, space, algo, budget, s)
                r.update(task=task, algo=algo, budget=budget, seed=s, cache_hits=obj.hits - h0,
                         cache_misses=obj.misses - m0, eval_time_new=obj.eval_time - e0,
                         best=float(np.nanmin(r["ys"])),
                         n_distinct=len({tuple(sorted(x.items())) for x in r["xs"]}))
                json.dump(r, open(fn, "w"))
                obj.save()
                print(f"{task} {algo:6s} T{budget} s{s}: best {r['best']:.5f} wall {r['wall']:.1f}s "
                      f"(new evals {r['cache_misses']}, {r['eval_time_new']:.1f}s) distinct {r['n_distinct']}",
                      flush=True)
    print(f"{task} done in {time.perf_counter() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
