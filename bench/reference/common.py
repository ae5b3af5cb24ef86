"""What the two reference ports (botorch_ei_port.py, turbo1_port.py) share: the problem constants,
the Styblinski-Tang objective, reading the initial design from an optimist trace, the Matern-5/2
exact marginal likelihood pieces, the command line and the JSON-lines output.

Imported by the ports as `common` (they put their own folder first on sys.path); not a script.
"""
import argparse
import json
import math
import os

import numpy as np
from scipy import linalg

DIM = 20
BUDGET = 72
N_INIT = 8
NOISE_SD = 0.01
LOWER, UPPER = -5.0, 5.0
F_STAR = 39.166165703771415 * DIM
SQRT5 = math.sqrt(5.0)
LOG_2PI = math.log(2.0 * math.pi)


def styblinski_tang(x):
    """Maximized form used by optimist: f = -0.5 sum(x^4 - 16 x^2 + 5 x)."""
    x = np.asarray(x, dtype=float)
    return float(-0.5 * np.sum(x ** 4 - 16.0 * x ** 2 + 5.0 * x))


def read_design(path, n_init):
    """The first n_init evaluations (x, observed y) of an optimist trace, in order."""
    X, Y = [], []
    with open(path) as fh:
        for line in fh:
            rec = json.loads(line)
            if "x" in rec and "i" in rec:
                X.append(rec["x"])
                Y.append(rec["y"])
                if len(X) == n_init:
                    break
    if len(X) < n_init:
        raise SystemExit(f"{path}: fewer than {n_init} evaluations")
    return np.array(X, dtype=float), np.array(Y, dtype=float)


def make_rngs(seed):
    """The algorithm's randomness and the observation noise, as two independent streams."""
    return np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1])


# --- Matern-5/2 (ARD) exact marginal likelihood -------------------------------------------------

def psd_safe_cholesky(A, error=linalg.LinAlgError):
    """gpytorch.utils.cholesky.psd_safe_cholesky in double: plain, then jitter 1e-8, 1e-7, 1e-6;
    raises `error` if all four fail."""
    try:
        return linalg.cholesky(A, lower=True)
    except (linalg.LinAlgError, ValueError):
        pass
    jitter = 1e-8
    for _ in range(3):
        try:
            return linalg.cholesky(A + jitter * np.eye(A.shape[0]), lower=True)
        except (linalg.LinAlgError, ValueError):
            jitter *= 10.0
    raise error("not positive definite, even with jitter")


def matern52_terms(D2, ls):
    """From squared coordinate differences D2 (n, n, d) and lengthscales ls: r^2, r, exp(-sqrt5 r)
    and the unit-outputscale Matern-5/2 matrix (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r)."""
    r2 = np.einsum("ijk,k->ij", D2, 1.0 / ls ** 2)
    r = np.sqrt(np.maximum(r2, 0.0))
    e = np.exp(-SQRT5 * r)
    km = (1.0 + SQRT5 * r + (5.0 / 3.0) * r2) * e
    return r2, r, e, km


def exact_lml(km, os_, s2, y, c, cholesky):
    """Exact log marginal likelihood of y under N(c, os_ km + s2 I), with the port's own Cholesky
    (each has its jitter policy). Returns (L, alpha, lml), alpha = A^-1 (y - c)."""
    n = len(y)
    A = os_ * km
    A[np.diag_indices(n)] += s2
    L = cholesky(A)
    resid = y - c
    alpha = linalg.cho_solve((L, True), resid)
    lml = -0.5 * resid @ alpha - np.sum(np.log(np.diag(L))) - 0.5 * n * LOG_2PI
    return L, alpha, lml


def matern52_lengthscale_weight(W, r, e):
    """W (alpha alpha^T - A^-1) times the lengthscale-derivative factor (5/3)(1 + sqrt5 r) e."""
    return W * ((5.0 / 3.0) * (1.0 + SQRT5 * r) * e)


# --- command line and output ----------------------------------------------------------------------

def port_parser(doc, out_help, after_design=(), after_out=()):
    """The ports' command line: --design-from, after_design, --seed, --out, after_out, --verbose,
    --self-test (the order --help lists them in). after_*: (flags, keyword arguments) pairs."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--design-from", help="optimist trace whose first 8 evaluations are the initial design")
    for flags, kwargs in after_design:
        ap.add_argument(*flags, **kwargs)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help=out_help)
    for flags, kwargs in after_out:
        ap.add_argument(*flags, **kwargs)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--self-test", action="store_true")
    return ap


def prepare_out(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


def run_summary(cum, records, cpu):
    """The final line's common fields: cumulative regret, best f, CPU per step (mean, median)."""
    return {"cum_regret": cum, "best_f": max(r["f"] for r in records),
            "cpu_per_step_mean_s": float(np.mean(cpu)), "cpu_per_step_median_s": float(np.median(cpu))}


def write_output(path, meta, records, final):
    """JSON lines: {"meta": ...}, one line per evaluation, {"final": ...}; prints the final line."""
    final = {"final": final}
    with open(path, "w") as fh:
        fh.write(json.dumps({"meta": meta}) + "\n")
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
        fh.write(json.dumps(final) + "\n")
    print(json.dumps(final))
