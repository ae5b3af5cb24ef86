"""Algorithms on objectives that fail in a region (docs/gp-bo.md, "Failed evaluations").

Four tasks, each with a region where the objective raises (a crashed simulation, a diverged
training run), run with on_failure="mark-failed"; minimized, 10 seeds. Prints, per task, the mean
best value found and the mean number of failed evaluations per run; --save DIR keeps each task's
per-seed best values (NumPy .npy) for paired comparisons.

    PYTHONPATH=build/python /usr/bin/python3 python/bench/failures.py gp-ei failed_points=worst
    PYTHONPATH=build/python /usr/bin/python3 python/bench/failures.py gp-ei failed_points=ignore
"""
import argparse
import math
import os

import numpy as np

import optimist


def quad_half(x):
    if x[0] > 0.5:
        raise RuntimeError("fails for x1 > 0.5")
    return (x[0] - 0.3) ** 2 + (x[1] - 0.6) ** 2


def branin_fifth(x):
    if x[0] > 7:
        raise RuntimeError("fails for x1 > 7 (hiding Branin's third minimum)")
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x[1] - b * x[0] ** 2 + c * x[0] - 6) ** 2 + 10 * (1 - t) * math.cos(x[0]) + 10


def tasks():
    h6, ackley = optimist.problems.get("hartmann6"), optimist.problems.get("ackley", 5)
    lo, hi = ackley.space.bounds[:, 0], ackley.space.bounds[:, 1]

    def hartmann6_corner(x):
        if x[0] + x[1] > 1.0:
            raise RuntimeError("fails for x1 + x2 > 1")
        return h6(np.asarray(x))

    def ackley5_ring(x):
        x = np.asarray(x)
        if np.linalg.norm((x - lo) / (hi - lo) - 0.5) > 0.6:
            raise RuntimeError("fails outside the ball of radius 0.6 (unit cube)")
        return ackley(x)

    return [("quad-half", quad_half, [(0, 1)] * 2, 25), ("branin-fifth", branin_fifth, [(-5, 10), (0, 15)], 40),
            ("hartmann6-corner", hartmann6_corner, [(0, 1)] * 6, 60),
            ("ackley5-ring", ackley5_ring, [tuple(b) for b in zip(lo, hi)], 60)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("algorithm")
    parser.add_argument("options", nargs="*", help="key=value algorithm options")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--save", help="folder for the per-seed best values")
    args = parser.parse_args()
    options = dict(o.split("=", 1) for o in args.options)
    for name, f, space, budget in tasks():
        bests, failed = [], []
        for seed in range(args.seeds):
            r = optimist.minimize(f, space, algorithm=args.algorithm, budget=budget, seed=seed,
                                  on_failure="mark-failed", **options)
            bests.append(r.fun)
            failed.append(r.n_failed)
        print(f"{name:18s} {args.algorithm} {options or ''} best={np.mean(bests):.4g} (sd {np.std(bests):.2g}) "
              f"failed={np.mean(failed):.1f}/{budget}", flush=True)
        if args.save:
            os.makedirs(args.save, exist_ok=True)
            label = "-".join([args.algorithm] + [f"{k}{v}" for k, v in options.items()])
            np.save(os.path.join(args.save, f"{name}-{label}.npy"), np.array(bests))


if __name__ == "__main__":
    main()
