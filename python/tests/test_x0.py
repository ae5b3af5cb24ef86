"""minimize/maximize(x0=...): starting points evaluated first, in order, as ordinary evaluations."""
import concurrent.futures as cf
import json
import math

import numpy as np
import pytest

import optimist
from conftest import trace_lines

SPACE = {"lr": optimist.Float(1e-5, 1e-1, log=True), "layers": optimist.Int(1, 6),
         "activation": optimist.Categorical(["relu", "tanh", "gelu"])}
GOOD = {"lr": 10 ** -2.5, "layers": 3, "activation": "tanh"}


def loss(p):
    return (math.log10(p["lr"]) + 2.5) ** 2 + 0.1 * (p["layers"] - 3) ** 2 + (0 if p["activation"] == "tanh" else 0.3)


def quadratic(x):  # module level: picklable for a process pool
    return float(np.sum((np.asarray(x) - 0.3) ** 2))


class Calls:
    """The objective, keeping every point it receives (as it receives it)."""

    def __init__(self, function, fail_at=None):
        self.function, self.fail_at, self.points = function, fail_at, []

    def __call__(self, point):
        self.points.append(dict(point) if isinstance(point, dict) else np.array(point))
        if self.fail_at is not None and _same(point, self.fail_at):
            raise RuntimeError("solver diverged")
        return self.function(point)


def _same(a, b):
    return a == b if isinstance(a, dict) else np.array_equal(np.asarray(a), np.asarray(b))


def test_the_first_evaluations_are_the_x0_points_in_order_everywhere(tmp_path, capsys):
    x0 = [{"lr": 1e-3, "layers": 2, "activation": "relu"}, GOOD, {"lr": 0.05, "layers": 6, "activation": "gelu"}]
    f, seen = Calls(loss), []
    res = optimist.minimize(f, SPACE, algorithm="gp-ei", budget=8, x0=x0, trace=tmp_path / "x0.jsonl",
                            callback=seen.append, progress=True)
    assert f.points[:3] == x0 and len(f.points) == 8
    assert res.x_iters[:3] == x0 and list(res.func_vals[:3]) == [loss(p) for p in x0]
    assert [e.x for e in seen[:3]] == x0 and [e.i for e in seen] == list(range(1, 9))
    assert res.x == GOOD and res.fun == 0.0 and res.history.best_f[1] == 0.0
    lines = trace_lines(tmp_path / "x0.jsonl")[1:4]
    assert [line["x"] for line in lines] == [[p["lr"], p["layers"], p["activation"]] for p in x0]
    assert all(line["status"] == "ok" for line in lines)
    assert capsys.readouterr().err.count("/8  y = ") == 8  # one progress line per evaluation


def test_one_point_or_several_in_the_form_the_objective_receives():
    bounds = [(-1, 1), (-1, 1)]
    for x0, first in (([0.3, 0.3], [[0.3, 0.3]]), (np.array([0.3, 0.3]), [[0.3, 0.3]]), ((0.3, -0.5), [[0.3, -0.5]]),
                      (np.array([[0.3, 0.3], [0.1, 0.2]]), [[0.3, 0.3], [0.1, 0.2]]),
                      ([(0.1, 0.2), np.array([0.3, 0.3])], [[0.1, 0.2], [0.3, 0.3]]), ([], [])):
        f = Calls(quadratic)
        res = optimist.minimize(f, bounds, algorithm="random", budget=4, x0=x0)
        assert [p.tolist() for p in f.points[:len(first)]] == first
        assert [x.tolist() for x in res.x_iters[:len(first)]] == first
        assert res.fun == 0.0 if first and [0.3, 0.3] in first else res.fun > 0.0
    # A dict point: one; a Problem takes its space's form.
    f = Calls(loss)
    optimist.minimize(f, SPACE, algorithm="random", budget=2, x0=GOOD)
    assert f.points[0] == GOOD
    branin = optimist.problems.get("branin")
    res = optimist.minimize(branin, algorithm="gp-ei", budget=6, x0=branin.optima[0])
    assert np.array_equal(res.x_iters[0], branin.optima[0]) and res.func_vals[0] == branin.f(branin.optima[0])
    assert res.fun == pytest.approx(branin.f_star) and res.simple_regret == pytest.approx(0.0, abs=1e-12)


