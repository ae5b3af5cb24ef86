"""Run the held-out Optuna comparison; writes results_<task>.json to the current directory.

Exact commands as run (evaluation caches in ./cache_<task>.jsonl; two processes at a time, one per
task group; seeds 0-9 took 11.2 min of wall time, seeds 10-19 another 12.9 min, on 2 cores shared
with another job's ctest -j2):

    mkdir -p /tmp/heldout_optuna/run && cd /tmp/heldout_optuna/run
    S=/work/main/scripts/heldout_optuna; P=/work/main/build/python
    PYTHONPATH=$P /usr/bin/python3 $S/run.py --tasks digits_mlp_layers,diabetes_poly_enet --seeds 0-9 &
    PYTHONPATH=$P /usr/bin/python3 $S/run.py --tasks digits_model_choice,diabetes_boost_forest,cancer_pipeline --seeds 0-9 &
    wait
    PYTHONPATH=$P /usr/bin/python3 $S/run.py --tasks digits_mlp_layers --seeds 10-19 &
    PYTHONPATH=$P /usr/bin/python3 $S/run.py --tasks diabetes_poly_enet,digits_model_choice,diabetes_boost_forest,cancer_pipeline --seeds 10-19 &
    wait
    PYTHONPATH=$P /usr/bin/python3 $S/analyze.py > results.md   # markdown tables from results_*.json

Tables of that run: docs/results/heldout-optuna.md; summary in docs/robust.md, "A held-out check through the Optuna sampler (stop 70)".

Samplers (same tasks, same seeds): optimist = OptimistSampler("auto", seed=s) with default settings;
optimist_flat = OptimistSampler("auto", seed=s, infer_conditions=False); tpe = TPESampler(seed=s);
random = RandomSampler(seed=s). Budgets 30 and 50 are separate studies. A study already in the JSON
is skipped (the run can be resumed).

Per study it records: best value, every trial's value and state, wall time, time spent inside the
objective (suggest + cache lookup), the summed cost of the uncached evaluations of its trials
(seconds of each point's first evaluation), the sampler overhead (wall minus objective time), the
warnings and Optuna log records of WARNING or above, and any exception.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import traceback
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tasks  # noqa: E402  (sets the BLAS thread counts to 1 first)

import optuna  # noqa: E402

SAMPLERS = ["optimist", "optimist_flat", "tpe", "random"]


def make_sampler(name, seed):
    if name == "optimist":
        from optimist.integration import OptimistSampler
        return OptimistSampler("auto", seed=seed)
    if name == "optimist_flat":
        from optimist.integration import OptimistSampler
        return OptimistSampler("auto", seed=seed, infer_conditions=False)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(name)


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.items = []

    def emit(self, record):
        self.items.append(f"log:{record.name}: {record.getMessage()}")


def run_study(task, sampler_name, budget, seed, cache):
    direction = tasks.TASKS[task][0]
    log = []
    objective = tasks.make_objective(task, cache, log)
    handler = _Records()
    logging.getLogger("optuna").addHandler(handler)
    err, study = None, None
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            study = optuna.create_study(direction=direction, sampler=make_sampler(sampler_name, seed))
            study.optimize(objective, n_trials=budget)
        except Exception:  # noqa: BLE001 - recorded, the run goes on
            err = traceback.format_exc()
    wall = time.perf_counter() - t0
    logging.getLogger("optuna").removeHandler(handler)
    warns = [f"{w.category.__name__}: {w.message} ({os.path.basename(w.filename)}:{w.lineno})" for w in caught
             if "sklearn" not in w.filename and "ConvergenceWarning" not in w.category.__name__]
    trials = study.trials if study is not None else []
    done = [t for t in trials if t.state == optuna.trial.TrialState.COMPLETE]
    best = (max if direction == "maximize" else min)(t.value for t in done) if done else None
    obj_time = sum(x[0] for x in log)
    return {
        "task": task, "sampler": sampler_name, "budget": budget, "seed": seed, "direction": direction,
        "best": best, "n_trials": len(trials), "n_complete": len(done),
        "states": [t.state.name for t in trials],
        "values": [t.value for t in trials],
        "params": [t.params for t in trials],
        "n_distinct": len({json.dumps(sorted(t.params.items()), default=repr) for t in trials}),
        "wall": wall, "objective_time": obj_time, "uncached_eval_time": sum(x[1] for x in log),
        "overhead": wall - obj_time, "warnings": sorted(set(warns + handler.items)),
        "n_warnings": len(warns) + len(handler.items), "error": err,
    }


def parse_seeds(s):
    out = []
    for part in s.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default=",".join(tasks.TASKS))
    ap.add_argument("--samplers", default=",".join(SAMPLERS))
    ap.add_argument("--budgets", default="30,50")
    ap.add_argument("--seeds", default="0-9")
    a = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    for task in a.tasks.split(","):
        out = f"results_{task}.json"
        results = json.load(open(out)) if os.path.exists(out) else []
        have = {(r["sampler"], r["budget"], r["seed"]) for r in results}
        cache = tasks.Cache(f"cache_{task}.jsonl")
        for seed in parse_seeds(a.seeds):
            for budget in [int(b) for b in a.budgets.split(",")]:
                for s in a.samplers.split(","):
                    if (s, budget, seed) in have:
                        continue
                    r = run_study(task, s, budget, seed, cache)
                    results.append(r)
                    print(f"{task} {s:13s} T={budget} seed={seed} best={r['best']:.6g} wall={r['wall']:.1f}s "
                          f"overhead={r['overhead']:.1f}s warnings={r['n_warnings']}"
                          + (" ERROR" if r["error"] else ""), flush=True)
                    with open(out + ".tmp", "w") as f:
                        json.dump(results, f)
                    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
