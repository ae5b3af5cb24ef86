"""minimize / maximize: optimum found, the result's fields, failure policies, stops, Ctrl-C."""
import math
import os
import re
import signal
import warnings

import numpy as np
import pytest

import optimist
from optimist import Categorical, Float, Int

BRANIN_OPTIMA = np.array([[-math.pi, 12.275], [math.pi, 2.275], [9.42478, 2.475]])


def branin(x):
    a, b, c, r, s, t = 1.0, 5.1 / (4 * math.pi ** 2), 5 / math.pi, 6.0, 10.0, 1 / (8 * math.pi)
    return a * (x[1] - b * x[0] ** 2 + c * x[0] - r) ** 2 + s * (1 - t) * math.cos(x[0]) + s


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gp_ei_finds_branins_optimum(seed):
    res = optimist.minimize(branin, [(-5, 10), (0, 15)], algorithm="gp-ei", budget=30, seed=seed)
    assert res.fun - 0.397887 < 0.1  # Branin spans ~300; seeds 0-9 end within 0.06 (seed 2: 0.058)
    assert np.min(np.linalg.norm(BRANIN_OPTIMA - res.x, axis=1)) < 0.3
    assert res.success and res.status == "budget" and res.nfev == 30 and res.n_failed == 0
    assert isinstance(res.x, np.ndarray) and len(res.x_iters) == 30 and res.func_vals.shape == (30,)
    assert res.fun == np.min(res.func_vals)
    assert res.x.tolist() == res.x_iters[int(np.argmin(res.func_vals))].tolist()
    assert res.timings["total_s"] > 0 and res.timings["suggest_s"] > 0
    assert res.history.suggest_s.shape == (30,) and res.trace is None


def test_named_space_and_maximize():
    space = {"lr": Float(1e-4, 1, log=True), "layers": Int(1, 4), "act": Categorical(["relu", "tanh"])}
    seen = []

    def accuracy(p):
        seen.append(p)
        return 1.0 - (math.log10(p["lr"]) + 2) ** 2 / 10 - 0.05 * abs(p["layers"] - 3) + (0.5 if p["act"] == "tanh" else 0)

    res = optimist.maximize(accuracy, space, algorithm="gp-ei", budget=25, seed=0)
    assert all(isinstance(p, dict) and set(p) == {"lr", "layers", "act"} for p in seen)
    assert res.fun == max(res.func_vals) and res.fun > 1.45
    assert res.x["act"] == "tanh" and res.x["layers"] == 3
    assert res.recommended_x == res.x and res.recommended_f == res.fun
    df = res.history.to_pandas()
    assert list(df.columns[:4]) == ["lr", "layers", "act", "y"] and len(df) == 25


def test_maximize_takes_algorithm_options_and_problems_follow_their_direction():
    res = optimist.maximize(optimist.problems.get("sine_1d"), algorithm="gp-ucb", budget=12, seed=0, beta=2.0)
    assert res.options["beta"] == 2.0
    # sin(x/4) on [-2 pi, 2 pi] rises to its maximum 1 at the upper bound, where gp-ucb goes (a
    # minimizing run would end near -1 at the lower bound; random search's 12 draws stop short of 1).
    assert res.fun == max(res.func_vals) and res.fun > 1.0 - 1e-9
    assert abs(res.x[0] - 2 * math.pi) < 1e-6
    with pytest.raises(ValueError, match="problem 'branin' is to minimize: call optimist.minimize"):
        optimist.maximize(optimist.problems.branin, budget=5)
    with pytest.raises(ValueError, match="auto: unknown option 'betta'"):
        optimist.minimize(branin, [(-5, 10), (0, 15)], budget=5, betta=1)


def test_the_result_says_what_auto_chose_and_why():
    res = optimist.minimize(branin, [(-5, 10), (0, 15)], budget=6, seed=0)
    assert res.algorithm == "auto" and res.decisions["algorithm"] == "gp-ei"
    assert res.decisions["reason"].startswith("2 parameters (2 continuous")
    # and what gp-ei's options left at "auto" became: the trace's meta and res.options said "auto" only.
    assert res.decisions["resolved"] == {"prior": "botorch", "output_warp": "alternate", "mean": "worst-unwarped", "mean_margin": 0.0,
                                         "rotation": "angles"}
    res = optimist.minimize(branin, [(-5, 10), (0, 15)], budget=3, seed=0)
    assert res.decisions["algorithm"] == "go-ucb" and "budget 3 <= d + 2" in res.decisions["reason"]
    assert optimist.minimize(branin, [(-5, 10), (0, 15)], algorithm="random", budget=3).decisions == {}


