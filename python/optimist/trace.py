"""Reading traces (docs/trace-format.md): the JSON Lines files of ``optimist run --out``,
``optimist bench`` and ``optimist.minimize(..., trace=...)``."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from . import _optimist
from .space import Space


@dataclass
class Trace:
    """A trace read back: ``meta`` (the first line), ``evaluations`` (one dict per line) and
    ``recommend`` (the last line; None when the run did not finish: ``complete`` is then False)."""

    meta: Dict[str, Any]
    evaluations: List[Dict[str, Any]] = field(default_factory=list)
    recommend: Optional[Dict[str, Any]] = None

    @property
    def complete(self) -> bool:
        return self.recommend is not None

    @property
    def space(self) -> Space:
        return Space.from_json(self.meta["space"])

    @property
    def x(self) -> List[Any]:
        """The evaluated points as written (categorical values as their choice strings)."""
        return [e["x"] for e in self.evaluations]

    @property
    def y(self) -> np.ndarray:
        """Observed values, NaN where an evaluation failed."""
        return np.array([np.nan if e["y"] is None else e["y"] for e in self.evaluations], dtype=float)

    def to_pandas(self):
        """One row per evaluation, one column per parameter then the line's other fields."""
        import pandas as pd

        names = [p["name"] for p in self.meta["space"]["parameters"]]
        rows = []
        for e in self.evaluations:
            row = {"i": e["i"], **dict(zip(names, e["x"]))}
            row.update({k: v for k, v in e.items() if k not in ("i", "x")})
            rows.append(row)
        return pd.DataFrame(rows)

    def __len__(self) -> int:
        return len(self.evaluations)


def read_trace(path: "os.PathLike[str] | str") -> Trace:
    """Reads a trace with the C++ reader (the CLI's): a cut-off last line (a killed run) is
    ignored; a malformed line elsewhere raises ValueError naming the file and line."""
    d = _optimist._read_trace(os.fspath(path))
    return Trace(d["meta"], d["evaluations"], d["recommend"])
