#!/usr/bin/python3
"""What 8 uniform points say about the descent direction at the best of them (docs/go-ucb.md, tenth round).

On 20-D Styblinski-Tang (unit-cube coordinates), draws 8 uniform points, takes the best, and prints
the mean cosine between the true descent direction there and the ascent direction of simple fits
to the 8 standardized values (GP posterior means of several lengthscales, min-norm linear and
separable quadratic least squares), and of two fixed directions. Pure numpy; needs no build:
  /usr/bin/python3 scripts/first_step_direction.py [--draws 2000] [--dim 20] [--points 8]
"""
import argparse

import numpy as np


def styblinski_tang(u):
    x = 10 * u - 5
    return 0.5 * np.sum(x**4 - 16 * x**2 + 5 * x, axis=-1)


def styblinski_tang_gradient(u):
    x = 10 * u - 5
    return 10 * 0.5 * (4 * x**3 - 32 * x + 5)


def gp_mean_gradient(X, y, x, lengthscale):
    """Gradient at x of a zero-noise GP posterior mean (squared exponential, constant mean)."""
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = np.exp(-sq / (2 * lengthscale**2)) + 1e-6 * np.eye(len(X))
    alpha = np.linalg.solve(K, y - y.mean())
    k = np.exp(-((X - x) ** 2).sum(-1) / (2 * lengthscale**2))
    return ((alpha * k)[:, None] * (X - x)).sum(0) / lengthscale**2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--dim", type=int, default=20)
    ap.add_argument("--points", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    n, d = a.points, a.dim
    cosines = {}
    for _ in range(a.draws):
        X = rng.random((n, d))
        f = styblinski_tang(X)
        best = np.argmin(f)
        x = X[best]
        descent = -styblinski_tang_gradient(x)
        y = -(f - f.mean()) / f.std()  # maximized, standardized: what the fits see

        def add(name, v):
            cosines.setdefault(name, []).append(v @ descent / (np.linalg.norm(v) * np.linalg.norm(descent)))

        for ls in (0.3, 0.5, 1.0, 2.0):
            add(f"GP mean, lengthscale {ls}", gp_mean_gradient(X, y, x, ls))
        A = np.hstack([np.ones((n, 1)), X])
        add("linear, min-norm", (np.linalg.pinv(A) @ y)[1:])
        A = np.hstack([np.ones((n, 1)), X, X**2])
        w = np.linalg.pinv(A) @ y
        add("separable quadratic, min-norm", w[1 : d + 1] + 2 * w[d + 1 :] * x)
        add("toward the cube's centre", 0.5 - x)
        add("away from the other points' mean", x - np.delete(X, best, 0).mean(0))
    print(f"cosine with the true descent direction at the best of {n} uniform points, d = {d}, {a.draws} draws")
    for name, v in cosines.items():
        print(f"  {name:36s} {np.mean(v):+.3f} +- {1.96 * np.std(v) / np.sqrt(len(v)):.3f}")


if __name__ == "__main__":
    main()
