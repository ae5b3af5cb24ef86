#!/usr/bin/env python3
"""Port of the reference TuRBO-1 (Eriksson et al., NeurIPS 2019; uber-research/TuRBO,
turbo/turbo_1.py + turbo/gp.py) with batch size 1 to numpy/scipy (no torch or gpytorch).

Reproduces, on 20-D Styblinski-Tang (the reference minimizes: this port minimizes -f; inputs in
[-5, 5]^20 mapped to the unit cube):

  * constants: n_cand = min(100 d, 5000), failtol = ceil(max(4 / batch, d / batch)) = 20,
    succtol = 3, length_init 0.8, length_min 0.5^7, length_max 1.6, prob_perturb = min(20 / d, 1);
  * every step: fX standardized by its median and population sd (sd -> 1 if < 1e-6); a new GP
    (ConstantMean, ScaleKernel(Matern-5/2 ARD)) with GPyTorch Interval (sigmoid) constraints
    lengthscale in [0.005, 2], outputscale in [0.05, 20], noise in [5e-4, 0.2], initialised at
    lengthscale 0.5, outputscale 1, noise 0.005, mean 0, trained by 50 Adam steps (lr 0.1, torch
    defaults) on -MLL / n over the raw parameters and the mean, no priors;
  * trust region: centre = best point, weights = lengthscales / mean, then / prod^(1/d), region
    [clip(c - w L / 2, 0, 1), clip(c + w L / 2, 0, 1)]; n_cand scrambled Sobol points in it;
    perturbation mask (rand <= prob_perturb; an empty row gets coordinate randint(0, d - 1), the
    reference's call, which never picks the last one); candidates = centre with masked coordinates
    replaced;
  * Thompson sample: one joint draw from likelihood(gp(X_cand)) (posterior covariance + noise,
    Cholesky, jitter 1e-8 x 10^k on failure), de-standardized, argmin;
  * success if f_next < min(fX) - 1e-3 |min(fX)| (then succcount += 1, failcount = 0, else
    succcount = 0, failcount += 1); succtol successes double L (<= length_max), failtol failures
    halve it; L < length_min: restart with a Latin-hypercube design of n_init points
    (utils.latin_hypercube), the old data leaving the GP (not the cumulative regret).

Initial design: the first 8 evaluations of an optimist trace (--design-from, paired comparison) or
the reference's Latin hypercube (--lhs).

Usage:
  /usr/bin/python3 turbo1_port.py --design-from TRACE.jsonl --seed K [--out FILE]
  /usr/bin/python3 turbo1_port.py --lhs --seed K
  /usr/bin/python3 turbo1_port.py --self-test
"""
import math
import os
import sys
import time
import warnings

import numpy as np
from scipy import linalg, special
from scipy.stats import qmc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # common.py, wherever this runs from
from common import (BUDGET, DIM, F_STAR, LOWER, N_INIT, NOISE_SD, SQRT5, UPPER, exact_lml, make_rngs,  # noqa: E402
                    matern52_lengthscale_weight, matern52_terms, port_parser, prepare_out, psd_safe_cholesky,
                    read_design, run_summary, styblinski_tang, write_output)

LS_BOUNDS = (0.005, 2.0)
OS_BOUNDS = (0.05, 20.0)
NOISE_BOUNDS = (5e-4, 0.2)
N_TRAINING_STEPS = 50
LR = 0.1
BETA1, BETA2, EPS = 0.9, 0.999, 1e-8


def interval(raw, bounds):
    lo, hi = bounds
    return lo + (hi - lo) * special.expit(raw)


def interval_grad(raw, bounds):
    lo, hi = bounds
    s = special.expit(raw)
    return (hi - lo) * s * (1.0 - s)


def inv_interval(v, bounds):
    lo, hi = bounds
    return special.logit((v - lo) / (hi - lo))


def matern52(r):
    return (1.0 + SQRT5 * r + (5.0 / 3.0) * r * r) * np.exp(-SQRT5 * r)