def test_objective_that_raises_stops_reraises_with_traceback_and_keeps_everything(tmp_path):
    calls = []

    def crashes_at_four(x):
        calls.append(x)
        if len(calls) == 4:
            raise ArithmeticError("simulator diverged")
        return float(np.sum(x ** 2))

    trace = tmp_path / "sub" / "run.jsonl"
    with pytest.raises(ArithmeticError, match="simulator diverged") as info:
        optimist.minimize(crashes_at_four, [(-1, 1)] * 2, algorithm="random", budget=10, trace=trace)
    assert info.traceback[-1].name == "crashes_at_four"  # the user's frame is where it was raised
    res = info.value.optimist_result
    assert res.nfev == 4 and res.n_failed == 1 and res.status == "objective failed" and not res.success
    assert "ArithmeticError: simulator diverged" in res.history.errors[3] and "objective threw at x = [" in res.message
    assert any("optimist_result" in n for n in info.value.__notes__)
    t = optimist.read_trace(trace)
    assert t.complete and len(t) == 4 and t.recommend["stop_reason"] == "objective failed"
    assert t.evaluations[3]["status"] == "failed"


def test_nan_stops_with_objective_error_or_is_marked_failed():
    values = iter([1.0, 2.0, float("nan"), 0.5, float("inf"), 0.25])

    def flaky(x):
        return next(values)

    with pytest.raises(optimist.ObjectiveError, match="objective returned nan at x = "):
        optimist.minimize(flaky, [(0, 1)], algorithm="random", budget=6)
    values = iter([1.0, 2.0, float("nan"), 0.5, float("inf"), 0.25])
    res = optimist.minimize(flaky, [(0, 1)], algorithm="random", budget=6, on_failure="mark-failed")
    assert res.nfev == 6 and res.n_failed == 2 and res.fun == 0.25 and res.success
    assert np.isnan(res.func_vals[[2, 4]]).all()
    assert len(res.optimizer.history) == 6
    with pytest.raises(ValueError, match="on_failure must be 'stop' or 'mark-failed', got 'ignore'"):
        optimist.minimize(flaky, [(0, 1)], budget=6, on_failure="ignore")


def test_a_non_number_is_a_failure_naming_the_value():
    res = optimist.minimize(lambda x: "oops" if x[0] > 0.5 else x[0], [(0, 1)], algorithm="sobol", budget=8,
                            on_failure="mark-failed")
    assert res.n_failed > 0
    assert any(e and "non-number 'oops' of type str" in e for e in res.history.errors)


@pytest.mark.parametrize("bad", ["1.5", b"1.5", 10**400, None], ids=["text", "bytes", "huge-int", "None"])
def test_text_and_unrepresentable_values_are_failures_not_crashes(bad):
    # Text is never read as a number; an int too large for a float once escaped as OverflowError
    # and lost the run's result.
    res = optimist.minimize(lambda x: bad if x[0] > 0.5 else x[0], [(0, 1)], algorithm="sobol", budget=8,
                            on_failure="mark-failed")
    assert res.nfev == 8 and 0 < res.n_failed < 8
    assert all(y is None or y <= 0.5 for y in res.history.y[~res.history.failed])
    assert any(e and f"non-number {repr(bad)[:20]}" in e for e in res.history.errors)
    with pytest.raises(optimist.ObjectiveError, match="non-number"):
        optimist.minimize(lambda x: bad, [(0, 1)], algorithm="random", budget=3)


@pytest.mark.parametrize("bad", [True, False, np.True_, np.array(False), np.array([True])],
                         ids=["True", "False", "np.True_", "0-d bool array", "bool array"])
