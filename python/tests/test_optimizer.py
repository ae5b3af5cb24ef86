"""Ask/tell from Python: every algorithm, the CLI's option errors, warm starts, history."""
import math
import re

import numpy as np
import pandas as pd
import pytest

import optimist
from optimist import Categorical, Float, Int, Optimizer

SPACE = {"a": Float(-2, 3), "b": Float(1e-3, 10, log=True), "n": Int(0, 5), "c": Categorical(["u", "v", "w"])}


def objective(p):
    return (p["a"] - 0.7) ** 2 + math.log10(p["b"]) ** 2 + 0.1 * (p["n"] - 3) ** 2 - (0.5 if p["c"] == "v" else 0.0)


@pytest.mark.parametrize("algorithm", optimist.algorithm_names())
def test_every_algorithm_runs_from_python_on_a_mixed_space(algorithm):
    opt = Optimizer(SPACE, algorithm, seed=3, budget=12)
    for _ in range(12):
        t = opt.ask()
        assert set(t.params) == set(SPACE) and t.params["c"] in ("u", "v", "w")
        assert -2 <= t.params["a"] <= 3 and 1e-3 <= t.params["b"] <= 10 and isinstance(t.params["n"], int)
        opt.tell(t, objective(t.params))
    best = opt.recommend()
    assert set(best) == set(SPACE)
    h = opt.history
    assert len(h) == 12 and not h.failed.any()
    assert opt.best.value == pytest.approx(np.min(h.y))
    # Same seed, same points: the run is a function of the seed.
    again = Optimizer(SPACE, algorithm, seed=3, budget=12)
    for x, y in zip(h.x, h.y):
        t = again.ask()
        assert t.params == x
        again.tell(t, y)


def test_bad_options_raise_the_cli_errors():
    with pytest.raises(ValueError, match=r"unknown algorithm 'gp-eii' \(did you mean 'gp-ei'\?\); valid algorithms: auto, random, sobol, .*gp-ei, "):
        Optimizer(SPACE, "gp-eii")
    with pytest.raises(ValueError, match=r"gp-ei: unknown option 'kernell' \(did you mean 'kernel'\?\); valid options: kernel, prior"):
        Optimizer(SPACE, "gp-ei", kernell="rbf")
    with pytest.raises(ValueError, match=r"gp-ei: option 'kernel' got \"rbff\"; valid values: matern52, matern32, rbf"):
        Optimizer(SPACE, "gp-ei", kernel="rbff")
    with pytest.raises(ValueError, match=r"gp-ei: option 'n_init' must be of the type of its default 0, got \"x\""):
        Optimizer(SPACE, "gp-ei", n_init="x")
    with pytest.raises(ValueError, match="go-ucb plans with the total number of evaluations: give budget=N"):
        Optimizer(SPACE, "go-ucb")
    with pytest.raises(ValueError, match="unknown direction 'up'"):
        Optimizer(SPACE, "gp-ei", direction="up")
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        Optimizer(SPACE, "gp-ei", seed=-1)
    with pytest.raises(ValueError, match="'name' is an argument of its own"):
        Optimizer(SPACE, "gp-ei", name="random")
    with pytest.raises(TypeError, match=r"options\['xi'\]"):
        Optimizer(SPACE, "gp-ei", xi=object())


def test_options_of_every_json_type_reach_the_algorithm():
    opt = Optimizer(SPACE, "go-ucb", budget=20, hidden=[8, 4], model="mlp", trust_adapt=False, beta=np.float64(0.3),
                    n_init=np.int64(5))
    assert opt.options["hidden"] == [8, 4] and opt.options["trust_adapt"] is False
    assert opt.options["beta"] == 0.3 and opt.options["n_init"] == 5 and opt.horizon == 20
    assert opt.seed == 0 and opt.options["name"] == "go-ucb"
    assert "seed" not in opt.options and "budget" not in opt.options  # the run's, not options (RunContext)
    assert optimist.Optimizer(SPACE, "gp-ei", noise_sd=0.1).options["noise_sd"] == 0.1


def test_warm_start_tells_existing_data_and_continues_like_a_replay():
    original = Optimizer(SPACE, "gp-ei", seed=5)
    for _ in range(8):
        t = original.ask()
        original.tell(t, objective(t.params))
    h = original.history
    warm = Optimizer(SPACE, "gp-ei", seed=5)
    warm.tell(h.x, h.y)  # points nobody asked: a warm start (here, the same data)
    assert len(warm.history) == 8
    assert warm.ask().params == original.ask().params