class TurboGP:
    """gp.py's GP: p = [raw_lengthscale (d), raw_outputscale, raw_noise, constant]."""

    def __init__(self, X, y):
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.n, self.d = self.X.shape
        diff = self.X[:, None, :] - self.X[None, :, :]
        self.D2 = diff * diff
        d = self.d
        # train_gp with hypers = {}: outputscale 1.0, lengthscale 0.5, noise 0.005 (mean 0).
        self.p = np.zeros(d + 3)
        self.p[:d] = inv_interval(0.5, LS_BOUNDS)
        self.p[d] = inv_interval(1.0, OS_BOUNDS)
        self.p[d + 1] = inv_interval(0.005, NOISE_BOUNDS)

    def unpack(self, p):
        d = self.d
        return interval(p[:d], LS_BOUNDS), float(interval(p[d], OS_BOUNDS)), float(interval(p[d + 1], NOISE_BOUNDS)), float(p[d + 2])

    def loss(self, p, want_grad=True):
        """-(exact MLL) / n (ExactMarginalLogLikelihood, no priors) and its gradient in raw space."""
        d, n = self.d, self.n
        ls, os_, s2, c = self.unpack(p)
        r2, r, e, km = matern52_terms(self.D2, ls)
        L, alpha, lml = exact_lml(km, os_, s2, self.y, c, psd_safe_cholesky)
        if not want_grad:
            return -lml / n
        W = np.outer(alpha, alpha) - linalg.cho_solve((L, True), np.eye(n))
        G = matern52_lengthscale_weight(W, r, e)
        g = np.zeros_like(p)
        g[:d] = 0.5 * os_ * np.einsum("ij,ijk->k", G, self.D2) / ls ** 3 * interval_grad(p[:d], LS_BOUNDS)
        g[d] = 0.5 * np.sum(W * km) * interval_grad(p[d], OS_BOUNDS)
        g[d + 1] = 0.5 * np.trace(W) * interval_grad(p[d + 1], NOISE_BOUNDS)
        g[d + 2] = np.sum(alpha)
        return -lml / n, -g / n

    def train(self, steps=N_TRAINING_STEPS):
        """torch.optim.Adam(lr=0.1) for `steps` steps; the last iterate is kept."""
        m = np.zeros_like(self.p)
        v = np.zeros_like(self.p)
        for t in range(1, steps + 1):
            _, g = self.loss(self.p)
            m = BETA1 * m + (1.0 - BETA1) * g
            v = BETA2 * v + (1.0 - BETA2) * g * g
            denom = np.sqrt(v) / math.sqrt(1.0 - BETA2 ** t) + EPS
            self.p = self.p - (LR / (1.0 - BETA1 ** t)) * m / denom
        self._condition()

    def _condition(self):
        ls, os_, s2, c = self.unpack(self.p)
        self.ls, self.os, self.s2, self.c = ls, os_, s2, c
        r = np.sqrt(np.einsum("ijk,k->ij", self.D2, 1.0 / ls ** 2))
        A = os_ * matern52(r)
        A[np.diag_indices(self.n)] += s2
        self.L = psd_safe_cholesky(A)
        self.alpha = linalg.cho_solve((self.L, True), self.y - c)

    def sample_predictive(self, Xc, rng):
        """One joint draw of likelihood(gp(Xc)): N(mean, K** - K*^T A^-1 K* + noise I)."""
        Xs = Xc / self.ls
        Xt = self.X / self.ls
        sq = np.sum(Xs * Xs, axis=1)
        r_cc = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2.0 * Xs @ Xs.T, 0.0))
        r_ct = np.sqrt(np.maximum(sq[:, None] + np.sum(Xt * Xt, axis=1)[None, :] - 2.0 * Xs @ Xt.T, 0.0))
        Kct = self.os * matern52(r_ct)  # (m, n)
        mean = self.c + Kct @ self.alpha
        V = linalg.solve_triangular(self.L, Kct.T, lower=True)  # (n, m)
        cov = self.os * matern52(r_cc) - V.T @ V
        cov[np.diag_indices(len(Xc))] += self.s2
        Lc = psd_safe_cholesky(cov)
        return mean + Lc @ rng.standard_normal(len(Xc))


def latin_hypercube(n_pts, dim, rng):
    """utils.latin_hypercube: shuffled cell centres plus a uniform shift within the cell."""
    X = np.zeros((n_pts, dim))
    centers = (1.0 + 2.0 * np.arange(0.0, n_pts)) / float(2 * n_pts)
    for i in range(dim):
        X[:, i] = centers[rng.permutation(n_pts)]
    X += rng.uniform(-1.0, 1.0, (n_pts, dim)) / float(2 * n_pts)
    return X


