"""The loop behind minimize/maximize: ask, evaluate (inline or on an executor), record.

Evaluations are asked one at a time as slots free up, so up to ``n_parallel`` are in flight and the
algorithm sees the others as pending. Each outcome goes to the C++ RunRecorder (``_optimist._Run``),
which tells it, keeps the books and writes the trace exactly as ``optimist run`` does; with
``n_parallel=1`` and no executor the sequence of asks and tells is the CLI's, point for point.
"""
from __future__ import annotations

import concurrent.futures as cf
import concurrent.futures.process  # noqa: F401 - cf.process.BrokenProcessPool
import math
import os
import signal
import sys
import tempfile
import shutil
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from . import _optimist, _worker
from ._values import ObjectiveError, described, is_truth_value, not_a_number, seconds_text, shown, shown_point
from ._worker import (Raised, RemoteTraceback, StartTime, TimedOut, driver_identity, raised_by_objective,
                      timed_call, timeout_error)


def _is_true(value: Any) -> bool:
    """True or numpy's True (a callback's "stop")."""
    return value is True or (isinstance(value, np.bool_) and bool(value))


@dataclass(frozen=True)
class Evaluation:
    """One recorded evaluation, as given to ``callback``: its 1-based index ``i``, the point ``x``
    (as the objective received it), the observed ``y`` (None when it failed), ``failed``,
    ``error``, and ``best_f``, the best value so far."""

    i: int
    x: Any
    y: Optional[float]
    failed: bool
    error: Optional[str]
    best_f: Optional[float]




def _inline(function: Callable[[Any], Any], argument: Any, timeout: Optional[float] = None) -> cf.Future:
    future: cf.Future = cf.Future()
    try:
        future.set_result(timed_call(function, argument, remote=False, timeout=timeout))
    except BaseException as e:  # noqa: BLE001 - a failure of the objective (timed_call returns the others)
        future.set_exception(e)
    return future


class Interrupts:
    """Ctrl-C during a run: the first stops it after the evaluations under way (they are paid for)
    and minimize returns what was done; the second raises KeyboardInterrupt at once. Only the main
    thread can catch signals; elsewhere Ctrl-C keeps Python's default behaviour."""

    def __init__(self, terminate: bool = False) -> None:
        """terminate: SIGTERM (what a scheduler sends a job) is handled as Ctrl-C is, the second
        one raising SystemExit(143); `terminated` says one came, so the caller can exit after
        telling what was evaluated."""
        self.requested = False
        self.terminated = False
        self._signals = (signal.SIGINT, signal.SIGTERM) if terminate else (signal.SIGINT,)
        self._previous: Dict[int, Any] = {}
        self._pid = os.getpid()

    def __enter__(self) -> "Interrupts":
        if threading.current_thread() is threading.main_thread():
            for signum in self._signals:
                self._previous[signum] = signal.signal(signum, self._handler)
        return self

    def _handler(self, signum: int, frame: Any) -> None:
        if signum == signal.SIGTERM and os.getpid() != self._pid:
            # A process the objective forked (a multiprocessing pool, whose terminate() sends
            # SIGTERM): the signal keeps its default action there.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        if signum == signal.SIGTERM:
            if self.requested:
                raise SystemExit(128 + signal.SIGTERM)
            self.requested = self.terminated = True
            print("\noptimist: SIGTERM: stopping after the evaluation under way (SIGTERM again to abort it)",
                  file=sys.stderr, flush=True)
            return
        # A process-pool worker forked during the run inherits this handler. A terminal's Ctrl-C
        # reaches the workers too: the first lets their evaluation finish (the parent stops the
        # run after it), the second aborts it, as in the parent.
        if os.getpid() != self._pid:
            if _worker.worker_interrupted:
                raise KeyboardInterrupt
            _worker.worker_interrupted = True
            return
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\noptimist: Ctrl-C: stopping after the evaluations under way (Ctrl-C again to abort them)",
              file=sys.stderr, flush=True)

    def __exit__(self, *exc: Any) -> None:
        for signum, previous in self._previous.items():
            if previous is None:  # installed from C: Python's own default
                previous = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
            signal.signal(signum, previous)


