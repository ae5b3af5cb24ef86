"""minimize with evaluations in flight on an executor: a process pool and a local Dask cluster.

Each evaluation writes one file (point, process, wall-clock start and end) so the test sees what
really ran: every asked point evaluated exactly once, none lost, and n_parallel really in flight."""
import concurrent.futures as cf
import json
import os
import pathlib
import time
import uuid

import numpy as np
import pytest

import optimist


class Recorded:
    """A slow objective (module level: picklable for a process pool) that leaves one file per call.

    With hold_first=k the first k calls wait (up to a minute) until k calls have started, so that k
    evaluations are in flight together however slow the asks are (a busy machine, a sanitizer build):
    the test then checks that there are never more."""

    def __init__(self, folder, seconds=0.1, fail_at=None, hold_first=None):
        self.folder, self.seconds, self.fail_at, self.hold_first = str(folder), seconds, fail_at, hold_first

    def __call__(self, x):
        start = time.time()
        if self.hold_first:
            started = pathlib.Path(self.folder, "started")
            started.mkdir(exist_ok=True)
            (started / uuid.uuid4().hex).touch()
            if len(list(started.iterdir())) <= self.hold_first:
                while len(list(started.iterdir())) < self.hold_first and time.time() < start + 60:
                    time.sleep(0.01)
        time.sleep(self.seconds)
        value = float(np.sum((np.asarray(x) - 0.3) ** 2))
        if self.fail_at is not None and abs(x[0] - self.fail_at) < 0.5:
            value = float("nan")
        record = {"x": [float(v) for v in x], "pid": os.getpid(), "start": start, "end": time.time()}
        pathlib.Path(self.folder, f"{uuid.uuid4().hex}.json").write_text(json.dumps(record))
        return value


def calls(folder):
    return [json.loads(p.read_text()) for p in pathlib.Path(folder).glob("*.json")]


def most_in_flight(records):
    events = sorted([(r["start"], 1) for r in records] + [(r["end"], -1) for r in records], key=lambda e: (e[0], e[1]))
    now = peak = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return peak


def check_run(res, records, budget, k, trace):
    assert res.nfev == budget and len(records) == budget
    evaluated = sorted(tuple(r["x"]) for r in records)
    assert evaluated == sorted(tuple(x) for x in res.x_iters)  # each evaluated once, none lost
    assert len(set(evaluated)) == budget  # asks with others pending give distinct points
    assert most_in_flight(records) == k  # k in flight, never more
    assert not res.optimizer.pending and len(res.optimizer.history) == budget
    t = optimist.read_trace(trace)
    assert t.complete and [e["i"] for e in t.evaluations] == list(range(1, budget + 1))
    assert t.meta["run"]["parallel"] == k
    np.testing.assert_array_equal(t.y, res.func_vals)


def test_process_pool_keeps_k_evaluations_in_flight(tmp_path):
    folder = tmp_path / "calls"
    folder.mkdir()
    with cf.ProcessPoolExecutor(max_workers=4) as pool:
        res = optimist.minimize(Recorded(folder, hold_first=4), [(-1, 1), (-1, 1)], algorithm="gp-ei", budget=16, seed=0,
                                executor=pool, n_parallel=4, trace=tmp_path / "t.jsonl")
    records = calls(folder)
    check_run(res, records, 16, 4, tmp_path / "t.jsonl")
    assert len({r["pid"] for r in records}) > 1
    assert res.fun < 0.1


def test_a_failure_waits_for_the_evaluations_under_way_and_keeps_them(tmp_path):
    folder = tmp_path / "calls"
    folder.mkdir()
    with cf.ProcessPoolExecutor(max_workers=3) as pool:
        with pytest.raises(optimist.ObjectiveError, match="objective returned nan") as info:
            optimist.minimize(Recorded(folder, fail_at=0.9), [(-1, 1), (-1, 1)], algorithm="sobol", budget=30,
                              seed=1, executor=pool, n_parallel=3)
    res = info.value.optimist_result
    records = calls(folder)
    assert res.status == "objective failed" and res.nfev == len(records) < 30  # the paid ones, all kept
    assert not res.optimizer.pending
    # mark-failed goes on to the budget.
    with cf.ProcessPoolExecutor(max_workers=3) as pool:
        res = optimist.minimize(Recorded(folder, seconds=0.01, fail_at=0.9), [(-1, 1), (-1, 1)], algorithm="sobol",
                                budget=12, seed=1, executor=pool, n_parallel=3, on_failure="mark-failed")
    assert res.nfev == 12 and res.n_failed > 0 and res.status == "budget"


