"""Integer and categorical spaces (docs/discrete.md): no repeated point on a deterministic objective,
the "space exhausted" stop, the noisy declaration; in ask/tell, minimize, studies and the Optuna sampler."""
import math
import threading
import warnings

import optuna
import pytest

import optimist
from optimist import Categorical, Int, Study
from optimist.integration import OptimistSampler

optuna.logging.set_verbosity(optuna.logging.ERROR)

# 24 points.
SPACE = {"n": Int(1, 4), "kind": Categorical(["a", "b", "c"]), "flag": Categorical(["no", "yes"])}


def objective(p):
    return (p["n"] - 3) ** 2 + {"a": 0.5, "b": 0.0, "c": 0.2}[p["kind"]] + (0.3 if p["flag"] == "yes" else 0.0)


def key(p):
    return (p["n"], p["kind"], p["flag"])


@pytest.mark.parametrize("algorithm", ["random", "gp-ei", "turbo", "go-ucb", "soo", "bkb"])
def test_ask_tell_never_repeats_then_raises(algorithm):
    opt = optimist.Optimizer(SPACE, algorithm, seed=1, budget=40)
    seen = []
    for _ in range(24):
        trials = opt.ask(2) if opt.supports_batch else [opt.ask()]
        for t in trials:
            seen.append(key(t.params))
            opt.tell(t, objective(t.params))
        if len(seen) >= 24:
            break
    assert len(seen) == len(set(seen)) == 24
    assert opt.exhausted and opt.remaining_points == 0
    with pytest.raises(optimist.SpaceExhausted, match="exhausted"):
        opt.ask()


def test_minimize_stops_when_the_space_is_exhausted_and_records_it(tmp_path):
    res = optimist.minimize(objective, SPACE, algorithm="gp-ei", budget=100, seed=0, trace=tmp_path / "t.jsonl")
    assert res.nfev == 24 and res.status == "space exhausted" and res.fun == 0.0
    assert len({key(p) for p in res.x_iters}) == 24
    trace = optimist.read_trace(tmp_path / "t.jsonl")
    assert trace.meta["noisy"] is False and trace.recommend["stop_reason"] == "space exhausted"


def test_a_noisy_declaration_uses_the_whole_budget():
    res = optimist.minimize(objective, SPACE, algorithm="random", budget=40, seed=0, noisy=True)
    assert res.nfev == 40 and res.status == "budget"
    assert len({key(p) for p in res.x_iters}) < 40  # repeats are allowed
    assert optimist.Optimizer(SPACE, "random", noisy=True).remaining_points is None


def test_study_workers_never_share_a_point_and_stop_at_exhaustion(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    Study.create(url, "d", SPACE, "gp-ei", seed=3)  # no budget: the space ends the study
    points = []
    lock = threading.Lock()

    def worker():
        study = Study.load(url, "d")
        while (t := study.ask()) is not None:
            with lock:
                points.append(key(t.params))
            study.tell(t, objective(t.params))

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(points) == len(set(points)) == 24


def test_optuna_sampler_suggests_new_points_then_stops_the_study():
    def optuna_objective(trial):
        p = {"n": trial.suggest_int("n", 1, 4), "kind": trial.suggest_categorical("kind", ["a", "b", "c"]),
             "flag": trial.suggest_categorical("flag", ["no", "yes"])}
        return objective(p)

    study = optuna.create_study(sampler=OptimistSampler("gp-ei", seed=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study.optimize(optuna_objective, n_trials=60)
    points = [(t.params["n"], t.params["kind"], t.params["flag"]) for t in study.trials]
    # The first trial is the independent sampler's (the relative space is unknown yet); then every
    # suggestion is new until the 24 points are used, and the study stops with the last one (it once
    # ran one more trial, a repeat, before stopping).
    assert len(set(points)) == 24 and len(points) <= 25
    if len(points) == 25:  # only the independent first trial may repeat a point
        assert points[0] in points[1:]
    # A 2-point space: 2 trials, then stopped; a second optimize() runs one trial (Optuna starts it
    # before the sampler can stop the study, as with GridSampler) and stops again.
    calls = []

    def two_points(trial):
        calls.append(trial.suggest_categorical("c", ["a", "b"]))
        return 1.0

    small = optuna.create_study(sampler=OptimistSampler("gp-ei", seed=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small.optimize(two_points, n_trials=10)
        assert sorted(calls) == ["a", "b"]
        small.optimize(two_points, n_trials=10)
    assert len(calls) == 3
    assert study.best_value == 0.0
    noisy = optuna.create_study(sampler=OptimistSampler("random", seed=0, noisy=True))
    noisy.optimize(optuna_objective, n_trials=40)
    assert len(noisy.trials) == 40


def test_log_scale_integers_are_discrete_and_used_up():
    # Int(log=True): each value owns its share of log space, and the values are discrete: 4 x 4
    # values are 16 evaluations, then the run stops (stop 60).
    space = {"a": optimist.Int(1, 4, log=True), "b": optimist.Int(2, 5, log=True)}
    for algorithm in ["gp-ei", "turbo", "go-ucb", "sequool", "random", "sobol"]:
        res = optimist.minimize(lambda p: p["a"] * p["b"], space, algorithm=algorithm, budget=40, seed=0)
        assert res.status == "space exhausted" and res.nfev == 16, algorithm
        assert len({(x["a"], x["b"]) for x in res.x_iters}) == 16, algorithm
        assert res.fun == 2 and all(isinstance(x["a"], int) for x in res.x_iters)
    # Over 1..1000 the small values own most of the unit interval, as on a log scale.
    wide = optimist.Space({"w": optimist.Int(1, 1000, log=True)})
    assert wide.to_json()["parameters"][0]["log"] is True
    res = optimist.minimize(lambda p: (math.log(p["w"]) - math.log(37)) ** 2, wide, algorithm="gp-ei", budget=20, seed=0)
    assert res.x == {"w": 37}
    with pytest.raises(ValueError, match=r"Int\(0, 8, log=True\): a log-scale integer needs lower >= 1, got lower = 0"):
        optimist.Int(0, 8, log=True)  # refused when made (test_space.py)
    with pytest.raises(ValueError, match="log must be True or False"):
        optimist.Int(1, 8, log="yes")
