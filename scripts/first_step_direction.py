#!/usr/bin/python3
"""What 8 uniform points say about the descent direction at the best of them (docs/go-ucb.md, tenth round).

On 20-D Styblinski-Tang (unit-cube coordinates), draws 8 uniform points, takes the best, and prints
the mean cosine between the true descent direction there and the ascent direction of simple fits
to the 8 standardized values (GP posterior means of several lengthscales, min-norm linear and
separable quadratic least squares), and of fixed directions. Then the steps that acquisition
ascents take from the best point (L-BFGS-B, as gp-ei's local searches start there): EI, GP-UCB in
a ball of radius 0.1 (GO-UCB's first trust region) and the posterior sd alone, each with and without
the cube's bounds, under a Matern-5/2 GP of lengthscale 1/3 (gp-ei's fitted value after 8 points,
its gamma prior's mode). numpy and scipy (Debian's python3-scipy); needs no build:
  /usr/bin/python3 scripts/first_step_direction.py [--draws 2000] [--ascent-draws 300] [--dim 20] [--points 8]
(docs/go-ucb.md, tenth and fourteenth rounds)
"""
import argparse

import numpy as np
from scipy.optimize import minimize
from scipy.stats import norm


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


def matern52(sq_dist, lengthscale):
    r = np.sqrt(5 * np.maximum(sq_dist, 0)) / lengthscale
    return (1 + r + r * r / 3) * np.exp(-r)


def acquisition_steps(X, y, best, rng, lengthscale=1 / 3, radius=0.1):
    """The step from X[best] of each acquisition ascent: {name: step}."""
    K = matern52(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1), lengthscale) + 1e-6 * np.eye(len(X))
    K_inv = np.linalg.inv(K)
    alpha = K_inv @ y
    x0 = X[best] + 1e-4 * rng.standard_normal(X.shape[1])

    def posterior(x):
        k = matern52(((X - x) ** 2).sum(-1), lengthscale)
        return k @ alpha, np.sqrt(max(1 - k @ K_inv @ k, 1e-12))

    def ei(x):
        mu, sd = posterior(x)
        z = (mu - y.max()) / sd
        return sd * (z * norm.cdf(z) + norm.pdf(z))

    def in_ball(value):  # a smooth penalty outside ||x - X[best]|| <= radius, as GO-UCB's
        return lambda x: value(x) - 1e4 * max(0.0, ((x - X[best]) ** 2).sum() - radius**2)

    acquisitions = {
        "EI": ei,
        "GP-UCB (kappa 1), ball 0.1": in_ball(lambda x: sum(posterior(x))),
        "posterior sd alone, ball 0.1": in_ball(lambda x: posterior(x)[1]),
    }
    steps = {}
    for name, value in acquisitions.items():
        for bounded in (True, False):
            bounds = [(0.0, 1.0)] * X.shape[1] if bounded else None
            x = minimize(lambda v: -value(v), x0, method="L-BFGS-B", bounds=bounds).x
            steps[f"{name} ascent, {'in the cube' if bounded else 'no bounds'}"] = x - X[best]
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--ascent-draws", type=int, default=300, help="draws that also run the acquisition ascents")
    ap.add_argument("--dim", type=int, default=20)
    ap.add_argument("--points", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    ascent_rng = np.random.default_rng(a.seed + 1)  # its own stream: the draws stay those of the tenth round
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
        add("toward the second best point", X[np.argsort(f)[1]] - x)
        if len(cosines["toward the cube's centre"]) <= a.ascent_draws:
            for name, step in acquisition_steps(X, y, best, ascent_rng).items():
                add(name, step)
    print(f"cosine with the true descent direction at the best of {n} uniform points, d = {d}, {a.draws} draws")
    for name, v in cosines.items():
        print(f"  {name:52s} {np.mean(v):+.3f} +- {1.96 * np.std(v) / np.sqrt(len(v)):.3f} ({len(v)} draws)")


if __name__ == "__main__":
    main()
