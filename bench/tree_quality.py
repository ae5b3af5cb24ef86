#!/usr/bin/python3
"""Mean simple regret of recommend() over seeds for the tree-search optimizers (docs/tree-search.md).

Runs `optimist run ... --quiet` once per (problem, budget, noise, algorithm, seed) and reads the
"recommended ... simple regret R" line of its summary. Example (the table in docs/tree-search.md):
  nice bench/tree_quality.py --cli build-tree/optimist
  bench/tree_quality.py --problems garland --budgets 5000 --noises 0.1 --algorithms stroquool \
      --set stroquool:children=3
"""
import argparse
import re
import subprocess
import sys

ALGORITHMS = ["sequool", "stroquool", "soo", "stosoo", "hoo", "poo", "uniform-grid"]


def regret(cli, problem, algorithm, budget, noise, seed, options):
    cmd = [cli, "run", "--problem", problem, "--algorithm", algorithm, "--budget", str(budget),
           "--noise", str(noise), "--seed", str(seed), "--quiet"]
    for o in options:
        cmd += ["--set", o]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    m = re.search(r"recommended .*simple regret (\S+)", out)
    if not m:
        sys.exit("no recommend line in the output of " + " ".join(cmd))
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default="build/optimist")
    ap.add_argument("--problems", nargs="+", default=["garland", "wrapped_sine"])
    ap.add_argument("--budgets", nargs="+", type=int, default=[500, 5000, 50000])
    ap.add_argument("--noises", nargs="+", type=float, default=[0.0, 0.1, 1.0])
    ap.add_argument("--algorithms", nargs="+", default=ALGORITHMS)
    ap.add_argument("--seeds", type=int, default=10, help="number of seeds")
    ap.add_argument("--first-seed", type=int, default=1, help="seeds FIRST .. FIRST+SEEDS-1")
    ap.add_argument("--set", nargs="*", action="extend", default=[], metavar="ALG:KEY=VALUE", help="option for one algorithm")
    a = ap.parse_args()
    options = {alg: [s.split(":", 1)[1] for s in a.set if s.split(":", 1)[0] == alg] for alg in a.algorithms}
    for problem in a.problems:
        print(f"\n{problem}: mean simple regret of recommend() over {a.seeds} seeds\n")
        print("| n | noise | " + " | ".join(a.algorithms) + " |")
        print("| --- | --- |" + " --- |" * len(a.algorithms))
        for budget in a.budgets:
            for noise in a.noises:
                cells = []
                for alg in a.algorithms:
                    r = [regret(a.cli, problem, alg, budget, noise, s, options[alg]) for s in range(a.first_seed, a.first_seed + a.seeds)]
                    cells.append(f"{sum(r) / len(r):.4f}")
                print(f"| {budget} | {noise:g} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
