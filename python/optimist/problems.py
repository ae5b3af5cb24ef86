"""The benchmark functions of ``optimist list problems``, with their domains and known optima.

>>> import optimist
>>> branin = optimist.problems.get("branin")          # or optimist.problems.branin
>>> branin.f_star, branin.space.bounds.tolist()
(0.3978873577297384, [[-5.0, 10.0], [0.0, 15.0]])
>>> res = optimist.minimize(branin, algorithm="gp-ei", budget=30, seed=0)
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from . import _optimist
from .space import Space


class Problem:
    """A benchmark function in one dimension: callable on a numpy point (the observed value, with
    Gaussian noise of sd ``noise`` when set), ``f(x)`` the noise-free value, ``f_star`` its optimum
    (None when unknown), ``optima`` the known optimizers, ``direction`` "minimize" or "maximize".

    ``optimist.minimize(problem, ...)`` (or ``maximize``, following ``direction``) runs it as
    ``optimist run --problem NAME`` does: the same points, values and trace for the same seed (the
    noise is then drawn from the stream the CLI derives from the run's seed, unless ``noise_seed``
    is given). On an executor (``executor=``, ``n_parallel=``) the k-th evaluation asked gets the
    k-th draw of that stream wherever it runs, so a run one at a time is the sequential run.
    """

    def __init__(self, name: str, dim: Optional[int] = None, *, noise: float = 0.0, noise_seed: Optional[int] = None):
        if dim is not None and (not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or dim < 1):
            raise ValueError(f"problem '{name}': dim must be a positive integer, got {dim!r}")
        self._core = _optimist._make_problem(name, 0 if dim is None else int(dim))
        self.noise = float(noise)
        self.noise_seed = noise_seed
        self._observed = self._core.objective(self.noise, 0 if noise_seed is None else int(noise_seed))
        # Points are numpy arrays (a categorical as its choice's index); a space with categorical
        # parameters (the finite problems of the discrete preset) is shown with its names.
        space_json = self._core.space.to_json()
        named = any(p["type"] == "categorical" for p in space_json["parameters"])
        self.space = Space.from_json(space_json, named=named)

    name = property(lambda self: self._core.name)
    dim = property(lambda self: self._core.dim)
    direction = property(lambda self: self._core.direction)
    f_star = property(lambda self: self._core.f_star)
    optima = property(lambda self: [np.array(x) for x in self._core.argmax],
                      doc="Known optimizers (argmin for a minimization problem, argmax otherwise).")

    @property
    def bounds(self) -> np.ndarray:
        return self.space.bounds

    def __call__(self, x: Any) -> float:
        return self._observed(np.asarray(x, dtype=float))

    def f(self, x: Any) -> float:
        """Noise-free value at x; ValueError when x is not in the domain."""
        return self._core.f(np.asarray(x, dtype=float))

    def objective_for_run(self, seed: int, first_draw: int = 0):
        """The observed function of a run with this seed, as ``optimist run --problem NAME --noise b
        --seed SEED`` and ``minimize(problem, seed=SEED)`` observe it: its k-th call gets the k-th
        draw of the CLI's noise stream for the seed (unless noise_seed is set). For a loop of your
        own compared with ours on the same noise, seed by seed. first_draw > 0: a resumed run's
        stream, continued."""
        if self.noise == 0.0:
            return self._observed
        noise_seed = _optimist._noise_seed(seed) if self.noise_seed is None else int(self.noise_seed)
        return self._core.objective(self.noise, noise_seed, first_draw)

    def _draw_for_run(self, seed: int, draw: int) -> "_Draw":
        """The observed function of the evaluation that gets draw `draw` of the run's noise stream (that
        of objective_for_run): picklable, so that an evaluation in a worker process gets its own draw,
        the one a sequential run would give the same evaluation."""
        noise_seed = _optimist._noise_seed(seed) if self.noise_seed is None else int(self.noise_seed)
        return _Draw(self, noise_seed, draw)

    def __reduce__(self):
        return (_rebuild, (self.name, self.dim, self.noise, self.noise_seed))

    def __repr__(self) -> str:
        noise = f", noise={self.noise}" if self.noise else ""
        return f"Problem({self.name!r}, dim={self.dim}{noise})"


class _Draw:
    """One evaluation of a noisy problem with draw `draw` of the stream Rng(noise_seed)."""

    def __init__(self, problem: Problem, noise_seed: int, draw: int) -> None:
        self.problem, self.noise_seed, self.draw = problem, noise_seed, draw

    def __call__(self, x: Any) -> float:
        observed = self.problem._core.objective(self.problem.noise, self.noise_seed, self.draw)
        return observed(np.asarray(x, dtype=float))


def _rebuild(name: str, dim: int, noise: float, noise_seed: Optional[int]) -> Problem:
    return Problem(name, dim, noise=noise, noise_seed=noise_seed)


def get(name: str, dim: Optional[int] = None, *, noise: float = 0.0, noise_seed: Optional[int] = None) -> Problem:
    """The problem ``name`` (see :func:`names`) in dimension ``dim`` (default: its default).
    ValueError naming the problem or dimension and the valid ones otherwise."""
    return Problem(name, dim, noise=noise, noise_seed=noise_seed)


def catalog() -> List[Dict[str, Any]]:
    """Every problem: name, summary, min_dim, max_dim (None: any), default_dim, domain, direction."""
    return _optimist._problems()


def names() -> List[str]:
    """The names of every built-in problem (``optimist list problems``)."""
    return [p["name"] for p in _optimist._problems()]


def __getattr__(name: str) -> Problem:  # optimist.problems.branin
    if name.startswith("__") or name not in names():
        raise AttributeError(f"module 'optimist.problems' has no attribute '{name}'")
    return Problem(name)


def __dir__() -> List[str]:
    return sorted(list(globals()) + names())
