"""Parametric models of your own for GO-UCB, written in Python with numpy."""
from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from . import _optimist


class ParametricModel:
    """The protocol of a parametric family f_w(x) for GO-UCB (subclassing is optional: any object
    with these members works).

    ``n_params``: the number of parameters w (scale them to O(1): GO-UCB's uncertainty ball treats
    every direction of w alike). Batched methods over the rows of X, an (n, d) array of points of
    the unit cube [0, 1]^d (map them to physical units inside your model):

    - ``value(w, X)`` -> (n,) array of f_w(x_i)
    - ``grad_w(w, X)`` -> (n, n_params) array, row i = d f_w(x_i) / dw
    - ``grad_x(w, X)`` -> (n, d) array, row i = d f_w(x_i) / dx
    - optional ``sample_params(rng)`` -> (n_params,) starting parameters for the fit, drawn with the
      numpy Generator ``rng`` (default: standard normal draws)
    - optional ``name`` for messages

    GO-UCB checks the derivatives against finite differences of ``value`` before using the model
    (option ``check_model``); :func:`check_gradients` runs the same check for you. The model
    describes the objective's own values (the objective for maximize, its negative for minimize),
    which are not standardized unless you set ``standardize=True``.
    """

    n_params: int

    def value(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def grad_w(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def grad_x(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        raise NotImplementedError


def check_gradients(model: Any, dim: int, w: Optional[np.ndarray] = None, x: Optional[np.ndarray] = None,
                    v: Optional[np.ndarray] = None, seed: int = 0) -> Dict[str, float]:
    """Relative errors of the model's derivatives against central finite differences of its own
    values at (w, x) (random draws where not given), as the C++ ``check_gradients``: keys w_error,
    x_error, mixed_error (GO-UCB's d/dx of grad_w . v) and value_error. Below ~1e-6 is right."""
    rng = np.random.default_rng(seed)
    n = int(getattr(model, "n_params", getattr(model, "num_params", 0)))
    w = rng.standard_normal(n) if w is None else np.asarray(w, dtype=float)
    x = rng.uniform(size=dim) if x is None else np.asarray(x, dtype=float)
    v = rng.standard_normal(n) if v is None else np.asarray(v, dtype=float)
    return _optimist._check_gradients(model, dim, w, x, v)


def check_model(model: Any, dim: int, points: int = 3, tolerance: float = 1e-4, seed: int = 0) -> None:
    """GO-UCB's own check (check_model_gradients): ``points`` random draws (w from sample_params);
    ValueError naming the derivative, its error and the point when one exceeds ``tolerance``."""
    _optimist._check_model(model, dim, points, tolerance, seed)
