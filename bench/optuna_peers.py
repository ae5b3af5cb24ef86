#!/usr/bin/python3
"""Optuna's samplers as benchmark peers: one run on one of our problems, written in our trace format.

    /usr/bin/python3 bench/optuna_peers.py --problem NAME [--dim D] [--noise SD] --budget T --seed K
                                           --sampler tpe|random|cmaes|qmc --out TRACE.jsonl
    /usr/bin/python3 bench/optuna_peers.py --check    # exit 0 when optimist and optuna import

`optimist bench` runs it for the sweep entries {name = "tpe", peer = "optuna"} (docs/bench.md, "Peers"),
so that the summary tables and figures put Optuna next to our algorithms; it can also be run by hand.
The run is the one `optimist run --problem NAME --seed K --noise SD --budget T` would make, with the
sampler in place of the algorithm: the same problem (evaluated by optimist's Python package), the same
noise stream (the k-th evaluation gets the k-th draw of derive_seed(K, "noise")), so runs pair by seed.
The sampler is seeded with K and otherwise keeps Optuna's defaults (TPE: 10 random startup trials,
univariate; CMA-ES samples categorical parameters independently, as Optuna does).

Optuna (Debian's python3-optuna 3.1) is a benchmark peer only, never a dependency of optimist. The trace
(docs/trace-format.md) has the meta line (algorithm "optuna-<sampler>", options {"name", "sampler",
"optuna"}), one line per trial and the recommend line (the best observed point); timings: suggest_s is
the time from the end of one objective call to the start of the next (Optuna's ask and tell), eval_s the
objective's time.
"""
import signal
import sys

# A terminal's Ctrl-C reaches this process as well as `optimist bench`, which stops the sweep: exit
# quietly (130) wherever it lands, imports included; run() removes its temporary file.
signal.signal(signal.SIGINT, lambda signum, frame: sys.exit(130))

import argparse  # noqa: E402 - after the handler: Optuna's imports take a second
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

try:
    import optimist
except ImportError as e:  # pragma: no cover - a setup problem, reported plainly
    sys.exit(f"optuna_peers.py: cannot import optimist's Python package ({e}); build it (OPTIMIST_BUILD_PYTHON) "
             "and put <build>/python on PYTHONPATH, or install it")
try:
    import optuna
except ImportError as e:  # pragma: no cover
    sys.exit(f"optuna_peers.py: cannot import optuna ({e}); on Debian: apt install python3-optuna")
if sys.argv[1:] == ["--check"]:  # `optimist bench` asks once, before any run of a sweep with peers
    sys.exit(0)

SAMPLERS = {
    "tpe": lambda seed: optuna.samplers.TPESampler(seed=seed),
    "random": lambda seed: optuna.samplers.RandomSampler(seed=seed),
    "cmaes": lambda seed: optuna.samplers.CmaEsSampler(seed=seed),
    "qmc": lambda seed: optuna.samplers.QMCSampler(seed=seed),
}


def suggest(trial, parameters):
    """The trial's point as optimist's user vector (a categorical as its choice's index) and as JSON."""
    x, shown = [], []
    for p in parameters:
        kind = p.get("type", "continuous")
        if kind == "categorical":
            choice = trial.suggest_categorical(p["name"], p["choices"])
            x.append(float(p["choices"].index(choice)))
            shown.append(choice)
        elif kind == "integer":
            v = trial.suggest_int(p["name"], int(p["lower"]), int(p["upper"]))
            x.append(float(v))
            shown.append(int(v))
        else:
            v = trial.suggest_float(p["name"], float(p["lower"]), float(p["upper"]), log=bool(p.get("log", False)))
            x.append(float(v))
            shown.append(float(v))
    return np.array(x), shown


def regret(f, f_star, direction):
    if f_star is None or f is None:
        return None
    return max(0.0, f - f_star) if direction == "minimize" else max(0.0, f_star - f)


def finite_or_none(v):
    return v if v is not None and math.isfinite(v) else None


