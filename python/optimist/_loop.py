"""The loop behind minimize/maximize: ask, evaluate (inline or on an executor), record.

Evaluations are asked one at a time as slots free up, so up to ``n_parallel`` are in flight and the
algorithm sees the others as pending. Each outcome goes to the C++ RunRecorder (``_optimist._Run``),
which tells it, keeps the books and writes the trace exactly as ``optimist run`` does; with
``n_parallel=1`` and no executor the sequence of asks and tells is the CLI's, point for point.
"""
from __future__ import annotations

import concurrent.futures as cf
import numbers
import os
import pickle
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional

from . import _optimist


class ObjectiveError(RuntimeError):
    """The objective returned NaN, infinity or a non-number (with on_failure="stop")."""


def as_number(value: Any) -> Optional[float]:
    """An objective value as a float, or None when it is not a number: text ("1.5" is not read as
    a number), None, or an integer too large for a float (10**400). NaN and infinity are returned:
    each caller fails them in its own way."""
    if isinstance(value, (str, bytes, bytearray)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def told_value(y: Any) -> float:
    """A value given to tell() or add(): a number (see as_number) or TypeError naming it."""
    value = as_number(y)
    if value is None:
        what = "a number that fits a float" if isinstance(y, numbers.Integral) else "a number"
        raise TypeError(f"an objective value must be {what}, got {shown(y)} of type {type(y).__name__}")
    return value


def shown(value: Any, limit: int = 80) -> str:
    """repr(value) cut to `limit` characters, for messages (a 400-digit integer stays readable)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


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


def timed_call(function: Callable[[Any], Any], argument: Any):
    """Runs function(argument) where it is submitted (a worker process, a Dask worker, or inline)
    and returns (value, seconds spent in it)."""
    global _worker_interrupted
    _worker_interrupted = False  # a worker's first Ctrl-C is counted per evaluation
    start = time.perf_counter()
    try:
        value = function(argument)
    except Exception as e:
        # An exception the parent cannot rebuild (one whose __init__ takes other arguments than it
        # passes to Exception) breaks a process pool for good: send its text instead.
        try:
            pickle.loads(pickle.dumps(e))
        except Exception:  # noqa: BLE001 - any pickling failure
            raise RuntimeError(f"{type(e).__name__}: {e}") from None
        raise
    return value, time.perf_counter() - start


_worker_interrupted = False  # in a forked worker: Ctrl-C seen during the current evaluation


def _inline(function: Callable[[Any], Any], argument: Any) -> cf.Future:
    future: cf.Future = cf.Future()
    try:
        future.set_result(timed_call(function, argument))
    except Exception as e:  # noqa: BLE001 - a failure of the objective; KeyboardInterrupt propagates
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
            global _worker_interrupted
            if _worker_interrupted:
                raise KeyboardInterrupt
            _worker_interrupted = True
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


def _outcome(run: "_optimist._Run", future: cf.Future, trial: "_optimist._Trial", suggest_s: float,
             submitted: float):
    """Records a finished evaluation; returns (record, exception to re-raise under on_failure="stop");
    (None, None) when a worker's evaluation was interrupted by Ctrl-C: it is given back, not failed."""
    if isinstance(future.exception(), KeyboardInterrupt):
        # A process-pool worker started before the run keeps Python's handler: the user's Ctrl-C
        # ended the evaluation there. Nothing was observed; the run stops (the parent saw it too).
        run.abandon(trial)
        return None, None
    try:
        value, eval_s = future.result()
    except Exception as e:  # noqa: BLE001 - the objective raised (here or in a worker)
        what = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        # A failure's time is seen from here: submission to completion.
        return run.record_failure(trial, run.thrown(trial.x, what), suggest_s, time.perf_counter() - submitted), e
    y = as_number(value)
    if y is None:
        error = ObjectiveError(f"objective returned a non-number {shown(value)} of type {type(value).__name__} "
                               f"at x = {list(trial.x)}")
        return run.record_failure(trial, str(error), suggest_s, eval_s), error
    record = run.record(trial, y, suggest_s, eval_s)
    return record, (ObjectiveError(record["error"]) if record["failed"] else None)


def drive(optimizer: "_optimist._Optimizer", run: "_optimist._Run", function: Callable[[Any], Any],
          argument_of: Callable[[Any], Any], *, executor: Optional[cf.Executor], n_parallel: int,
          interrupts: Interrupts, lock: threading.Lock, callback: Optional[Callable[[Evaluation], Any]] = None,
          progress: bool = False, budget: int = 0) -> Optional[BaseException]:
    """Runs until the run stops and nothing is in flight. Returns the first objective failure (the
    exception to re-raise when on_failure="stop" ended the run), None otherwise. On any exception of
    its own (a second Ctrl-C, a broken executor) it abandons what is in flight, closes the run (the
    trace stays complete) and re-raises. `lock` is the optimizer's (held around every call into it)."""
    in_flight: Dict[cf.Future, tuple] = {}  # future -> (trial, suggest_s, submitted), in submission order
    first_failure: Optional[BaseException] = None
    try:
        while True:
            while (not run.stopped and not interrupts.requested and len(in_flight) < n_parallel
                   and run.remaining > len(in_flight)):
                if run.time_is_up():
                    run.stop("time limit")
                    break
                start = time.perf_counter()
                with lock:
                    try:
                        trials = optimizer.ask(min(n_parallel - len(in_flight), run.remaining - len(in_flight)))
                    except _optimist.SpaceExhausted:
                        # Every point left is in flight (a deterministic objective on a finite space):
                        # wait for them; the run then stops as "space exhausted".
                        trials = []
                if not trials:
                    break
                suggest_s = (time.perf_counter() - start) / len(trials)
                for trial in trials:
                    submitted = time.perf_counter()
                    future = (_inline(function, argument_of(trial)) if executor is None
                              else executor.submit(timed_call, function, argument_of(trial)))
                    in_flight[future] = (trial, suggest_s, submitted)
            if interrupts.requested:
                run.stop("cancelled")
            if not in_flight:
                return first_failure
            done, _ = cf.wait(list(in_flight), return_when=cf.FIRST_COMPLETED)
            for future in [f for f in in_flight if f in done]:  # simultaneous completions in submission order
                trial, suggest_s, submitted = in_flight.pop(future)
                with lock:
                    record, failure = _outcome(run, future, trial, suggest_s, submitted)
                if record is None:
                    continue
                if failure is not None and first_failure is None:
                    first_failure = failure
                if progress:
                    _show(record, budget)
                if callback is not None:
                    evaluation = Evaluation(record["i"], argument_of(trial), record["y"], record["failed"],
                                            record["error"], record["best_f"])
                    if callback(evaluation) is True:
                        run.stop("cancelled")
    except BaseException as e:
        with lock:
            for future, (trial, suggest_s, submitted) in in_flight.items():
                # An evaluation already finished (the callback raised while others completed) is
                # paid for: recorded. The rest are abandoned.
                if future.done() and not future.cancelled():
                    _outcome(run, future, trial, suggest_s, submitted)
                else:
                    future.cancel()
                    run.abandon(trial)
            run.stop("cancelled")
            summary = run.finish()
        if isinstance(e, Exception):  # a callback or an executor raised: the caller attaches the result
            e._optimist_summary = summary  # type: ignore[attr-defined]
        raise


def _show(record: Dict[str, Any], budget: int) -> None:
    y = "failed" if record["failed"] else f"y = {record['y']:.6g}"
    best = "" if record["best_f"] is None else f"  best = {record['best_f']:.6g}"
    print(f"optimist: {record['i']:>5}/{budget}  {y}{best}", file=sys.stderr, flush=True)