def test_exceptions_in_workers_carry_the_remote_traceback():
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        with pytest.raises(ZeroDivisionError) as info:
            optimist.minimize(_divide_by_zero, [(0, 1)], algorithm="random", budget=4, executor=pool, n_parallel=2)
    assert "_divide_by_zero" in str(info.value.__cause__)  # concurrent.futures' remote traceback
    assert info.value.optimist_result.n_failed >= 1


def _divide_by_zero(x):
    return 1 / 0


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # tornado's make_current, inside distributed
def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    folder = tmp_path / "calls"
    folder.mkdir()
    objective = Recorded(folder, hold_first=4)

    def on_a_dask_worker(x):  # a closure: Dask's cloudpickle ships it by value to the worker processes
        return objective(x)

    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            res = optimist.minimize(on_a_dask_worker, [(-1, 1), (-1, 1)], algorithm="gp-ei", budget=12, seed=0,
                                    executor=client.get_executor(), n_parallel=4, trace=tmp_path / "t.jsonl")
    records = calls(folder)
    check_run(res, records, 12, 4, tmp_path / "t.jsonl")
    assert os.getpid() not in {r["pid"] for r in records}  # evaluated in the workers' processes


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_dask_client_is_taken_as_its_executor(tmp_path):
    # Its own submit() returns Dask futures, which the loop cannot wait on: the run broke at the
    # first wait with "'Future' object has no attribute '_condition'".
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=3, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            res = optimist.minimize(lambda x: float(np.sum(np.square(x))), [(-1.0, 1.0)] * 2, algorithm="random",
                                    budget=9, seed=0, executor=client, trace=tmp_path / "t.jsonl")
    assert res.nfev == 9 and res.n_failed == 0
    assert res.fun == min(res.func_vals) and res.fun == float(np.sum(np.square(res.x)))
    meta = json.loads((tmp_path / "t.jsonl").read_text().splitlines()[0])["meta"]
    assert meta["run"]["parallel"] == 3  # the cluster's worker threads


def test_n_parallel_is_needed_when_the_executor_does_not_say():
    class Opaque(cf.Executor):
        def submit(self, fn, *args, **kwargs):
            f = cf.Future()
            f.set_result(fn(*args, **kwargs))
            return f

    with pytest.raises(ValueError, match="n_parallel: give the number of evaluations"):
        optimist.minimize(lambda x: float(x[0]), [(0, 1)], budget=3, executor=Opaque())
    res = optimist.minimize(lambda x: float(x[0]), [(0, 1)], algorithm="random", budget=5, executor=Opaque(),
                            n_parallel=2)
    assert res.nfev == 5


class TrainError(Exception):
    """An exception a process pool cannot send back as is (its __init__ takes two arguments)."""

    def __init__(self, message, epoch):
        super().__init__(f"{message} at epoch {epoch}")


def diverges_above_half(x):
    if x[0] > 0.5:
        raise TrainError("diverged", epoch=3)
    return float(x[0])


def test_an_exception_the_pool_cannot_send_back_is_a_failure_not_a_broken_pool():
    # Once: BrokenProcessPool, the run lost and on_failure="mark-failed" ignored.
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        res = optimist.minimize(diverges_above_half, [(0, 1)], algorithm="random", budget=12, executor=pool,
                                on_failure="mark-failed")
    assert res.nfev == 12 and 0 < res.n_failed < 12
    assert any(e and "TrainError: diverged at epoch 3" in e for e in res.history.errors)


def test_an_objective_a_process_pool_cannot_take_is_refused_before_any_evaluation():
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        with pytest.raises(TypeError, match="func must be picklable"):
            optimist.minimize(lambda x: x[0], [(0, 1)], algorithm="random", budget=50, executor=pool,
                              on_failure="mark-failed")


def test_a_raising_callback_keeps_every_finished_evaluation(tmp_path):
    # With 4 in flight, the evaluations that finished while the callback ran were dropped (paid
    # for, in neither the trace nor a result).
    calls = []

    def slowish(x):
        calls.append(x[0])
        time.sleep(0.05)
        return float(x[0])

    def callback(ev):
        if ev.i == 2:
            time.sleep(1.0)  # the other evaluations in flight finish meanwhile
            raise ZeroDivisionError("callback bug")

    with cf.ThreadPoolExecutor(max_workers=4) as pool:
        with pytest.raises(ZeroDivisionError) as caught:
            optimist.minimize(slowish, [(0, 1)], algorithm="random", budget=20, executor=pool, n_parallel=4,
                              callback=callback, trace=str(tmp_path / "t.jsonl"))
    res = caught.value.optimist_result
    trace = optimist.read_trace(str(tmp_path / "t.jsonl"))
    assert len(calls) >= 4 and res.nfev == len(calls) and len(trace.evaluations) == len(calls) and trace.complete
