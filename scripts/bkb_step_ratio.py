#!/usr/bin/python3
"""Per-step CPU ratio bkb / gp-ucb-arms from the paired benchmark's CSV files.

Usage: OPTIMIST_BKB_STEPS=DIR build/bench/optimist_bench --benchmark_filter=StepRatio
       /usr/bin/python3 scripts/bkb_step_ratio.py DIR/steps-defaults-*.csv

Pools every step of the given files (t, bkb_ms, exact_ms: thread CPU of ask + tell of the two
algorithms run step by step in one thread) and prints the maximum ratio with its step, the 99th and
90th percentiles, the steps above 1.2, and per file the same."""
import csv
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


def main(paths):
    pooled = []
    for p in paths:
        rows = ratios(p)
        pooled += rows
        print(f"{p}: {summary(rows)}")
    print(f"all: {summary(pooled)}")


if __name__ == "__main__":
    main(sys.argv[1:])