def test_telling_several_is_all_or_nothing():
    opt = Optimizer([(0, 1)], "random", seed=0)
    with pytest.raises(ValueError, match="value 1 is nan, not finite \\(nothing was told\\)"):
        opt.tell([[0.1], [0.2]], [1.0, float("nan")])
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        opt.tell([[0.1], [2.2]], [1.0, 2.0])
    with pytest.raises(TypeError, match="must be a number, got '2.0' of type str"):
        opt.tell([[0.1], [0.2]], [1.0, "2.0"])
    t = opt.ask()
    with pytest.raises(ValueError, match="appears twice"):
        opt.tell([t, t], [1.0, 2.0])
    assert len(opt.history) == 0 and len(opt.pending) == 1
    opt.tell([t, [0.2]], [1.0, 2.0])
    assert opt.history.y.tolist() == [1.0, 2.0] and not opt.pending
    with pytest.raises(TypeError, match="a number that fits a float, got 1000"):
        opt.tell([0.3], 10**400)


def test_tell_failed_takes_several_like_tell():
    # A batch whose job died: tell_failed(trials, error) took the list for one point and raised
    # "parameter 'lr': expected a number, got Trial(...)", leaving the batch pending.
    opt = Optimizer({"lr": Float(1e-4, 1, log=True), "act": Categorical(["relu", "tanh"])}, "gp-ei", seed=0)
    batch = opt.ask(3)
    opt.tell_failed(batch, "job killed")
    assert len(opt.history) == 3 and opt.history.failed.all() and not opt.pending
    assert list(opt.history.errors) == ["job killed"] * 3
    t = opt.ask()
    with pytest.raises(ValueError, match="outside"):  # all or nothing
        opt.tell_failed([t, {"lr": 5.0, "act": "relu"}], "x")
    assert len(opt.history) == 3 and len(opt.pending) == 1
    opt.tell_failed([t, {"lr": 0.01, "act": "tanh"}], "oom")
    assert len(opt.history) == 5 and not opt.pending
    opt.tell_failed([], "none")  # ask(n) of an algorithm without a batch form returns one: trials[1:] is []
    assert len(opt.history) == 5
    box = Optimizer([(0, 1), (0, 1)], "random", seed=0)
    box.tell_failed([[0.1, 0.2], [0.3, 0.4]])
    box.tell_failed(np.array([[0.5, 0.6]]))
    box.tell_failed([0.7, 0.8])  # one point
    assert box.history.X.tolist() == [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]]
    # A sequence point of a named space stays one point (a choice may be a list).
    listed = Optimizer({"c": Categorical([[1, 2], [3]])}, "random", seed=0)
    listed.tell_failed([[1, 2]])
    assert listed.history.X.tolist() == [[0.0]]


def test_tell_takes_a_dataframe_of_earlier_points():
    # Earlier data kept in pandas (a history's to_pandas()): the frame was iterated as its column
    # names, "tell(points, values): 2 points but 5 values".
    space = {"lr": Float(1e-4, 1, log=True), "layers": Int(1, 4), "act": Categorical(["relu", "tanh"])}
    earlier = optimist.minimize(lambda p: p["lr"] + p["layers"] + (p["act"] == "tanh"), space, algorithm="random",
                                budget=5, seed=0)
    df = earlier.history.to_pandas()
    opt = Optimizer(space, "gp-ei", seed=1)
    opt.tell(df[["lr", "layers", "act"]], df["y"])
    assert opt.history.x == earlier.history.x and opt.history.y.tolist() == df["y"].tolist()
    opt.tell_failed(df[["lr", "layers", "act"]].head(2), "diverged")
    assert len(opt.history) == 7 and opt.history.failed[5:].all()
    with pytest.raises(ValueError, match=re.escape("unknown ['y', ")):  # the whole frame: the other columns named
        opt.tell(df, df["y"])
    box = Optimizer([(0, 1), (0, 1)], "random", seed=0)
    box.tell(pd.DataFrame({"x1": [0.1, 0.2], "x2": [0.3, 0.4]}), [1.0, 2.0])
    assert box.history.X.tolist() == [[0.1, 0.3], [0.2, 0.4]]


def test_batches_pending_points_and_failures():
    opt = Optimizer([(0, 1), (0, 1)], "gp-ei", seed=2)
    assert opt.supports_batch
    first = opt.ask(4)
    assert len(first) == 4 and len(opt.pending) == 4
    assert len({tuple(t.x) for t in first}) == 4
    for t in first[:3]:
        opt.tell(t, float(np.sum((t.x - 0.3) ** 2)))
    opt.tell_failed(first[3], "diverged")
    assert not opt.pending
    h = opt.history
    assert h.failed.tolist() == [False, False, False, True] and h.errors[3] == "diverged" and np.isnan(h.y[3])
    with pytest.raises(ValueError, match="trial 3 is not pending"):
        opt.tell(first[3], 1.0)
    with pytest.raises(ValueError, match="not finite"):
        opt.tell(opt.ask(), float("nan"))
    with pytest.raises(TypeError, match="must be a number, got 'high'"):
        opt.tell(opt.ask(), "high")
    other = Optimizer([(0, 1), (0, 1)], "random")
    with pytest.raises(ValueError, match="asked from another optimizer"):
        other.tell(opt.ask(), 1.0)
    with pytest.raises(ValueError, match="ask\\(n\\) needs a positive integer"):
        opt.ask(0)
    # 2**62 ran for minutes, 2**64 was a raw pybind11 TypeError.
    for n in (2**62, 2**64):
        with pytest.raises(ValueError, match=f"ask\\(n\\) takes at most 100000 trials at once, got {n}"):
            opt.ask(n)