def test_a_bool_is_a_failure_not_one_or_zero(tmp_path, bad):
    # float(True) is 1.0: an objective returning a comparison was silently minimized as 1/0.
    with pytest.raises(optimist.ObjectiveError, match=re.escape(f"objective returned a non-number {bad!r} of type "
                                                                f"{type(bad).__name__} (return the value, not a "
                                                                "comparison) at x = ")):
        optimist.minimize(lambda p: bad, {"x": Float(0, 1)}, algorithm="random", budget=3)
    res = optimist.minimize(lambda p: bad, {"x": Float(0, 1)}, algorithm="random", budget=3, on_failure="mark-failed")
    assert res.n_failed == 3 and res.fun is None
    with pytest.raises(TypeError, match=re.escape(f"an objective value must be a number (not a truth value), got "
                                                  f"{bad!r} of type {type(bad).__name__}")):
        opt = optimist.Optimizer({"x": Float(0, 1)}, "random")
        opt.tell(opt.ask(), bad)
    study = optimist.Study.create(f"sqlite:///{tmp_path / 's.db'}", "s", {"x": Float(0, 1)}, "random", budget=2)
    with pytest.raises(optimist.ObjectiveError, match=re.escape(f"objective returned a non-number {bad!r} of type")):
        study.optimize(lambda p: bad)


@pytest.mark.parametrize("good", [np.float32(0.5), np.array(0.5), np.array([0.5]), np.int64(2), 3],
                         ids=["float32", "0-d array", "1-element array", "int64", "int"])
def test_numbers_of_numpy_and_python_types_are_values(good):
    res = optimist.minimize(lambda p: good, {"x": Float(0, 1)}, algorithm="random", budget=2)
    assert res.n_failed == 0 and res.fun == float(np.asarray(good).ravel()[0])


@pytest.mark.parametrize("settings, message", [
    ({"target": float("nan")}, "target must be a finite number, got nan"),
    ({"target": "0.5"}, "target must be a number, got '0.5' of type str"),
    ({"time_limit": "10"}, "time_limit must be a number, got '10'"),
    ({"budget": 2**70}, "budget must be a positive integer below 2^63"),
    ({"budget": None, "time_limit": 60}, "got None: .* to stop on time, give time_limit and a budget larger"),
    ({"seed": 2**64}, "seed must be a non-negative integer below 2^64"),
    ({"direction": None}, "direction=None: minimize and maximize set the direction"),
    ({"algorithm": {"name": "random"}}, "algorithm must be a name such as 'gp-ei'"),
])
def test_bad_settings_are_value_errors_naming_them(settings, message):
    # Each once escaped as a raw pybind11 TypeError listing C++ signatures, or (target=nan) was accepted.
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("^", r"\^")):
        optimist.minimize(lambda x: x[0], [(0, 1)], **{"algorithm": "random", "budget": 3, **settings})


def test_a_raising_callback_propagates_with_the_evaluations_so_far(tmp_path):
    def callback(ev):
        if ev.i == 4:
            raise RuntimeError("dashboard down")

    with pytest.raises(RuntimeError, match="dashboard down") as caught:
        optimist.minimize(lambda x: x[0], [(0, 1)], algorithm="random", budget=10, callback=callback,
                          trace=str(tmp_path / "t.jsonl"))
    res = caught.value.optimist_result
    assert res.nfev == 4 and res.status == "cancelled" and len(res.history) == 4
    assert optimist.read_trace(str(tmp_path / "t.jsonl")).complete


def test_callback_target_and_time_limit_stop_early():
    seen = []

    def stop_after_five(ev):
        seen.append(ev)
        return ev.i == 5

    res = optimist.minimize(branin, [(-5, 10), (0, 15)], algorithm="random", budget=50, callback=stop_after_five)
    assert res.nfev == 5 and res.status == "cancelled" and [e.i for e in seen] == [1, 2, 3, 4, 5]
    assert isinstance(seen[0].x, np.ndarray) and seen[0].y == res.func_vals[0]
    res = optimist.minimize(branin, [(-5, 10), (0, 15)], algorithm="random", budget=500, seed=1, target=5.0)
    assert res.status == "target reached" and res.fun <= 5.0 and res.nfev < 500
    res = optimist.minimize(lambda x: float(x[0]), [(0, 1)], algorithm="random", budget=10 ** 6, time_limit=0.2)
    assert res.status == "time limit" and 0 < res.nfev < 10 ** 6


