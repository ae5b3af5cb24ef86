"""minimize / maximize: one call that runs an algorithm on your function."""
from __future__ import annotations

import concurrent.futures as cf
import math
import numbers
import os
import pickle
import signal
import sys
import threading
import time
import warnings
from collections.abc import Mapping
from typing import Any, Callable, List, Optional

import numpy as np

from . import _optimist
from ._loop import Evaluation, Interrupts, drive
from ._values import shown
from ._worker import can_interrupt
from .optimizer import History, Optimizer, check_seed, fresh_seed
from .problems import Problem
from .result import OptimizeResult
from .space import Space, as_space
from .trace import read_trace


def minimize(func: Callable[[Any], float], space: Any = None, *, algorithm: str = "auto", budget: int = 100,
             seed: Optional[int] = 0, trace: Optional[str] = None, on_failure: str = "stop",
             time_limit: Optional[float] = None, target: Optional[float] = None,
             executor: Optional[cf.Executor] = None, n_parallel: Optional[int] = None,
             callback: Optional[Callable[[Evaluation], Any]] = None, progress: bool = False, model: Any = None,
             name: Optional[str] = None, resume: Optional[str] = None, noisy: Optional[bool] = None,
             objective_timeout: Optional[float] = None, x0: Any = None, **options: Any) -> OptimizeResult:
    """Minimizes ``func`` over ``space`` with one optimist algorithm; returns an OptimizeResult.

    func: takes a dict of named parameters (a space given as a dict of Float/Int/Categorical) or a
        numpy array (a space given as a list of (low, high) bounds) and returns a number. It may
        also be an ``optimist.problems`` Problem (then ``space`` is its own).
    algorithm, **options: any registered algorithm and its options (``optimist.algorithms()``,
        ``optimist list``), with the CLI's names and errors (ValueError naming the bad key or value).
    budget: number of evaluations, failed ones included; also the horizon of algorithms that plan
        with it (go-ucb). To run until ``time_limit``, give a budget larger than what fits in it. seed: the whole run is a deterministic function of it; None draws a fresh
        one from the OS's entropy (``res.seed`` and the trace record it; with ``resume``, the trace's).
    trace: write the run's trace (docs/trace-format.md) to this file, line by line as evaluations
        complete; ``optimist run --resume`` and ``optimist bench`` read it.
    on_failure: when func raises or returns NaN/inf: "stop" (default) records the failed evaluation,
        closes the trace and re-raises (the partial OptimizeResult is the exception's
        ``optimist_result``); "mark-failed" records it and goes on (it counts against the budget).
    time_limit (seconds), target (stop once a value reaches it): as ``optimist run``.
    executor, n_parallel: keep n_parallel evaluations in flight on a concurrent.futures.Executor
        (ProcessPoolExecutor, or a Dask ``Client``: its ``get_executor(pure=False)`` is used, and
        n_parallel defaults to its worker threads); a new point is asked as soon as one finishes,
        the others pending. func (and categorical choices) must then be picklable for a process
        pool. A worker that dies breaks a process pool: the evaluation that crashed it is failed,
        those that never ran are given back, and BrokenProcessPool is raised with the result; an
        executor shut down mid-run raises ExecutorStopped, likewise (docs/python.md).
    callback: called with an :class:`optimist.Evaluation` after each evaluation; returning True (or
        numpy's True) stops.
    progress: print one line per evaluation to stderr.
    model: your own parametric model for GO-UCB (:class:`optimist.ParametricModel`).
    name: the objective's name in the trace (default: func's __name__).
    resume: the trace of an earlier run of the same settings (stopped by a crash, Ctrl-C, a time
        limit or a failure): its evaluations are told first, counted in the budget and never
        repeated; the run goes on to ``budget`` (which may be larger). With ``trace`` the same
        file, it is rewritten in place (never left half-written).
    noisy: declare func noisy (a point may be worth evaluating again). Default: deterministic
        (a Problem with noise > 0: noisy): no point is evaluated twice, and the run ends with status
        "space exhausted" once every point of a finite space (integers and categoricals only) has
        been evaluated, whatever the budget.
    objective_timeout: seconds one evaluation may take (None: no limit; beyond 1e9: none, as the CLI's
        --objective-timeout). One that takes longer fails ("objective did not return within 2 s
        (timeout) at x = ..."; ObjectiveTimeout under on_failure="stop") and counts against the
        budget. Inline (the main thread only: ValueError elsewhere) and in a process pool's workers a
        SIGALRM timer interrupts the objective's Python code; C code that does not return to Python
        is not interrupted: a process pool's evaluation still running 5 s + 10% later is abandoned;
        a thread pool's or Dask's, which nothing can interrupt, at the timeout (its thread goes on,
        its result is ignored). See docs/python.md.
    x0: starting points, evaluated first and in order before any point the algorithm asks (a known
        good guess): one point or a list of points, each in the form func receives (a dict, or a
        sequence of numbers). They count against the budget and are recorded and told to the
        algorithm as its own evaluations (trace, history, callback, progress, on_failure). Checked
        before anything runs: ValueError naming the point and parameter (missing or unknown names,
        wrong length, outside the bounds, not a choice, NaN, not a number), or when there are more
        points than the budget. A deterministic func evaluates a point given twice once. The
        trace records them: ``resume`` evaluates those it does not hold yet (without x0 it takes
        the recorded ones; an x0 given with resume replaces them).

    Ctrl-C stops after the evaluations under way and returns what was done (status "cancelled");
    a second Ctrl-C aborts them. Nothing evaluated is lost: it is in the result and the trace.
    Worker processes (a process pool's, a local Dask cluster's) finish their evaluation at a
    terminal's first Ctrl-C too. SIGTERM (a scheduler's) stops as Ctrl-C does, then raises
    SystemExit(143) carrying the result as ``optimist_result`` (a second SIGTERM aborts).
    """
    return _run(func, space, "minimize", algorithm=algorithm, budget=budget, seed=seed, trace=trace,
                on_failure=on_failure, time_limit=time_limit, target=target, executor=executor,
                n_parallel=n_parallel, callback=callback, progress=progress, model=model, name=name, resume=resume,
                noisy=noisy, objective_timeout=objective_timeout, x0=x0, options=options)


