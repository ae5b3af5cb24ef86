"""minimize on executors when things go wrong: objectives that raise BaseExceptions or return values
that break, a worker process that crashes, an executor shut down mid-run, bad executors; and what
must hold on Dask (every evaluation really run) and for noisy problems (one noise draw each).

Every test checks the books: no evaluation paid for is lost, none that never ran is recorded, the
trace gets its closing line and the partial result travels with the exception."""
import concurrent.futures as cf
import json
import os
import pathlib
import random
import subprocess
import sys
import textwrap
import threading
import time
import uuid

import numpy as np
import pytest

import optimist

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # tornado's, inside distributed


class Abort(BaseException):
    """A BaseException of one's own (not an Exception)."""


RAISED = {"KeyboardInterrupt": KeyboardInterrupt, "SystemExit": SystemExit, "Abort": Abort}


class RaisesAbove:
    """Raises `kind` (a BaseException that is not an Exception) where x > 0.6; logs each call to a folder."""

    def __init__(self, kind, folder):
        self.kind, self.folder = kind, str(folder)

    def __call__(self, x):
        name = uuid.uuid4().hex  # written whole, then renamed: a pool killed mid-write leaves no half line
        pathlib.Path(self.folder, "." + name).write_text(json.dumps(float(x[0])))
        os.rename(pathlib.Path(self.folder, "." + name), pathlib.Path(self.folder, name))
        if x[0] > 0.6:
            raise RAISED[self.kind]("from the objective")
        return float(x[0])


def logged(folder):
    return sorted(json.loads(p.read_text()) for p in pathlib.Path(folder).iterdir() if not p.name.startswith("."))


def check_books(res, trace, calls=None):
    """The result, the trace and the optimizer agree, nothing is pending, the trace is closed."""
    t = optimist.read_trace(trace)
    assert t.complete, "the trace has no closing line"
    assert len(t.evaluations) == res.nfev and not res.optimizer.pending
    np.testing.assert_array_equal(np.nan_to_num(t.y, nan=-1.0), np.nan_to_num(res.func_vals, nan=-1.0))
    if calls is not None:  # each recorded evaluation was really run, once
        assert sorted(float(x[0]) for x in res.x_iters) == calls


@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster


@pytest.fixture
def dask_client(dask_cluster):
    import distributed
    with distributed.Client(dask_cluster) as client:
        yield client


def make_executor(kind):
    if kind == "thread":
        return cf.ThreadPoolExecutor(2)
    if kind == "process":
        return cf.ProcessPoolExecutor(2)
    return None


# 1. Dask evaluates every submission (pure=False), never returning a cached result.

def test_a_dask_client_runs_every_evaluation_of_a_noisy_objective_again(dask_client, tmp_path):
    # Dask's executor submitted with pure=True: the same point gave Dask's cached result, so a noisy
    # objective on a 2-point space was evaluated twice in 12 evaluations and its value repeated.
    folder = tmp_path / "calls"
    folder.mkdir()

    def noisy(p):
        pathlib.Path(folder, uuid.uuid4().hex).write_text("1")
        return p["k"] + random.random()

    for executor in (dask_client, dask_client.get_executor()):  # a Client, and an executor made without pure=
        for p in folder.iterdir():
            p.unlink()
        res = optimist.minimize(noisy, {"k": optimist.Int(0, 1)}, algorithm="random", budget=8, seed=0,
                                executor=executor, noisy=True, trace=tmp_path / "t.jsonl")
        assert res.nfev == 8 and len(list(folder.iterdir())) == 8
        assert len(set(res.func_vals)) == 8
        check_books(res, tmp_path / "t.jsonl")


def test_a_failure_on_dask_is_not_returned_again_by_a_later_run(dask_client, tmp_path):
    # The second run (the bug fixed) got the first run's exceptions back from Dask's cache.
    flag = tmp_path / "flag"
    flag.write_text("bug")

    def train(x):
        if flag.read_text() == "bug":
            raise ValueError("bug in the data loader")
        return float(x[0])

    res = optimist.minimize(train, [(0, 1)], algorithm="random", budget=4, seed=0, executor=dask_client,
                            on_failure="mark-failed")
    assert res.n_failed == 4
    flag.write_text("fixed")
    res = optimist.minimize(train, [(0, 1)], algorithm="random", budget=4, seed=0, executor=dask_client,
                            on_failure="mark-failed")
    assert res.n_failed == 0 and res.nfev == 4


