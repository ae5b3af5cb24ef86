#!/usr/bin/env python3
"""Runs the two ports over seeds, paired with optimist's traces, at most --jobs processes at once,
each under `nice -n 10` with single-threaded BLAS. Outputs that already hold a final line are
skipped (the sweep can be resumed).

  /usr/bin/python3 run_all.py --traces /tmp/ref/optimist/traces/styblinski_tang --out /tmp/ref \
      --seeds 0-29 --jobs 2 [--ports botorch_ei botorch_logei turbo1 turbo1_lhs]
"""
import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            seeds.extend(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def done(path):
    try:
        with open(path) as fh:
            lines = fh.read().splitlines()
        return bool(lines) and "final" in json.loads(lines[-1])
    except (OSError, ValueError):
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", default="/tmp/ref/optimist/traces/styblinski_tang")
    ap.add_argument("--out", default="/tmp/ref")
    ap.add_argument("--seeds", default="0-29")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ports", nargs="+", default=["botorch_ei", "turbo1"])
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    tasks = []
    for seed in parse_seeds(args.seeds):
        for port in args.ports:
            out = os.path.join(args.out, port, f"seed-{seed}.jsonl")
            if done(out):
                continue
            if port == "botorch_ei":
                cmd = ["botorch_ei_port.py", "--design-from", f"{args.traces}/gp-ei/seed-{seed}.jsonl"]
            elif port == "botorch_logei":  # diagnostic: the same loop with LogEI
                cmd = ["botorch_ei_port.py", "--acqf", "logei", "--design-from", f"{args.traces}/gp-ei/seed-{seed}.jsonl"]
            elif port == "turbo1":
                cmd = ["turbo1_port.py", "--design-from", f"{args.traces}/turbo/seed-{seed}.jsonl"]
            elif port == "turbo1_lhs":
                cmd = ["turbo1_port.py", "--lhs"]
            else:
                sys.exit(f"unknown port {port}")
            cmd = ["nice", "-n", "10", PYTHON, os.path.join(HERE, cmd[0])] + cmd[1:] + ["--seed", str(seed), "--out", out]
            tasks.append((port, seed, cmd))

    def work(task):
        port, seed, cmd = task
        t0 = time.time()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        status = "ok" if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr[-500:]}"
        print(f"{port} seed {seed}: {status} ({time.time() - t0:.0f} s) {proc.stdout.strip()[-200:]}", flush=True)
        return proc.returncode

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        codes = list(pool.map(work, tasks))
    sys.exit(1 if any(codes) else 0)


if __name__ == "__main__":
    main()
