#!/usr/bin/python3
"""Per-step CPU ratio bkb / gp-ucb-arms from the paired benchmark's CSV files.

Usage: OPTIMIST_BKB_STEPS=DIR build/bench/optimist_bench --benchmark_filter=StepRatio
       /usr/bin/python3 scripts/bkb_step_ratio.py [--refit D] DIR/steps-defaults-*.csv
       /usr/bin/python3 scripts/bkb_step_ratio.py [--refit D] DIR1/steps-defaults-*.csv DIR2/steps-defaults-*.csv ...

--refit D (the problem's dimension; hartmann6: 6) also prints the maximum and median ratio over the
refit steps of the default schedule (t = D + 1, then t + min(t, 100)).

Pools every step of the given files (t, bkb_ms, exact_ms: thread CPU of ask + tell of the two
algorithms run step by step in one thread) and prints the maximum ratio with its step, the 99th and
90th percentiles, the steps above 1.2, and per file the same.

Files of the same name from several folders are repeated runs of the same (deterministic) benchmark:
each step's time is then the median of its runs, for each algorithm, which removes the one-off
costs of a single run (an interrupt, a page fault, a cache flushed by another process) that decide
the ratio of steps of a few microseconds."""
import csv
import os
import statistics
import sys


def ratios(path):
    with open(path) as f:
        return [(int(r["t"]), float(r["bkb_ms"]), float(r["exact_ms"])) for r in csv.DictReader(f)]


def summary(rows):
    rs = sorted(b / max(e, 1e-9) for _, b, e in rows)
    worst = max(rows, key=lambda r: r[1] / max(r[2], 1e-9))
    q = lambda p: rs[int(p * (len(rs) - 1))]
    over = [r for r in rows if r[1] > 1.2 * r[2]]
    return (f"steps {len(rows)}: max {worst[1] / worst[2]:.2f} (t = {worst[0]}: {worst[1]:.3f} against {worst[2]:.3f} ms), "
            f"p99 {q(0.99):.2f}, p90 {q(0.90):.2f}, above 1.2: {len(over)} "
            f"(t = {', '.join(str(r[0]) for r in over[:12])}{', ...' if len(over) > 12 else ''})")


def refit_steps(dim, horizon):
    steps, t = [], dim + 1
    while t <= horizon:
        steps.append(t)
        t += min(t, 100)
    return set(steps)


def main(args):
    dim = None
    if args[:1] == ["--refit"]:
        dim, args = int(args[1]), args[2:]
    groups = {}
    for p in args:
        groups.setdefault(os.path.basename(p), []).append(ratios(p))
    pooled = []
    for name, runs in groups.items():
        if len(runs) == 1:
            rows = runs[0]
        else:
            rows = [(steps[0][0], statistics.median(b for _, b, _ in steps), statistics.median(e for _, _, e in steps))
                    for steps in zip(*runs)]
        pooled += rows
        print(f"{name} ({len(runs)} run{'s' if len(runs) > 1 else ''}): {summary(rows)}")
    print(f"all: {summary(pooled)}")
    if dim is not None:
        refit = refit_steps(dim, max(t for t, _, _ in pooled))
        rs = sorted((b / max(e, 1e-9), t) for t, b, e in pooled if t in refit)
        print(f"refit steps ({len(rs)}): max {rs[-1][0]:.2f} (t = {rs[-1][1]}), median {rs[len(rs) // 2][0]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