def test_a_callback_returning_numpys_true_stops_and_other_truthy_values_do_not(tmp_path):
    # A comparison of numpy values is an np.bool_: `return np.min(losses) < 0.2` never stopped the
    # run (the callback's value was compared with `is True`).
    space = [(-5, 10), (0, 15)]
    res = optimist.minimize(branin, space, algorithm="random", budget=30, callback=lambda ev: np.int64(ev.i) >= 4)
    assert res.nfev == 4 and res.status == "cancelled"
    # A callback that ends with a write returns its length: that is no request to stop.
    res = optimist.minimize(branin, space, algorithm="random", budget=6, callback=lambda ev: len(str(ev)))
    assert res.nfev == 6 and res.status == "budget"
    assert optimist.minimize(branin, space, algorithm="random", budget=5, callback=lambda ev: np.False_).nfev == 5
    # The same in a study's optimize().
    study = optimist.Study.create(f"sqlite:///{tmp_path / 's.db'}", "s", space, "random", budget=20)
    assert study.optimize(branin, callback=lambda trial, value: np.float64(value) < np.inf) == 1


def test_first_ctrl_c_stops_after_the_current_evaluation(capsys):
    def interrupted_at_three(x):
        interrupted_at_three.calls += 1
        if interrupted_at_three.calls == 3:
            os.kill(os.getpid(), signal.SIGINT)  # as if the user pressed Ctrl-C during this evaluation
        return float(x[0])

    interrupted_at_three.calls = 0
    before = signal.getsignal(signal.SIGINT)
    res = optimist.minimize(interrupted_at_three, [(0, 1)], algorithm="random", budget=20)
    assert res.status == "cancelled" and res.nfev == 3 and res.message == "cancelled after 3 evaluations"
    assert "Ctrl-C" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is before  # the handler is restored


def test_second_ctrl_c_aborts_and_closes_the_trace(tmp_path):
    def interrupted_twice(x):
        interrupted_twice.calls += 1
        if interrupted_twice.calls == 2:
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
        return float(x[0])

    interrupted_twice.calls = 0
    with pytest.raises(KeyboardInterrupt):
        optimist.minimize(interrupted_twice, [(0, 1)], algorithm="random", budget=20, trace=tmp_path / "t.jsonl")
    t = optimist.read_trace(tmp_path / "t.jsonl")
    assert t.complete and t.recommend["stop_reason"] == "cancelled" and len(t) == 1


POOL_RUN = """
import concurrent.futures as cf, os, sys, time, optimist
def train(p):
    open(os.path.join(sys.argv[1], f"started-{os.getpid()}-{time.time_ns()}"), "w").close()
    time.sleep(1.5)
    return (p["x"] - 0.5) ** 2
if __name__ == "__main__":
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        if sys.argv[2] == "warm":  # workers started before the run keep Python's own Ctrl-C handler
            list(pool.map(abs, [1, 2]))
        res = optimist.minimize(train, {"x": optimist.Float(-2, 2)}, algorithm="random", budget=20,
                                executor=pool, n_parallel=2, trace=os.path.join(sys.argv[1], "t.jsonl"))
        print("RESULT", res.status, res.nfev, res.n_failed, flush=True)
"""