def test_an_x0_at_the_optimum_is_the_best_from_the_first_evaluation():
    for algorithm in ("gp-ei", "turbo", "random", "sequool"):
        res = optimist.minimize(quadratic, [(-1, 1)] * 3, algorithm=algorithm, budget=10, seed=1, x0=[0.3, 0.3, 0.3])
        plain = optimist.minimize(quadratic, [(-1, 1)] * 3, algorithm=algorithm, budget=10, seed=1)
        assert res.fun == 0.0 and res.x.tolist() == [0.3, 0.3, 0.3] and list(res.history.best_f) == [0.0] * 10
        assert plain.fun > 0.0
    res = optimist.maximize(lambda p: -loss(p), SPACE, algorithm="auto", budget=5, x0=GOOD)
    assert res.fun == 0.0 and res.x == GOOD and res.recommended_x == GOOD


@pytest.mark.parametrize("x0, message", [
    ({"lr": 1.0, "layers": 3, "activation": "tanh"}, "x0: parameter 'lr': value 1 is outside [1e-05, 0.1]"),
    ([GOOD, {"lr": 1e-3, "layers": 3, "activation": "selu"}], "x0[1]: parameter 'activation': 'selu' is not one of"),
    ({"lr": float("nan"), "layers": 3, "activation": "tanh"}, "x0: parameter 'lr': value is not finite: nan"),
    ({"lr": "small", "layers": 3, "activation": "tanh"}, "x0: parameter 'lr': expected a number, got 'small'"),
    ({"lr": 1e-3, "layers": 2.5, "activation": "tanh"}, "x0: parameter 'layers': integer value 2.5 is not integral"),
    ({"lr": 1e-3, "layers": 7, "activation": "tanh"}, "x0: parameter 'layers': value 7 is outside [1, 6]"),
    ({"lr": 1e-3, "activation": "tanh"}, "missing ['layers']"),
    (dict(GOOD, depth=3), "x0: point {'lr': 0.0031622776601683794, 'layers': 3, 'activation': 'tanh', 'depth': 3}: "
                          "unknown ['depth']"),
    ([1e-3, 3], "x0: point [0.001, 3] has 2 values, the space has 3"),
    ([GOOD, GOOD, {"lr": 1e-3, "layers": 1, "activation": "relu"}, {"lr": 1e-4, "layers": 1, "activation": "relu"}],
     "x0 has 3 point(s) to evaluate, more than the budget of 2"),
])
def test_a_bad_x0_is_refused_before_anything_runs_naming_the_value(tmp_path, x0, message):
    f = Calls(loss)
    with pytest.raises(ValueError) as e:
        optimist.minimize(f, SPACE, algorithm="random", budget=2, x0=x0, trace=tmp_path / "t.jsonl")
    assert message in str(e.value)
    assert f.points == [] and not (tmp_path / "t.jsonl").exists()


@pytest.mark.parametrize("x0, message", [
    ([0.5], "x0: point [0.5] has 1 values, the space has 2"),
    ([[0.5, 0.5], [0.5, 0.5, 0.5]], "x0[1]: point [0.5, 0.5, 0.5] has 3 values"),
    (np.array([0.5, np.inf]), "x0: parameter 'x2': value is not finite: inf"),
    ([None, 0.2], "x0: parameter 'x1': expected a number, got None"),
    ("ab", "x0: point 'ab' has 1 values"),
    ([[0.5, 2.0]], "x0[0]: parameter 'x2': value 2 is outside [-1, 1]"),
])
def test_a_bad_x0_for_bounds_names_the_value(x0, message):
    f = Calls(quadratic)
    with pytest.raises(ValueError) as e:
        optimist.minimize(f, [(-1, 1), (-1, 1)], algorithm="random", budget=3, x0=x0)
    assert message in str(e.value) and f.points == []


