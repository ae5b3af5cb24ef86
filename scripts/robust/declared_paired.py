"""Declared minus undeclared, paired by seed: the tables of docs/discrete.md (conditional_mixed)
and docs/robust.md (the scikit-learn tasks with their conditions declared).

usage: /usr/bin/python3 scripts/robust/declared_paired.py OUT TASK [TASK ...] [--algorithms a,b,...]

OUT is an `optimist bench --out` folder holding both TASK and TASK_declared (traces/TASK[-T<b>]/
ALGO/seed-S.jsonl). Each run's figure is its simple regret against one f* per task, the best value
any run of either variant found (the bench summary's f* is per problem, so its regrets do not
compare across the two variants); the direction comes from the traces' meta. Prints, per task,
budget and algorithm: the two means, the paired difference declared minus undeclared with its 95%
t interval (negative: declaring helps), and on how many seeds it is lower and higher.
"""
import argparse
import glob
import json
import math
import os
import re
import statistics

from scipy import stats  # Debian python3-scipy


def best_of(path):
    """(direction, the best value of one trace)."""
    direction, values = "minimize", []
    with open(path) as lines:
        for line in lines:
            record = json.loads(line)
            if "meta" in record:
                direction = record["meta"].get("direction", "minimize")
            elif "y" in record:
                value = record["f"] if record.get("f") is not None else record["y"]
                if value is not None and math.isfinite(value):
                    values.append(value)
    return direction, (max(values) if direction == "maximize" else min(values))


def folders(out, task):
    """{budget or None: folder} of one problem's traces."""
    found = {}
    for path in glob.glob(os.path.join(out, "traces", task + "*")):
        name = os.path.basename(path)
        match = re.fullmatch(re.escape(task) + r"(?:-T(\d+))?", name)
        if match:
            found[int(match.group(1)) if match.group(1) else None] = path
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("tasks", nargs="+")
    parser.add_argument("--algorithms", default="auto,gp-ei,go-ucb,turbo,random")
    args = parser.parse_args()
    for task in args.tasks:
        plain, declared = folders(args.out, task), folders(args.out, task + "_declared")
        runs = {}  # (variant, budget, algorithm, seed) -> best
        direction = "minimize"
        for variant, found in (("undeclared", plain), ("declared", declared)):
            for budget, folder in found.items():
                for path in glob.glob(os.path.join(folder, "*", "seed-*.jsonl")):
                    algorithm = os.path.basename(os.path.dirname(path))
                    seed = int(re.search(r"seed-(\d+)", path).group(1))
                    direction, runs[(variant, budget, algorithm, seed)] = best_of(path)
        if not runs:
            print(f"{task}: no traces of it or of {task}_declared in {args.out}")
            continue
        sign = -1.0 if direction == "maximize" else 1.0
        f_star = min(sign * v for v in runs.values()) * sign
        for budget in sorted(set(plain) & set(declared), key=lambda b: b or 0):
            for algorithm in args.algorithms.split(","):
                seeds = sorted(s for (v, b, a, s) in runs if v == "undeclared" and b == budget and a == algorithm
                               and ("declared", budget, algorithm, s) in runs)
                if not seeds:
                    continue
                regret = {v: [sign * (runs[(v, budget, algorithm, s)] - f_star) for s in seeds]
                          for v in ("undeclared", "declared")}
                diff = [d - u for u, d in zip(regret["undeclared"], regret["declared"])]
                half = (stats.t.ppf(0.975, len(diff) - 1) * statistics.stdev(diff) / math.sqrt(len(diff))
                        if len(diff) > 1 else float("nan"))
                print(f"{task} T={budget or '-'} {algorithm}: n={len(seeds)} f*={f_star:.6g} "
                      f"undeclared {statistics.fmean(regret['undeclared']):.4g} declared "
                      f"{statistics.fmean(regret['declared']):.4g} diff {statistics.fmean(diff):+.4g} +- {half:.2g} "
                      f"lower on {sum(d < 0 for d in diff)}, higher on {sum(d > 0 for d in diff)}")


if __name__ == "__main__":
    main()
