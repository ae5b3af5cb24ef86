"""Objective values and failures in words: what counts as a number, and how a value, a point or an
exception is shown in a message (shared by minimize's loop, the workers and Study.optimize)."""
from __future__ import annotations

import numbers
from typing import Any, Optional

import numpy as np


class ObjectiveError(RuntimeError):
    """The objective returned NaN, infinity or a non-number (with on_failure="stop")."""


class ObjectiveTimeout(TimeoutError):
    """An evaluation ran longer than minimize's ``objective_timeout`` (raised with on_failure="stop";
    the stack where the objective was interrupted, when it was, is its ``__cause__``)."""


def seconds_text(seconds: float) -> str:
    """Seconds as the CLI writes them (the shortest text that reads back: 0.5, 3, 1e-05)."""
    text = repr(float(seconds))
    return text[:-2] if text.endswith(".0") else text


def is_truth_value(value: Any) -> bool:
    """True for a bool, numpy's bool_ or a numpy array of bools: float() takes them as 1.0 and 0.0,
    but an objective returning one almost surely returns a comparison by mistake."""
    return isinstance(value, (bool, np.bool_)) or (isinstance(value, np.ndarray) and value.dtype == np.bool_)


def not_a_number(value: Any) -> str:
    """How a value that is not a number is named in a failure: "a non-number (1, 2) of type tuple"."""
    text = f"a non-number {shown(value)} of type {type(value).__name__}"
    if is_truth_value(value):
        text += " (return the value, not a comparison)"
    return text


def as_number(value: Any) -> Optional[float]:
    """An objective value as a float, or None when it is not a number: text ("1.5" is not read as
    a number), a bool (see is_truth_value), None, an integer too large for a float (10**400), or an
    object whose float() raises. NaN and infinity are returned: each caller fails them in its own way."""
    if isinstance(value, (str, bytes, bytearray)) or is_truth_value(value):
        return None
    try:
        return float(value)
    except Exception:  # noqa: BLE001 - TypeError, ValueError, OverflowError, or a __float__ that breaks
        return None


def told_value(y: Any) -> float:
    """A value given to tell() or add(): a number (see as_number) or TypeError naming it."""
    value = as_number(y)
    if value is None:
        if is_truth_value(y):  # a bool is an Integral, but not a number an objective returns
            what = "a number (not a truth value)"
        else:
            what = "a number that fits a float" if isinstance(y, numbers.Integral) else "a number"
        raise TypeError(f"an objective value must be {what}, got {shown(y)} of type {type(y).__name__}")
    return value


def shown(value: Any, limit: int = 80) -> str:
    """repr(value) cut to `limit` characters, for messages (a 400-digit integer stays readable; a
    repr that raises is replaced by the type's name)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not lose the evaluation
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def described(e: BaseException) -> str:
    """'Type: text' of an exception ('Type' alone when its text is empty), even when its __str__ raises."""
    try:
        text = str(e)
    except Exception as broken:  # noqa: BLE001 - an exception whose __str__ raises is still a failure
        text = f"<str() of the exception raised {type(broken).__name__}>"
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def shown_point(point: Any, limit: int = 6) -> str:
    """The point as the objective received it, for failure messages: a dict of named parameters
    (`{'lr': 0.0031622776601683794, 'act': 'tanh'}`) or a vector (`[0.16201738, 2.5]`), values at full
    precision; a long vector shows its first `limit` values."""
    def value(v: Any) -> str:
        if isinstance(v, (float, np.floating)):
            return repr(float(v))
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            return repr(int(v))
        return shown(v, 40)

    if isinstance(point, dict):
        return "{" + ", ".join(f"{name!r}: {value(v)}" for name, v in point.items()) + "}"
    try:
        values = list(np.asarray(point).ravel())
    except Exception:  # noqa: BLE001
        return shown(point)
    text = ", ".join(value(v) for v in values[:limit])
    if len(values) > limit:
        text += f", ... ({len(values)} values)"
    return f"[{text}]"
