"""digits_mlp_layers written four ways, through OptimistSampler("auto") (docs/robust.md, "Where it
falls short": why the inferred conditions trail the former sampler on this task).

The same MLP and scores as tasks.py's digits_mlp_layers; only how the study suggests the widths
differs:
  as_written  width_i suggested only for the layers the net has (log int 4-64): the sampler
              infers the conditions and models the unused widths at their fixed value, 4.
  flat        the same study, infer_conditions=False: the widths sampled at random.
  all_widths  every width_i suggested in every trial, the unused ones ignored by the objective:
              the model holds them as ordinary parameters, with the values it chose.
  linear      widths on a linear scale (int 4-64), conditional; inactive at 4.
  reversed    linear, but suggested as 68 - width: inactive at width 64.
Prints, per variant, each seed's best value and the layers of trials 10-49, then the paired mean
difference from the first variant named. Evaluations are cached in ./cache_digits_mlp_layers.jsonl
(the run.py cache: a folder where run.py ran reuses it).

    PYTHONPATH=build/python /usr/bin/python3 scripts/heldout_optuna/mlp_layers_spaces.py \
        --variants as_written,flat,all_widths,linear,reversed --seeds 0-19
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import os
import statistics
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tasks  # noqa: E402  (sets the BLAS thread counts to 1 first)

import optuna  # noqa: E402
from scipy.stats import t as student_t  # noqa: E402

from optimist.integration import OptimistSampler  # noqa: E402

def _shared(trial, p):
    p["activation"] = trial.suggest_categorical("activation", ["relu", "tanh", "logistic"])
    p["alpha"] = trial.suggest_float("alpha", 1e-6, 1e-1, log=True)
    p["lr"] = trial.suggest_float("lr", 1e-4, 1e-1, log=True)
    return p


def as_written(trial):
    n = trial.suggest_int("n_layers", 1, 3)
    return _shared(trial, {"n_layers": n, **{f"width_{i}": trial.suggest_int(f"width_{i}", 4, 64, log=True) for i in range(n)}})


def all_widths(trial):
    n = trial.suggest_int("n_layers", 1, 3)
    widths = [trial.suggest_int(f"width_{i}", 4, 64, log=True) for i in range(3)]
    return _shared(trial, {"n_layers": n, **{f"width_{i}": widths[i] for i in range(n)}})


def linear(trial):
    n = trial.suggest_int("n_layers", 1, 3)
    return _shared(trial, {"n_layers": n, **{f"width_{i}": trial.suggest_int(f"width_{i}", 4, 64) for i in range(n)}})


def reversed_(trial):
    n = trial.suggest_int("n_layers", 1, 3)
    return _shared(trial, {"n_layers": n, **{f"width_{i}": 68 - trial.suggest_int(f"rwidth_{i}", 4, 64) for i in range(n)}})


VARIANTS = {"as_written": (as_written, True), "flat": (as_written, False), "all_widths": (all_widths, True),
            "linear": (linear, True), "reversed": (reversed_, True)}


def run(variant, seed, budget, cache):
    space, infer = VARIANTS[variant]
    layers = []

    def objective(trial):
        p = space(trial)  # the params as tasks.py's space names them (the cache's key)
        layers.append(p["n_layers"])
        key = hashlib.sha1(json.dumps(sorted(p.items()), default=repr).encode()).hexdigest()
        return cache.get(key, lambda: tasks.eval_digits_mlp_layers(p))[0]

    study = optuna.create_study(sampler=OptimistSampler("auto", seed=seed, infer_conditions=infer))
    study.optimize(objective, n_trials=budget)
    return study.best_value, layers


def t_quantile(df):
    return float(student_t.ppf(0.975, df))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="as_written,flat,all_widths")
    ap.add_argument("--seeds", default="0-19")
    ap.add_argument("--budget", type=int, default=50)
    a = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    lo, hi = (int(s) for s in a.seeds.split("-"))
    cache = tasks.Cache("cache_digits_mlp_layers.jsonl")
    best = {}
    for v in a.variants.split(","):
        best[v] = {}
        counts = collections.Counter()
        for seed in range(lo, hi + 1):
            best[v][seed], layers = run(v, seed, a.budget, cache)
            counts.update(layers[10:])
            print(f"{v} seed={seed} best={best[v][seed]:.4f} layers(10-)={dict(sorted(collections.Counter(layers[10:]).items()))}", flush=True)
        print(f"== {v}: mean best {statistics.mean(best[v].values()):.4f}, layers of trials 10-{a.budget - 1}: {dict(sorted(counts.items()))}")
    first = a.variants.split(",")[0]
    for v in best:
        if v == first:
            continue
        d = [best[v][s] - best[first][s] for s in best[first]]
        half = statistics.stdev(d) / math.sqrt(len(d)) * t_quantile(len(d) - 1) if len(d) > 1 else float("nan")
        print(f"{v} minus {first}: {statistics.mean(d):+.4f} +- {half:.4f} (lower in {sum(x < 0 for x in d)} of {len(d)} seeds)")


if __name__ == "__main__":
    main()
