"""Trials that fail at start-up (before suggesting) with probability 0.3: withdrawn (new) vs told as failed (old)."""
# The sampler before stop 65 is reproduced by making Optimizer.withdraw tell the point as failed,
# as OptimistSampler did then; the start-up failures come from a seeded stream, the same for both.
import math, random, sys
import numpy as np
import optuna
import optimist
from optimist.integration import OptimistSampler
optuna.logging.set_verbosity(optuna.logging.ERROR)

def branin(x, y):
    a, b, c, r, s, t = 1, 5.1 / (4 * math.pi**2), 5 / math.pi, 6, 10, 1 / (8 * math.pi)
    return a * (y - b * x**2 + c * x - r) ** 2 + s * (1 - t) * math.cos(x) + s

F_STAR = 0.397887
def run(seed, old, algorithm):
    if old:
        optimist.Optimizer.withdraw = lambda self, trials: self.tell_failed(trials, "not evaluated: the trial used other parameter values")
    rng = random.Random(seed)
    def objective(trial):
        if rng.random() < 0.3:
            raise RuntimeError("start-up failure")
        return branin(trial.suggest_float("x", -5, 10), trial.suggest_float("y", 0, 15))
    study = optuna.create_study(sampler=OptimistSampler(algorithm, seed=seed))
    study.optimize(objective, n_trials=40, catch=(RuntimeError,))
    return study.best_value - F_STAR

algorithm = sys.argv[1]
saved = optimist.Optimizer.withdraw
new, old = [], []
for seed in range(20):
    optimist.Optimizer.withdraw = saved
    new.append(run(seed, False, algorithm))
    old.append(run(seed, True, algorithm))
optimist.Optimizer.withdraw = saved
d = np.array(old) - np.array(new)
print(f"{algorithm}: 40 trials, 30% failing at start, seeds 0-19: mean best regret told-as-failed {np.mean(old):.4g}, withdrawn {np.mean(new):.4g}; "
      f"paired old-new {d.mean():.4g} +- {1.96 * d.std(ddof=1) / math.sqrt(len(d)):.3g}; new lower on {(d > 0).sum()}, higher on {(d < 0).sum()}")
