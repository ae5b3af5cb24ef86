"""Reproduction: auto (gp-ei) spends long streaks in one near-flat branch of a flattened
conditional space, re-evaluating the same model with only inactive parameters changed; the
value stall rule (docs/gp-bo.md step 5: three values bit-equal to the incumbent's) never fires
because the repeated values are not the incumbent's.

  PYTHONPATH=/work/main/build/python /usr/bin/python3 scripts/heldout_real3/repro_stall.py   (~5 s)
"""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np, optimist, optuna
from tasks import TASKS
from diag import active, branch

optuna.logging.set_verbosity(optuna.logging.ERROR)


def tpe(task, budget, seed):
    space, f = TASKS[task][0](optimist), TASKS[task][1]
    def obj(t):
        p = {}
        for k, par in space.items():
            if isinstance(par, optimist.Float): p[k] = t.suggest_float(k, par.low, par.high, log=par.log)
            elif isinstance(par, optimist.Int): p[k] = t.suggest_int(k, par.low, par.high, log=par.log)
            else: p[k] = t.suggest_categorical(k, list(par.choices))
        return f(p)
    st = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed)); st.optimize(obj, n_trials=budget)
    return [t.params for t in st.trials], [t.value for t in st.trials]


def summary(task, xs, ys, label):
    br = [branch(task, {k: repr(v) for k, v in x.items()}) for x in xs]
    eff = [active(task, {k: repr(v) for k, v in x.items()}) for x in xs]
    streak, cur, start, bs = 1, 1, 0, 0
    for i in range(1, len(br)):
        if br[i] == br[i - 1]:
            cur += 1
        else:
            cur, start = 1, i
        if cur > streak:
            streak, bs = cur, start
    inc = np.minimum.accumulate(ys)
    biteq = sum(1 for i in range(1, len(ys)) if ys[i] == inc[i - 1])
    print(f"  {label:5s} best {min(ys):.4f}; longest streak {streak} evals in '{br[bs]}' (evals {bs}-{bs+streak-1}); "
          f"effective duplicates {len(eff) - len(set(eff))}; values bit-equal to the incumbent {biteq}")
    return br


for task, seed in [("kridge_diabetes", 0), ("pick_wine", 1)]:
    space, f = TASKS[task]
    res = optimist.minimize(f, space(optimist), budget=50, seed=seed)   # algorithm="auto", the default
    print(f"{task}, seed {seed}, budget 50: auto chose {res.decisions['algorithm']}")
    xs, ys = list(res.x_iters), list(res.func_vals)
    br = summary(task, xs, ys, "auto")
    summary(task, *tpe(task, 50, seed), "TPE")
    print("  auto's evaluations: " + " ".join(f"{i}:{b}={y:.4f}" for i, (b, y) in enumerate(zip(br, ys))))
