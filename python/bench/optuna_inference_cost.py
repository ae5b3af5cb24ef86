"""Cost of OptimistSampler's condition inference as a study grows (docs/python.md).

A RandomSampler study of N trials with 31 conditional parameters (a model choice of 6 with 4
parameters each, n_layers 1-8 with a width each, 6 unconditional flags); prints the seconds of the
first inference over all N trials and of the next one (what each further trial pays).

    /usr/bin/python3 python/bench/optuna_inference_cost.py
"""
import time
import warnings

import optuna

from optimist.integration._optuna_space import _LatestSpace


def objective(trial):
    model = trial.suggest_categorical("model", [f"m{i}" for i in range(6)])
    value = sum(trial.suggest_float(f"{model}_p{j}", 0, 1) for j in range(4))
    for i in range(trial.suggest_int("n_layers", 1, 8)):
        value += trial.suggest_int(f"w{i}", 4, 256, log=True) / 256
    for k in range(6):
        trial.suggest_categorical(f"flag{k}", ["a", "b", "c"])
    return value


def main():
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore")
    print("| trials | first inference s | next trial's inference s | conditional parameters |")
    print("| --- | --- | --- | --- |")
    for n in (200, 1000, 3000):
        study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
        study.optimize(objective, n_trials=n)
        space = _LatestSpace()
        start = time.perf_counter()
        found = space.conditional(space.calculate(study), lambda name, d: True)
        first = time.perf_counter() - start
        study.optimize(objective, n_trials=1)
        start = time.perf_counter()
        space.conditional(space.calculate(study), lambda name, d: True)
        print(f"| {n} | {first:.3f} | {time.perf_counter() - start:.4f} | {len(found)} |")


if __name__ == "__main__":
    main()