# 2. A noisy problem gets one draw of the run's noise stream per evaluation, wherever it runs.

def noise_stream(problem, seed, n):
    x = np.array([1.0, 2.0])
    observed = problem.objective_for_run(seed)
    return [observed(x) - problem.f(x) for _ in range(n)]


@pytest.mark.parametrize("kind", ["thread", "process", "dask"])
def test_a_noisy_problem_gets_the_runs_noise_draws_on_an_executor(kind, request, tmp_path):
    # In a process pool or on Dask every evaluation got the same draw (the pickled problem restarted
    # its stream, seeded 0); in a thread pool the stream ignored the run's seed.
    problem = optimist.problems.get("branin", noise=1.0)
    executor = request.getfixturevalue("dask_client") if kind == "dask" else make_executor(kind)
    try:
        res = optimist.minimize(problem, algorithm="random", budget=6, seed=3, executor=executor, n_parallel=2)
    finally:
        if kind != "dask":
            executor.shutdown()
    noise = [y - f for y, f in zip(res.func_vals, res.history.f)]
    # The k-th evaluation asked gets the k-th draw, as in a sequential run (the trace is in completion order).
    np.testing.assert_allclose(sorted(noise), sorted(noise_stream(problem, 3, 6)), rtol=0, atol=1e-9)


def test_a_noisy_problem_on_an_executor_one_at_a_time_is_the_sequential_run():
    problem = optimist.problems.get("branin", noise=0.5)
    inline = optimist.minimize(problem, algorithm="gp-ei", budget=8, seed=2)
    with cf.ThreadPoolExecutor(1) as pool:
        pooled = optimist.minimize(problem, algorithm="gp-ei", budget=8, seed=2, executor=pool, n_parallel=1)
    np.testing.assert_array_equal(inline.func_vals, pooled.func_vals)
    np.testing.assert_array_equal(np.array(inline.x_iters), np.array(pooled.x_iters))


# 3. BaseExceptions raised by the objective, values and exceptions that break.

@pytest.mark.parametrize("executor_kind", ["inline", "thread", "process"])
@pytest.mark.parametrize("kind", sorted(RAISED))
def test_a_base_exception_from_the_objective_is_a_failure_under_its_policy(executor_kind, kind, tmp_path):
    # In a pool such an evaluation was dropped (KeyboardInterrupt: neither recorded nor failed, the
    # run went on) or ended the run with no result and the evaluations in flight lost.
    folder = tmp_path / "calls"
    folder.mkdir()
    executor = make_executor(executor_kind)
    n_parallel = 1 if executor is None else 2
    try:
        res = optimist.minimize(RaisesAbove(kind, folder), [(0, 1)], algorithm="random", budget=8, seed=0,
                                executor=executor, n_parallel=n_parallel, on_failure="mark-failed",
                                trace=tmp_path / "m.jsonl")
        calls = logged(folder)
        assert res.status == "budget" and res.nfev == 8 == len(calls)
        assert res.n_failed == sum(c > 0.6 for c in calls) > 0
        assert all(kind in e for e in res.history.errors if e)
        check_books(res, tmp_path / "m.jsonl", calls)

        for p in folder.iterdir():
            p.unlink()
        with pytest.raises(RAISED[kind]) as info:
            optimist.minimize(RaisesAbove(kind, folder), [(0, 1)], algorithm="random", budget=8, seed=0,
                              executor=executor, n_parallel=n_parallel, trace=tmp_path / "s.jsonl")
        res = info.value.optimist_result
        assert res.status == "objective failed" and res.n_failed >= 1
        check_books(res, tmp_path / "s.jsonl", logged(folder))
    finally:
        if executor is not None:
            executor.shutdown()


