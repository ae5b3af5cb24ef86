"""The trace's lock ends with its run: a run is continued (resume=) in the same session.

Before stop 61 the lock outlived the run in two ways: process-pool workers forked during the run
shared the locked file, and a failed run's exception (its traceback keeps the run alive) held it
until garbage collection. Both refused the documented next step, resume=, with "being written by
another process"."""
import concurrent.futures as cf
import multiprocessing

import numpy as np
import pytest

import optimist


def quadratic(x):
    return float(np.sum((np.asarray(x) - 0.3) ** 2))


class FailsAt:
    """Raises on the k-th call (module level: picklable)."""

    def __init__(self, k):
        self.k, self.calls = k, 0

    def __call__(self, x):
        self.calls += 1
        if self.calls == self.k:
            raise RuntimeError("the simulator crashed")
        return quadratic(x)


def test_a_pool_forked_during_a_run_does_not_keep_its_trace_locked(tmp_path):
    trace = str(tmp_path / "run.jsonl")
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        first = optimist.minimize(quadratic, [(0, 1), (0, 1)], algorithm="random", budget=4, seed=0,
                                  executor=pool, n_parallel=2, trace=trace)
        assert first.nfev == 4
        # The pool's workers are alive and were forked while the trace was locked.
        more = optimist.minimize(quadratic, [(0, 1), (0, 1)], algorithm="random", budget=7, seed=0,
                                 executor=pool, n_parallel=2, trace=trace, resume=trace)
    assert more.nfev == 7
    assert len(optimist.read_trace(trace).evaluations) == 7


def test_a_failed_run_is_resumed_while_its_exception_is_alive(tmp_path):
    trace = str(tmp_path / "run.jsonl")
    with pytest.raises(RuntimeError, match="simulator crashed") as failure:
        optimist.minimize(FailsAt(3), [(0, 1)], algorithm="random", budget=6, seed=0, trace=trace)
    assert failure.value is not None  # the exception (and through it the run) is still referenced
    resumed = optimist.minimize(quadratic, [(0, 1)], algorithm="random", budget=6, seed=0, trace=trace, resume=trace)
    assert resumed.nfev == 6
    assert resumed.nfev - resumed.n_failed == 5  # the failed evaluation is kept, not run again