class Turbo1:
    def __init__(self, dim, n_init, rng):
        self.dim = dim
        self.n_init = n_init
        self.rng = rng
        self.batch_size = 1
        self.n_cand = min(100 * dim, 5000)
        self.failtol = int(np.ceil(max(4.0 / self.batch_size, float(dim) / self.batch_size)))
        self.succtol = 3
        self.length_min = 0.5 ** 7
        self.length_max = 1.6
        self.length_init = 0.8
        self.restarts = 0
        self._reset()

    def _reset(self):
        """turbo_1.py _restart: forget the run's data, reset the counters and the length."""
        self._X = np.zeros((0, self.dim))
        self._fX = np.zeros(0)
        self.failcount = 0
        self.succcount = 0
        self.length = self.length_init

    def restart(self):
        self._reset()
        self.restarts += 1

    def adjust_length(self, fX_next):
        if np.min(fX_next) < np.min(self._fX) - 1e-3 * math.fabs(np.min(self._fX)):
            self.succcount += 1
            self.failcount = 0
        else:
            self.succcount = 0
            self.failcount += 1
        if self.succcount == self.succtol:
            self.length = min(2.0 * self.length, self.length_max)
            self.succcount = 0
        elif self.failcount == self.failtol:
            self.length /= 2.0
            self.failcount = 0

    def create_candidate(self):
        """_create_candidates + _select_candidates with batch size 1; returns (x, info)."""
        X, fX = self._X, self._fX.copy()
        mu, sigma = np.median(fX), fX.std()
        sigma = 1.0 if sigma < 1e-6 else sigma
        fX = (fX - mu) / sigma
        gp = TurboGP(X, fX)
        gp.train()
        x_center = X[fX.argmin(), :][None, :]
        weights = gp.ls.copy()
        weights = weights / weights.mean()
        weights = weights / np.prod(np.power(weights, 1.0 / len(weights)))
        lb = np.clip(x_center - weights * self.length / 2.0, 0.0, 1.0)
        ub = np.clip(x_center + weights * self.length / 2.0, 0.0, 1.0)
        seed = int(self.rng.integers(int(1e6)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # n_cand = 2000 is not a power of 2
            pert = qmc.Sobol(self.dim, scramble=True, seed=seed).random(self.n_cand)
        pert = lb + (ub - lb) * pert
        prob_perturb = min(20.0 / self.dim, 1.0)
        mask = self.rng.random((self.n_cand, self.dim)) <= prob_perturb
        ind = np.where(np.sum(mask, axis=1) == 0)[0]
        mask[ind, self.rng.integers(0, self.dim - 1, size=len(ind))] = 1
        X_cand = x_center.copy() * np.ones((self.n_cand, self.dim))
        X_cand[mask] = pert[mask]
        y_cand = mu + sigma * gp.sample_predictive(X_cand, self.rng)
        best = int(np.argmin(y_cand))
        info = {"tr_length": self.length, "lengthscale_geomean": float(np.exp(np.mean(np.log(gp.ls)))),
                "outputscale": gp.os, "noise_std_units": gp.s2, "mean": gp.c}
        return X_cand[best], info


def run(args):
    rng, noise_rng = make_rngs(args.seed)
    d = DIM
    out_path = prepare_out(args.out or f"/tmp/ref/turbo1{'_lhs' if args.lhs else ''}/seed-{args.seed}.jsonl")
    turbo = Turbo1(d, N_INIT, rng)
    records = []
    cum = 0.0
    cpu = []

    def evaluate(x_user, y_given=None):
        f = styblinski_tang(x_user)
        y = y_given if y_given is not None else f + NOISE_SD * noise_rng.standard_normal()
        return f, y

    def record(x_user, y, f, extra):
        nonlocal cum
        cum += F_STAR - f
        rec = {"i": len(records) + 1, "x": x_user.tolist(), "y": y, "f": f, "regret": F_STAR - f, "cum_regret": cum}
        rec.update(extra)
        records.append(rec)

    first = True
    while len(records) < BUDGET:
        if not first:
            turbo.restart()
        # Initial design of this trust-region run.
        if first and not args.lhs:
            Xd, Yd = read_design(args.design_from, N_INIT)
            design = [((x - LOWER) / (UPPER - LOWER), x, y) for x, y in zip(Xd, Yd)]
        else:
            U = latin_hypercube(N_INIT, d, rng)
            design = [(u, LOWER + (UPPER - LOWER) * u, None) for u in U]
        first = False
        for u, x, y_given in design:
            if len(records) >= BUDGET:
                break
            f, y = evaluate(x, y_given)
            turbo._X = np.vstack((turbo._X, u))
            turbo._fX = np.append(turbo._fX, -y)  # the reference minimizes
            record(x, y, f, {"cpu_s": 0.0, "design": True, "tr_restarts": turbo.restarts})
        # Thompson-sampling steps until the region collapses.
        while len(records) < BUDGET and turbo.length >= turbo.length_min:
            t0 = time.process_time()
            u_next, info = turbo.create_candidate()
            dt = time.process_time() - t0
            cpu.append(dt)
            x = LOWER + (UPPER - LOWER) * u_next
            f, y = evaluate(x)
            turbo.adjust_length(np.array([-y]))
            turbo._X = np.vstack((turbo._X, u_next))
            turbo._fX = np.append(turbo._fX, -y)
            info.update({"cpu_s": dt, "tr_restarts": turbo.restarts, "tr_failures": turbo.failcount,
                         "tr_successes": turbo.succcount, "tr_length_after": turbo.length})
            record(x, y, f, info)
            if args.verbose:
                print(f"step {len(records)}: f={f:.2f} cum={cum:.1f} L={turbo.length} cpu={dt:.2f}s", file=sys.stderr)
    final = {"port": "turbo1", "seed": args.seed, "design_from": None if args.lhs else args.design_from,
             **run_summary(cum, records, cpu), "restarts": turbo.restarts, "final_length": turbo.length}
    meta = {"port": "turbo1", "seed": args.seed, "design_from": args.design_from, "lhs": args.lhs,
            "budget": BUDGET, "n_init": N_INIT, "noise": NOISE_SD, "f_star": F_STAR}
    write_output(out_path, meta, records, final)


def self_test():
    rng = np.random.default_rng(2)
    worst = 0.0
    ok_sample = True
    for n, d in ((10, 3), (30, 20)):
        X = rng.random((n, d))
        fX = np.array([-styblinski_tang(10 * x - 5) for x in X])
        fX = (fX - np.median(fX)) / fX.std()
        gp = TurboGP(X, fX)
        for trial in range(3):
            p = gp.p + (0 if trial == 0 else 0.7 * rng.standard_normal(d + 3))
            _, g = gp.loss(p)
            fd = np.zeros_like(p)
            for k in range(len(p)):
                h = 1e-6
                pp, pm = p.copy(), p.copy()
                pp[k] += h
                pm[k] -= h
                fd[k] = (gp.loss(pp, False) - gp.loss(pm, False)) / (2 * h)
            err = np.max(np.abs(fd - g)) / max(1e-8, np.max(np.abs(g)))
            worst = max(worst, err)
            print(f"MLL gradient n={n} d={d} trial {trial}: relative error {err:.2e}")
        before = gp.loss(gp.p, False)
        gp.train()
        print(f"  Adam: loss {before:.4f} -> {gp.loss(gp.p, False):.4f}, lengthscales "
              f"[{gp.ls.min():.3f}, {gp.ls.max():.3f}], outputscale {gp.os:.3f}, noise {gp.s2:.4f}")
        # Predictive sample: empirical covariance of many draws vs the formula at 3 points.
        Xc = rng.random((3, d))
        Xc[0] = X[0] + 0.01  # one point next to the data
        draws = np.array([gp.sample_predictive(Xc, rng) for _ in range(4000)])
        emp_mean, emp_var = draws.mean(0), draws.var(0)
        # Pointwise formula: mean c + k^T alpha, variance s - k^T A^-1 k + noise.
        k = gp.os * matern52(np.sqrt(((Xc[:, None, :] - X[None, :, :]) ** 2 / gp.ls ** 2).sum(-1)))
        mean = gp.c + k @ gp.alpha
        var = gp.os - np.sum(k * linalg.cho_solve((gp.L, True), k.T).T, axis=1) + gp.s2
        z = np.max(np.abs(emp_mean - mean) / np.sqrt(var / 4000))
        vr = np.max(np.abs(emp_var / var - 1.0))
        ok_sample = ok_sample and z < 5 and vr < 0.12
        print(f"  predictive draws vs formula: mean {np.array2string(emp_mean, precision=3)} vs "
              f"{np.array2string(mean, precision=3)}, var {np.array2string(emp_var, precision=3)} vs "
              f"{np.array2string(var, precision=3)} (max |z| {z:.2f})")
    lhs = latin_hypercube(8, 4, rng)
    ok_lhs = all(sorted((lhs[:, i] * 8).astype(int)) == list(range(8)) for i in range(4))
    print("latin hypercube: one point per cell in every coordinate:", ok_lhs)
    passed = worst < 1e-4 and ok_lhs and ok_sample
    print("self-test", "PASSED" if passed else "FAILED", f"(worst relative gradient error {worst:.1e})")
    return passed


def main():
    ap = port_parser(__doc__, "JSON-lines output (default /tmp/ref/turbo1[_lhs]/seed-K.jsonl)", after_design=[
        (["--lhs"], {"action": "store_true", "help": "use the reference's Latin-hypercube design instead"})])
    args = ap.parse_args()
    if args.self_test:
        sys.exit(0 if self_test() else 1)
    if not args.design_from and not args.lhs:
        ap.error("--design-from or --lhs is required")
    run(args)


if __name__ == "__main__":
    main()