def maximize(func: Callable[[Any], float], space: Any = None, *, algorithm: str = "auto", budget: int = 100,
             seed: Optional[int] = 0, trace: Optional[str] = None, on_failure: str = "stop",
             time_limit: Optional[float] = None, target: Optional[float] = None,
             executor: Optional[cf.Executor] = None, n_parallel: Optional[int] = None,
             callback: Optional[Callable[[Evaluation], Any]] = None, progress: bool = False, model: Any = None,
             name: Optional[str] = None, resume: Optional[str] = None, noisy: Optional[bool] = None,
             objective_timeout: Optional[float] = None, x0: Any = None, **options: Any) -> OptimizeResult:
    """As :func:`minimize`, maximizing func: ``fun`` is the largest value observed, ``target`` is
    reached from below, and a model of your own describes func itself. ``x0``: starting points,
    evaluated first, as in minimize."""
    return _run(func, space, "maximize", algorithm=algorithm, budget=budget, seed=seed, trace=trace,
                on_failure=on_failure, time_limit=time_limit, target=target, executor=executor,
                n_parallel=n_parallel, callback=callback, progress=progress, model=model, name=name, resume=resume,
                noisy=noisy, objective_timeout=objective_timeout, x0=x0, options=options)


def _check_positive_int(what: str, value: Any) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1 or value >= 2**63:
        limit = " below 2^63" if isinstance(value, (int, np.integer)) and value >= 2**63 else ""
        raise ValueError(f"{what} must be a positive integer{limit}, got {value!r}")
    return int(value)


