"""Studies: one optimization stored in SQLite or PostgreSQL and shared by workers in any number of
processes and machines (docs/studies.md for the storage, its rules and the CLI's `study` and
`worker` commands).

Example::

    study = optimist.Study.create("sqlite:///tuning.db", "svm", {"c": optimist.Float(1e-3, 1e3, log=True)},
                                  algorithm="gp-ei", budget=40)
    study.optimize(objective)                    # in this process; more workers elsewhere with
    optimist.Study.load("sqlite:///tuning.db", "svm").optimize(objective)
"""
from __future__ import annotations

import datetime
import math
import signal
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Union

import numpy as np

from . import _optimist
from ._loop import Interrupts, _is_true
from ._minimize import _check_objective_timeout
from ._values import ObjectiveError, as_number, described, not_a_number, shown_point, told_value
from ._worker import Raised, TimedOut, timed_call, timeout_error
from .optimizer import _is_scalar, _rows, _several, check_seed, fresh_seed
from .space import Categorical, Int, Point, Space, as_space


@dataclass(frozen=True)
class StudyTrial:
    """A trial handed out by :meth:`Study.ask`: ``number`` in the study, ``x`` as the objective
    takes it, ``params`` as a dict, ``origin`` ("asked", "enqueued" or "requeued"), and, when asked
    with a lease, ``lease_until`` (Unix seconds; ``math.inf``: until told)."""

    number: int
    x: Point
    params: Dict[str, Any]
    origin: str
    _core: Any
    lease_until: Optional[float] = None


@dataclass(frozen=True)
class TrialRecord:
    """A stored trial: ``state`` is "waiting", "running", "complete" or "failed"; times are Unix
    seconds."""

    number: int
    state: str
    x: Point
    params: Dict[str, Any]
    value: Optional[float]
    error: Optional[str]
    worker: str
    origin: str
    created: Optional[float]
    started: Optional[float]
    finished: Optional[float]
    lease_until: Optional[float] = None  # a running trial asked with a lease: not stale before (inf: until told)
    stale: bool = False  # failed as stale: not evaluated, not counted against the budget
    given_back: bool = False  # stale because it was given back (release), not because its worker went silent


def _trial_number(trial: Any) -> Optional[int]:
    """A trial given by its number (an int), or None for a StudyTrial."""
    if isinstance(trial, (int, np.integer)) and not isinstance(trial, (bool, np.bool_)):
        if trial < 0:
            raise ValueError(f"a trial number is >= 0, got {trial!r}")
        return int(trial)
    return None


def _lease_seconds(lease: Any) -> Optional[float]:
    """ask(lease=...): None, seconds > 0 (math.inf: until told) or a datetime.timedelta."""
    if lease is None:
        return None
    if isinstance(lease, datetime.timedelta):
        seconds = lease.total_seconds()
    else:
        seconds = as_number(lease)
        if isinstance(lease, (bool, np.bool_)):
            seconds = None
    if seconds is None or math.isnan(seconds) or not seconds > 0:
        raise ValueError(f"lease must be a duration > 0 (seconds, a datetime.timedelta, or math.inf: until told), "
                         f"got {lease!r}")
    return float(seconds)


def _core_of(trial: Any) -> "_optimist._StudyTrial":
    if not isinstance(trial, StudyTrial):
        raise TypeError(f"expected a trial from this study's ask() or a trial number, got {trial!r}")
    return trial._core


def _study_space(j: Dict[str, Any]) -> Space:
    """A stored space as the objective takes it: arrays for a bounds list (x1, x2, ... all
    continuous, as Space(bounds) names them), dicts otherwise."""
    params = j["parameters"]
    bounds_like = all(p["type"] == "continuous" and p["name"] == f"x{k + 1}" for k, p in enumerate(params))
    return Space.from_json(j, named=not bounds_like)


def _check_storage_and_name(storage: Any, name: Any) -> None:
    """ValueError for what the C++ layer cannot take: not text, or text that is not valid Unicode
    (a lone surrogate from a badly decoded file name)."""
    if not isinstance(storage, str) or not isinstance(name, str):
        raise ValueError(f"storage and name must be strings, got {storage!r} and {name!r}")
    for what, text in (("storage", storage), ("name", name)):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{what} must be valid Unicode text, got {text!r}") from None