def test_a_deterministic_objective_evaluates_a_repeated_x0_point_once_a_noisy_one_each_time():
    other = {"lr": 1e-3, "layers": 2, "activation": "relu"}
    f = Calls(loss)
    res = optimist.minimize(f, SPACE, algorithm="random", budget=6, x0=[GOOD, other, dict(GOOD)])
    assert f.points[:2] == [GOOD, other] and f.points.count(GOOD) == 1 and res.nfev == 6
    # Two points that differ only in an unused parameter are one point.
    space = {"kernel": optimist.Categorical(["linear", "rbf"]), "C": optimist.Float(0.1, 10),
             "gamma": optimist.Float(0.1, 1, when={"kernel": "rbf"})}
    f = Calls(lambda p: p["C"])
    optimist.minimize(f, space, algorithm="random", budget=3,
                      x0=[{"kernel": "linear", "C": 1.0}, {"kernel": "linear", "C": 1.0, "gamma": 0.5}])
    assert f.points.count({"kernel": "linear", "C": 1.0}) == 1
    # Deduplicated first: [GOOD, GOOD] fits a budget of 1.
    assert optimist.minimize(Calls(loss), SPACE, algorithm="random", budget=1, x0=[GOOD, GOOD]).x == GOOD
    f = Calls(loss)
    optimist.minimize(f, SPACE, algorithm="random", budget=4, noisy=True, x0=[GOOD, other, GOOD])
    assert f.points[:3] == [GOOD, other, GOOD]


def test_a_failing_x0_point_follows_on_failure():
    bad = [0.9, 0.9]
    f = Calls(quadratic, fail_at=bad)
    res = optimist.minimize(f, [(-1, 1), (-1, 1)], algorithm="gp-ei", budget=5, x0=[bad, [0.3, 0.3]],
                            on_failure="mark-failed")
    assert res.nfev == 5 and res.n_failed == 1 and res.history.failed[0] and res.fun == 0.0
    assert "objective threw at x = [0.9, 0.9]: RuntimeError: solver diverged" in res.history.errors[0]
    with pytest.raises(RuntimeError, match="solver diverged") as e:
        optimist.minimize(Calls(quadratic, fail_at=bad), [(-1, 1), (-1, 1)], algorithm="gp-ei", budget=5, x0=[bad])
    assert e.value.optimist_result.nfev == 1 and e.value.optimist_result.status == "objective failed"


def test_a_run_with_x0_is_reproduced_by_its_seed(tmp_path):
    x0 = [{"lr": 1e-3, "layers": 2, "activation": "relu"}, {"lr": 1e-4, "layers": 5, "activation": "gelu"}]
    runs = [optimist.minimize(loss, SPACE, algorithm="gp-ei", budget=10, seed=7, x0=x0, trace=tmp_path / f"{k}.jsonl")
            for k in range(2)]
    assert runs[0].x_iters == runs[1].x_iters and runs[0].x_iters[:2] == x0
    assert trace_lines(tmp_path / "0.jsonl") == trace_lines(tmp_path / "1.jsonl")
    other = optimist.minimize(loss, SPACE, algorithm="gp-ei", budget=10, seed=8, x0=x0)
    assert other.x_iters[:2] == x0 and other.x_iters != runs[0].x_iters


