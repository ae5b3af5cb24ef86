"""Search spaces: named parameters (Float, Int, Categorical) or a plain list of (low, high) bounds."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _optimist


def _bad_float(low: Any, high: Any, log: Any, given: str = "a Float") -> Optional[str]:
    """Why Float(low, high, log) is not a parameter (the C++ space's words), or None. `given`: what
    the user wrote, for the hint that a plain value fixes a parameter."""
    for bound in (low, high):
        if not _is_real(bound):
            return f"Float bounds must be numbers, got {bound!r}"
    if not isinstance(log, (bool, np.bool_)):
        return f"log must be True or False, got {log!r}"
    # The C++ space's own checks (finite, ordered, wide enough to hold 2^20 doubles, ...), so that a
    # Float that is made is one that minimize takes.
    try:
        _optimist._Space().add_continuous("_", float(low), float(high), bool(log))
    except ValueError as e:
        problem = str(e).removeprefix("parameter '_': ")
        if float(low) == float(high):
            problem += f"; to fix a parameter at {low!r}, give the plain value {low!r} instead of {given}"
        return problem
    return None


def _bad_int(low: Any, high: Any, log: Any) -> Optional[str]:
    """Why Int(low, high, log) is not a parameter (the C++ space's words), or None."""
    for bound in (low, high):
        if not _is_real(bound) or (not isinstance(bound, (int, np.integer)) and not float(bound).is_integer()):
            return f"Int bounds must be integers, got {bound!r}"
        if abs(int(bound)) >= 2**53:
            return f"integer bounds must be below 2^53 in magnitude, got {bound!r}"
    if not isinstance(log, (bool, np.bool_)):
        return f"log must be True or False, got {log!r}"
    lo, hi = int(low), int(high)
    if lo > hi:
        return f"inverted bounds [{lo}, {hi}]; need lower <= upper"
    if log and lo < 1:
        return f"a log-scale integer needs lower >= 1, got lower = {lo}"
    if log and hi > 2**40:
        return (f"a log-scale integer needs upper <= 2^40 ({2**40}), got {hi}; use a log-scale continuous "
                "parameter and round it")
    return None


class Condition(tuple):
    """A parameter's ``when``: (parent name, tuple of the parent's values that make it active)."""

    @property
    def parent(self) -> str:
        return self[0]

    @property
    def values(self) -> Tuple[Any, ...]:
        return self[1]

    def __repr__(self) -> str:
        return repr({self[0]: list(self[1])})


def _condition(when: Any) -> Optional[Condition]:
    """``when={"parent": value or [values]}`` as a Condition; ValueError for any other form."""
    if when is None or isinstance(when, Condition):
        return when
    if not isinstance(when, Mapping) or len(when) != 1 or not isinstance(next(iter(when)), str):
        raise ValueError(f"when must be a dict naming one parent parameter, e.g. when={{'kernel': ['rbf', 'poly']}}; "
                         f"got {when!r}")
    parent, raw = next(iter(when.items()))
    values = tuple(raw) if isinstance(raw, (list, tuple, set, frozenset)) else (raw,)
    if not values:
        raise ValueError(f"when={when!r}: lists no values of '{parent}'")
    condition = Condition((parent, values))
    condition.raw = raw  # a tuple may be one choice of the parent (Space resolves it)
    return condition


def _call(kind: str, low: Any, high: Any, log: Any) -> str:
    return f"{kind}({low!r}, {high!r}" + (f", log={log!r})" if log is not False else ")")


@dataclass(frozen=True)
class Float:
    """A continuous parameter in [low, high]; ``log=True`` searches log(x) uniformly (low > 0).
    ``when={"kernel": ["rbf", "poly"]}`` makes it conditional (see Space).
    Bad bounds (NaN or infinite, low >= high, low <= 0 with log, too narrow to hold 2^20 doubles)
    raise ValueError when it is made, in minimize's words. To fix a parameter, give a plain value
    in the space's dict instead (see Space)."""

    low: float
    high: float
    log: bool = False
    when: Optional[Condition] = None

    def __post_init__(self) -> None:
        problem = _bad_float(self.low, self.high, self.log)
        if problem is not None:
            raise ValueError(f"{_call('Float', self.low, self.high, self.log)}: {problem}")
        object.__setattr__(self, "when", _condition(self.when))


@dataclass(frozen=True)
class Int:
    """An integer parameter in [low, high], both included; ``log=True`` gives each value an equal
    share of log space around it (1 <= low, high <= 2^40): layer widths, batch sizes, tree counts.
    Bad bounds (not integers, low > high, low < 1 with log) raise ValueError when it is made."""

    low: int
    high: int
    log: bool = False
    when: Optional[Condition] = None

    def __post_init__(self) -> None:
        problem = _bad_int(self.low, self.high, self.log)
        if problem is not None:
            raise ValueError(f"{_call('Int', self.low, self.high, self.log)}: {problem}")
        object.__setattr__(self, "when", _condition(self.when))


@dataclass(frozen=True)
class Categorical:
    """One of ``choices`` (any Python objects; the trace records them as ``str(choice)`` without a
    memory address: a function ``relu`` as ``<function relu>``)."""

    choices: Tuple[Any, ...]
    when: Optional[Condition] = None

    def __init__(self, choices: Sequence[Any], when: Optional[Mapping[str, Any]] = None):
        if isinstance(choices, (str, bytes)) or not isinstance(choices, Sequence):
            raise ValueError(f"Categorical needs a sequence of choices, got {choices!r}")
        object.__setattr__(self, "choices", tuple(choices))
        object.__setattr__(self, "when", _condition(when))


Dimension = Union[Float, Int, Categorical]
Point = Union[Dict[str, Any], np.ndarray]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _choice_label(choice: Any) -> str:
    """A choice as the trace names it: ``str(choice)`` without the memory address that functions
    and plain objects print (``<function relu at 0x7f35...>``), which differs in every process, so
    a resumed run's space would never match its trace's."""
    return _ADDRESS.sub("", str(choice))


def _both_nan(a: Any, b: Any) -> bool:
    """A NaN choice matches any NaN of its type (NaN != NaN, but a trial's NaN means that choice)."""
    return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)


def _equal(a: Any, b: Any) -> bool:
    """a == b as one bool: numpy arrays compare whole (their == is element-wise); objects whose ==
    raises are not equal."""
    try:
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            return bool(np.array_equal(a, b))
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an == that raises (or an ambiguous truth value) is no match
        return False


def _is_real(value: Any) -> bool:
    """A bound a user meant as a number: an int, float or numpy number, not a bool or a string."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _check_distinct(name: str, choices: Tuple[Any, ...]) -> None:
    """ValueError on two equal choices of one type. Hashable choices are checked through a set (a
    100,000-choice categorical in well under a second); unhashable ones (lists, arrays) pairwise."""
    seen: set = set()
    unhashable: List[Any] = []
    nans = 0
    for c in choices:
        if isinstance(c, float) and math.isnan(c):  # NaN != NaN: two NaN choices could not be told apart
            nans += 1
            if nans > 1:
                raise ValueError(f"parameter '{name}': duplicate choice {c!r}")
            continue
        try:
            key = (type(c), c)
            duplicate = key in seen
            seen.add(key)
        except Exception:  # noqa: BLE001 - unhashable, or an == that raises: compared pairwise
            duplicate = any(type(c) is type(e) and _equal(c, e) for e in unhashable)
            unhashable.append(c)
        if duplicate:
            raise ValueError(f"parameter '{name}': duplicate choice {c!r}")


def _is_fixed(spec: Any) -> bool:
    """A plain value in a dict of parameters: a fixed parameter (a number, a bool or a string)."""
    return _is_real(spec) or isinstance(spec, (str, bool, np.bool_))


def _dimension(name: str, spec: Any) -> Dimension:
    if isinstance(spec, (Float, Int, Categorical)):
        return spec
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and all(isinstance(v, (int, float, np.number)) for v in spec):
        problem = _bad_float(spec[0], spec[1], False, "a (low, high) pair")
        if problem is not None:
            raise ValueError(f"parameter '{name}': {problem}")
        return Float(float(spec[0]), float(spec[1]))
    raise ValueError(f"parameter '{name}': expected optimist.Float, Int, Categorical, a (low, high) pair or (in a "
                     f"dict of parameters) a plain number or string, which fixes the parameter; got {spec!r}")


class Space:
    """An ordered search space.

    ``Space({"lr": Float(1e-5, 1e-1, log=True), "layers": Int(1, 4), "width": Int(16, 1024, log=True), "act": Categorical(["relu", "tanh"])})``
    names its parameters: the objective receives a dict ``{"lr": 0.003, "layers": 2, "act": "tanh"}``.

    ``Space([(-5, 10), (0, 15)])`` is a box of continuous parameters named x1, x2, ...: the objective
    receives a numpy array. A list may also hold Float and Int.

    Conditional parameters: ``"gamma": Float(1e-4, 10, log=True, when={"kernel": ["rbf", "poly"]})``
    matters only when the earlier parameter ``kernel`` (a Categorical or an Int) holds one of those
    values. Where it does not, the objective's dict leaves it out, and optimist stores it at its
    fixed value (its lower bound; a Categorical's first choice): two points that differ only in
    unused parameters are one point, never evaluated twice, and the models see them as one.

    Fixed parameters: a plain number, bool or string in a dict (``{"T": 70.0, "x": Float(0, 1)}``)
    is not searched (``names``, ``dim``, ``bounds`` and the trace's space leave it out), but every
    point the objective receives or a result shows holds it (``fixed`` lists them).

    Bad bounds raise ValueError when a Float or Int is made (naming the call and the value); bad
    (low, high) pairs, duplicate names or empty choices raise ValueError naming the parameter.
    """

    def __init__(self, dimensions: Union[Mapping[str, Any], Sequence[Any], np.ndarray, "Space"]):
        self._fixed: Dict[str, Any] = {}
        if isinstance(dimensions, Space):
            self._dims, self._named = dict(dimensions._dims), dimensions._named
            self._fixed, self._order = dict(dimensions._fixed), list(dimensions._order)
        elif isinstance(dimensions, Mapping):
            for k in dimensions:
                # str(k) would rename it (the objective got {'1': ...} for {1: ...}) and could merge
                # two parameters into one ({1: ..., "1": ...}).
                if not isinstance(k, str):
                    raise ValueError(f"parameter names must be strings, got {k!r} of type {type(k).__name__}")
            self._fixed = {k: v for k, v in dimensions.items() if _is_fixed(v)}
            self._dims = {k: _dimension(k, v) for k, v in dimensions.items() if k not in self._fixed}
            self._order = list(dimensions)  # the user's order, fixed parameters included
            self._named = True
        elif isinstance(dimensions, (str, bytes)) or not isinstance(dimensions, Iterable):
            raise TypeError("a search space is a dict of parameters, a list of (low, high) bounds or an "
                            f"optimist.Space, got {dimensions!r} of type {type(dimensions).__name__}")
        else:
            rows = [tuple(r) if isinstance(r, np.ndarray) else r for r in dimensions]
            self._dims = {f"x{k + 1}": _dimension(f"x{k + 1}", d) for k, d in enumerate(rows)}
            self._named = False
            self._order = list(self._dims)
            for name, d in self._dims.items():
                if isinstance(d, Categorical):
                    raise ValueError(f"parameter '{name}': a Categorical needs a named space (a dict of parameters)")
        if not self._dims:
            raise ValueError("the search space has no parameters" + (
                f" to search: every one is fixed ({self._fixed!r})" if self._fixed else ""))
        self._core = _optimist._Space()
        labels: Dict[str, List[str]] = {}  # a categorical's choices as the C++ space names them
        for name, d in self._dims.items():
            if isinstance(d, Float):
                for bound in (d.low, d.high):
                    if not _is_real(bound):
                        raise ValueError(f"parameter '{name}': Float bounds must be numbers, got {bound!r}")
                if not isinstance(d.log, (bool, np.bool_)):
                    raise ValueError(f"parameter '{name}': log must be True or False, got {d.log!r}")
                self._core.add_continuous(name, float(d.low), float(d.high), bool(d.log))
            elif isinstance(d, Int):
                for bound in (d.low, d.high):
                    if not _is_real(bound) or (not isinstance(bound, (int, np.integer))
                                               and not float(bound).is_integer()):
                        raise ValueError(f"parameter '{name}': Int bounds must be integers, got {bound!r}")
                    if abs(int(bound)) >= 2**53:
                        raise ValueError(f"parameter '{name}': integer bounds must be below 2^53 in magnitude, "
                                         f"got {bound!r}")
                if not isinstance(d.log, (bool, np.bool_)):
                    raise ValueError(f"parameter '{name}': log must be True or False, got {d.log!r}")
                self._core.add_integer(name, int(d.low), int(d.high), bool(d.log))
            else:
                _check_distinct(name, d.choices)
                names = [_choice_label(c) for c in d.choices]
                if len(set(names)) != len(names):  # distinct objects printing alike: name them by index
                    names = [f"{k}:{label}" for k, label in enumerate(names)]
                self._core.add_categorical(name, names)
                labels[name] = names
        for name, d in self._dims.items():
            if d.when is not None and d.when.parent in self._fixed:
                raise ValueError(f"parameter '{name}': when={d.when!r} names '{d.when.parent}', which is fixed at "
                                 f"{self._fixed[d.when.parent]!r}: the condition always or never holds; leave it out, "
                                 "or leave out the parameter")
            if d.when is not None:
                self._core.add_condition(name, d.when.parent, self._condition_labels(name, d.when, labels))
        self._conditional = self._core.has_conditions

    def _condition_labels(self, name: str, when: "Condition", labels: Dict[str, List[str]]) -> List[str]:
        """A condition's values as the C++ space names them: a categorical parent's choice labels,
        an integer parent's values in decimal. ValueError naming the parameter and the value."""
        parent = self._dims.get(when.parent)
        if isinstance(parent, Categorical):
            values = when.values
            raw = getattr(when, "raw", None)
            if isinstance(raw, tuple) and any(c == raw for c in parent.choices if isinstance(c, tuple)):
                values = (raw,)  # a tuple that is itself one of the choices, not a list of them
            out = []
            for v in values:
                try:
                    out.append(labels[when.parent][self._choice_index(when.parent, parent, v)])
                except ValueError:
                    raise ValueError(f"parameter '{name}': when={when!r}: {v!r} is not one of '{when.parent}''s "
                                     f"choices {list(parent.choices)!r}") from None
            return out
        if isinstance(parent, Int):
            out = []
            for v in when.values:
                if isinstance(v, str) and v.strip().lstrip("+-").isdigit():  # a space file's "2"
                    v = int(v)
                if not _is_real(v) or not float(v).is_integer():
                    raise ValueError(f"parameter '{name}': when={when!r}: {v!r} is not a value of integer parameter "
                                     f"'{when.parent}'")
                if not parent.low <= v <= parent.high:
                    raise ValueError(f"parameter '{name}': when={when!r}: {v!r} is outside '{when.parent}''s range "
                                     f"[{parent.low}, {parent.high}]")
                out.append(str(int(v)))
            return out
        return [str(v) for v in when.values]  # unknown or continuous parent: the C++ space names the error

    def active(self, x: np.ndarray) -> List[bool]:
        """Per parameter, whether it matters at the stored vector x (a conditional parameter whose
        parent does not hold one of its ``when`` values does not)."""
        return list(self._core.active(np.asarray(x, dtype=float))) if self._conditional else [True] * self.dim

    # ---- what the space holds ----
    @property
    def names(self) -> List[str]:
        return list(self._dims)

    @property
    def fixed(self) -> Dict[str, Any]:
        """The fixed parameters (plain values in a dict of parameters): never searched, in every point."""
        return dict(self._fixed)

    @property
    def point_names(self) -> List[str]:
        """The names a point dict holds, in the order given: the searched parameters and the fixed ones."""
        return list(self._order)

    @property
    def dim(self) -> int:
        return len(self._dims)

    @property
    def named(self) -> bool:
        """True when points are dicts (a dict of parameters), False when numpy arrays (a bounds list)."""
        return self._named

    @property
    def bounds(self) -> np.ndarray:
        """(dim, 2) array of [low, high]; a categorical parameter's are [0, n_choices - 1] (choice indices)."""
        out = np.empty((self.dim, 2))
        for k, d in enumerate(self._dims.values()):
            out[k] = (0, len(d.choices) - 1) if isinstance(d, Categorical) else (d.low, d.high)
        return out

    def __len__(self) -> int:
        return self.dim

    def __iter__(self) -> Iterator[str]:
        return iter(self._dims)

    def __getitem__(self, name: str) -> Dimension:
        return self._dims[name]

    def items(self):
        return self._dims.items()

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Space) and self._dims == other._dims and self._named == other._named
                and self._fixed == other._fixed and self._order == other._order)

    def __repr__(self) -> str:
        if not self._named:
            return f"Space({[(d.low, d.high) if isinstance(d, Float) and not d.log and d.when is None else d for d in self._dims.values()]})"
        return f"Space({self._given()})"

    def _given(self) -> Dict[str, Any]:
        """The dict the space was made from: its parameters and fixed values, in the order given."""
        return {n: self._fixed[n] if n in self._fixed else self._dims[n] for n in self._order}

    def to_json(self) -> dict:
        """The space as in a trace's meta line (docs/trace-format.md): the searched parameters."""
        return self._core.to_json()

    # ---- points: the C++ vector (a categorical as its choice index) <-> the user's form ----
    def to_vector(self, point: Any) -> np.ndarray:
        """A point as the float vector optimist stores (categorical: the choice's index).

        Accepts a dict keyed by name (every parameter), or a sequence in the space's order.
        ValueError naming the parameter when a value is missing or outside the space.
        """
        if isinstance(point, Mapping):
            for n, fixed in self._fixed.items():  # a fixed parameter may be left out, or hold its value
                if n in point and not (_equal(point[n], fixed) or _both_nan(point[n], fixed)):
                    raise ValueError(f"point {dict(point)!r}: parameter '{n}' is fixed at {fixed!r}, got {point[n]!r}")
            # A conditional parameter may be left out; it must be where it is active (checked below).
            missing = [n for n, d in self._dims.items() if n not in point and d.when is None]
            extra = [n for n in point if n not in self._dims and n not in self._fixed]
            if missing or extra:
                raise ValueError(f"point {dict(point)!r}: " + "; ".join(
                    s for s in (missing and f"missing {missing}", extra and f"unknown {extra} (parameters: {self.names})") if s))
            values = [point[n] if n in point else self._fixed_value(d) for n, d in self._dims.items()]
        else:
            values = list(np.asarray(point, dtype=object).reshape(-1)) if not isinstance(point, (list, tuple)) else list(point)
            if len(values) != self.dim:
                raise ValueError(f"point {point!r} has {len(values)} values, the space has {self.dim}: {self.names}")
        x = np.empty(self.dim)
        deferred: Dict[int, ValueError] = {}  # a conditional parameter's bad value: an error only where it is used
        for k, (name, d) in enumerate(self._dims.items()):
            v = values[k]
            try:
                if isinstance(d, Categorical):
                    x[k] = self._choice_index(name, d, v)
                else:
                    try:
                        if isinstance(v, (str, bytes)):  # float("2") would take text, as told values do not
                            raise TypeError
                        x[k] = float(v)
                    except (TypeError, ValueError):
                        raise ValueError(f"parameter '{name}': expected a number, got {v!r}") from None
            except ValueError as e:
                if d.when is None:
                    raise
                deferred[k], x[k] = e, self._fixed_value(d)
        if not self._conditional:
            self._core.validate(x)
            return x
        # Where a conditional parameter is unused, any value (NaN, None, out of range: a data frame's
        # empty cell) is replaced by its fixed value; where it is used, it must be given and valid.
        on = self._core.active(np.where(np.isfinite(x), x, 0.0))
        for k, (name, d) in enumerate(self._dims.items()):
            if not on[k]:
                x[k] = self._fixed_value(d)
            elif k in deferred:
                raise deferred[k]
        if isinstance(point, Mapping):
            left_out = [n for n, used in zip(self._dims, on) if used and n not in point]
            if left_out:
                raise ValueError(f"point {dict(point)!r}: missing {left_out} (active: their conditions hold)")
        return np.asarray(self._core.canonical(x), dtype=float)  # inactive parameters at their fixed values

    def to_point(self, x: np.ndarray) -> Point:
        """The user's form of a stored vector: a dict (named space) or a numpy array (bounds list)."""
        if not self._named:
            return np.array(x, dtype=float)
        return self.to_dict(x)

    def to_dict(self, x: np.ndarray) -> Dict[str, Any]:
        """The point as a dict, fixed parameters included (in the order given); a conditional
        parameter that is inactive at x is left out."""
        out: Dict[str, Any] = {}
        on = self.active(x)
        for k, (v, (name, d)) in enumerate(zip(x, self._dims.items())):
            if not on[k]:
                continue
            if isinstance(d, Categorical):
                out[name] = d.choices[int(v)]
            elif isinstance(d, Int):
                out[name] = int(v)
            else:
                out[name] = float(v)
        if self._fixed:
            out = {n: self._fixed[n] if n in self._fixed else out[n] for n in self._order
                   if n in out or n in self._fixed}
        return out

    @staticmethod
    def _fixed_value(d: Dimension) -> float:
        """An inactive parameter's stored value: its lower bound (a categorical: its first choice)."""
        return 0.0 if isinstance(d, Categorical) else float(d.low)

    @staticmethod
    def _choice_index(name: str, d: Categorical, value: Any) -> int:
        for k, c in enumerate(d.choices):
            if c is value or (type(c) is type(value) and (_equal(c, value) or _both_nan(c, value))):
                return k
        for k, c in enumerate(d.choices):  # 1 == 1.0 == True: accept equal values of other types last
            if _equal(c, value) and not (isinstance(c, float) and math.isnan(c)):
                return k
        raise ValueError(f"parameter '{name}': {value!r} is not one of {list(d.choices)!r}")

    @classmethod
    def from_json(cls, j: Mapping[str, Any], named: bool = True) -> "Space":
        """Inverse of to_json (a trace's meta "space"); categorical choices come back as strings.
        ``named=False``: points are numpy arrays (the space of a benchmark problem)."""
        params = j["parameters"] if "parameters" in j else j
        dims: Dict[str, Dimension] = {}
        for p in params:
            c = p.get("condition")
            when = None if c is None else {c["parent"]: list(c["values"])}
            if p["type"] == "continuous":
                dims[p["name"]] = Float(p["lower"], p["upper"], bool(p.get("log", False)), when=when)
            elif p["type"] == "integer":
                dims[p["name"]] = Int(int(p["lower"]), int(p["upper"]), bool(p.get("log", False)), when=when)
            else:
                dims[p["name"]] = Categorical(p["choices"], when=when)
        return _rebuild_space(dims, named)

    def __reduce__(self):
        return (_rebuild_space, (self._given(), self._named))


def _rebuild_space(dims: Dict[str, Dimension], named: bool) -> Space:
    space = Space(dims)
    if not named:
        for name, d in dims.items():
            if isinstance(d, Categorical):
                raise ValueError(f"parameter '{name}': a Categorical needs a named space (a dict of parameters)")
        space._named = False
    return space


def as_space(space: Any) -> Space:
    """A Space from a Space, a dict of parameters or a list of bounds."""
    return space if isinstance(space, Space) else Space(space)
