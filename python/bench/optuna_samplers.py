"""OptimistSampler against Optuna's own samplers in the same Optuna studies (docs/python.md).

Each sampler minimizes each problem for `--trials` trials over seeds 0..`--seeds`-1; the figure is
the mean (and the standard error) of the final regret, best value minus f*. Deterministic for the
seeds (quality, not speed).

    /usr/bin/python3 python/bench/optuna_samplers.py [--trials 40] [--seeds 10]
"""
import argparse
import statistics
import time

import optuna

import optimist
from optimist.integration import OptimistSampler

PROBLEMS = [("branin", None), ("hartmann6", None), ("ackley", 4)]


def samplers(seed, trials):
    return {
        "OptimistSampler gp-ei": OptimistSampler("gp-ei", seed=seed),
        "OptimistSampler turbo": OptimistSampler("turbo", seed=seed),
        "OptimistSampler go-ucb": OptimistSampler("go-ucb", seed=seed, budget=trials),
        "TPESampler": optuna.samplers.TPESampler(seed=seed),
        "CmaEsSampler": optuna.samplers.CmaEsSampler(seed=seed),
        "RandomSampler": optuna.samplers.RandomSampler(seed=seed),
    }


def regret(problem, sampler, trials):
    bounds = problem.space.bounds

    def objective(trial):
        x = [trial.suggest_float(f"x{k + 1}", lo, hi) for k, (lo, hi) in enumerate(bounds)]
        return problem.f(x)

    study = optuna.create_study(sampler=sampler)
    study.optimize(objective, n_trials=trials)
    return study.best_value - problem.f_star


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    names = list(samplers(0, args.trials))
    print(f"mean final regret (standard error) after {args.trials} trials, seeds 0-{args.seeds - 1}; "
          "wall seconds per study in brackets")
    print("| problem | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(names))
    for name, dim in PROBLEMS:
        problem = optimist.problems.get(name, dim)
        cells = []
        for sampler_name in names:
            values, seconds = [], []
            for seed in range(args.seeds):
                start = time.perf_counter()
                values.append(regret(problem, samplers(seed, args.trials)[sampler_name], args.trials))
                seconds.append(time.perf_counter() - start)
            se = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
            cells.append(f"{statistics.mean(values):.3g} ({se:.2g}) [{statistics.median(seconds):.2f} s]")
        print(f"| {name} (d={problem.dim}) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
