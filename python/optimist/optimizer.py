"""Ask/tell: Optimizer, Trial and the history of told evaluations."""
from __future__ import annotations

import math
import numbers
import secrets
import threading
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Union

import numpy as np

from . import _optimist
from ._values import told_value
from .space import Point, Space, as_space


class _Owner:
    """Which optimizer asked a trial, by a random token: a trial pickled to another process (a Dask
    task, a process pool) and back is still told to the optimizer that asked it, and to no other."""

    __slots__ = ("token",)

    def __init__(self, token: int):
        self.token = token

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Owner) and other.token == self.token

    def __hash__(self) -> int:
        return hash(self.token)

    def __reduce__(self):
        return (_Owner, (self.token,))


class Trial:
    """A point to evaluate, handed out by :meth:`Optimizer.ask`.

    ``x`` is what your objective takes (a dict for a named space, a numpy array for a bounds list);
    ``params`` is always a dict; ``vector`` is the stored float form (a categorical as its choice
    index); ``unit`` the point in the unit cube the algorithm works in. A trial pickles (to be
    evaluated in another process); the copy is told like the original, once.
    """

    __slots__ = ("_core", "_space", "_owner")

    def __init__(self, core: "_optimist._Trial", space: Space, owner: _Owner):
        self._core, self._space, self._owner = core, space, owner

    def __reduce__(self):
        return (Trial, (self._core, self._space, self._owner))

    @property
    def id(self) -> int:
        return self._core.id

    @property
    def x(self) -> Point:
        return self._space.to_point(self._core.x)

    @property
    def params(self) -> Dict[str, Any]:
        return self._space.to_dict(self._core.x)

    @property
    def vector(self) -> np.ndarray:
        return self._core.x

    @property
    def unit(self) -> np.ndarray:
        return self._core.unit

    def __repr__(self) -> str:
        return f"Trial(id={self.id}, params={self.params})"


class Observation(NamedTuple):
    """A told trial: its value in the objective's direction, or the reason it failed."""

    trial: Trial
    value: Optional[float]
    failed: bool
    error: Optional[str]


MAX_BATCH = 100_000  # trials one ask(n) hands out: a batch is evaluated in parallel

_RUN_COLUMNS = ("f", "regret", "cum_regret", "best_f", "suggest_s", "eval_s", "tell_s")