class ExecutorStopped(RuntimeError):
    """The executor cancelled evaluations in flight or refused new ones (it was shut down: a closed Dask
    Client or cluster, ``shutdown(cancel_futures=True)``): the run stopped, keeping what was evaluated."""


@dataclass
class _InFlight:
    trial: Any
    suggest_s: float
    submitted: float
    started: Optional[str]  # the file the worker creates when it starts (process pools), else None
    clock: Optional[StartTime] = None  # a thread pool's, with objective_timeout: when it started
    started_at: Optional[float] = None  # time.monotonic() at its start, once known (objective_timeout)


class _Books:
    """Turns finished futures into records (never raising: every outcome is recorded, given back or
    noted), and keeps what the run must do next: the first objective failure, an executor that broke
    or cancelled, a Ctrl-C that must abort."""

    def __init__(self, run: "_optimist._Run", interrupts: "Interrupts", point_of: Callable[[Any], Any],
                 inline: bool, remote_cause: bool, exit_code_of: Optional[Callable[[int], Optional[int]]] = None) -> None:
        self.run, self.interrupts, self.point_of, self.inline = run, interrupts, point_of, inline
        self.exit_code_of = exit_code_of
        self.remote_cause = remote_cause
        self.first_failure: Optional[BaseException] = None
        self.abort: Optional[BaseException] = None  # the user's second Ctrl-C, inline
        self.refused: Optional[BaseException] = None  # submit() raised
        self.cancelled = 0  # evaluations the executor cancelled
        self.broken: Optional[BaseException] = None  # the executor's BrokenExecutor
        self.crashed = self.given_back = 0  # under a broken executor: failed, given back

    def at(self, trial: Any) -> str:
        try:
            return shown_point(self.point_of(trial))
        except Exception:  # noqa: BLE001
            return shown_point(trial.x)

    def outcome(self, future: cf.Future, entry: _InFlight) -> Optional[Dict[str, Any]]:
        """Records a finished evaluation and returns its record; None when it was given back. Whatever
        the objective returned or raised is recorded (a value whose float() or an exception whose
        str() raises included); only the run's own errors (a trace that cannot be written) raise."""
        return self._outcome(future, entry)

    def _may_have_crashed(self, started: str) -> bool:
        """Whether the evaluation whose start file is `started` can have crashed its worker: it had
        started, and its worker did not end by the pool's own SIGTERM (a broken pool terminates the
        workers that were fine)."""
        try:
            with open(started) as f:
                pid = int(f.read() or 0)
        except (OSError, ValueError):
            return False  # never started
        if self.exit_code_of is None or not pid:
            return True
        try:
            code = self.exit_code_of(pid)
        except Exception:  # noqa: BLE001 - the pool's books are gone: it may have
            return True
        return code != -signal.SIGTERM  # None: still alive after a while, unknown

    def _give_back(self, trial: Any) -> None:
        self.run.abandon(trial)

    def _failed(self, entry: _InFlight, error: str, exception: Optional[BaseException],
                eval_s: Optional[float] = None) -> Dict[str, Any]:
        if eval_s is None:  # a failure's time is seen from here: submission to completion
            eval_s = time.perf_counter() - entry.submitted
        record = self.run.record_failure(entry.trial, error, entry.suggest_s, eval_s)
        if exception is not None and self.first_failure is None:
            self.first_failure = exception
        return record

    def _outcome(self, future: cf.Future, entry: _InFlight) -> Optional[Dict[str, Any]]:
        trial = entry.trial
        if future.cancelled():
            # Not by the loop (it cancels only when it gives up): the executor was shut down.
            self._give_back(trial)
            self.cancelled += 1
            return None
        exception = future.exception()
        eval_s = None
        if exception is None:
            value, eval_s = future.result()
            if isinstance(value, TimedOut):
                return self.timed_out(entry, value.limit, "it was interrupted", eval_s, value.where)
            if not isinstance(value, Raised):
                return self._value(entry, value, eval_s)
            exception = value.exception
            if exception.__cause__ is None and exception.__traceback__ is None:
                exception.__cause__ = RemoteTraceback(value.traceback_text)
        from_objective = raised_by_objective(exception)
        if isinstance(exception, KeyboardInterrupt) and self.interrupts.requested:
            # The user's Ctrl-C ended the evaluation (a process-pool worker started before the run keeps
            # Python's handler; inline, it is the second Ctrl-C): nothing was observed, it is given back.
            # A KeyboardInterrupt the objective raised itself (no Ctrl-C) is a failure like any other.
            self._give_back(trial)
            if self.inline and self.abort is None:
                self.abort = exception
            return None
        if isinstance(exception, cf.CancelledError) and not from_objective:
            self._give_back(trial)
            self.cancelled += 1
            return None
        if isinstance(exception, cf.BrokenExecutor) and not from_objective:
            # A worker process died (os._exit, a segfault, the OOM killer): the pool fails every
            # evaluation it held. Those that had started can have crashed it: failed. The others never
            # ran: given back (a resume asks them again), not counted against the budget.
            if self.broken is None:
                self.broken = exception
            if entry.started is not None and not self._may_have_crashed(entry.started):
                self._give_back(trial)
                self.given_back += 1
                return None
            self.crashed += 1
            return self._failed(entry, f"the worker process evaluating x = {self.at(trial)} died: "
                                       f"{described(exception)}", exception)
        if self.remote_cause and exception.__cause__ is None:
            text = getattr(exception, "_optimist_traceback", None)
            if text:
                exception.__cause__ = RemoteTraceback(text)
        return self._failed(entry, f"objective threw at x = {self.at(trial)}: {described(exception)}", exception,
                            eval_s)

    def _value(self, entry: _InFlight, value: Any, eval_s: float) -> Dict[str, Any]:
        trial = entry.trial
        if isinstance(value, (str, bytes, bytearray)) or is_truth_value(value):
            problem = not_a_number(value)
        else:
            try:
                y = float(value)
                problem = None if math.isfinite(y) else repr(y)
            except (TypeError, ValueError, OverflowError):
                problem = not_a_number(value)
            except Exception as e:  # noqa: BLE001 - a __float__ that breaks: the value is not a number
                problem = f"{shown(value)} of type {type(value).__name__}, whose float() raised {described(e)}"
        if problem is not None:
            error = ObjectiveError(f"objective returned {problem} at x = {self.at(trial)}")
            return self._failed(entry, str(error), error, eval_s)
        record = self.run.record(trial, y, entry.suggest_s, eval_s)
        return record

    def timed_out(self, entry: _InFlight, limit: float, how: str, eval_s: Optional[float] = None,
                  where: str = "") -> Dict[str, Any]:
        """Records an evaluation that ran past objective_timeout (worded as the CLI's "did not answer
        within 3 s (timeout); it was killed"); `where`: the stack at its interruption."""
        error = timeout_error(limit, f"x = {self.at(entry.trial)}", how, where)
        return self._failed(entry, str(error), error, eval_s)


