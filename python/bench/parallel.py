"""minimize of a 0.1 s objective with n_parallel=4 on a process pool (docs/python.md, "Performance").

Target: 40 evaluations in at most 1.4 s plus the optimizer's time (10 rounds of 0.1 s is 1.0 s).

    /usr/bin/python3 python/bench/parallel.py [--budget 40] [--parallel 4] [--algorithm gp-ei] [--sequential]
"""
import argparse
import concurrent.futures as cf
import time

import numpy as np

import optimist


def slow_sphere(x):
    """A 0.1 s "experiment"."""
    time.sleep(0.1)
    return float(np.sum((x - 0.3) ** 2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--algorithm", default="gp-ei")
    parser.add_argument("--sequential", action="store_true", help="also run without an executor, for the speed-up")
    args = parser.parse_args()
    space = [(-1.0, 1.0)] * 4

    start = time.perf_counter()
    with cf.ProcessPoolExecutor(max_workers=args.parallel) as pool:
        pool_s = time.perf_counter() - start
        res = optimist.minimize(slow_sphere, space, algorithm=args.algorithm, budget=args.budget, seed=0,
                                executor=pool, n_parallel=args.parallel)
    optimizer_s = res.timings["suggest_s"] + res.timings["tell_s"]
    print(f"{args.algorithm}, {args.budget} evaluations of 0.1 s, n_parallel={args.parallel}, process pool:")
    print(f"  minimize wall time {res.timings['total_s']:.3f} s, of which optimizer {optimizer_s:.3f} s "
          f"(pool created in {pool_s:.3f} s before)")
    print(f"  wall time minus optimizer {res.timings['total_s'] - optimizer_s:.3f} s "
          f"(ideal {args.budget / args.parallel * 0.1:.1f} s); best {res.fun:.4g}")
    if args.sequential:
        seq = optimist.minimize(slow_sphere, space, algorithm=args.algorithm, budget=args.budget, seed=0)
        print(f"  sequential: {seq.timings['total_s']:.3f} s, speed-up {seq.timings['total_s'] / res.timings['total_s']:.2f}x")


if __name__ == "__main__":
    main()
