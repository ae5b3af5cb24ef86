"""Plateau-dominated checks of gp-ei's `plateau_design` (docs/gp-bo.md, "A plateau's faces").

Eight deterministic tasks with 1-3 parameters whose values are mostly one plateau (clipped
functions, bumps and ridges on a flat floor), two of them with the optimum on the box's edge or
corner. Runs random search, gp-ei (defaults) and gp-ei with `plateau_design: fixed` for budget 50
on seeds 0..S-1 and prints the best regret at T = 10, 15, 20, 30, 50 with paired Student's t
95% intervals (faces - fixed, faces - random, fixed - random).

    PYTHONPATH=build/python /usr/bin/python3 scripts/robust/plateau_faces.py [SEEDS] [task,task,...]
"""
import math
import statistics as st
import sys
from multiprocessing import Pool

import numpy as np
from scipy import stats

import optimist


def branin(x):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x[1] - b * x[0] ** 2 + c * x[0] - 6) ** 2 + 10 * (1 - t) * math.cos(x[0]) + 10


def ackley(x):
    x = np.asarray(x)
    d = len(x)
    return -20 * math.exp(-0.2 * math.sqrt((x ** 2).sum() / d)) - math.exp(np.cos(2 * math.pi * x).sum() / d) + 20 + math.e


def levy_1d(x):
    w = 1 + (x[0] - 1) / 4
    return math.sin(math.pi * w) ** 2 + (w - 1) ** 2 * (1 + math.sin(2 * math.pi * w) ** 2)


def bump(x, centre, width):
    r2 = sum((xi - ci) ** 2 for xi, ci in zip(x, centre))
    return max(0.0, 1 - r2 / width ** 2) ** 2


def ridge(u, v, offset, peak_u, height):
    a = (u + v - offset) / 0.35
    return 0.0 if abs(a) >= 1 else height * (1 - a * a) ** 2 * math.exp(-(u - peak_u) ** 2 / 4)


def plateau_ridge(p):  # the registry's plateau_ridge, minimized
    u, v = math.log10(p["a"]), math.log10(p["b"])
    return -max(ridge(u, v, 0.5, 1.5, 1.0), ridge(u, v, -2.5, -1.0, 0.75))


UNIT2 = [(0.0, 1.0)] * 2
# name: (space, minimized objective, its minimum)
TASKS = {
    "clipped_branin": ([(-5, 10), (0, 15)], lambda x: min(branin(x), 20.0), 0.397887),
    "needle_2d": (UNIT2, lambda x: -bump(x, (0.7, 0.3), 0.2), -1.0),
    "two_bumps_2d": (UNIT2, lambda x: -max(bump(x, (0.8, 0.75), 0.12), 0.7 * bump(x, (0.25, 0.3), 0.25)), -1.0),
    "clipped_ackley_2d": ([(-32.768, 32.768)] * 2, lambda x: min(ackley(x), 19.0), 0.0),
    "clipped_sphere_3d": ([(0.0, 1.0)] * 3, lambda x: min(sum((a - b) ** 2 for a, b in zip(x, (0.3, 0.6, 0.8))), 0.15), 0.0),
    "clipped_levy_1d": ([(-10, 10)], lambda x: min(levy_1d(x), 1.0), 0.0),
    "corner_clipped_2d": (UNIT2, lambda x: min((x[0] - 1) ** 2 + (x[1] - 1) ** 2, 0.3), 0.0),
    "edge_bump_2d": (UNIT2, lambda x: -bump(x, (0.5, 1.0), 0.25), -1.0),
    "plateau_ridge": ({"a": optimist.Float(1e-3, 1e3, log=True), "b": optimist.Float(1e-4, 10, log=True)}, plateau_ridge, -1.0),
}
ARMS = {"random": ("random", {}), "faces": ("gp-ei", {}), "fixed": ("gp-ei", {"plateau_design": "fixed"})}
BUDGET, CUTS = 50, [10, 15, 20, 30, 50]


def run(job):
    task, arm, seed = job
    space, f, f_min = TASKS[task]
    algorithm, options = ARMS[arm]
    values = []

    def objective(x):
        values.append(f(x if isinstance(x, dict) else list(x)))
        return values[-1]

    optimist.minimize(objective, space, algorithm=algorithm, budget=BUDGET, seed=seed, **options)
    return task, arm, seed, [min(values[:c]) - f_min for c in CUTS]


def paired(r, task, a, b, k, seeds):
    d = [r[(task, b, s)][k] - r[(task, a, s)][k] for s in range(seeds)]
    mean, half = st.mean(d), stats.t.ppf(0.975, seeds - 1) * st.stdev(d) / math.sqrt(seeds)
    mark = " worse" if mean - half > 0 else (" better" if mean + half < 0 else "")
    return f"{mean:+.3g} +- {half:.2g}{mark}"


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    tasks = sys.argv[2].split(",") if len(sys.argv) > 2 else list(TASKS)
    jobs = [(t, a, s) for t in tasks for a in ARMS for s in range(seeds)]
    with Pool(2) as pool:
        r = {(t, a, s): b for t, a, s, b in pool.map(run, jobs, chunksize=4)}
    print("| task | T | random | gp-ei (faces) | fixed | faces - fixed | faces - random | fixed - random |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for t in tasks:
        for k, c in enumerate(CUTS):
            means = [st.mean(r[(t, a, s)][k] for s in range(seeds)) for a in ("random", "faces", "fixed")]
            print(f"| {t} | {c} | " + " | ".join(f"{m:.3g}" for m in means) + f" | {paired(r, t, 'fixed', 'faces', k, seeds)}"
                  f" | {paired(r, t, 'random', 'faces', k, seeds)} | {paired(r, t, 'random', 'fixed', k, seeds)} |")


if __name__ == "__main__":
    main()