def _broken_error(books: _Books) -> BaseException:
    cause = books.broken
    kind = cf.process.BrokenProcessPool if isinstance(cause, cf.process.BrokenProcessPool) else cf.BrokenExecutor
    error = kind(f"the executor is broken: a worker process died ({described(cause)}). {books.crashed} evaluation(s) "
                 f"running in a worker that died are recorded as failed; {books.given_back} that had not started, or "
                 "that the broken pool stopped, were given back (not counted: a resume asks them again). The run "
                 "cannot go on with a broken pool: create a new one (resume=trace continues the run)")
    error.__cause__ = cause
    return error


def _cancelled_error(books: _Books) -> BaseException:
    given_back = (f"{books.cancelled} evaluation(s) in flight that it cancelled were given back (not counted: a resume "
                  "asks them again); " if books.cancelled else "")
    if books.refused is not None:
        why = described(books.refused).splitlines()[0]
        why = why if len(why) <= 200 else why[:197] + "..."
        error = ExecutorStopped(f"the executor refused a new evaluation ({why}): shut down, its Dask Client closed, "
                                f"or a point or objective it cannot send? The run stopped; {given_back}the evaluations "
                                "finished before are kept")
        error.__cause__ = books.refused
        return error
    return ExecutorStopped(f"the executor was shut down during the run (a closed Dask Client or cluster, or "
                           f"shutdown(cancel_futures=True)): {given_back}the evaluations finished before are kept")


