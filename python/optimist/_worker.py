"""What runs where the objective is evaluated (a worker process, a Dask worker, or inline): the timed
call that hands every outcome back as a value or a sendable exception, and the shield of an
evaluation under way from a terminal's first Ctrl-C. The driver's side is _loop.py."""
from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
import traceback
from typing import Any, Callable, Optional

from ._values import ObjectiveTimeout, described, seconds_text


class RemoteTraceback(Exception):
    """The traceback of an exception raised where the objective ran (a worker), as text: the cause
    of the exception minimize re-raises."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


class Raised:
    """What timed_call returns when the objective raised a BaseException that is not an Exception
    (KeyboardInterrupt, SystemExit, a class of one's own): returned, not raised, so that no executor
    takes it for its own (in a Dask worker thread a KeyboardInterrupt or SystemExit stops the worker's
    event loop and the run hangs; a process pool or a thread pool would hand it over as is)."""

    def __init__(self, exception: BaseException, traceback_text: str) -> None:
        self.exception = exception
        self.traceback_text = traceback_text


def _traceback_text(e: BaseException) -> str:
    try:
        return "".join(traceback.format_exception(type(e), e, e.__traceback__))
    except Exception:  # noqa: BLE001 - a broken __str__ breaks the formatting too
        return f"{type(e).__name__} (its traceback could not be formatted)\n"


def _from_the_objective(e: BaseException, traceback_text: str) -> BaseException:
    """Marks an exception the objective raised (so that a BrokenProcessPool or CancelledError it raised
    is not taken for the executor's own), with the worker's traceback as text."""
    try:
        e._optimist_objective = True  # type: ignore[attr-defined]
        e._optimist_traceback = traceback_text  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an exception without a __dict__
        pass
    return e


def raised_by_objective(e: BaseException) -> bool:
    return bool(getattr(e, "_optimist_objective", False))


def _sendable(e: BaseException) -> BaseException:
    """e, or a RuntimeError with its type and text when it cannot be pickled and rebuilt (one whose
    __init__ takes other arguments than it passes to Exception, or that holds a lock): such an
    exception breaks a process pool for good."""
    try:
        pickle.loads(pickle.dumps(e))
        return e
    except Exception:  # noqa: BLE001 - any pickling failure
        return RuntimeError(described(e))


class TimedOut:
    """What timed_call returns when objective_timeout interrupted the objective (or the objective went
    on past the interruption): the limit in seconds and the stack where it was interrupted, as text."""

    def __init__(self, limit: float, where: str) -> None:
        self.limit = limit
        self.where = where


def timeout_error(limit: float, at: str, how: str, where: str = "") -> ObjectiveTimeout:
    """The failure of an evaluation that ran past objective_timeout, worded as the CLI's "did not
    answer within 3 s (timeout); it was killed": `at` names the point, `how` what became of it,
    `where` the stack at its interruption (the exception's cause)."""
    error = ObjectiveTimeout(f"objective did not return within {seconds_text(limit)} s (timeout) at {at}; {how}")
    if where:
        error.__cause__ = RemoteTraceback("the objective was interrupted here (most recent call last):\n" + where)
    return error


class StartTime:
    """Given to timed_call in place of a start file where the evaluation runs in this process (a
    ThreadPoolExecutor's thread): it notes when the evaluation started (time.monotonic())."""

    def __init__(self) -> None:
        self.at: Optional[float] = None


class _Interrupted(BaseException):
    """Raised inside the objective at objective_timeout: a BaseException, so that an objective's own
    `except Exception:` does not take it for one of its errors and go on."""


def can_interrupt() -> bool:
    """Whether objective_timeout can interrupt code running in this thread (signals: the main thread
    only, on a system with interval timers)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _objective_stack(frame: Any) -> str:
    """The stack from the objective's call down to `frame`, as a traceback shows it."""
    frames = []
    while frame is not None and frame.f_code is not _timed_call.__code__:
        frames.append((frame, frame.f_lineno))
        frame = frame.f_back
    return "".join(traceback.StackSummary.extract(reversed(frames)).format())


class _Alarm:
    """objective_timeout where the objective runs in the main thread (inline, or in a process pool's
    worker): an ITIMER_REAL interval timer whose SIGALRM handler raises _Interrupted in the objective,
    then again every `_REPEAT` s while it goes on (an objective that catches it with a bare `except:`).
    The handler and timer in place before (someone else's) are put back after the evaluation, the
    timer with the time it had left (at once if it ran out meanwhile)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.armed = False
        self.fired = False
        self.where = ""
        self._stopped = True

    def _handler(self, signum: int, frame: Any) -> None:
        if not self.armed:
            return  # the evaluation is over: its bookkeeping is not interrupted
        if not self.fired:
            self.fired = True
            try:
                self.where = _objective_stack(frame)
            except Exception:  # noqa: BLE001 - the stack cannot be shown: the timeout stands
                pass
        raise _Interrupted(f"objective_timeout: {self.seconds:g} s")

    def start(self) -> None:
        # The handler first (a previous timer running out now finds it disarmed, and is fired again
        # by stop()), then the timer, then armed.
        self._previous_handler = signal.signal(signal.SIGALRM, self._handler)
        self._stopped = False
        self._started = time.monotonic()
        repeat = max(0.05, min(self.seconds, 1.0))  # >= 50 ms: see stop()
        self._previous_timer = signal.setitimer(signal.ITIMER_REAL, self.seconds, repeat)
        self.armed = True

    def stop(self) -> None:
        """Idempotent. It is also called after an _Interrupted raised between the objective's return
        and the first line here: a second one cannot follow within the 50 ms of the repeat."""
        self.armed = False
        if self._stopped:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        previous = self._previous_handler
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
        delay, interval = self._previous_timer
        if delay > 0:  # (0: there was none)
            signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - self._started), 1e-6), interval)
        self._stopped = True


def timed_call(function: Callable[[Any], Any], argument: Any, started: Any = None, remote: bool = True,
               driver: Optional[str] = None, timeout: Optional[float] = None):
    """Runs function(argument) where it is submitted (a worker process, a Dask worker, or inline)
    and returns (value, seconds spent in it); (Raised, seconds) when it raised a BaseException that is
    not an Exception; (TimedOut, seconds) when `timeout` (seconds) interrupted it, which it can do in
    the main thread only (inline, a process pool's worker; elsewhere the driver's backstop fails the
    evaluation). `started`: a file created when the evaluation starts (a process pool's, so that
    after a worker's crash the parent knows which evaluations had started), or a StartTime. `driver`:
    the driver process's identity (driver_identity()); in another process the evaluation is shielded
    from the terminal's first Ctrl-C (see _WorkerSigint)."""
    alarm = _Alarm(timeout) if timeout is not None and can_interrupt() else None
    start = time.perf_counter()
    try:
        outcome = _timed_call(function, argument, started, remote, driver, alarm)
    except BaseException:  # the objective's Exception (or an _Interrupted that came as it returned)
        if alarm is None:
            raise
        alarm.stop()
        if not alarm.fired:
            raise
        outcome = None
    if alarm is not None and alarm.fired:  # whatever the objective returned or raised after the interruption
        alarm.stop()
        return TimedOut(alarm.seconds, alarm.where), time.perf_counter() - start
    return outcome


def _timed_call(function: Callable[[Any], Any], argument: Any, started: Any, remote: bool, driver: Optional[str],
                alarm: Optional[_Alarm]):
    global worker_interrupted
    worker_interrupted = False  # a worker's first Ctrl-C is counted per evaluation
    running = None
    if isinstance(started, StartTime):
        started.at = time.monotonic()
        started = None
    if started is not None:
        try:
            fd = os.open(started, os.O_CREAT | os.O_WRONLY, 0o600)
            try:
                os.write(fd, str(os.getpid()).encode())
            finally:
                os.close(fd)
            running = started + ".running"
            os.close(os.open(running, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError:
            running = None
    unguard = None
    if driver is not None and driver != driver_identity():
        unguard = _guard_sigint(None if started is None else os.path.join(os.path.dirname(started), "abort"))
    start = time.perf_counter()
    try:
        try:
            # The timer runs around the objective alone: what follows is not interrupted (stop() is
            # called again on every way out, in case an interruption came before its first line).
            if alarm is not None:
                alarm.start()
            try:
                value = function(argument)
            finally:
                if alarm is not None:
                    alarm.stop()
        except Exception as e:
            if alarm is not None:
                alarm.stop()
            text = _traceback_text(e)
            sendable = _sendable(e) if remote else e
            if sendable is not e:
                raise _from_the_objective(sendable, text) from None
            raise _from_the_objective(e, text)
        except BaseException as e:  # noqa: BLE001 - KeyboardInterrupt, SystemExit...: see Raised
            if alarm is not None:
                alarm.stop()
            text = _traceback_text(e)
            return Raised(_from_the_objective(_sendable(e) if remote else e, text), text), time.perf_counter() - start
        return value, time.perf_counter() - start
    finally:
        if running is not None:
            try:
                os.unlink(running)
            except OSError:
                pass
        if unguard is not None:
            unguard()


_PROCESS_TOKEN = os.urandom(8).hex()  # a forked child inherits it, but not the pid


def driver_identity() -> str:
    """This process, as no other process on any machine is (pid and a random token)."""
    return f"{os.getpid()}:{_PROCESS_TOKEN}"


class _WorkerSigint:
    """A terminal's Ctrl-C reaches the whole foreground process group: the driver, and the worker
    processes of a process pool or of a local Dask cluster. While an evaluation of the run is under way
    in such a worker, its SIGINT handler is _worker_sigint: the first Ctrl-C is ignored there (the
    driver stops the run after the evaluations under way and keeps them), the second aborts the
    evaluation (a process pool's: KeyboardInterrupt in the objective, given back by the driver) or is
    handed to the worker's own handler (a Dask worker's: Dask's Ctrl-C). A driver that aborts creates
    `abort` and signals the workers still evaluating (a Ctrl-C it alone received: kill -INT, Jupyter).
    The previous handler is restored when the worker has no evaluation under way. Only the main
    thread may set handlers: a Dask worker's are set from its event loop, which runs there."""

    count = 0  # evaluations under way in this process
    hits = 0  # Ctrl-Cs seen during them
    installed = False
    main = False  # the objective runs in the main thread (a process pool's worker)
    previous: Any = None
    abort: Optional[str] = None


def _worker_sigint(signum: int, frame: Any) -> None:
    g = _WorkerSigint
    g.hits += 1
    if g.hits < 2 and not (g.abort is not None and os.path.exists(g.abort)):
        return  # the driver stops the run after the evaluations under way
    if g.main:
        raise KeyboardInterrupt
    if callable(g.previous):
        g.previous(signum, frame)


def _guard_on(main: bool, abort: Optional[str]) -> None:
    """In the main thread: one more evaluation under way in this process."""
    g = _WorkerSigint
    if g.count == 0:
        g.hits, g.main, g.abort = 0, main, abort
        try:
            # A worker whose Ctrl-C is ignored already (a pool initializer's SIG_IGN) is left so.
            g.installed = signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
            if g.installed:
                g.previous = signal.signal(signal.SIGINT, _worker_sigint)
        except (ValueError, OSError, TypeError):  # not the main thread, or no signals here
            g.installed = False
    g.count += 1


def _guard_off() -> None:
    g = _WorkerSigint
    g.count -= 1
    if g.count == 0 and g.installed:
        g.installed = False
        previous = g.previous if g.previous is not None else signal.default_int_handler
        try:
            signal.signal(signal.SIGINT, previous)
        except (ValueError, OSError, TypeError):
            pass


def _dask_worker_loop() -> Any:
    """The event loop of the Dask worker running this task (it runs in the process's main thread), or None."""
    if "distributed" not in sys.modules:
        return None
    try:
        from distributed import get_worker
        return get_worker().loop
    except Exception:  # noqa: BLE001 - not in a Dask worker
        return None


def _guard_sigint(abort: Optional[str]) -> Optional[Callable[[], None]]:
    """Shields this evaluation from a terminal's first Ctrl-C (see _WorkerSigint); returns the undo."""
    if threading.current_thread() is threading.main_thread():
        _guard_on(True, abort)
        return _guard_off
    loop = _dask_worker_loop()
    if loop is None:
        return None  # another executor's thread: nothing can be done from here
    ready = threading.Event()

    def on() -> None:
        try:
            _guard_on(False, None)
        finally:
            ready.set()
    try:
        loop.add_callback(on)
    except Exception:  # noqa: BLE001 - a closing loop
        return None
    ready.wait(2.0)

    def off() -> None:
        try:
            loop.add_callback(_guard_off)
        except Exception:  # noqa: BLE001 - the worker is closing: its handlers go with it
            pass
    return off


worker_interrupted = False  # in a forked worker: Ctrl-C seen during the current evaluation