def _check_optional_number(what: str, value: Any) -> Optional[float]:
    """None, or a finite real number (not text, not a bool); ValueError naming the value."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, bool)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{what} must be a number, got {value!r} of type {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return number


# A longer timeout is no timeout, as the CLI's --objective-timeout (src/core/external_objective.cpp).
_MAX_OBJECTIVE_TIMEOUT = 1e9


def _check_objective_timeout(value: Any, executor: Any, caller: str = "minimize") -> Optional[float]:
    """None or a finite positive number of seconds (None beyond 1e9 s); ValueError naming the value,
    or saying why it cannot be kept: inline, only the main thread can interrupt the objective."""
    seconds = _check_optional_number("objective_timeout", value)
    if seconds is None:
        return None
    if seconds <= 0:
        raise ValueError(f"objective_timeout must be a positive number of seconds, got {value!r}")
    if seconds > _MAX_OBJECTIVE_TIMEOUT:
        return None
    if executor is None and not can_interrupt():
        where = (f"in the thread {threading.current_thread().name!r}, not the main thread"
                 if hasattr(signal, "setitimer") else "on a system without interval timers (signal.setitimer)")
        instead = ("evaluate on a process pool (executor=concurrent.futures.ProcessPoolExecutor(...)), whose workers "
                   "interrupt it" if caller == "minimize" else "run each worker in a process of its own")
        raise ValueError(f"objective_timeout={value!r}: {caller} is called {where}, where no signal can interrupt "
                         f"the objective. Call it from the main thread, or {instead}")
    return seconds


def _is_dask_client(executor: Any) -> bool:
    return type(executor).__module__.startswith("distributed") and callable(getattr(executor, "get_executor", None))


def _is_dask_executor(executor: Any) -> bool:
    return type(executor).__module__.startswith("distributed") and hasattr(executor, "_client")


def _is_process_pool(executor: Any) -> bool:
    return isinstance(executor, cf.ProcessPoolExecutor) or "loky" in type(executor).__module__


def _check_executor(executor: Any) -> None:
    """TypeError or ValueError naming what is wrong with an executor, before any point is asked."""
    if isinstance(executor, type):
        raise TypeError(f"executor must be an executor object, got the class {executor.__name__}: create one, e.g. "
                        f"executor={executor.__name__}(max_workers=4)")
    if not callable(getattr(executor, "submit", None)):
        raise TypeError(f"executor must be a concurrent.futures.Executor or a Dask Client (something with submit()), "
                        f"got {executor!r} of type {type(executor).__name__}")
    client = executor if _is_dask_client(executor) else getattr(executor, "_client", None) \
        if _is_dask_executor(executor) else None
    if client is not None and _client_closed(client):
        raise ValueError(f"executor: the Dask Client {client!r} is {client.status}; connect a new one")
    if getattr(executor, "_shutdown", False) is True or getattr(executor, "_shutdown_thread", False) is True:
        broken = getattr(executor, "_broken", False)
        raise ValueError(f"executor: {type(executor).__name__} "
                         + (f"is broken ({broken}); create a new one" if broken
                            else "has been shut down; create a new one"))


def _dask_threads(client: Any) -> int:
    """The worker threads of a Dask Client's cluster (ValueError when it cannot be reached)."""
    try:
        return sum(client.nthreads().values())
    except Exception as e:  # noqa: BLE001 - a closed cluster: AttributeError from inside distributed
        raise ValueError(f"executor: cannot reach the cluster of the Dask Client {client!r} to count its worker "
                         f"threads ({type(e).__name__}: {e}); is it closed? (or pass n_parallel)") from None


def _submitter(executor: Any) -> Any:
    """The executor's submit. A Dask executor submits with pure=False unless it was made with an explicit
    pure=: with Dask's default (pure=True) an evaluation of a point already submitted returns Dask's
    cached result (a noisy objective observed once; the exception of an earlier run returned again)."""
    if _is_dask_executor(executor) and "pure" not in getattr(executor, "_kwargs", {}):
        return lambda fn, *args: executor.submit(fn, *args, pure=False)
    return executor.submit


def _client_closed(client: Any) -> bool:
    return getattr(client, "status", "running") in ("closing", "closed")


def _closed_check(executor: Any) -> Any:
    """For a Dask executor: whether its Client has been closed (a Client closed from another thread
    neither finishes nor cancels the futures under way; the loop would wait for ever)."""
    if not _is_dask_executor(executor):
        return None
    client = executor._client
    return lambda: _client_closed(client)


def _exit_codes(executor: Any) -> Any:
    """A process pool's worker exit codes by pid (None while alive), when the pool lets us see them."""
    if not isinstance(executor, cf.ProcessPoolExecutor):
        return None

    def exit_code(pid: int) -> Any:
        # A broken pool terminates its other workers and joins them all from its own thread: an exit
        # code is None until then, even the crashed worker's.
        process = executor._processes[pid]  # KeyError, TypeError: not known (the caller assumes a crash)
        deadline = time.monotonic() + 10.0
        while process.exitcode is None and time.monotonic() < deadline:
            time.sleep(0.01)
        return process.exitcode
    return exit_code