def test_optimizers_refuse_copies_and_pickles():
    import copy
    import pickle

    opt = Optimizer([(0, 1)], "gp-ei", seed=0)
    # A shallow copy shared the C++ state: telling the copy told the original.
    for make in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="an Optimizer cannot be (copied|pickled)"):
            make(opt)


def test_a_pickled_trial_is_told_once_and_only_to_its_optimizer():
    # A trial sent to a Dask task or a process pool: pybind's object did not pickle.
    import pickle

    space = {"lr": Float(1e-4, 1e-1, log=True), "act": Categorical(["relu", "tanh"])}
    opt = Optimizer(space, "gp-ei", seed=0)
    other = Optimizer(space, "gp-ei", seed=0)
    a, b = opt.ask(2)
    a_copy, b_copy = pickle.loads(pickle.dumps(a)), pickle.loads(pickle.dumps(b))
    assert (a_copy.id, a_copy.params) == (a.id, a.params)
    np.testing.assert_array_equal(a_copy.unit, a.unit)
    other.ask(2)  # the same ids and points pending there
    with pytest.raises(ValueError, match="asked from another optimizer"):
        other.tell(a_copy, 1.0)
    with pytest.raises(ValueError, match="appears twice"):
        opt.tell([a, a_copy], [1.0, 2.0])
    opt.tell(a_copy, 1.0)
    with pytest.raises(ValueError, match="not pending \\(told, withdrawn, or never asked\\)"):
        opt.tell(a, 1.0)
    opt.withdraw(b_copy)
    with pytest.raises(ValueError, match="not pending \\(told, withdrawn, or never asked\\)"):
        opt.tell_failed(b, "late")
    assert len(opt.history) == 1 and opt.history.y[0] == 1.0


def test_histories_and_results_pickle_and_copy():
    # History.__getattr__ recursed without end when pickle or copy probed a blank instance, and a
    # result could not leave its process (a process pool's task returning it, joblib.dump).
    import copy
    import pickle

    res = optimist.minimize(lambda x: float((x[0] - 0.3) ** 2), [(0.0, 1.0)], algorithm="random", budget=5, seed=1)
    for make in (copy.copy, copy.deepcopy, lambda h: pickle.loads(pickle.dumps(h))):
        h = make(res.history)
        np.testing.assert_array_equal(h.y, res.history.y)
        np.testing.assert_array_equal(h.eval_s, res.history.eval_s)
        assert h.columns == res.history.columns
    back = pickle.loads(pickle.dumps(res))
    assert back.fun == res.fun and back.nfev == 5 and list(back.x) == list(res.x)
    assert back.optimizer is None and res.optimizer is not None  # the original keeps it
    assert copy.copy(res).optimizer is res.optimizer
    assert copy.deepcopy(res).optimizer is None


def test_points_are_checked_as_the_space_says():
    opt = Optimizer({"x": Float(-1, 1), "k": Int(0, 3), "v": Categorical([np.zeros(2), np.ones(2)])}, "random")
    with pytest.raises(ValueError, match="parameter 'k': expected a number, got '2'"):
        opt.tell({"x": 0.1, "k": "2", "v": np.zeros(2)}, 1.0)  # told values refuse text; points do too
    opt.tell({"x": 0.1, "k": 2, "v": np.ones(2)}, 1.0)  # array choices: found by value, not "ambiguous"
    assert np.array_equal(opt.history.x[0]["v"], np.ones(2)) and opt.history.x[0]["k"] == 2
    with pytest.raises(ValueError, match="duplicate choice"):
        Optimizer({"v": Categorical([np.zeros(2), np.zeros(2)])}, "random")


def test_history_as_numpy_and_pandas():
    opt = Optimizer(SPACE, "random", seed=1, direction="maximize")
    trials = opt.ask(3)
    for t in trials[:2]:
        opt.tell(t, objective(t.params))
    opt.tell_failed(trials[2], "out of memory")
    h = opt.history
    assert h.X.shape == (3, 4) and h.id.tolist() == [0, 1, 2]
    df = h.to_pandas()
    assert list(df.columns) == ["id", "a", "b", "n", "c", "y", "status", "error"]
    assert df["status"].tolist() == ["ok", "ok", "failed"] and df["error"][2] == "out of memory"
    assert df["c"][0] in ("u", "v", "w")
    assert opt.best.value == max(h.y[:2])  # maximize: the largest
    assert opt.direction == "maximize"