@pytest.mark.parametrize("pool", ["started in the run", "warm"])
def test_a_terminal_ctrl_c_with_a_process_pool_returns_a_cancelled_result(tmp_path, pool):
    # A terminal's Ctrl-C goes to the whole process group, the pool's workers included.
    import subprocess
    import sys
    import time
    (tmp_path / "run.py").write_text(POOL_RUN)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(optimist.__file__)))
    child = subprocess.Popen([sys.executable, str(tmp_path / "run.py"), str(tmp_path), pool.split()[0]], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("started-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    status, nfev, n_failed = out.split("RESULT ")[1].split()
    t = optimist.read_trace(tmp_path / "t.jsonl")
    assert status == "cancelled" and n_failed == "0" and t.complete and t.recommend["stop_reason"] == "cancelled"
    # Workers forked in the run and a warm pool's alike finish the evaluations under way (a warm
    # pool's were interrupted there and given back: test_signals.py).
    assert int(nfev) == len(t) == 2


def test_progress_lines_and_bad_arguments(capsys):
    optimist.minimize(branin, [(-5, 10), (0, 15)], algorithm="random", budget=3, progress=True)
    err = capsys.readouterr().err
    assert "optimist:     3/3" in err
    with pytest.raises(ValueError, match="budget must be a positive integer, got 0"):
        optimist.minimize(branin, [(-5, 10), (0, 15)], budget=0)
    with pytest.raises(ValueError, match="n_parallel=2 needs an executor"):
        optimist.minimize(branin, [(-5, 10), (0, 15)], budget=3, n_parallel=2)
    with pytest.raises(ValueError, match="a search space is needed"):
        optimist.minimize(branin, budget=3)
    with pytest.raises(TypeError, match="func must be callable"):
        optimist.minimize(3, [(0, 1)], budget=3)
    # A truthy "no" printed progress; a number became the trace's objective name.
    with pytest.raises(TypeError, match="progress must be True or False, got 'no'"):
        optimist.minimize(branin, [(-5, 10), (0, 15)], budget=3, progress="no")
    with pytest.raises(TypeError, match="name must be a string or None, got 5"):
        optimist.minimize(branin, [(-5, 10), (0, 15)], budget=3, name=5)
    with pytest.raises(TypeError, match="trace must be a path"):
        optimist.minimize(branin, [(-5, 10), (0, 15)], budget=3, trace=3)


def test_progress_shows_why_an_evaluation_failed(capsys):
    # A failed evaluation printed "5/6  failed  best = ..." with no reason.
    def simulate(p):
        if p["x"] > 0.8:
            raise RuntimeError("solver diverged: too many steps")
        if p["x"] > 0.5:
            raise RuntimeError("the adaptive integrator gave up at t = 3.5 after 100000 steps of size 1e-12")
        return float("nan") if p["x"] > 0.3 else p["x"]

    optimist.minimize(simulate, {"x": Float(0, 1), "y": Float(0, 1)}, algorithm="sobol", budget=12,
                      on_failure="mark-failed", progress=True)
    lines = capsys.readouterr().err.splitlines()[1:]
    assert "optimist:     1/12  failed (RuntimeError: solver diverged: too many steps)" in lines
    assert "optimist:     4/12  failed (RuntimeError: the adaptive integrator gave up at t = 3.5...)  best = " \
        "0.0156933" in lines
    assert any(re.fullmatch(r"optimist: +\d+/12  failed \(returned nan\)  best = [0-9.e-]+", line) for line in lines)


def test_plain_values_in_a_space_are_fixed_parameters(tmp_path):
    # A calibration fixes some of a model's parameters: {"T": 70.0} was refused ("expected
    # optimist.Float, Int, Categorical or a (low, high) pair").
    seen = []

    def model(p):
        seen.append(dict(p))
        return (p["x"] - 0.3) ** 2 + p["T"] / 1000 + (p["solver"] == "rk4")

    space = {"T": 70.0, "x": Float(0, 1), "solver": "bdf", "n": Int(1, 3)}
    trace = str(tmp_path / "t.jsonl")
    res = optimist.minimize(model, space, algorithm="random", budget=6, trace=trace)
    assert all(list(p) == ["T", "x", "solver", "n"] and p["T"] == 70.0 and p["solver"] == "bdf" for p in seen)
    assert res.x["T"] == 70.0 and res.x["solver"] == "bdf" and list(res.x) == ["T", "x", "solver", "n"]
    assert res.x_iters == seen and res.space.names == ["x", "n"] and res.space.fixed == {"T": 70.0, "solver": "bdf"}
    frame = res.history.to_pandas()
    assert list(frame.columns[:4]) == ["T", "x", "solver", "n"] and (frame["T"] == 70.0).all()
    # The trace holds the searched parameters; a resume with the same space goes on from it.
    assert [p["name"] for p in optimist.read_trace(trace).meta["space"]["parameters"]] == ["x", "n"]
    resumed = optimist.minimize(model, space, algorithm="random", budget=9, trace=trace, resume=trace)
    assert resumed.nfev == 9 and len(seen) == 9 and resumed.x_iters[:6] == seen[:6] and resumed.x["T"] == 70.0
    # The trace records the fixed values: a resume with others (or without them) is refused, naming them.
    assert optimist.read_trace(trace).meta["run"]["fixed"] == {"T": 70.0, "solver": "bdf"}
    for other, message in (({"T": 80.0}, "T = 70.0 there, 80.0 here"),
                           ({"solver": "rk4", "tol": 1e-6}, "solver = 'bdf' there, 'rk4' here, tol = not fixed there, "
                                                            "1e-06 here"),
                           ({"T": Float(60, 80)}, "T = 70.0 there, not fixed here")):
        with pytest.raises(ValueError, match=re.escape(f"resume: '{trace}' was run with other fixed parameters: {message}")):
            optimist.minimize(model, dict(space, **other), algorithm="random", budget=12, trace=trace, resume=trace)
    assert len(seen) == 9 and len(optimist.read_trace(trace)) == 9  # nothing ran, the trace is whole
    # A trace that records none (a run without fixed parameters, or an older trace): resumed with a warning.
    plain = str(tmp_path / "plain.jsonl")
    optimist.minimize(lambda p: p["x"], {"x": Float(0, 1)}, algorithm="random", budget=2, trace=plain)
    assert "fixed" not in optimist.read_trace(plain).meta["run"]
    with pytest.warns(UserWarning, match=r"records no fixed parameters .* resuming with \{'T': 70.0\} unchecked"):
        again = optimist.minimize(lambda p: p["x"], {"T": 70.0, "x": Float(0, 1)}, algorithm="random", budget=3,
                                  trace=plain, resume=plain)
    assert again.nfev == 3 and again.x["T"] == 70.0
    # Ask/tell: asked points hold them; told points may leave them out, not give another value.
    opt = optimist.Optimizer(space, "random")
    assert opt.ask().params["T"] == 70.0
    opt.tell({"x": 0.5, "n": 2}, 1.0)
    opt.tell({"T": 70.0, "x": 0.6, "solver": "bdf", "n": 2}, 1.0)
    with pytest.raises(ValueError, match=re.escape("parameter 'T' is fixed at 70.0, got 80")):
        opt.tell({"T": 80, "x": 0.5, "n": 2}, 1.0)
    # A study's workers load its space from storage, where a fixed value would be lost: refused.
    with pytest.raises(ValueError, match="a study stores the searched parameters only, not fixed ones"):
        optimist.Study.create(f"sqlite:///{tmp_path / 's.db'}", "s", space)


def test_seed_none_draws_a_fresh_seed_recorded_in_the_result_and_the_trace(tmp_path):
    # seed=None was refused ("seed must be a non-negative integer, got None") while OptimistSampler
    # took it: now it means a fresh seed from the OS's entropy, recorded so that the run can be repeated.
    space = {"x": optimist.Float(-2, 2), "n": optimist.Int(1, 5)}
    f = lambda p: (p["x"] - 0.5) ** 2 + p["n"]  # noqa: E731
    a = optimist.minimize(f, space, algorithm="random", budget=4, seed=None, trace=tmp_path / "a.jsonl")
    b = optimist.minimize(f, space, algorithm="random", budget=4, seed=None)
    assert isinstance(a.seed, int) and 0 <= a.seed < 2**32 and a.seed != b.seed
    assert optimist.read_trace(tmp_path / "a.jsonl").meta["seed"] == a.seed
    again = optimist.minimize(f, space, algorithm="random", budget=4, seed=a.seed)
    assert again.x_iters == a.x_iters
    # A resume with seed=None continues the trace's seed (another would be refused).
    more = optimist.minimize(f, space, algorithm="random", budget=6, seed=None, resume=tmp_path / "a.jsonl")
    assert more.seed == a.seed and more.nfev == 6 and more.x_iters[:4] == a.x_iters
    assert optimist.minimize(f, space, algorithm="random", budget=1).seed == 0  # the default is unchanged
    opt = optimist.Optimizer(space, "random", seed=None)
    assert isinstance(opt.seed, int) and opt.seed != optimist.Optimizer(space, "random", seed=None).seed
    url = f"sqlite:///{tmp_path / 's.db'}"
    study = optimist.Study.create(url, "s", space, "random", seed=None)
    assert isinstance(study.seed, int) and optimist.Study.load(url, "s").seed == study.seed
    assert optimist.Study.create(url, "s", space, "random", seed=None, load_if_exists=True).seed == study.seed
    with pytest.raises(ValueError, match="seed must be a non-negative integer below 2\\^64 or None"):
        optimist.minimize(f, space, budget=1, seed=2**64)
    with pytest.raises(ValueError, match="seed must be a non-negative integer or None"):
        optimist.Optimizer(space, seed=-1)


def test_resuming_a_trace_of_another_space_names_what_differs(tmp_path):
    # The error printed the trace's space only, after "differs from this run's:", as if it were
    # this run's: which parameter differed was left to the reader.
    path = tmp_path / "run.jsonl"
    f = lambda p: p["x"] ** 2  # noqa: E731
    optimist.minimize(f, {"x": Float(-1, 1), "c": Categorical(["a", "b"])}, algorithm="random", budget=2, trace=path)
    for space, difference in [
            ({"x": Float(-2, 2), "c": Categorical(["a", "b"])},
             "'x' is continuous [-1.0, 1.0] there, continuous [-2.0, 2.0] here"),
            ({"x": Float(-1, 1), "c": Categorical(["a", "b", "z"])},
             "'c' is categorical [\"a\",\"b\"] there, categorical [\"a\",\"b\",\"z\"] here"),
            ({"x": Float(-1, 1)}, "'c' is only there"),
            ({"x": Float(-1, 1), "c": Categorical(["a", "b"]), "n": Int(1, 8, log=True)}, "'n' is only here"),
            ({"c": Categorical(["a", "b"]), "x": Float(-1, 1)}, "parameters [\"x\",\"c\"] there, [\"c\",\"x\"] here")]:
        message = f"resume: the search space in '{path}' differs from this run's: {difference}"
        with pytest.raises(ValueError, match=re.escape(message) + "$"):
            optimist.minimize(f, space, algorithm="random", budget=4, resume=path)
    assert optimist.read_trace(path).meta["space"]["parameters"][0]["name"] == "x"  # the trace is untouched
    assert optimist.minimize(f, {"x": Float(-1, 1), "c": Categorical(["a", "b"])}, algorithm="random", budget=3,
                             resume=path).nfev == 3


def test_progress_says_first_what_auto_chose_and_the_seed(capsys):
    # progress=True printed only the evaluations: which algorithm auto had chosen was not said.
    optimist.minimize(lambda p: p["x"] ** 2, {"x": optimist.Float(-1, 1)}, budget=3, seed=4, progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("optimist: auto chose ") and "(seed 4, budget 3): " in lines[0]
    assert lines[1].startswith("optimist:     1/3")
    optimist.minimize(lambda p: p["x"] ** 2, {"x": optimist.Float(-1, 1)}, algorithm="random", budget=1,
                      progress=True)
    assert capsys.readouterr().err.splitlines()[0] == "optimist: random (seed 0, budget 1)"
    optimist.minimize(branin, [(-5, 10), (0, 15)], algorithm="gp-ei", budget=1, progress=True)
    assert capsys.readouterr().err.splitlines()[0] == "optimist: gp-ei (seed 0, budget 1); auto options: mean=worst-unwarped, mean_margin=0.0, output_warp=alternate, prior=botorch, rotation=angles"


def test_a_run_whose_values_are_all_the_same_says_so():
    # The usual cause is the objective (it ignores its parameters, or returns a stale value): the
    # result's notes and a warning say so; a varying objective gets neither.
    space = {"lr": Float(1e-4, 1e-1, log=True), "layers": Int(1, 4)}
    with pytest.warns(UserWarning, match=r"optimist: every one of the 12 values was 0\.5: .* does not depend on its "
                                         r"parameters"):
        res = optimist.minimize(lambda p: 0.5, space, budget=12)
    assert len(res.notes) == 1 and res.notes[0].startswith("every one of the 12 values was 0.5")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = optimist.minimize(lambda p: p["layers"] + p["lr"], space, budget=12)
    assert res.notes == []