def _check_picklable(func: Any, space: Any, executor: Any) -> None:
    """Without this, every evaluation would fail with a PicklingError and use up the budget."""
    try:
        pickle.dumps(func)
    except Exception as e:  # noqa: BLE001 - any pickling failure
        raise TypeError(f"func must be picklable to run in a {type(executor).__name__} (a module-level function, "
                        f"not a lambda or a local function): {type(e).__name__}: {e}") from None
    for name, d in (space._dims.items() if space is not None and space.named else ()):
        for choice in getattr(d, "choices", ()):
            try:
                pickle.dumps(choice)
            except Exception as e:  # noqa: BLE001
                raise TypeError(f"parameter '{name}': choice {shown(choice)} cannot be pickled, and a "
                                f"{type(executor).__name__} sends each point to its workers pickled (use a picklable "
                                f"choice, e.g. a name the objective maps to the object): {type(e).__name__}: {e}") \
                    from None


def _x0_vectors(x0: Any, space: Space) -> Optional[List[np.ndarray]]:
    """x0 as stored vectors, each checked by space.to_vector (its error prefixed with which point);
    None when x0 is not given. Which of them run (a deterministic objective's repeats once; with
    resume, not those the trace holds; within the budget) the run decides: _Run.start_points."""
    if x0 is None:
        return None
    # Several points: a 2-d array, or a list of dicts or sequences (a list of numbers is one point).
    several = (isinstance(x0, np.ndarray) and x0.ndim > 1) or (isinstance(x0, (list, tuple)) and (
        not x0 or any(isinstance(p, (Mapping, list, tuple, np.ndarray)) for p in x0)))
    given = list(x0) if several else [x0]
    vectors = []
    for k, point in enumerate(given):
        try:
            vectors.append(space.to_vector(point))
        except (ValueError, TypeError) as e:
            raise type(e)(f"x0{f'[{k}]' if several else ''}: {e}") from None
    return vectors