def _wait(in_flight: Dict[cf.Future, _InFlight], closed: Optional[Callable[[], bool]] = None,
          deadline: Optional[Callable[[], Optional[float]]] = None, poll: float = 0.2) -> set:
    """The futures done, waiting for one. A future its executor cancelled without notifying waiters (a
    ThreadPoolExecutor's shutdown(cancel_futures=True) does so with the queued ones) never wakes
    concurrent.futures.wait: those are looked for every `poll` s. closed(): the executor is gone (a Dask
    Client closed from another thread), so its futures will never finish: they end as cancelled.
    deadline(): the time.monotonic() of the earliest objective_timeout backstop (None: none yet); the
    wait ends there, done or not (an empty set)."""
    while True:
        timeout = poll
        if deadline is not None:
            until = deadline()
            if until is not None:
                timeout = min(poll, until - time.monotonic())
                if timeout <= 0:
                    return {f for f in in_flight if f.done()}
        done, _ = cf.wait(list(in_flight), timeout=timeout, return_when=cf.FIRST_COMPLETED)
        done = set(done) | {f for f in in_flight if f.cancelled()}
        if not done and closed is not None and closed():
            for f in in_flight:
                try:
                    f.set_exception(cf.CancelledError("the executor was closed"))
                except cf.InvalidStateError:
                    pass  # it finished meanwhile
            done = set(in_flight)
        if done:
            return done


# objective_timeout: how long after the timeout a process pool's evaluation, which its worker's timer
# should have interrupted, is waited for before it is failed here (seconds, fraction of the timeout).
BACKSTOP_GRACE = (5.0, 0.1)


def _grace(timeout: float) -> float:
    return BACKSTOP_GRACE[0] + BACKSTOP_GRACE[1] * timeout


class _Backstop:
    """objective_timeout seen from the driver of an executor. Where the evaluation runs in a worker's
    main thread (a process pool's), the worker's timer interrupts it and sends back a TimedOut; an
    evaluation still not done `grace` (5 s + 10%) later is stuck where no signal reaches (C code) and
    is failed here. Where it runs in a thread (a thread pool, Dask), nothing can interrupt it: it is
    failed at the timeout (grace 0). A failed evaluation is abandoned: its future is left to finish
    (never told), its worker counted as busy until then."""

    def __init__(self, timeout: float, in_threads: bool, workers: Optional[int], n_parallel: int) -> None:
        self.timeout = timeout
        self.in_threads = in_threads
        self.grace = 0.0 if in_threads else _grace(timeout)
        self.workers = max(workers or n_parallel, n_parallel)
        self.abandoned: List[Any] = []  # [(future, when to stop waiting for its worker)]
        self.poll = min(0.2, max(0.01, timeout / 4))  # how often the loop looks for starts and deadlines

    def _start(self, entry: _InFlight) -> Optional[float]:
        """When the evaluation started (time.monotonic()): a thread pool's StartTime, a process pool's
        start file (written by the worker as it starts), else (Dask) when it was submitted."""
        if entry.started_at is None:
            if entry.clock is not None:
                entry.started_at = entry.clock.at
            elif entry.started is not None:
                try:
                    ago = time.time() - os.stat(entry.started).st_mtime
                except OSError:
                    return None  # queued: not started yet
                entry.started_at = time.monotonic() - max(0.0, ago)
            else:
                entry.started_at = time.monotonic() - (time.perf_counter() - entry.submitted)
        return entry.started_at

    def _deadline(self, entry: _InFlight) -> Optional[float]:
        start = self._start(entry)
        return None if start is None else start + self.timeout + self.grace

    def next_deadline(self, in_flight: Dict[cf.Future, _InFlight]) -> Optional[float]:
        deadlines = [d for f, e in in_flight.items() if not f.done() and (d := self._deadline(e)) is not None]
        return min(deadlines, default=None)

    def expired(self, in_flight: Dict[cf.Future, _InFlight]) -> List[cf.Future]:
        now = time.monotonic()
        return [f for f, e in in_flight.items()
                if not f.done() and (d := self._deadline(e)) is not None and d <= now]

    def abandon(self, books: _Books, future: cf.Future, entry: _InFlight) -> Dict[str, Any]:
        """Records the evaluation as failed by its timeout and stops waiting for it."""
        # Not cancelled: it is under way (a Dask future cancelled would free its slot for the next
        # evaluation, which would then wait behind it); its result, if any, is never looked at.
        now = time.monotonic()
        self.abandoned.append((future, now + self.timeout + _grace(self.timeout)))
        if self.in_threads:
            how = ("abandoned: it runs in a thread, which nothing can interrupt, and may still be running (its "
                   "result is ignored)")
        else:
            how = (f"not stopped {seconds_text(round(self.grace, 3))} s later either (C code that does not return "
                   "to Python cannot be interrupted), abandoned: its worker may still be running it (its result "
                   "is ignored)")
        return books.timed_out(entry, self.timeout, how, now - (entry.started_at or now))

    def capacity(self, n_parallel: int) -> int:
        """How many evaluations may be in flight: fewer while abandoned ones still hold workers."""
        self.abandoned = [(f, t) for f, t in self.abandoned if not f.done()]
        return n_parallel if not self.abandoned else min(n_parallel, self.workers - len(self.abandoned))

    def wait_for_a_worker(self, stop_waiting: Callable[[], bool]) -> bool:
        """Every worker holds an abandoned evaluation: waits for one to end (True; also when
        stop_waiting() says so), or until each has had another timeout + 5 s + 10% (False)."""
        while self.capacity(1) <= 0:
            if stop_waiting():
                return True
            if all(t <= time.monotonic() for _, t in self.abandoned):
                return False
            cf.wait([f for f, _ in self.abandoned], timeout=0.2, return_when=cf.FIRST_COMPLETED)
        return True

    def stuck_error(self) -> BaseException:
        return ExecutorStopped(
            f"all {len(self.abandoned)} workers of the executor are still running evaluations that timed out "
            f"(objective_timeout={seconds_text(self.timeout)} s) long after they were abandoned (C code that does "
            "not return to Python, or threads, cannot be interrupted): the run stopped; the evaluations done are "
            "kept. End those workers (a new pool) and resume=trace to go on")