class History:
    """Evaluations as numpy arrays: ``X`` (one stored vector per row), ``y`` (NaN where failed),
    ``failed`` and ``errors``; a run's history also has f, regret, cum_regret, best_f and the
    timings suggest_s, eval_s, tell_s (docs/trace-format.md). ``x`` lists the points in the space's
    form; :meth:`to_pandas` gives a DataFrame with one column per parameter.
    """

    def __init__(self, space: Space, arrays: Mapping[str, Any]):
        self.space = space
        self.X: np.ndarray = np.asarray(arrays["x"], dtype=float).reshape(-1, space.dim)
        self.y: np.ndarray = np.asarray(arrays["y"], dtype=float)
        self.failed: np.ndarray = np.asarray(arrays["failed"], dtype=bool)
        self.errors: List[Optional[str]] = list(arrays["error"])
        self.extra: Dict[str, np.ndarray] = {k: np.asarray(arrays[k]) for k in ("id",) + _RUN_COLUMNS if k in arrays}

    def __getattr__(self, name: str) -> np.ndarray:
        extra = self.__dict__.get("extra")
        if extra is None or name.startswith("__"):  # pickle and copy ask before __init__ has run
            raise AttributeError(name)
        if name in extra:
            return extra[name]
        raise AttributeError(f"History has no column '{name}'; columns: {self.columns}")

    @property
    def columns(self) -> List[str]:
        return ["x", "y", "failed", "errors"] + list(self.extra)

    @property
    def x(self) -> List[Point]:
        return [self.space.to_point(row) for row in self.X]

    def __len__(self) -> int:
        return len(self.y)

    def to_pandas(self):
        """A pandas DataFrame: one column per parameter (categorical values as their choices), then
        y, status ("ok" / "failed"), error, and the run's columns when present."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - pandas is a Debian package in the setup script
            raise ImportError("History.to_pandas() needs pandas (Debian: python3-pandas)") from e
        data: Dict[str, Any] = {}
        if "id" in self.extra:
            data["id"] = self.extra["id"]
        rows = [self.space.to_dict(r) for r in self.X]
        for name in self.space.point_names:  # fixed parameters included, as the objective saw them
            data[name] = [r.get(name) for r in rows]  # None (NaN): a conditional parameter it did not use
        data["y"] = self.y
        for k in _RUN_COLUMNS:
            if k in self.extra:
                data[k] = self.extra[k]
        data["status"] = np.where(self.failed, "failed", "ok")
        data["error"] = self.errors
        return pd.DataFrame(data)

    def __repr__(self) -> str:
        return f"History({len(self)} evaluations, {int(self.failed.sum())} failed)"


def _rows(x: Any) -> Any:
    """A pandas DataFrame of points (earlier data, ``history.to_pandas()[space.names]``) as a list
    of dicts by column: iterated as is, it gave its column names ("2 points but 5 values")."""
    if type(x).__name__ == "DataFrame" and type(x).__module__.startswith("pandas"):
        return x.to_dict("records")
    return x


def _several(x: Any, space: Space) -> bool:
    """Whether x holds several trials or points (a list of trials or dicts; of arrays for a bounds
    list, whose points have no categorical that could hold a list), not one point."""
    if isinstance(x, np.ndarray):
        return x.ndim == 2
    kinds = (Trial, Mapping) if space.named else (Trial, Mapping, list, tuple, np.ndarray)
    return isinstance(x, (list, tuple)) and all(isinstance(xi, kinds) for xi in x)  # [] too: none, as tell([], [])


def _is_scalar(v: Any) -> bool:
    return isinstance(v, numbers.Real) or (isinstance(v, np.ndarray) and v.ndim == 0)


def fresh_seed() -> int:
    """A seed drawn from the OS's entropy, for seed=None: 32 bits, as OptimistSampler(seed=None) draws
    (recorded with the run, so that it can be repeated)."""
    return secrets.randbits(32)


def check_seed(seed: Any) -> Optional[int]:
    """None, or the seed as an int; ValueError naming a bad one."""
    if seed is None:
        return None
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        limit = " below 2^64" if isinstance(seed, (int, np.integer)) and seed >= 2**64 else ""
        raise ValueError(f"seed must be a non-negative integer{limit} or None (a fresh random seed), got {seed!r}")
    return int(seed)


class Optimizer:
    """Ask/tell access to every optimist algorithm.

    ``Optimizer(space, "auto", seed=0, direction="minimize", **options)`` ("auto", the default,
    chooses the algorithm from the space and the budget, docs/robust.md): options are the
    algorithm's (``optimist.algorithms()`` lists them, as ``optimist list`` does); a bad name, key
    or value raises ValueError naming it and the valid ones. ``budget`` is the planned number of
    evaluations, required by the algorithms that plan with it (go-ucb and its variants).
    ``model`` is a parametric model of your own for GO-UCB (see :class:`optimist.ParametricModel`),
    or, as a string, GO-UCB's option naming a built-in family ("auto", "mlp", "additive"); with
    the default algorithm, giving a model selects GO-UCB.
    ``seed=None`` draws a fresh seed from the OS's entropy (``opt.seed`` says which, to repeat it).
    ``noisy=True`` declares a noisy objective (a point may be worth evaluating again). By default
    the objective is deterministic: no point evaluated or pending is asked again, and once every
    point of a finite space (integers and categoricals only) has been evaluated, ``ask()`` raises
    :class:`optimist.SpaceExhausted`.

    >>> import optimist
    >>> opt = optimist.Optimizer({"x": optimist.Float(-2, 2)}, "gp-ei", seed=1)
    >>> for _ in range(15):
    ...     trial = opt.ask()
    ...     opt.tell(trial, (trial.params["x"] - 0.5) ** 2)
    >>> round(opt.recommend()["x"], 2)
    0.5
    """

    def __init__(self, space: Any, algorithm: str = "auto", *, seed: Optional[int] = 0, direction: str = "minimize",
                 budget: Optional[int] = None, model: Any = None, noisy: bool = False, **options: Any):
        self.space = as_space(space)
        seed = check_seed(seed)
        if seed is None:
            seed = fresh_seed()
        if budget is not None and (not isinstance(budget, (int, np.integer)) or isinstance(budget, bool)
                                   or not 1 <= budget < 2**63):
            limit = " below 2^63" if isinstance(budget, (int, np.integer)) and budget >= 2**63 else ""
            raise ValueError(f"budget must be a positive integer{limit}, got {budget!r}")
        if not isinstance(algorithm, str):
            raise ValueError(f"algorithm must be a name such as 'gp-ei' (optimist.algorithm_names()), got "
                             f"{algorithm!r}; give its options as keyword arguments")
        if not isinstance(direction, str):
            raise ValueError(f"direction must be 'minimize' or 'maximize', got {direction!r}")
        if model is not None and algorithm == "auto":
            algorithm = "go-ucb"  # a parametric model (yours, or a built-in family's name) is GO-UCB's
        if isinstance(model, str):  # go-ucb's option naming a built-in family ("auto", "mlp", "additive")
            options["model"], model = model, None
        if not isinstance(noisy, (bool, np.bool_)):
            raise ValueError(f"noisy must be True or False, got {noisy!r}")
        self._core, self.options = _optimist._create_optimizer(
            algorithm, options, self.space._core, direction, int(seed), None if budget is None else int(budget), model,
            bool(noisy))
        self.algorithm = algorithm
        self.model = model
        self._owner = _Owner(secrets.randbits(64))
        # The C++ calls run without the GIL: this lock keeps one call at a time per optimizer when
        # threads share it (as the GIL did).
        self._lock = threading.Lock()

    # An algorithm's state lives in C++: a shallow copy would share it (telling one told both), and
    # there is no serialized form. A run is reproduced from its seed and history instead.
    def __copy__(self) -> "Optimizer":
        raise TypeError("an Optimizer cannot be copied (a copy would share the algorithm's state): create another "
                        "with the same space, algorithm, options and seed and tell it this one's history")

    def __deepcopy__(self, memo: Any) -> "Optimizer":
        return self.__copy__()

    def __reduce__(self) -> Any:
        raise TypeError("an Optimizer cannot be pickled: create another with the same space, algorithm, options and "
                        "seed and tell it this one's history (or resume from its trace)")

    # ---- what it is ----
    @property
    def seed(self) -> int:
        return self._core.seed

    @property
    def horizon(self) -> Optional[int]:
        """The planned number of evaluations given as ``budget`` (None: none)."""
        return self._core.horizon

    @property
    def direction(self) -> str:
        return self._core.direction

    @property
    def noisy(self) -> bool:
        """True when the objective was declared noisy (points may be asked again)."""
        return self._core.noisy

    @property
    def exhausted(self) -> bool:
        """True when every point of a finite space has been evaluated (deterministic objective)."""
        return self._core.exhausted

    @property
    def remaining_points(self) -> Optional[int]:
        """Points of a finite space neither evaluated nor pending (None: a continuous parameter, or noisy)."""
        return self._core.remaining_points

    @property
    def supports_batch(self) -> bool:
        """True when ask(n) returns n points at once (a true batch form); otherwise it returns one."""
        return self._core.supports_batch

    def __repr__(self) -> str:
        return (f"Optimizer({self.algorithm!r}, seed={self.seed}, direction={self.direction!r}, "
                f"{self._core.n_told} told, {len(self._core.pending())} pending)")

    # ---- ask / tell ----
    def ask(self, n: Optional[int] = None) -> Union[Trial, List[Trial]]:
        """The next trial; ``ask(n)``: a list of up to n trials to evaluate in parallel (algorithms
        without a batch form return one). Trials asked and not told are pending: the next ask
        takes them into account."""
        if n is None:
            with self._lock:
                return Trial(self._core.ask(1)[0], self.space, self._owner)
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"ask(n) needs a positive integer n, got {n!r}")
        if n > MAX_BATCH:  # 2**62 ran for minutes; 2**64 was a raw pybind11 TypeError
            raise ValueError(f"ask(n) takes at most {MAX_BATCH} trials at once, got {n}")
        with self._lock:
            trials = self._core.ask(int(n))
        return [Trial(t, self.space, self._owner) for t in trials]

    def _targets(self, xs: Any, call: str) -> List[Any]:
        """Each of several trials (checked: this optimizer's, not twice) or points (as vectors),
        all checked before the first is told."""
        targets: List[Any] = []
        for xi in xs:
            if isinstance(xi, Trial):
                self._check_owner(xi)
                if any(isinstance(t, Trial) and t.id == xi.id for t in targets):
                    raise ValueError(f"{call}: {xi!r} appears twice (nothing was told)")
                targets.append(xi)
            else:
                targets.append(self.space.to_vector(xi))
        return targets

    def tell(self, x: Any, y: Any) -> None:
        """Reports the value of a trial: ``tell(trial, y)``. Also ``tell(point, y)`` for a point
        nobody asked (a warm start from earlier data), and ``tell(points, ys)`` for several."""
        x = _rows(x)
        if not isinstance(x, (Trial, Mapping)) and not _is_scalar(y):
            xs, ys = list(x), list(y)
            if len(xs) != len(ys):
                raise ValueError(f"tell(points, values): {len(xs)} points but {len(ys)} values")
            # All or nothing: every value, point and trial is checked before the first is told.
            values = [told_value(v) for v in ys]
            for k, v in enumerate(values):
                if not math.isfinite(v):
                    raise ValueError(f"tell(points, values): value {k} is {v}, not finite (nothing was told); "
                                     "report failures with tell_failed")
            targets = self._targets(xs, "tell(points, values)")
            with self._lock:
                for target, v in zip(targets, values):
                    if isinstance(target, Trial):
                        self._core.tell(target._core, v)
                    else:
                        self._core.tell_point(target, v)
            return
        value = told_value(y)
        if isinstance(x, Trial):
            self._check_owner(x)
            with self._lock:
                self._core.tell(x._core, value)
        else:
            vector = self.space.to_vector(x)
            with self._lock:
                self._core.tell_point(vector, value)

    def tell_failed(self, x: Any, error: str = "failed") -> None:
        """Reports that evaluating a trial (or a point) failed: it is kept, and the algorithm is
        not given a value for it. ``tell_failed(trials, error)`` for several (a batch whose job
        died), as ``tell`` takes them."""
        x = _rows(x)
        if _several(x, self.space):
            # Taken for one point before: "parameter 'x': expected a number, got Trial(...)".
            targets = self._targets(x, "tell_failed(points, error)")  # all or nothing, as tell(points, values)
            with self._lock:
                for target in targets:
                    if isinstance(target, Trial):
                        self._core.tell_failed(target._core, str(error))
                    else:
                        self._core.tell_failed_point(target, str(error))
            return
        if isinstance(x, Trial):
            self._check_owner(x)
            with self._lock:
                self._core.tell_failed(x._core, str(error))
        else:
            vector = self.space.to_vector(x)
            with self._lock:
                self._core.tell_failed_point(vector, str(error))

    def withdraw(self, trials: Any) -> None:
        """Gives back asked trials that will not be evaluated (a cancelled job, a trial that ran
        other values): they leave ``pending()`` and enter no history, and the optimizer goes on as
        if they had not been asked (the next ask often returns the same point). Unlike
        ``tell_failed`` nothing is recorded against the point. One trial or several, all checked
        before the first is withdrawn."""
        several = not isinstance(trials, Trial)
        if several and (isinstance(trials, (str, bytes, Mapping)) or not hasattr(trials, "__iter__")):
            raise TypeError(f"withdraw: expected a Trial from ask(), or a list of them, got {type(trials).__name__} "
                            f"{trials!r:.80} (nothing was withdrawn)")
        targets = list(trials) if several else [trials]
        with self._lock:
            pending = {t.id for t in self._core.pending()}
            for k, t in enumerate(targets):
                if not isinstance(t, Trial):
                    raise TypeError(f"withdraw: expected a Trial from ask(), got {type(t).__name__} "
                                    f"{'(item ' + str(k) + ') ' if several else ''}(nothing was withdrawn)")
                self._check_owner(t)
                if any(o.id == t.id for o in targets[:k]):
                    raise ValueError(f"withdraw: {t!r} appears twice (nothing was withdrawn)")
                if t.id not in pending:
                    raise ValueError(f"withdraw: {t!r} is not pending: it was told, withdrawn or never asked "
                                     "(nothing was withdrawn)")
            for t in targets:
                self._core.withdraw(t._core)

    def add_pending(self, x: Any) -> Trial:
        """Records a point that someone else is evaluating (another worker, a queued experiment):
        the algorithm treats it as one of its own pending trials. Tell it later with the trial."""
        vector = self.space.to_vector(x)
        with self._lock:
            return Trial(self._core.add_pending(vector), self.space, self._owner)

    def _check_owner(self, trial: Trial) -> None:
        if trial._owner != self._owner:
            raise ValueError(f"{trial!r} was asked from another optimizer")

    # ---- answers ----
    def recommend(self) -> Point:
        """The algorithm's answer (by default the best observed point); RuntimeError before any
        successful evaluation."""
        with self._lock:
            x = self._core.recommend()
        return self.space.to_point(x)

    @property
    def best(self) -> Optional[Observation]:
        """The best successful observation so far, or None."""
        with self._lock:
            b = self._core.best()
        if b is None:
            return None
        return Observation(Trial(b[0], self.space, self._owner), b[1], False, None)

    @property
    def pending(self) -> List[Trial]:
        with self._lock:
            pending = self._core.pending()
        return [Trial(t, self.space, self._owner) for t in pending]

    @property
    def history(self) -> History:
        """Every told evaluation, in order (failed ones included)."""
        with self._lock:
            arrays = self._core.history()
        return History(self.space, arrays)

    def diagnostics(self) -> Dict[str, Any]:
        """The algorithm's current diagnostics (the extra fields of a trace line)."""
        with self._lock:
            return self._core.diagnostics()

    def decisions(self) -> Dict[str, Any]:
        """What a meta-algorithm chose and why (``auto``: {"algorithm", "options", "reason"}; the
        trace meta's "decisions"); {} for the other algorithms."""
        with self._lock:
            return self._core.decisions()


def algorithms() -> List[Dict[str, Any]]:
    """Every algorithm with its family, summary and options (key, default, help, allowed values)."""
    return _optimist._algorithms()


def algorithm_names() -> List[str]:
    """The names of every registered algorithm (``optimist list algorithms``)."""
    return [a["name"] for a in _optimist._algorithms()]