def _run(func: Any, space: Any, direction: str, *, algorithm: str, budget: int, seed: Optional[int], trace: Optional[str],
         on_failure: str, time_limit: Optional[float], target: Optional[float], executor: Optional[cf.Executor],
         n_parallel: Optional[int], callback: Any, progress: bool, model: Any, name: Optional[str],
         resume: Optional[str], noisy: Optional[bool], options: dict,
         objective_timeout: Optional[float] = None, x0: Any = None) -> OptimizeResult:
    if budget is None:  # Optuna's n_trials=None: a run of optimist plans with its budget
        raise ValueError("budget must be a positive integer, got None: every run has a budget (algorithms plan with "
                         "it); to stop on time, give time_limit and a budget larger than what fits in it "
                         "(budget=100_000: the run ends at the time limit)")
    budget = _check_positive_int("budget", budget)
    target = _check_optional_number("target", target)
    time_limit = _check_optional_number("time_limit", time_limit)
    objective_timeout = _check_objective_timeout(objective_timeout, executor)
    if "direction" in options:
        raise ValueError(f"direction={options['direction']!r}: minimize and maximize set the direction; "
                         "call the other one")
    if executor is not None:
        _check_executor(executor)
    if _is_dask_client(executor):
        # A Client's submit() returns Dask futures, which concurrent.futures.wait cannot wait on:
        # its executor's are. n_parallel defaults to the cluster's worker threads.
        if n_parallel is None:
            n_parallel = max(1, _dask_threads(executor))
        executor = executor.get_executor(pure=False)
    if n_parallel is None and _is_dask_executor(executor):
        n_parallel = max(1, _dask_threads(executor._client))
    if n_parallel is None:
        n_parallel = 1 if executor is None else getattr(executor, "_max_workers", None)
        if n_parallel is None:
            raise ValueError(f"n_parallel: give the number of evaluations to keep in flight on the executor "
                             f"({type(executor).__name__} does not say how many workers it has)")
    n_parallel = _check_positive_int("n_parallel", n_parallel)
    if n_parallel > 1 and executor is None:
        raise ValueError(f"n_parallel={n_parallel} needs an executor (e.g. concurrent.futures.ProcessPoolExecutor, "
                         "or a Dask Client's get_executor())")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable or None, got {callback!r}")
    if on_failure not in ("stop", "mark-failed"):
        raise ValueError(f"on_failure must be 'stop' or 'mark-failed', got {on_failure!r}")
    if not callable(func):
        raise TypeError(f"func must be callable, got {func!r}")
    # progress="no" or name=5 were taken as they came (a truthy "no" printed progress).
    if not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string or None, got {name!r}")
    for key, path in (("trace", trace), ("resume", resume)):
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{key} must be a path (str or os.PathLike) or None, got {path!r}")

    seed = check_seed(seed)
    earlier = None if resume is None else read_trace(resume)
    if seed is None:  # a fresh seed, recorded in the result and the trace; a resume continues the trace's
        seed = fresh_seed() if earlier is None else int(earlier.meta["seed"])

    if isinstance(func, Problem):
        if space is not None and as_space(space) != func.space:
            raise ValueError(f"problem '{func.name}' has its own space; leave space out")
        if func.direction != direction:
            raise ValueError(f"problem '{func.name}' is to {func.direction}: call optimist.{func.direction}")
        space = func.space
        problem_core, noise = func._core, func.noise
        # Inline, the C++ objective with the CLI's noise stream; on an executor, the picklable Problem
        # (noisy: one draw of that stream per evaluation, function_for below).
        function = func.objective_for_run(seed) if executor is None else func
    else:
        if space is None:
            raise ValueError("a search space is needed: a dict of optimist.Float/Int/Categorical or a list of (low, high)")
        space = as_space(space)
        label = name or getattr(func, "__name__", None) or type(func).__name__
        problem_core, noise = _optimist._user_problem(str(label), space._core, direction), 0.0
        function = func
    if isinstance(executor, cf.ProcessPoolExecutor):  # (loky and Dask send closures and lambdas: cloudpickle)
        _check_picklable(func, space, executor)

    if noisy is None:
        noisy = noise > 0.0
    horizon = budget if earlier is None else _recorded_horizon(earlier.meta, budget)  # as recorded, like the CLI
    optimizer = Optimizer(space, algorithm, seed=seed, direction=direction, budget=horizon, model=model, noisy=noisy,
                          **options)
    if earlier is not None:
        _check_same_run(os.fspath(resume), earlier.meta, optimizer, noise)
        _check_same_fixed(os.fspath(resume), earlier.meta, space)
        if isinstance(func, Problem) and executor is None:  # the k-th evaluation gets the k-th noise draw
            function = func.objective_for_run(seed, first_draw=len(earlier))
    x0_vectors = _x0_vectors(x0, space)
    # A noisy problem on an executor: the k-th evaluation asked gets the k-th draw of the run's noise
    # stream, wherever it runs (a pickled Problem would restart its stream at every evaluation).
    function_for = None
    if isinstance(func, Problem) and func.noise > 0.0 and executor is not None:
        first = 0 if earlier is None else len(earlier)
        function_for = lambda k: func._draw_for_run(seed, first + k)  # noqa: E731
    if trace is not None:
        trace = os.fspath(trace)
        parent = os.path.dirname(trace)
        if parent:
            os.makedirs(parent, exist_ok=True)
    run = _optimist._Run(optimizer._core, problem_core, optimizer.options, budget, noise, time_limit, target,
                         on_failure, trace, n_parallel, None if resume is None else os.fspath(resume), x0_vectors,
                         space.fixed)
    starts = run.start_points
    if run.kept_trace:  # a finished run of this objective was at `trace`: its evaluations were paid for
        warnings.warn(f"optimist: {trace!r} held a finished run of your objective; it is kept as {run.kept_trace!r}",
                      stacklevel=3)
    if progress:
        _show_start(optimizer, budget, seed)
    with Interrupts(terminate=True) as interrupts:
        argument_of = (lambda t: t.x) if isinstance(func, Problem) else (lambda t: space.to_point(t.x))
        try:
            failure = drive(optimizer._core, run, function, argument_of,
                            submit=None if executor is None else _submitter(executor), n_parallel=n_parallel,
                            interrupts=interrupts, lock=optimizer._lock, callback=callback, progress=progress,
                            budget=budget, function_for=function_for, started_files=_is_process_pool(executor),
                            remote_cause=_is_dask_executor(executor), exit_code_of=_exit_codes(executor),
                            closed=_closed_check(executor), objective_timeout=objective_timeout,
                            in_threads=isinstance(executor, cf.ThreadPoolExecutor) or _is_dask_executor(executor),
                            start_times=isinstance(executor, cf.ThreadPoolExecutor),
                            workers=getattr(executor, "_max_workers", None), starts=starts)
        except BaseException as e:
            # The callback or the executor raised, or a second Ctrl-C; drive closed the run: the
            # evaluations so far travel with the exception, as for an objective failure.
            summary = getattr(e, "_optimist_summary", None)
            if summary is not None:
                e.optimist_result = _result(summary, optimizer, space, trace)  # type: ignore[attr-defined]
                e.add_note(f"optimist: the run stopped at evaluation {e.optimist_result.nfev} of {budget}; its "
                           "evaluations are in this exception's optimist_result"
                           + (f" and in the trace {trace}" if trace else ""))
                if interrupts.terminated and isinstance(e, cf.BrokenExecutor):
                    # A SIGTERM sent to every process of the job (Slurm, systemd) ended the pool's
                    # workers too: the evaluations they held were given back; exit as asked.
                    stop = SystemExit(128 + signal.SIGTERM)
                    stop.optimist_result = e.optimist_result  # type: ignore[attr-defined]
                    stop.add_note(f"optimist: SIGTERM stopped the run at evaluation {stop.optimist_result.nfev} of "
                                  f"{budget} and ended the pool's workers ({type(e).__name__}: the evaluations they "
                                  "held were given back); its evaluations are in this exception's optimist_result"
                                  + (f" and in the trace {trace}" if trace else ""))
                    raise stop from e
            raise
        with optimizer._lock:
            summary = run.finish()
    result = _result(summary, optimizer, space, trace)
    for note in result.notes:
        warnings.warn(f"optimist: {note}", stacklevel=3)
    if failure is not None and summary["stop_reason"] == "objective failed":
        failure.optimist_result = result  # type: ignore[attr-defined]
        failure.add_note(f"optimist: the run stopped at evaluation {result.nfev} of {budget} (on_failure='stop'); "
                         "its evaluations are in this exception's optimist_result"
                         + (f" and in the trace {trace}" if trace else ""))
        raise failure
    if interrupts.terminated:
        # A scheduler's SIGTERM: the evaluations under way were waited for and kept, the trace is
        # closed; now the process ends as asked (as Study.optimize does), the result on the way out.
        stop = SystemExit(128 + signal.SIGTERM)
        stop.optimist_result = result  # type: ignore[attr-defined]
        stop.add_note(f"optimist: SIGTERM stopped the run at evaluation {result.nfev} of {budget}; its evaluations "
                      "are in this exception's optimist_result" + (f" and in the trace {trace}" if trace else ""))
        raise stop
    return result