def drive(optimizer: "_optimist._Optimizer", run: "_optimist._Run", function: Callable[[Any], Any],
          argument_of: Callable[[Any], Any], *, submit: Optional[Callable[..., cf.Future]],
          n_parallel: int, interrupts: Interrupts, lock: threading.Lock,
          callback: Optional[Callable[[Evaluation], Any]] = None, progress: bool = False, budget: int = 0,
          function_for: Optional[Callable[[int], Callable[[Any], Any]]] = None, started_files: bool = False,
          remote_cause: bool = False, exit_code_of: Optional[Callable[[int], Optional[int]]] = None,
          closed: Optional[Callable[[], bool]] = None, objective_timeout: Optional[float] = None,
          in_threads: bool = False, start_times: bool = False,
          workers: Optional[int] = None, starts: Sequence[np.ndarray] = ()) -> Optional[BaseException]:
    """Runs until the run stops and nothing is in flight. Returns the first objective failure (the
    exception to re-raise when on_failure="stop" ended the run), None otherwise. On any exception of
    its own (a second Ctrl-C, a callback that raises, an executor that broke or was shut down) it
    records what finished, gives back what is in flight, closes the run (the trace stays complete)
    and raises, the run's summary as the exception's `_optimist_summary`.

    submit(fn, *args): the executor's (None: inline). function_for(k): the function for the k-th
    evaluation submitted in this call (a noisy problem's k-th draw), else `function`. started_files:
    each evaluation creates a file when it starts (process pools: after a crash, which had started);
    exit_code_of(pid): a pool worker's exit code (None: alive), to tell the worker that crashed from
    those the broken pool terminated.
    objective_timeout (seconds): inline and in a worker's main thread, a timer interrupts the objective
    (timed_call); on an executor, the _Backstop fails an evaluation not done in time. in_threads: the
    executor runs evaluations in threads (a thread pool, Dask: no grace after the timeout);
    start_times: in threads of this process (a thread pool: they note when they start); workers: the
    executor's, when known. starts: stored vectors to evaluate first, in order (minimize's x0).
    `lock` is the optimizer's (held around every call into it)."""
    in_flight: Dict[cf.Future, _InFlight] = {}  # in submission order
    asked: List[Any] = []  # asked, not yet submitted
    starts = list(starts)
    books = _Books(run, interrupts, argument_of, submit is None, remote_cause, exit_code_of)
    folder = tempfile.mkdtemp(prefix="optimist-started-") if started_files and submit is not None else None
    submitted_count = 0
    driver = driver_identity()
    backstop = None
    if objective_timeout is not None and submit is not None:
        backstop = _Backstop(objective_timeout, in_threads, workers, n_parallel)

    def told(record: Dict[str, Any], entry: _InFlight) -> None:
        if progress:
            _show(record, budget, books.at(entry.trial) if record["failed"] else "")
        if callback is not None:
            evaluation = Evaluation(record["i"], argument_of(entry.trial), record["y"], record["failed"],
                                    record["error"], record["best_f"])
            # True stops, numpy's too (`np.mean(losses) < 0.1` is an np.bool_, which `is True`
            # missed); other truthy values do not (a callback ending in file.write returns an int).
            if _is_true(callback(evaluation)):
                run.stop("cancelled")

    try:
        while True:
            while True:
                room = n_parallel if backstop is None else backstop.capacity(n_parallel)
                if not (not run.stopped and not interrupts.requested and books.refused is None
                        and books.broken is None and len(in_flight) < room and run.remaining > len(in_flight)):
                    break
                if run.time_is_up():
                    run.stop("time limit")
                    break
                start = time.perf_counter()
                n = min(room - len(in_flight), run.remaining - len(in_flight))
                with lock:
                    if starts:
                        # Points the algorithm did not ask: pending as its own (as a study's queued
                        # points), so that they are recorded, told and given back like them.
                        asked = [optimizer.add_pending(x) for x in starts[:n]]
                        del starts[:n]
                    else:
                        try:
                            asked = optimizer.ask(n)
                        except _optimist.SpaceExhausted:
                            # Every point left is in flight (a deterministic objective on a finite space):
                            # wait for them; the run then stops as "space exhausted".
                            asked = []
                if not asked:
                    break
                suggest_s = (time.perf_counter() - start) / len(asked)
                while asked:
                    trial = asked[0]
                    fn = function if function_for is None else function_for(submitted_count)
                    submitted = time.perf_counter()
                    started = None if folder is None else os.path.join(folder, str(submitted_count))
                    clock = StartTime() if start_times and objective_timeout is not None else None
                    if submit is None:
                        future = _inline(fn, argument_of(trial), objective_timeout)
                    else:
                        try:
                            future = submit(timed_call, fn, argument_of(trial), started if clock is None else clock,
                                            True, driver, objective_timeout)
                        except cf.BrokenExecutor as e:
                            # A worker died: the futures in flight say which evaluations it took down.
                            if books.broken is None:
                                books.broken = e
                            break
                        except Exception as e:  # noqa: BLE001 - shut down, a closed Dask Client
                            books.refused = e
                            break
                    asked.pop(0)
                    submitted_count += 1
                    in_flight[future] = _InFlight(trial, suggest_s, submitted, started, clock)
                if asked:
                    with lock:
                        for trial in asked:
                            run.abandon(trial)
                    asked = []
            # (A broken pool's futures end in several batches: its stop waits for the last one, so that
            # the evaluation that crashed it stops a run under on_failure="stop" as a failure.)
            if interrupts.requested or books.refused is not None or books.cancelled:
                run.stop("cancelled")
            if not in_flight:
                if books.broken is not None:
                    run.stop("cancelled")  # ignored when the crash already stopped the run as failed
                    raise _broken_error(books)
                if books.refused is not None or books.cancelled:
                    raise _cancelled_error(books)
                if (backstop is not None and not run.stopped and run.remaining > 0
                        and backstop.capacity(n_parallel) <= 0):
                    # Every worker holds an evaluation that timed out: one must end before the next.
                    if not backstop.wait_for_a_worker(lambda: interrupts.requested or run.time_is_up()):
                        run.stop("cancelled")
                        raise backstop.stuck_error()
                    if run.time_is_up():
                        run.stop("time limit")
                    continue
                return books.first_failure
            done = _wait(in_flight, closed, *(() if backstop is None else
                                              (lambda: backstop.next_deadline(in_flight), backstop.poll)))
            for future in [f for f in in_flight if f in done]:  # simultaneous completions in submission order
                entry = in_flight.pop(future)
                with lock:
                    record = books.outcome(future, entry)
                if books.abort is not None:
                    raise books.abort
                if record is None:
                    continue
                told(record, entry)
            for future in [] if backstop is None else backstop.expired(in_flight):
                entry = in_flight.pop(future)
                with lock:
                    record = backstop.abandon(books, future, entry)
                told(record, entry)
    except BaseException as e:
        stopping: List[str] = []
        if folder is not None and interrupts.requested and isinstance(e, (KeyboardInterrupt, SystemExit)):
            # The user's second Ctrl-C (or SIGTERM) aborts: the pool's workers still evaluating are
            # told to stop too (a terminal's Ctrl-C reaches them; kill -INT or Jupyter's does not).
            stopping = _stop_workers(folder, [entry.started for future, entry in in_flight.items()
                                              if entry.started is not None and not future.done()])
        with lock:
            for future, entry in in_flight.items():
                # An evaluation already finished (the callback raised while others completed) is
                # paid for: recorded. The rest are given back. Nothing here may raise again: the run
                # must be closed (its trace's last line written) whatever happened.
                try:
                    if future.done() and not future.cancelled():
                        books.outcome(future, entry)
                    else:
                        future.cancel()
                        run.abandon(entry.trial)
                except BaseException:  # noqa: BLE001
                    try:
                        run.abandon(entry.trial)
                    except BaseException:  # noqa: BLE001 - already recorded
                        pass
            for trial in asked:
                try:
                    run.abandon(trial)
                except BaseException:  # noqa: BLE001
                    pass
            run.stop("cancelled")
            summary = run.finish()
        try:
            e._optimist_summary = summary  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - an exception without a __dict__: the caller goes without
            pass
        if stopping:
            _wait_for_workers(stopping)
        raise
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _stop_workers(folder: str, started: List[str]) -> List[str]:
    """Asks the pool workers running these evaluations (their start files) to abort them: creates the
    folder's `abort` file, which their SIGINT handler looks for, and sends each one SIGINT. Returns the
    markers of the evaluations signalled (removed by the worker when its evaluation ends)."""
    try:
        os.close(os.open(os.path.join(folder, "abort"), os.O_CREAT | os.O_WRONLY, 0o600))
    except OSError:
        return []
    signalled = []
    for path in started:
        running = path + ".running"
        try:
            if not os.path.exists(running):
                continue  # not started, or over
            with open(path) as f:
                pid = int(f.read() or 0)
            if pid > 0 and pid != os.getpid():
                os.kill(pid, signal.SIGINT)
                signalled.append(running)
        except (OSError, ValueError):
            pass
    return signalled


def _wait_for_workers(running: List[str], timeout: float = 2.0) -> None:
    """Waits (up to `timeout`) for the signalled workers to end their evaluations, so that the pool is
    idle when the exception reaches a `with` block's shutdown. A further Ctrl-C ends the wait."""
    try:
        deadline = time.monotonic() + timeout
        while any(os.path.exists(r) for r in running) and time.monotonic() < deadline:
            time.sleep(0.02)
    except KeyboardInterrupt:
        pass


def _reason(error: Optional[str], at: str, limit: int = 60) -> str:
    """A failure's reason for a progress line: its message without the point (`at`, as the message
    shows it) on one line, cut to `limit` characters ("RuntimeError: solver diverged", "returned nan")."""
    text = (error or "").replace(f"evaluating x = {at} ", "").replace(f" at x = {at}", "")
    for prefix in ("objective threw: ", "objective "):
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def _show(record: Dict[str, Any], budget: int, at: str = "") -> None:
    y = f"failed ({_reason(record['error'], at)})" if record["failed"] else f"y = {record['y']:.6g}"
    best = "" if record["best_f"] is None else f"  best = {record['best_f']:.6g}"
    print(f"optimist: {record['i']:>5}/{budget}  {y}{best}", file=sys.stderr, flush=True)
