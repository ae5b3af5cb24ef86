"""Simple regret of an algorithm with K evaluations in flight, against the sequential run.

A deterministic asynchronous loop: K trials are asked before the first is told; then the oldest
is told and one more asked, as a pool of K workers of equal speed does (`minimize(n_parallel=K)`,
study workers). K = 1 is the sequential run, value for value `optimist run --seed S`. The figures
of docs/robust.md, "Parallel evaluation":

    PYTHONPATH=build/python /usr/bin/python3 bench/async_quality.py --in-flight 4,8 --seeds 20 --budgets 50,100

Prints one markdown row per (task, budget): mean simple regret for K = 1 and each K, bold where
the paired difference from K = 1 (by seed, 95% t) excludes 0, "(-)" worse, "(+)" better.
"""
import argparse
import collections
import itertools
import math
from concurrent.futures import ProcessPoolExecutor

import optimist

TASKS = [("branin", None), ("himmelblau", None), ("hartmann6", None), ("ackley", 5), ("levy", 5), ("rosenbrock", 4),
         ("ackley", 10), ("levy", 10), ("plateau_ridge", None), ("steps_1d", None), ("step_ellipsoid", None),
         ("sharp_ridge", None), ("conditional_mixed", None), ("illcond_ellipsoid", None), ("mixed_int_12d", None)]


def simple_regret(job):
    (name, dim), budget, seed, in_flight, algorithm = job
    problem = optimist.problems.Problem(name, dim)
    opt = optimist.Optimizer(problem.space, algorithm, seed=seed, direction=problem.direction, budget=budget)
    sign = 1.0 if problem.direction == "minimize" else -1.0
    pending = collections.deque()
    asked = told = 0
    best = math.inf
    while told < budget:
        while len(pending) < in_flight and asked < budget:
            pending.append(opt.ask())
            asked += 1
        trial = pending.popleft()
        y = problem(trial.vector)  # deterministic tasks: y is the noise-free value
        opt.tell(trial, y)
        told += 1
        best = min(best, sign * y)
    return best - sign * problem.f_star


def t95(n):  # Student's t quantile, two-sided 95%, n - 1 degrees of freedom (n >= 2)
    table = {2: 12.71, 3: 4.303, 4: 3.182, 5: 2.776, 6: 2.571, 8: 2.365, 10: 2.262, 15: 2.145, 20: 2.093, 30: 2.045}
    return table.get(n, 1.96 if n > 30 else table[max(k for k in table if k <= n)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--in-flight", default="4,8", help="K values besides 1, comma-separated")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budgets", default="50,100")
    ap.add_argument("--algorithm", default="auto")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    ks = [1] + [int(k) for k in args.in_flight.split(",")]
    budgets = [int(b) for b in args.budgets.split(",")]
    jobs = [(task, budget, seed, k, args.algorithm)
            for task, budget, seed, k in itertools.product(TASKS, budgets, range(args.seeds), ks)]
    with ProcessPoolExecutor(args.jobs) as pool:
        regrets = dict(zip(jobs, pool.map(simple_regret, jobs, chunksize=4)))
    print("| task, T | " + " | ".join(f"K = {k}" for k in ks) + " |")
    print("| --- " * (len(ks) + 1) + "|")
    for (name, dim), budget in itertools.product(TASKS, budgets):
        per_k = {k: [regrets[((name, dim), budget, s, k, args.algorithm)] for s in range(args.seeds)] for k in ks}
        cells = []
        for k in ks:
            mean = sum(per_k[k]) / args.seeds
            cell = f"{mean:.3g}"
            if k != 1 and args.seeds > 1:
                d = [b - a for a, b in zip(per_k[1], per_k[k])]
                m = sum(d) / len(d)
                half = t95(len(d)) * math.sqrt(sum((v - m) ** 2 for v in d) / (len(d) - 1) / len(d))
                if m - half > 0:
                    cell = f"**{cell}** (-)"
                elif m + half < 0:
                    cell = f"**{cell}** (+)"
            cells.append(cell)
        print(f"| {name}{'-' + str(dim) if dim else ''}, {budget} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