def _show_start(optimizer: Optimizer, budget: int, seed: int) -> None:
    """progress=True: the first line says what runs (what auto chose, and why) with which seed."""
    decisions = optimizer.decisions()
    if decisions.get("algorithm"):
        chosen = decisions["algorithm"]
        if decisions.get("options"):
            chosen += " (" + ", ".join(f"{k}={v}" for k, v in decisions["options"].items()) + ")"
        line = f"{optimizer.algorithm} chose {chosen} (seed {seed}, budget {budget})"
        if decisions.get("reason"):
            line += f": {decisions['reason']}"
    else:
        line = f"{optimizer.algorithm} (seed {seed}, budget {budget})"
    if decisions.get("resolved"):  # options left at "auto" and what they became (gp-ei's prior, ...)
        line += "; auto options: " + ", ".join(f"{k}={v}" for k, v in decisions["resolved"].items())
    print(f"optimist: {line}", file=sys.stderr, flush=True)


def _recorded_options(meta: dict) -> dict:
    """A trace's algorithm options; traces written before the run's seed and horizon left the options
    (docs/trace-format.md, "Older traces") held them as "seed" and "budget"."""
    options = dict(meta.get("options", {}))
    if "seed" in options:
        options.pop("seed")
        options.pop("budget", None)
    return options