def test_a_base_exception_on_dask_threads_does_not_stop_the_worker(tmp_path):
    # In a Dask worker thread a KeyboardInterrupt or SystemExit stopped the worker's event loop: the
    # run hung. It runs in a child process so that a hang fails the test instead of blocking the suite.
    script = textwrap.dedent("""
        import sys, warnings
        warnings.simplefilter("ignore")
        import distributed, optimist
        class Abort(BaseException):
            pass
        def make(kind):
            def f(x):
                if x[0] > 0.6:
                    raise {"kbint": KeyboardInterrupt, "exit": SystemExit, "abort": Abort}[kind]("boom")
                return float(x[0])
            return f
        with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            for kind in ("kbint", "exit", "abort"):
                res = optimist.minimize(make(kind), [(0, 1)], algorithm="random", budget=8, seed=0,
                                        executor=client, on_failure="mark-failed")
                print(kind, res.status, res.nfev, res.n_failed, flush=True)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=90,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    lines = [line.split() for line in out.stdout.splitlines()]
    assert [line[0] for line in lines] == ["kbint", "exit", "abort"], out.stderr[-2000:]
    for _, status, nfev, n_failed in lines:
        assert status == "budget" and nfev == "8" and int(n_failed) > 0


class Synchronous(cf.Executor):
    """An executor whose futures are done before the loop waits (as with a fast pool): several finish together."""

    def submit(self, fn, *args, **kwargs):
        future = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001
            future.set_exception(e)
        return future


def exits(x):
    sys.exit(1)


def test_two_base_exceptions_finished_together_leave_a_closed_trace_and_a_result(tmp_path):
    # The second one raised again in the loop's clean-up: no closing line, the trace locked, no result.
    res = optimist.minimize(exits, [(0, 1)], algorithm="random", budget=6, executor=Synchronous(), n_parallel=2,
                            trace=tmp_path / "t.jsonl", on_failure="mark-failed")
    assert res.nfev == 6 and res.n_failed == 6 and all("SystemExit: 1" in e for e in res.history.errors)
    check_books(res, tmp_path / "t.jsonl")
    with pytest.raises(SystemExit) as info:
        optimist.minimize(exits, [(0, 1)], algorithm="random", budget=6, executor=Synchronous(), n_parallel=2,
                          trace=tmp_path / "s.jsonl")
    assert info.value.optimist_result.n_failed == 2  # both finished: both paid, both recorded
    check_books(info.value.optimist_result, tmp_path / "s.jsonl")


class BadFloat:
    def __float__(self):
        raise ZeroDivisionError("metric not ready")

    def __repr__(self):
        raise RuntimeError("repr broke too")


class BadStr(Exception):
    def __str__(self):
        raise RuntimeError("str broke")


def bad_value_or_error(x):
    if x[0] > 0.8:
        raise BadStr()
    return BadFloat() if x[0] > 0.5 else float(x[0])


@pytest.mark.parametrize("executor_kind", ["inline", "thread", "synchronous"])
def test_values_and_exceptions_that_break_are_failures_not_lost_evaluations(executor_kind, tmp_path):
    # A value whose __float__ raised ZeroDivisionError, or an exception whose __str__ raised, ended the
    # run as "cancelled" with the evaluation lost (and, two finishing together, an unclosed trace).
    executor = Synchronous() if executor_kind == "synchronous" else make_executor(executor_kind)
    n_parallel = 1 if executor is None else 2
    res = optimist.minimize(bad_value_or_error, [(0, 1)], algorithm="random", budget=10, seed=0, executor=executor,
                            n_parallel=n_parallel, on_failure="mark-failed", trace=tmp_path / "m.jsonl")
    assert res.status == "budget" and res.nfev == 10
    x = np.array(res.x_iters)[:, 0]
    assert res.n_failed == int(np.sum(x > 0.5)) > 0
    errors = [e for e in res.history.errors if e]
    assert any("whose float() raised ZeroDivisionError: metric not ready" in e for e in errors)
    assert any("BadStr: <str() of the exception raised RuntimeError>" in e for e in errors)
    check_books(res, tmp_path / "m.jsonl")
    with pytest.raises((optimist.ObjectiveError, BadStr)) as info:
        optimist.minimize(bad_value_or_error, [(0, 1)], algorithm="random", budget=10, seed=0, executor=executor,
                          n_parallel=n_parallel, trace=tmp_path / "s.jsonl")
    assert info.value.optimist_result.status == "objective failed"
    check_books(info.value.optimist_result, tmp_path / "s.jsonl")
    if executor is not None:
        executor.shutdown()


# 4. A worker process that dies.

class CrashAbove:
    """Ends its worker process (as a segfault or the OOM killer would) where x > 0.6; logs the others."""

    def __init__(self, folder, threshold=0.6):
        self.folder, self.threshold = str(folder), threshold

    def __call__(self, x):
        if x[0] > self.threshold:
            os._exit(1)
        time.sleep(0.1)
        name = uuid.uuid4().hex  # written whole, then renamed: a pool killed mid-write leaves no half line
        pathlib.Path(self.folder, "." + name).write_text(json.dumps(float(x[0])))
        os.rename(pathlib.Path(self.folder, "." + name), pathlib.Path(self.folder, name))
        return float(x[0])


@pytest.mark.parametrize("on_failure", ["stop", "mark-failed"])
def test_a_crashed_worker_fails_only_the_evaluation_that_can_have_crashed_it(on_failure, tmp_path):
    # Every evaluation the broken pool held was recorded as failed and counted, queued ones that never
    # ran included, and the run ended with a bare BrokenProcessPool (status "cancelled" under mark-failed).
    folder = tmp_path / "calls"
    folder.mkdir()
    trace = tmp_path / "t.jsonl"
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        with pytest.raises(cf.process.BrokenProcessPool, match="the executor is broken: a worker process died") as info:
            optimist.minimize(CrashAbove(folder), [(0, 1)], algorithm="random", budget=12, seed=0, executor=pool,
                              n_parallel=3, on_failure=on_failure, trace=trace)
    res = info.value.optimist_result
    assert "create a new one" in str(info.value) and isinstance(info.value.__cause__, cf.process.BrokenProcessPool)
    assert res.status == ("objective failed" if on_failure == "stop" else "cancelled")
    x = np.array(res.x_iters)[:, 0]
    # The crasher fails (and at most one other evaluation under way: a worker whose exit the pool had
    # not yet seen counts as one that may have crashed it); queued points never run are not recorded.
    assert 1 <= res.n_failed <= 2 and (x[res.history.failed] > 0.6).any()
    assert all("died" in res.history.errors[int(k)] for k in np.flatnonzero(res.history.failed))
    ok = sorted(x[~res.history.failed].tolist())
    # Every other recorded evaluation really ran (one may have run and lost its result with the pool:
    # given back, not recorded).
    assert set(ok) <= set(logged(folder)) and len(logged(folder)) - len(ok) <= 1
    check_books(res, trace)

    # What never ran was given back: a resume with a new pool asks it and goes on to the budget.
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        res = optimist.minimize(CrashAbove(folder, threshold=2.0), [(0, 1)], algorithm="random", budget=12, seed=0,
                                executor=pool, n_parallel=3, on_failure=on_failure, trace=trace, resume=trace)
    assert res.nfev == 12 and 1 <= res.n_failed <= 2 and res.status == "budget"
    check_books(res, trace)


# 5. Executors that cannot run anything.

@pytest.mark.parametrize("executor, error, message", [
    (42, TypeError, "executor must be a concurrent.futures.Executor or a Dask Client.*got 42 of type int"),
    ([], TypeError, "executor must be .*got \\[\\] of type list"),
    (cf.ThreadPoolExecutor, TypeError, "got the class ThreadPoolExecutor: create one"),
])
def test_a_bad_executor_is_named(executor, error, message):
    with pytest.raises(error, match=message):
        optimist.minimize(lambda x: float(x[0]), [(0, 1)], budget=3, executor=executor)


def test_an_executor_shut_down_or_a_closed_dask_client_is_refused_before_any_evaluation(dask_cluster):
    import distributed
    pool = cf.ThreadPoolExecutor(2)
    pool.shutdown()
    with pytest.raises(ValueError, match="ThreadPoolExecutor has been shut down"):
        optimist.minimize(lambda x: float(x[0]), [(0, 1)], budget=3, executor=pool)
    client = distributed.Client(dask_cluster)
    executor = client.get_executor()
    res = optimist.minimize(lambda x: float(x[0]), [(0, 1)], algorithm="random", budget=3, executor=executor)
    assert res.nfev == 3 and res.history.y.size == 3  # a Dask executor's n_parallel: its cluster's threads
    client.close()
    for given in (client, executor):
        with pytest.raises(ValueError, match="the Dask Client .* is closed"):
            optimist.minimize(lambda x: float(x[0]), [(0, 1)], budget=3, executor=given)


# 6. An executor shut down during the run.

def test_an_executor_shut_down_mid_run_keeps_what_finished_and_gives_back_the_rest(tmp_path):
    # The cancelled evaluations raised a bare CancelledError with an empty message (or, cancelled by a
    # ThreadPoolExecutor's shutdown, which does not wake concurrent.futures.wait, the run hung).
    pool = cf.ThreadPoolExecutor(1)

    def slow(x):
        time.sleep(0.05)
        return float(x[0])

    def callback(ev):
        if ev.i == 1:
            pool.shutdown(wait=False, cancel_futures=True)  # the queued evaluations are cancelled

    with pytest.raises(optimist.ExecutorStopped, match="given back") as info:
        optimist.minimize(slow, [(0, 1)], algorithm="random", budget=20, executor=pool, n_parallel=4,
                          callback=callback, trace=tmp_path / "t.jsonl")
    res = info.value.optimist_result
    assert res.status == "cancelled" and res.n_failed == 0 and 1 <= res.nfev < 20
    check_books(res, tmp_path / "t.jsonl")


@pytest.mark.parametrize("closed_from", ["the callback", "another thread"])
def test_a_dask_client_closed_mid_run_raises_a_clear_error_with_the_result(dask_cluster, tmp_path, closed_from):
    # Closed from another thread while evaluations were under way, the client neither finished nor
    # cancelled their futures: minimize waited for ever (and a single SIGTERM could not end it).
    import distributed
    client = distributed.Client(dask_cluster)

    def slow(x):
        time.sleep(0.05 if closed_from == "the callback" else 0.3)
        return float(x[0])

    def callback(ev):
        if ev.i == 2:
            client.close()

    closer = threading.Timer(0.8, client.close) if closed_from == "another thread" else None
    if closer is not None:
        closer.start()
    t0 = time.monotonic()
    with pytest.raises(optimist.ExecutorStopped) as info:
        optimist.minimize(slow, [(0, 1)], algorithm="random", budget=30, executor=client, n_parallel=2,
                          callback=callback if closer is None else None, trace=tmp_path / "t.jsonl")
    if closer is not None:
        closer.join()
    assert time.monotonic() - t0 < 20
    res = info.value.optimist_result
    assert "Dask Client" in str(info.value) and res.status == "cancelled"
    assert res.n_failed == 0 and res.nfev < 30
    check_books(res, tmp_path / "t.jsonl")


# 7. Points a process pool cannot send.

def takes_a_function(p):
    return float(p["act"](p["lr"]))


def test_an_unpicklable_choice_is_refused_before_any_evaluation_on_a_process_pool():
    # Every evaluation failed with a PicklingError (under mark-failed, the whole budget used up).
    space = {"lr": optimist.Float(1e-3, 1.0, log=True), "act": optimist.Categorical([lambda v: v, abs])}
    with cf.ProcessPoolExecutor(2) as pool:
        with pytest.raises(TypeError, match="parameter .act.: choice <function .* cannot be pickled"):
            optimist.minimize(takes_a_function, space, algorithm="random", budget=6, executor=pool, n_parallel=2,
                              on_failure="mark-failed")


# 8. Messages.

def fails_on_tanh(p):
    if p["act"] == "tanh" or p["lr"] > 0.5:
        raise ValueError("diverged")
    return p["lr"]


def test_failure_messages_show_the_users_point():
    # They showed the internal vector at 6 digits, a categorical as its index: "x = [0.162017, 1]".
    space = {"lr": optimist.Float(1e-3, 1.0, log=True), "act": optimist.Categorical(["relu", "tanh"])}
    res = optimist.minimize(fails_on_tanh, space, algorithm="random", budget=10, seed=0, on_failure="mark-failed")
    errors = [(x, e) for x, e in zip(res.x_iters, res.history.errors) if e]
    assert errors
    for x, e in errors:
        assert e == f"objective threw at x = {{'lr': {x['lr']!r}, 'act': {x['act']!r}}}: ValueError: diverged"


def raises_value_error(x):
    raise ValueError("bad batch size")


def test_a_failure_on_dask_has_the_workers_traceback_as_its_cause(dask_client):
    with pytest.raises(ValueError, match="bad batch size") as info:
        optimist.minimize(raises_value_error, [(0, 1)], algorithm="random", budget=4, executor=dask_client)
    assert "raises_value_error" in str(info.value.__cause__)
    assert info.value.optimist_result.n_failed >= 1
