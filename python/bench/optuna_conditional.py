"""OptimistSampler on define-by-run conditional studies: its inferred conditions against the
space without them (infer_conditions=False) and Optuna's own samplers (docs/python.md).

Each objective branches the way an Optuna user writes it (a parameter is suggested only where it
is used). Each sampler runs `--trials` trials over seeds 0..`--seeds`-1; the figure is the mean
final regret (best value minus the known minimum), and the paired difference against the first
sampler with its 95% t interval. Deterministic for the seeds.

    /usr/bin/python3 python/bench/optuna_conditional.py [--trials 40] [--seeds 20] [--algorithm auto]
"""
import argparse
import math
import statistics
import warnings

import optuna

from optimist.integration import OptimistSampler


def branches(trial):
    """Three branches with a parameter each, plus a shared one; branch a is best (minimum 0)."""
    kind = trial.suggest_categorical("kind", ["a", "b", "c"])
    shared = (trial.suggest_float("s", 0, 1) - 0.3) ** 2
    if kind == "a":
        return shared + (trial.suggest_float("pa", -2, 2) - 1.1) ** 2
    if kind == "b":
        return shared + 0.2 + (trial.suggest_float("pb", 0, 10) - 7) ** 2 / 25
    return shared + 0.5 + abs(trial.suggest_int("pc", 1, 20) - 4) / 10


def optimizer_choice(trial):
    """sgd with momentum or adam with beta1, a shared log-scale learning rate (minimum 0: adam)."""
    name = trial.suggest_categorical("optimizer", ["sgd", "adam"])
    value = (math.log10(trial.suggest_float("lr", 1e-5, 1, log=True)) + 2.5) ** 2 / 4
    if name == "sgd":
        return value + 0.1 + (trial.suggest_float("momentum", 0, 1) - 0.9) ** 2
    return value + 4 * (trial.suggest_float("beta1", 0.5, 0.999) - 0.85) ** 2


def nested(trial):
    """model -> kernel -> gamma, degree: a chain of conditions (minimum -0.5: poly, gamma 0.1, degree 5)."""
    model = trial.suggest_categorical("model", ["svc", "knn"])
    if model == "knn":
        return abs(trial.suggest_int("k", 1, 30) - 7) / 10
    kernel = trial.suggest_categorical("kernel", ["linear", "rbf", "poly"])
    value = 1.0 if kernel == "linear" else 0.5
    if kernel != "linear":
        value += (math.log10(trial.suggest_float("gamma", 1e-3, 10, log=True)) + 1) ** 2 / 10
    if kernel == "poly":
        value -= 0.2 * trial.suggest_int("degree", 2, 5)
    return value


def layers(trial):
    """n_layers (1-4) and a log-scale width per layer; best: 3 layers of 16 (minimum -3)."""
    n = trial.suggest_int("n_layers", 1, 4)
    value = -min(n, 3) + 0.5 * (n == 4)
    for i in range(n):
        value += math.log2(trial.suggest_int(f"width{i}", 4, 256, log=True) / 16) ** 2 / 8
    return value + (trial.suggest_float("dropout", 0, 0.5) - 0.2) ** 2


def classifier(trial):
    """SVC (kernel, C, gamma, degree), a forest or logistic regression; the forest's best, 1.0,
    beats most first SVC trials, the SVC's best is 0."""
    name = trial.suggest_categorical("classifier", ["SVC", "RF", "LR"])
    if name == "SVC":
        kernel = trial.suggest_categorical("kernel", ["linear", "rbf", "poly"])
        value = (math.log10(trial.suggest_float("svc_C", 1e-3, 1e3, log=True)) - 1) ** 2
        if kernel in ("rbf", "poly"):
            value += (math.log10(trial.suggest_float("gamma", 1e-4, 1, log=True)) + 2) ** 2
        if kernel == "poly":
            value += (trial.suggest_int("degree", 2, 5) - 3) ** 2
        return value
    if name == "RF":
        return 1 + (math.log(trial.suggest_int("n_estimators", 10, 500, log=True)) - 5) ** 2 / 10 \
            + (math.log2(trial.suggest_int("max_depth", 2, 32, log=True)) - 3) ** 2 / 10
    return 2 + math.log10(trial.suggest_float("lr_C", 1e-3, 1e3, log=True)) ** 2


PROBLEMS = [("branches", branches, 0.0), ("optimizer choice", optimizer_choice, 0.0), ("nested", nested, -0.5),
            ("layers", layers, -3.0), ("classifier", classifier, 0.0)]


def samplers(seed, algorithm="auto"):
    return {
        "OptimistSampler (inferred conditions)": OptimistSampler(algorithm, seed=seed),
        "OptimistSampler infer_conditions=False": OptimistSampler(algorithm, seed=seed, infer_conditions=False),
        "TPESampler": optuna.samplers.TPESampler(seed=seed),
        "TPESampler multivariate group": optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True),
        "RandomSampler": optuna.samplers.RandomSampler(seed=seed),
    }


def interval(diffs):
    mean = statistics.fmean(diffs)
    if len(diffs) < 2:
        return f"{mean:+.3g}"
    from scipy import stats  # Debian python3-scipy, an optuna dependency
    half = stats.t.ppf(0.975, len(diffs) - 1) * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return f"{mean:+.3g} +- {half:.2g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--algorithm", default="auto", help="OptimistSampler's algorithm (default auto)")
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore")  # independent sampling and experimental-option warnings
    names = list(samplers(0, args.algorithm))
    print(f"mean final regret after {args.trials} trials, seeds 0-{args.seeds - 1}; in brackets the paired "
          f"difference from {names[0]} (95% t interval; positive: worse than it)")
    print("| problem | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(names))
    for title, objective, minimum in PROBLEMS:
        regrets = {name: [] for name in names}
        for seed in range(args.seeds):
            for name, sampler in samplers(seed, args.algorithm).items():
                study = optuna.create_study(sampler=sampler)
                study.optimize(objective, n_trials=args.trials)
                regrets[name].append(study.best_value - minimum)
        first = regrets[names[0]]
        cells = [f"{statistics.fmean(first):.3g}"]
        for name in names[1:]:
            diffs = [b - a for a, b in zip(first, regrets[name])]
            cells.append(f"{statistics.fmean(regrets[name]):.3g} ({interval(diffs)})")
        print(f"| {title} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