def _recorded_horizon(meta: dict, budget: int) -> Optional[int]:
    """The horizon a trace's run planned with: its meta "horizon", or an older trace's "budget" option
    (0: none); the budget when an older trace's algorithm had none (it does not plan with one)."""
    options = meta.get("options", {})
    if "seed" in options:
        return options.get("budget", budget) or None
    return meta.get("horizon")


def _check_same_run(path: str, meta: dict, optimizer: Optimizer, noise: float) -> None:
    """ValueError unless the trace at `path` is a run of this algorithm, options, seed and noise."""
    if meta["algorithm"] != optimizer.algorithm or meta["seed"] != optimizer.seed:
        raise ValueError(f"resume: '{path}' is a run of {meta['algorithm']} with seed {meta['seed']}; this call runs "
                         f"{optimizer.algorithm} with seed {optimizer.seed}")
    recorded = _recorded_options(meta)
    differ = sorted(k for k in set(recorded) | set(optimizer.options) if recorded.get(k) != optimizer.options.get(k))
    if differ:
        raise ValueError(f"resume: '{path}' was run with other options: " + ", ".join(
            f"{k} = {recorded.get(k)!r} there, {optimizer.options.get(k)!r} here" for k in differ))
    if (meta.get("noise") or 0.0) != noise:
        raise ValueError(f"resume: '{path}' has noise {meta.get('noise')}, this run {noise}")
    recorded_noisy = meta.get("noisy", (meta.get("noise") or 0.0) > 0.0)  # older traces: noise > 0
    if recorded_noisy != optimizer.noisy:
        raise ValueError(f"resume: '{path}' is a run with noisy={recorded_noisy}, this run has noisy={optimizer.noisy}")


def _as_written(value: Any) -> Any:
    """A fixed value as a trace's meta holds it (JSON: a non-finite number is null)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str):
        return value
    number = float(value)
    if not math.isfinite(number):
        return None
    return int(value) if isinstance(value, numbers.Integral) else number


def _check_same_fixed(path: str, meta: dict, space: Space) -> None:
    """ValueError unless the trace at `path` was run with the fixed parameters of `space` (run.fixed
    in its meta). A trace that records none was run without any, or written before optimist recorded
    them: resuming it with fixed parameters warns that they are unchecked."""
    here = {k: _as_written(v) for k, v in space.fixed.items()}
    run = meta.get("run") or {}
    if "fixed" not in run:
        if here:
            warnings.warn(f"resume: '{path}' records no fixed parameters (a run without them, or a trace written "
                          f"before optimist recorded them): resuming with {here!r} unchecked", stacklevel=4)
        return
    there = run["fixed"] if isinstance(run["fixed"], dict) else {}
    differ = [k for k in list(there) + [k for k in here if k not in there] if there.get(k, ...) != here.get(k, ...)]
    if differ:
        shown = lambda d, k: repr(d[k]) if k in d else "not fixed"  # noqa: E731
        raise ValueError(f"resume: '{path}' was run with other fixed parameters: " + ", ".join(
            f"{k} = {shown(there, k)} there, {shown(here, k)} here" for k in differ))


def _result(summary: dict, optimizer: Optimizer, space: Space, trace: Optional[str]) -> OptimizeResult:
    evaluations = summary["evaluations"]
    history = History(space, evaluations)
    point = lambda v: None if v is None else space.to_point(v)  # noqa: E731
    return OptimizeResult(
        x=point(summary["best_x"]), fun=summary["best_y"],
        x_iters=history.x, func_vals=history.y,
        recommended_x=point(summary["recommended_x"]), recommended_f=summary["recommended_f"],
        nfev=len(history), n_failed=summary["n_failed"],
        success=summary["stop_reason"] != "objective failed" and summary["best_y"] is not None,
        status=summary["stop_reason"], message=summary["message"],
        best_f=summary["best_f"], simple_regret=summary["simple_regret"], cum_regret=summary["cum_regret"],
        history=history,
        timings=dict(total_s=summary["total_s"], suggest_s=summary["suggest_s"], tell_s=summary["tell_s"],
                     eval_s=float(np.sum(evaluations["eval_s"]))),
        trace=trace, optimizer=optimizer, algorithm=optimizer.algorithm, options=optimizer.options,
        decisions=optimizer.decisions(),
        seed=optimizer.seed, space=space, notes=list(summary.get("notes", [])))
