"""Overhead of the Python layer per ask/tell (docs/python.md, "Performance").

Two measurements in one process:
 1. gp-ei on hartmann6 at 100 told points (steady state): the next ask + tell through optimist.Optimizer (the Python
    layer) and through the raw C++ calls of the extension (optimist._optimist), from identical
    states, alternated; medians and the median of the paired ratios.
 2. The Python layer's own cost per ask + tell, free of the algorithm's: the same two paths with
    the "random" algorithm (whose C++ work is about a microsecond), many iterations.
The first figure of 2 divided by the C++ time of 1 is the overhead at 100 points.

    /usr/bin/python3 python/bench/overhead.py [--repeats 21] [--points 100]
"""
import argparse
import statistics
import time


import optimist


def state(points):
    """gp-ei in its steady state at `points` told points of hartmann6: points - 1 Sobol points told
    (a warm start), then one ask + tell so that the model is fitted as in a run."""
    h6 = optimist.problems.hartmann6
    design = optimist.Optimizer(h6.space, "sobol", seed=0).ask(points - 1)
    opt = optimist.Optimizer(h6.space, "gp-ei", seed=0)
    opt.tell([t.x for t in design], [h6.f(t.x) for t in design])
    trial = opt.ask()
    opt.tell(trial, h6.f(trial.x))
    return opt, h6


def one_step(opt, f, raw):
    """Seconds spent in ask + tell (the objective's own time excluded)."""
    if raw:
        t0 = time.perf_counter()
        trial = opt._core.ask(1)[0]
        t1 = time.perf_counter()
        y = f(trial.x)
        t2 = time.perf_counter()
        opt._core.tell(trial, y)
    else:
        t0 = time.perf_counter()
        trial = opt.ask()
        t1 = time.perf_counter()
        y = f(trial.x)
        t2 = time.perf_counter()
        opt.tell(trial, y)
    return (t1 - t0) + (time.perf_counter() - t2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--points", type=int, default=100)
    args = parser.parse_args()

    python_s, cpp_s, ratios = [], [], []
    for r in range(args.repeats):
        pair = {}
        for raw in ((False, True) if r % 2 == 0 else (True, False)):  # alternate which goes first
            opt, h6 = state(args.points)
            pair[raw] = one_step(opt, h6.f, raw)
        python_s.append(pair[False])
        cpp_s.append(pair[True])
        ratios.append(pair[False] / pair[True])
    print(f"gp-ei, hartmann6, {args.points} points, ask + tell ({args.repeats} repeats, medians):")
    print(f"  through optimist.Optimizer   {statistics.median(python_s) * 1e3:9.3f} ms")
    print(f"  raw C++ calls                {statistics.median(cpp_s) * 1e3:9.3f} ms")
    print(f"  paired ratio                 {statistics.median(ratios):9.4f}")

    # The layer's own cost: the same paths with an algorithm that does almost nothing; chunks of
    # calls alternated between the paths, the fastest chunk of each kept (the least disturbed).
    space = optimist.problems.hartmann6.space
    per_call = {True: [], False: []}
    chunk = 2000
    for _ in range(15):
        for raw in (True, False):
            opt = optimist.Optimizer(space, "random", seed=0)
            f = lambda x: 0.0  # noqa: E731
            start = time.perf_counter()
            for _ in range(chunk):
                one_step(opt, f, raw)
            per_call[raw].append((time.perf_counter() - start) / chunk)
    layer = min(per_call[False]) - min(per_call[True])
    cpp = statistics.median(cpp_s)
    print(f"random search, ask + tell (fastest of 15 chunks of {chunk}):")
    print(f"  through optimist.Optimizer   {min(per_call[False]) * 1e6:9.2f} us")
    print(f"  raw C++ calls                {min(per_call[True]) * 1e6:9.2f} us")
    print(f"Python layer per ask + tell: {layer * 1e6:.2f} us = {100 * layer / cpp:.3f}% of gp-ei's "
          f"C++ ask + tell at {args.points} points")


if __name__ == "__main__":
    main()
