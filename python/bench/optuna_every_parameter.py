"""Conditional parameters written two ways through OptimistSampler("auto"): suggested only in the
branch that uses them (as optuna_conditional.py writes them), or suggested in every trial and
ignored where unused (docs/python.md, "Conditional studies"). Mean best value after --trials
trials over seeds 0..--seeds-1 and the paired difference (every minus conditional, 95% t interval).

    PYTHONPATH=build/python /usr/bin/python3 python/bench/optuna_every_parameter.py [--trials 40] [--seeds 20]
"""
import argparse
import math
import statistics
import warnings

import optuna
from scipy.stats import t as student_t

from optimist.integration import OptimistSampler


def layers(trial, every):
    """optuna_conditional.py's layers, shifted to minimum 0: 3 layers of 16, dropout 0.2."""
    n = trial.suggest_int("n_layers", 1, 4)
    value = 3 - min(n, 3) + 0.5 * (n == 4)
    widths = [trial.suggest_int(f"width{i}", 4, 256, log=True) for i in range(4 if every else n)]
    for i in range(n):
        value += math.log2(widths[i] / 16) ** 2 / 8
    return value + (trial.suggest_float("dropout", 0, 0.5) - 0.2) ** 2


def branches(trial, every):
    """optuna_conditional.py's branches: a parameter of each branch's own, and a shared one."""
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    shared = (trial.suggest_float("s", 0, 1) - 0.3) ** 2
    p = {}
    if every or kind == "a":
        p["pa"] = trial.suggest_float("pa", -2, 2)
    if every or kind == "b":
        p["pb"] = trial.suggest_float("pb", 0, 10)
    if every or kind == "c":
        p["pc"] = trial.suggest_int("pc", 1, 20)
    if kind == "a":
        return shared + (p["pa"] - 1.1) ** 2
    if kind == "b":
        return shared + 0.2 + (p["pb"] - 7) ** 2 / 25
    return shared + 0.5 + abs(p["pc"] - 4) / 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--seeds", type=int, default=20)
    a = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")  # the sampler says which parameters it samples at random in the first trials
    for name, f in (("layers", layers), ("branches", branches)):
        best = {}
        for every in (False, True):
            best[every] = []
            for seed in range(a.seeds):
                study = optuna.create_study(sampler=OptimistSampler("auto", seed=seed))
                study.optimize(lambda t: f(t, every), n_trials=a.trials)
                best[every].append(study.best_value)
        d = [e - c for c, e in zip(best[False], best[True])]
        half = student_t.ppf(0.975, len(d) - 1) * statistics.stdev(d) / math.sqrt(len(d))
        print(f"{name}: conditional {statistics.mean(best[False]):.4g}, every trial {statistics.mean(best[True]):.4g}, "
              f"every minus conditional {statistics.mean(d):+.4g} +- {half:.4g}")


if __name__ == "__main__":
    main()