class Study:
    """One handle on a stored study (thread-safe). Create it once with :meth:`create`, open it from
    every worker with :meth:`load`. Categorical choices are stored as strings, so a study's
    categorical parameters take string choices."""

    def __init__(self, core: "_optimist._Study"):
        self._core = core
        self.space = _study_space(core.space.to_json())

    @classmethod
    def create(cls, storage: str, name: str, space: Any, algorithm: str = "auto", *, direction: str = "minimize",
               seed: Optional[int] = 0, budget: Optional[int] = None, f_star: Optional[float] = None, worker: str = "",
               load_if_exists: bool = False, noisy: bool = False, heartbeat: Optional[float] = None,
               grace: Optional[float] = None, **options: Any) -> "Study":
        """Creates the study ``name`` in ``storage`` ("sqlite:///path.db" or "postgresql://..."):
        its space, direction, algorithm with options, seed (None: a fresh one from the OS's entropy,
        stored with the study; with load_if_exists, the stored one) and budget (None: workers run
        until stopped). ``noisy=True`` declares a noisy objective: the algorithm may ask a point again;
        by default (deterministic) no point is asked twice and ``ask()`` returns None once every
        point of a finite space has been evaluated. ``heartbeat`` and ``grace`` (seconds, as the
        CLI's ``--heartbeat`` and ``--grace``; None: 10 and 60): every handle beats for the trials it
        holds at that interval, and a running trial silent for the grace period is failed as stale
        and its point queued again; a UserWarning when the heartbeat is above half the grace period
        (a beat that late fails a live trial). ValueError if the name is taken (unless load_if_exists), or for a
        bad algorithm, option, space, heartbeat or grace period, naming it."""
        space = as_space(space)
        if space.fixed:
            # A study stores its searched space only: the workers that load it would not see them.
            raise ValueError(f"a study stores the searched parameters only, not fixed ones ({space.fixed!r}): the "
                             "workers that load it would not see them. Leave them out of the space and give them "
                             "to your objective yourself (functools.partial, or a constant in its module)")
        for pname, dim in space.items():
            if isinstance(dim, Categorical) and not all(isinstance(c, str) for c in dim.choices):
                raise ValueError(f"parameter '{pname}': a study stores categorical choices as strings, "
                                 f"got {list(dim.choices)!r}")
        _check_storage_and_name(storage, name)
        if not isinstance(algorithm, str):
            raise ValueError(f"algorithm must be a name such as 'gp-ei', got {algorithm!r}")
        asked_seed = seed = check_seed(seed)
        if seed is None:  # a fresh seed from the OS's entropy, stored with the study (study.seed)
            seed = fresh_seed()
        if budget is not None and (not isinstance(budget, (int, np.integer)) or isinstance(budget, bool)
                                   or not 1 <= budget < 2**63):
            raise ValueError(f"budget must be a positive integer or None, got {budget!r}")
        if f_star is not None and (as_number(f_star) is None or not math.isfinite(as_number(f_star))):
            raise ValueError(f"f_star must be a finite number or None, got {f_star!r}")
        for what, value in (("heartbeat", heartbeat), ("grace", grace)):
            if value is not None and (as_number(value) is None or not math.isfinite(as_number(value))
                                      or as_number(value) <= 0):
                raise ValueError(f"{what} must be a finite number of seconds > 0 or None, got {value!r}")
        heartbeat = None if heartbeat is None else float(as_number(heartbeat))
        grace = None if grace is None else float(as_number(grace))

        def create():
            study = cls(_optimist._Study.create(storage, name, space._core, direction, algorithm, options, seed, budget,
                                                None if f_star is None else float(f_star), worker, bool(noisy),
                                                heartbeat, grace))
            if study._core.heartbeat_margin_warning:
                warnings.warn(study._core.heartbeat_margin_warning, UserWarning, stacklevel=3)
            return study

        if not load_if_exists:
            return create()
        # Workers started together all call this: whoever loses the race to create loads instead.
        for attempt in range(2):
            try:
                study = cls.load(storage, name, worker=worker)
            except ValueError:
                if attempt == 1:
                    raise
                try:
                    return create()
                except ValueError as e:
                    if "already exists" not in str(e):
                        raise
                    continue
            study._check_same(space, direction, algorithm)
            study._check_settings(0 if asked_seed is None else asked_seed, budget, noisy, options, heartbeat, grace)
            return study
        raise AssertionError("unreachable")

    def _check_same(self, space: Space, direction: str, algorithm: str) -> None:
        """load_if_exists: the stored study must be the one asked for (the CLI refuses the same)."""
        if space._core.to_json() != self._core.space.to_json():
            raise ValueError(f"study '{self.name}' exists with another space (there: the study's, here: the one given): "
                             f"{self._core.space.difference(space._core)}")
        if direction not in (self.direction, self.direction[:3]):
            raise ValueError(f"study '{self.name}' exists and is to {self.direction}, not {direction}")
        if algorithm != self.algorithm and algorithm != "auto":
            raise ValueError(f"study '{self.name}' exists and uses algorithm '{self.algorithm}', not '{algorithm}'")

    def _check_settings(self, seed: int, budget: Optional[int], noisy: bool, options: Dict[str, Any],
                        heartbeat: Optional[float] = None, grace: Optional[float] = None) -> None:
        """load_if_exists: a different seed, budget, noise or option was once ignored silently. A
        default (seed 0, budget None, noisy False, "auto", heartbeat and grace None) means "as
        stored", as for the algorithm."""
        for what, asked, default, stored in (("seed", seed, 0, self.seed), ("budget", budget, None, self.budget),
                                             ("noisy", bool(noisy), False, self._core.noisy),
                                             ("heartbeat", heartbeat, None, self.heartbeat),
                                             ("grace", grace, None, self.grace)):
            if asked != default and asked != stored:
                raise ValueError(f"study '{self.name}' exists with {what}={stored!r}, not {what}={asked!r}")
        if not options:
            return
        # As `optimist run --study`: the named options must match the stored ones as today's version
        # runs them (continued_study_options); those left out continue as stored.
        continued = self._core.continued_options
        for key, value in options.items():
            if key not in continued or key == "name":
                raise ValueError(f"study '{self.name}' exists and its algorithm '{self.algorithm}' has no option "
                                 f"{key!r} (its options: {', '.join(k for k in sorted(continued) if k != 'name')})")
            asked = _optimist._resolve_options({"name": self.algorithm, key: value})[key]
            if continued[key] != asked:
                raise ValueError(f"study '{self.name}' exists with {key}={continued[key]!r}, not {key}={value!r}")

    @classmethod
    def load(cls, storage: str, name: str, *, worker: str = "") -> "Study":
        """Opens an existing study; ValueError listing the studies there when it does not exist.
        ``worker`` names this worker in the trials it holds (default: host:pid:random)."""
        _check_storage_and_name(storage, name)
        return cls(_optimist._Study.load(storage, name, worker))

    # ---- what it is ----
    name = property(lambda self: self._core.name)
    worker = property(lambda self: self._core.worker)
    heartbeat = property(lambda self: self._core.heartbeat, doc="Seconds between a handle's heartbeats.")
    grace = property(lambda self: self._core.grace, doc="Seconds of silence after which a running trial is stale.")
    direction = property(lambda self: self._core.direction)
    algorithm = property(lambda self: self._core.algorithm)
    options = property(lambda self: self._core.options)
    seed = property(lambda self: self._core.seed)
    budget = property(lambda self: self._core.budget)
    noisy = property(lambda self: self._core.noisy)

    def __repr__(self) -> str:
        return f"Study({self.name!r}, {self.algorithm!r}, budget={self.budget}, {self.budget_used} used)"

    # ---- ask / tell ----
    def ask(self, lease: Union[None, float, datetime.timedelta] = None) -> Optional[StudyTrial]:
        """The next trial to evaluate (a queued point first, else the algorithm's, which sees every
        other worker's running trials as pending); None once the budget is used, or (a deterministic
        objective) once every point of a finite space has been evaluated or is running.

        ``lease`` (seconds, a ``datetime.timedelta``, or ``math.inf``: until told) is for a trial run
        by hand or elsewhere (a lab experiment, a job on a cluster): it is not failed as stale for
        that long, even once this process ends; tell it later by its number, from any process
        (``Study.load(...).tell(number, value)``). Without a lease this object's heartbeat holds the
        trial, and it is failed as stale a grace period after this process ends."""
        seconds = _lease_seconds(lease)
        t = self._core.ask(seconds)
        if t is None:
            return None
        return StudyTrial(t.number, self.space.to_point(t.x), self.space.to_dict(t.x), t.origin, t, t.lease_until)

    def tell(self, trial: Union[StudyTrial, int], value: float) -> None:
        """Records a trial's value; ``trial`` is a StudyTrial from this object's ask(), or a trial
        number (any worker's running trial: a notebook restarted between ask and tell). ValueError
        naming the trial when it does not exist, is waiting or was told already; a value for a trial
        failed as stale meanwhile is kept."""
        number = _trial_number(trial)
        if number is not None:
            self._core.tell_number(number, told_value(value))
        else:
            self._core.tell(_core_of(trial), told_value(value))

    def tell_failed(self, trial: Union[StudyTrial, int], error: str = "failed") -> None:
        if not isinstance(error, str):
            raise TypeError(f"error must be a string saying why the trial failed, got {error!r}")
        number = _trial_number(trial)
        if number is not None:
            self._core.tell_failed_number(number, error)
        else:
            self._core.tell_failed(_core_of(trial), error)

    def release(self, trial: Union[StudyTrial, int], why: str = "given back", requeue: bool = True) -> None:
        """Gives back a trial that will not be evaluated (a sample cancelled before it was measured, a
        job killed, an experiment postponed) instead of telling it failed: it is failed as stale with
        ``why`` (``TrialRecord.given_back``), does not count against the budget, and the algorithm
        withdraws it, as if it had never been asked (a failure would mark the point it had just chosen
        as bad). With ``requeue`` its point is queued again (the next ask hands it out first); with
        ``requeue=False`` the algorithm may ask it again or not. ``trial`` is a StudyTrial from this
        object's ask() or a trial number (any worker's running trial); ValueError naming the trial when
        it does not exist, is waiting, or was told or given back already."""
        if not isinstance(why, str):
            raise TypeError(f"why must be a string saying why the trial is given back, got {why!r}")
        if not isinstance(requeue, (bool, np.bool_)):
            raise TypeError(f"requeue must be True or False, got {requeue!r}")
        number = _trial_number(trial)
        if number is not None:
            self._core.release_number(number, why, bool(requeue))
        else:
            self._core.release(_core_of(trial), why, bool(requeue))

    def enqueue(self, point: Any, skip_if_exists: bool = False) -> int:
        """Queues a point to evaluate before the algorithm's own; returns its trial number. With
        skip_if_exists (Optuna's name), a point already waiting, running or evaluated is not queued
        again (a failed one is): the number of that trial is returned."""
        if not isinstance(skip_if_exists, (bool, np.bool_)):
            raise TypeError(f"skip_if_exists must be True or False, got {skip_if_exists!r}")
        return self._core.enqueue(self.space.to_vector(point), bool(skip_if_exists))

    def add(self, point: Any, value: Any, *, allow_duplicates: bool = False) -> Any:
        """Adds an evaluation made elsewhere; returns its trial number. ``add(points, values)`` adds
        several (a list of points, or a pandas DataFrame with one column per parameter) in one
        transaction, all or none, and returns their numbers. An evaluation with the parameters and
        value of one added before is a ValueError naming that trial (a cell that adds past
        experiments, run twice, would count each twice; ``optimist study add`` refuses it too), unless
        ``allow_duplicates`` (a measurement repeated on purpose). Failures (``add_failed``) are never
        compared."""
        if not isinstance(allow_duplicates, (bool, np.bool_)):
            raise TypeError(f"allow_duplicates must be True or False, got {allow_duplicates!r}")
        points = _rows(point)
        several = _several(points, self.space) and not _is_scalar(value)
        if several:
            xs, values = [self.space.to_vector(p) for p in points], list(value)
            if len(xs) != len(values):
                raise ValueError(f"add(points, values): {len(xs)} points but {len(values)} values (none was added)")
            told = []
            for k, v in enumerate(values):
                try:
                    told.append(told_value(v))
                except (TypeError, ValueError) as e:
                    raise type(e)(f"add(points, values): value {k}: {e} (none was added)") from None
        else:
            xs, told = [self.space.to_vector(point)], [told_value(value)]
        numbers = self._core.add(xs, told, bool(allow_duplicates))
        self._warn_past_budget()
        return list(numbers) if several else numbers[0]

    def add_failed(self, point: Any, error: str = "failed") -> int:
        number = self._core.add_failed(self.space.to_vector(point), str(error))
        self._warn_past_budget()
        return number

    def _warn_past_budget(self) -> None:
        """An evaluation made elsewhere is kept even past the budget (it was paid for), but once the
        budget is used ``ask`` returns None: say so, with the call that asks more (as ``optimist
        study add`` does)."""
        budget, used = self.budget, self.budget_used
        if budget is not None and used >= budget:
            warnings.warn(f"study {self.name!r} now counts {used} trials: its budget of {budget} is used, so ask() "
                          f"returns None until it is raised, e.g. study.set_budget({used + budget})", stacklevel=3)

    # ---- reading ----
    def trials(self) -> List[TrialRecord]:
        """Every trial, in number order."""
        return [self._record(t) for t in self._core.trials()]

    def trials_dataframe(self):
        """One row per trial: number, one column per parameter, value, state, error, worker, origin, times."""
        import pandas as pd

        # A parameter named like a trial column ("value", "number", ...) is shown as "params_<name>"
        # (Optuna's column naming) instead of overwriting the column or being overwritten by it.
        fixed = ("number", "value", "state", "error", "worker", "origin", "started", "finished")
        rows = []
        names = self.space.names
        for t in self.trials():
            # Every parameter in the space's order; None (NaN) where a conditional one is unused.
            params = {(f"params_{k}" if k in fixed else k): t.params.get(k) for k in names}
            rows.append({"number": t.number, **params, "value": t.value, "state": t.state, "error": t.error,
                         "worker": t.worker, "origin": t.origin, "started": t.started, "finished": t.finished})
        frame = pd.DataFrame(rows)
        for k, d in self.space.items():  # an integer column with empty cells stays integer (pandas' Int64)
            column = f"params_{k}" if k in fixed else k
            if isinstance(d, Int) and d.when is not None and column in frame:
                frame[column] = frame[column].astype("Int64")
        return frame

    @property
    def best_trial(self) -> Optional[TrialRecord]:
        b = self._core.best()
        return None if b is None else self._record(b)

    @property
    def best_value(self) -> Optional[float]:
        b = self.best_trial
        return None if b is None else b.value

    @property
    def best_params(self) -> Optional[Dict[str, Any]]:
        b = self.best_trial
        return None if b is None else b.params

    def recommend(self) -> Optional[Point]:
        """The algorithm's answer given every finished trial; None before a successful one."""
        x = self._core.recommend()
        return None if x is None else self.space.to_point(x)

    @property
    def budget_used(self) -> int:
        return self._core.budget_used()

    def set_budget(self, budget: Optional[int]) -> None:
        """Changes the study's budget (None: unlimited) for every worker from its next ask, e.g. more
        trials for a study that used its budget (``optimist study set --budget``). ValueError below
        the trials counted so far. Its algorithm keeps planning for the budget it was created with."""
        if budget is not None and (not isinstance(budget, (int, np.integer)) or isinstance(budget, bool)
                                   or not 1 <= budget < 2**63):
            raise ValueError(f"budget must be a positive integer or None, got {budget!r}")
        self._core.set_budget(None if budget is None else int(budget))

    def _record(self, t: Dict[str, Any]) -> TrialRecord:
        x = np.asarray(t["x"], dtype=float)
        return TrialRecord(t["number"], t["state"], self.space.to_point(x), self.space.to_dict(x), t["value"],
                           t["error"], t["worker"], t["origin"], t["created"], t["started"], t["finished"],
                           t["lease_until"], t["stale"], t["given_back"])

    # ---- a worker in this process ----
    def optimize(self, func: Callable[[Any], float], n_trials: Optional[int] = None, *, on_failure: str = "stop",
                 callback: Optional[Callable[[StudyTrial, Optional[float]], Any]] = None,
                 objective_timeout: Optional[float] = None, timeout: Optional[float] = None) -> int:
        """Asks, evaluates and tells until the study's budget is used (or n_trials here, or timeout
        seconds have passed: no trial is asked after them, the one under way is finished, as
        Optuna's timeout); returns how many trials this call evaluated. Failures as in minimize: "stop" tells the trial
        failed and re-raises, "mark-failed" tells it failed and goes on. Ctrl-C stops after the
        current trial (told); SIGTERM too, then raises SystemExit(143) (a second one aborts the
        trial and gives it back to the study); run several workers (processes, machines) for
        parallel evaluation. objective_timeout: seconds one evaluation may take, as minimize's
        (inline: the main thread only); a trial that runs longer is told failed (ObjectiveTimeout)."""
        per_trial = _check_objective_timeout(objective_timeout, None, "Study.optimize")
        if timeout is not None and (isinstance(timeout, (bool, str, bytes)) or not isinstance(timeout, (int, float, np.integer, np.floating))
                                    or not math.isfinite(timeout) or timeout <= 0):
            raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
        deadline = None if timeout is None else time.monotonic() + float(timeout)
        if on_failure not in ("stop", "mark-failed"):
            raise ValueError(f"on_failure must be 'stop' or 'mark-failed', got '{on_failure}'")
        if not callable(func):
            raise TypeError(f"func must be callable, got {func!r}")
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable or None, got {callback!r}")
        if n_trials is not None and (not isinstance(n_trials, (int, np.integer)) or isinstance(n_trials, bool)
                                     or n_trials < 1):
            raise ValueError(f"n_trials must be a positive integer or None, got {n_trials!r}")
        done = 0
        with Interrupts(terminate=True) as interrupts:
            while (n_trials is None or done < n_trials) and not interrupts.requested:
                if deadline is not None and time.monotonic() >= deadline:
                    break
                trial = self.ask()
                if trial is None:
                    break
                value, failure = self._evaluate(func, trial, per_trial)
                done += 1
                if callback is not None and _is_true(callback(trial, value)):  # numpy's True too
                    break
                if failure is not None and on_failure == "stop":
                    raise failure
        if interrupts.terminated:  # a scheduler's SIGTERM: the trial under way is told; now exit as asked
            raise SystemExit(128 + signal.SIGTERM)
        if done > 0:  # as minimize's res.notes: every completed trial of the study with the same value
            note = _optimist._equal_values_note([t["value"] for t in self._core.trials() if t["state"] == "complete"])
            if note is not None:
                warnings.warn(f"optimist: study '{self.name}': {note}", stacklevel=2)
        return done

    def _evaluate(self, func: Callable[[Any], float], trial: StudyTrial, timeout: Optional[float] = None):
        """Evaluates and tells one trial; returns (value or None, the failure or None)."""
        try:
            if timeout is None:
                value = func(trial.x)
            else:
                value, _ = timed_call(func, trial.x, remote=False, timeout=timeout)
                if isinstance(value, Raised):
                    raise value.exception
                if isinstance(value, TimedOut):
                    error = timeout_error(timeout, f"trial {trial.number} (x = {shown_point(trial.x)})",
                                          "it was interrupted", value.where)
                    self.tell_failed(trial, str(error))
                    return None, error
        except Exception as e:  # noqa: BLE001 - recorded as the trial's failure
            self.tell_failed(trial, f"objective threw at x = {shown_point(trial.x)}: {described(e)}")
            return None, e
        except BaseException as e:
            # Ctrl-C (twice) or SystemExit stopped the evaluation: the point was not evaluated, so
            # it goes back to the queue now rather than after the heartbeat's grace period.
            try:
                self._core.release(trial._core, f"released: {type(e).__name__} stopped the evaluation")
            except Exception:  # noqa: BLE001 - the storage is gone: the grace period requeues it
                pass
            raise
        y = as_number(value)
        if y is None or not math.isfinite(y):
            returned = not_a_number(value) if y is None else repr(y)
            error = ObjectiveError(f"objective returned {returned} at trial {trial.number} "
                                   f"(x = {shown_point(trial.x)})")
            self.tell_failed(trial, str(error))
            return None, error
        self.tell(trial, y)
        return y, None