def test_a_resume_does_not_evaluate_again_the_x0_points_its_trace_holds(tmp_path):
    x0 = [[0.9, 0.9], [-0.5, 0.5], [0.1, 0.2]]
    full = optimist.minimize(quadratic, [(-1, 1)] * 2, algorithm="gp-ei", budget=8, x0=x0)
    path = tmp_path / "run.jsonl"
    part = optimist.minimize(quadratic, [(-1, 1)] * 2, algorithm="gp-ei", budget=8, x0=x0, trace=path,
                             callback=lambda e: e.i >= 2)
    assert part.nfev == 2 and part.status == "cancelled"
    f = Calls(quadratic)
    res = optimist.minimize(f, [(-1, 1)] * 2, algorithm="gp-ei", budget=8, x0=x0, trace=path, resume=path)
    assert f.points[0].tolist() == x0[2] and len(f.points) == 6
    assert [x.tolist() for x in res.x_iters] == [x.tolist() for x in full.x_iters]  # the uninterrupted run
    assert len(trace_lines(path)) == 1 + 8 + 1
    # Points the trace holds take no budget; the others must fit in what is left.
    f = Calls(quadratic)
    res = optimist.minimize(f, [(-1, 1)] * 2, algorithm="gp-ei", budget=9, x0=[x0[0], [0.3, 0.3]], resume=path)
    assert [p.tolist() for p in f.points] == [[0.3, 0.3]] and res.nfev == 9 and res.fun == 0.0
    with pytest.raises(ValueError, match=r"x0 has 2 point\(s\) to evaluate besides the 8 evaluations made already, "
                                         r"more than the budget of 9: .* \(resuming '.*run.jsonl'\)"):
        optimist.minimize(quadratic, [(-1, 1)] * 2, algorithm="gp-ei", budget=9, x0=[[0.3, 0.3], [0.2, 0.2]],
                          resume=path)


def test_the_trace_records_x0_and_a_resume_without_x0_evaluates_those_it_does_not_hold(tmp_path):
    x0 = [{"lr": 1e-3, "layers": 2, "activation": "relu"}, GOOD, {"lr": 0.05, "layers": 6, "activation": "gelu"}]
    full = optimist.minimize(loss, SPACE, algorithm="gp-ei", budget=7, seed=3, x0=x0)
    path = tmp_path / "run.jsonl"
    part = optimist.minimize(loss, SPACE, algorithm="gp-ei", budget=7, seed=3, x0=x0, trace=path,
                             callback=lambda e: e.i >= 1)
    assert part.nfev == 1
    # As `optimist run --x0` writes it: each point in parameter order, choices by label.
    written = trace_lines(path)[0]["meta"]["run"]["x0"]
    assert written == [[p["lr"], p["layers"], p["activation"]] for p in x0]
    f = Calls(loss)
    res = optimist.minimize(f, SPACE, algorithm="gp-ei", budget=7, seed=3, trace=path, resume=path)
    assert f.points[:2] == x0[1:] and len(f.points) == 6
    assert res.x_iters == full.x_iters  # the uninterrupted run
    assert trace_lines(path)[0]["meta"]["run"]["x0"] == written  # so that a second resume still knows them
    # An x0 given with resume replaces the recorded one.
    f = Calls(loss)
    other = {"lr": 1e-4, "layers": 1, "activation": "tanh"}
    res = optimist.minimize(f, SPACE, algorithm="gp-ei", budget=8, seed=3, x0=[GOOD, other], trace=path, resume=path)
    assert f.points == [other] and res.nfev == 8
    assert trace_lines(path)[0]["meta"]["run"]["x0"] == [[GOOD["lr"], 3, "tanh"], [1e-4, 1, "tanh"]]


def test_a_run_without_x0_records_no_x0(tmp_path):
    optimist.minimize(loss, SPACE, algorithm="random", budget=2, trace=tmp_path / "t.jsonl")
    assert "x0" not in trace_lines(tmp_path / "t.jsonl")[0]["meta"]["run"]


@pytest.mark.parametrize("pool", [cf.ThreadPoolExecutor, cf.ProcessPoolExecutor])
def test_x0_points_are_submitted_first_on_an_executor(tmp_path, pool):
    x0 = [[0.9, 0.9], [-0.5, 0.5], [0.3, 0.3]]
    with pool(max_workers=2) as executor:
        res = optimist.minimize(quadratic, [(-1, 1)] * 2, algorithm="gp-ei", budget=8, x0=x0, executor=executor,
                                trace=tmp_path / "t.jsonl")
    assert res.nfev == 8 and res.fun == 0.0
    # Trial ids follow submission: the first three submitted are x0's, in order.
    history = res.optimizer.history
    assert [history.X[k].tolist() for k in np.argsort(history.id)[:3]] == x0
    assert sorted(json.dumps(line["x"]) for line in trace_lines(tmp_path / "t.jsonl")[1:9]
                  if line["x"] in x0) == sorted(json.dumps(x) for x in x0)