def run(args):
    problem = optimist.problems.Problem(args.problem, args.dim, noise=args.noise)
    observed = problem.objective_for_run(args.seed)  # the CLI's noise stream for this seed
    space = problem._core.space.to_json()
    parameters = space["parameters"]
    direction = problem.direction
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # QMC's ExperimentalWarning comes when the sampler is made
        sampler = SAMPLERS[args.sampler](args.seed)
    name = "optuna-" + args.sampler
    meta = {
        "algorithm": name,
        "options": {"name": name, "sampler": type(sampler).__name__, "optuna": optuna.__version__},
        "problem": problem.name, "dim": problem.dim, "seed": args.seed, "noise": args.noise,
        "noisy": args.noise > 0.0, "direction": direction, "f_star": problem.f_star, "budget": args.budget,
        "horizon": None, "space": space,
        "run": {"time_limit_s": None, "target": None, "batch": 1, "on_failure": "stop"},
        "version": optimist.__version__, "revision": optimist.__revision__,
    }
    tmp = args.out + ".tmp"
    out = open(tmp, "w", encoding="utf-8")
    out.write(json.dumps({"meta": meta}) + "\n")
    out.flush()

    state = {"i": 0, "cum": None, "best_f": None, "best_y": None, "best_x": None, "best_shown": None,
             "last_end": time.perf_counter()}
    parent = os.getppid()

    def objective(trial):
        # `optimist bench` killed (kill -9) cannot stop us, and its rerun starts this run again
        # beside us, both writing `tmp`: an orphan stops at its next trial.
        if os.getppid() != parent:
            sys.exit("optuna_peers.py: the process that started this run is gone; stopping")
        start = time.perf_counter()
        x, shown = suggest(trial, parameters)
        t0 = time.perf_counter()
        y = float(observed(x))
        eval_s = time.perf_counter() - t0
        f = float(problem.f(x))
        state["i"] += 1
        r = regret(f, problem.f_star, direction)
        if r is not None:
            state["cum"] = (state["cum"] or 0.0) + r
        better = (lambda a, b: a < b) if direction == "minimize" else (lambda a, b: a > b)
        if state["best_f"] is None or better(f, state["best_f"]):
            state["best_f"] = f
        if state["best_y"] is None or better(y, state["best_y"]):
            state["best_y"], state["best_x"], state["best_shown"] = y, x, shown
        line = {"i": state["i"], "x": shown, "y": finite_or_none(y), "f": finite_or_none(f), "regret": r,
                "cum_regret": state["cum"], "best_f": state["best_f"],
                "suggest_s": start - state["last_end"] + (t0 - start), "eval_s": eval_s, "tell_s": 0.0,
                "status": "ok"}
        out.write(json.dumps(line) + "\n")
        out.flush()
        state["last_end"] = time.perf_counter()
        return y

    # Quiet: Optuna's own WARNING lines (CMA-ES samples categoricals independently) and warnings
    # would flood the sweep's stderr.
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = optuna.create_study(direction=direction, sampler=sampler)
        study.optimize(objective, n_trials=args.budget)
    # The answer: the best observed point (Optuna's study.best_params), its noise-free value.
    f = float(problem.f(state["best_x"]))
    out.write(json.dumps({"recommend": {"x": state["best_shown"], "f": f,
                                        "simple_regret": regret(f, problem.f_star, direction),
                                        "stop_reason": "budget"}}) + "\n")
    out.close()
    os.replace(tmp, args.out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", required=True)
    parser.add_argument("--dim", type=int, default=None)
    parser.add_argument("--noise", type=float, default=0.0)
    parser.add_argument("--budget", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sampler", choices=sorted(SAMPLERS), required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.budget < 1:
        parser.error(f"--budget must be >= 1, got {args.budget}")
    if not (args.noise >= 0.0 and math.isfinite(args.noise)):
        parser.error(f"--noise must be finite and >= 0, got {args.noise}")
    try:
        run(args)
    except ValueError as e:  # a bad problem name or dimension: optimist's message names it
        sys.exit(f"optuna_peers.py: {e}")
    except SystemExit:  # Ctrl-C (the handler above), or an error exit
        try:
            os.remove(args.out + ".tmp")
        except OSError:
            pass
        raise


if __name__ == "__main__":
    main()