def test_recommend_before_any_value_is_an_error():
    opt = Optimizer([(0, 1)], "random")
    with pytest.raises(RuntimeError, match="before any successful observation"):
        opt.recommend()
    assert opt.best is None


def test_diagnostics_and_repr():
    opt = Optimizer([(0, 1)] * 2, "bkb", seed=1)
    for _ in range(3):
        t = opt.ask()
        opt.tell(t, float(t.x.sum()))
    assert isinstance(opt.diagnostics(), dict)
    assert "3 told" in repr(opt)
    assert {a["name"] for a in optimist.algorithms()} == set(optimist.algorithm_names())


def test_long_asks_release_the_gil():
    import sys
    import threading
    import time

    rng = np.random.default_rng(0)
    opt = Optimizer([(0, 1)] * 4, "gp-ei", seed=0, raw_samples=4096)
    opt.tell(list(rng.uniform(size=(80, 4))), list(rng.uniform(size=80)))
    # Another thread notes the times at which it runs while the ask is under way (state 1). "It ran
    # at all" cannot fail: a call that holds the GIL hands it over right after returning, before
    # state 2 is stored. Released, the thread runs through the whole ask; held, only in that
    # handover (a switch interval of 0.1 ms here; measured 0.3-7 ms of a 100 ms call that holds it).
    state, stamps, stop = [0], [], threading.Event()

    def spin():
        while not stop.is_set():
            if state[0] == 1:
                stamps.append(time.perf_counter())

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    thread = threading.Thread(target=spin)
    thread.start()
    try:
        time.sleep(0.01)
        start = time.perf_counter()
        state[0] = 1
        opt._core.ask(1)  # a GP fit and an acquisition search of tens of milliseconds, all in C++
        state[0] = 2
        elapsed = time.perf_counter() - start
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)
    ran = stamps[-1] - stamps[0] if stamps else 0.0
    assert ran > 0.5 * elapsed, (ran, elapsed)  # the other thread ran while C++ worked: the GIL was released


def test_threads_sharing_an_optimizer_take_turns():
    import concurrent.futures as cf

    opt = Optimizer([(0, 1)] * 3, "gp-ei", seed=0)

    def worker(_):
        for _ in range(8):
            t = opt.ask()
            opt.tell(t, float(np.sum(t.x ** 2)))

    with cf.ThreadPoolExecutor(4) as pool:
        list(pool.map(worker, range(4)))
    h = opt.history
    assert len(h) == 32 and not opt.pending and not h.failed.any()
    assert sorted(h.id.tolist()) == list(range(32))


def test_withdrawn_trials_leave_no_trace_and_are_asked_again():
    space = {"x": optimist.Float(-2, 2), "k": optimist.Int(0, 3)}
    opt = optimist.Optimizer(space, "gp-ei", seed=3)
    reference = optimist.Optimizer(space, "gp-ei", seed=3)
    for _ in range(8):
        t, r = opt.ask(), reference.ask()
        assert t.params == r.params
        given_back = opt.ask(2)  # asked while t is pending, then withdrawn
        opt.withdraw(given_back)
        opt.tell(t, t.params["x"] ** 2 + t.params["k"])
        reference.tell(r, r.params["x"] ** 2 + r.params["k"])
    assert len(opt.history) == 8 and not opt.history.failed.any() and opt.pending == []
    lone = opt.ask()
    opt.withdraw(lone)
    assert opt.ask().params == lone.params  # nothing else changed: the same point again


def test_withdraw_checks_every_trial_before_giving_any_back():
    opt = optimist.Optimizer({"x": optimist.Float(0, 1)}, "random", seed=1)
    a, b = opt.ask(), opt.ask()
    opt.tell(b, 0.5)
    with pytest.raises(ValueError, match=r"is not pending.*nothing was withdrawn"):
        opt.withdraw([a, b])
    with pytest.raises(ValueError, match="appears twice"):
        opt.withdraw([a, a])
    with pytest.raises(TypeError, match="expected a Trial"):
        opt.withdraw([a, {"x": 0.3}])
    for wrong in (None, 5, {"x": 0.3}, "trial"):  # not a trial, nor a list of them
        with pytest.raises(TypeError, match="expected a Trial from ask.., or a list of them"):
            opt.withdraw(wrong)
    other = optimist.Optimizer({"x": optimist.Float(0, 1)}, "random", seed=1)
    with pytest.raises(ValueError, match="another optimizer"):
        other.withdraw(other.ask() and a)
    assert [t.id for t in opt.pending] == [a.id]  # nothing was withdrawn by the refused calls
    opt.withdraw(a)
    assert opt.pending == []

