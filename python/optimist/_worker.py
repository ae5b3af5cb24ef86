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

from ._values import described


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


def timed_call(function: Callable[[Any], Any], argument: Any, started: Optional[str] = None, remote: bool = True,
               driver: Optional[str] = None):
    """Runs function(argument) where it is submitted (a worker process, a Dask worker, or inline)
    and returns (value, seconds spent in it); (Raised, seconds) when it raised a BaseException that is
    not an Exception. `started`: a file created when the evaluation starts (a process pool's, so that
    after a worker's crash the parent knows which evaluations had started). `driver`: the driver
    process's identity (driver_identity()); in another process the evaluation is shielded from the
    terminal's first Ctrl-C (see _WorkerSigint)."""
    global worker_interrupted
    worker_interrupted = False  # a worker's first Ctrl-C is counted per evaluation
    running = None
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
            value = function(argument)
        except Exception as e:
            text = _traceback_text(e)
            sendable = _sendable(e) if remote else e
            if sendable is not e:
                raise _from_the_objective(sendable, text) from None
            raise _from_the_objective(e, text)
        except BaseException as e:  # noqa: BLE001 - KeyboardInterrupt, SystemExit...: see Raised
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
