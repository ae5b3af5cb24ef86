#!/usr/bin/env python3
"""Mean cumulative regret +- Wald 95% half-width (1.96 sd / sqrt n) of optimist's runs and of the
ports, paired differences optimist - port on the same seeds (same initial design), CPU per step.

  /usr/bin/python3 summarize.py --traces /tmp/ref/optimist/traces/styblinski_tang --ports /tmp/ref \
      [--seeds 0-29] [--seeds 0-9]
"""
import argparse
import json
import math
import os

import numpy as np

OPTIMIST = ["gp-ei", "turbo", "turbo-exact"]
PORTS = {"botorch_ei": "BoTorch GP-EI port", "botorch_logei": "BoTorch port with LogEI (diagnostic)", "turbo1": "TuRBO-1 port", "turbo1_lhs": "TuRBO-1 port, own LHS design"}
PAIRS = [("gp-ei", "botorch_ei"), ("gp-ei", "botorch_logei"), ("turbo", "turbo1"), ("turbo-exact", "turbo1"), ("turbo", "turbo1_lhs")]


def parse_seeds(text):
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def read_lines(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def optimist_run(path):
    evals = [r for r in read_lines(path) if "i" in r]
    steps = [r["suggest_s"] + r.get("tell_s", 0.0) for r in evals[8:]]
    return evals[-1]["cum_regret"], steps, len(evals)


def port_run(path):
    lines = read_lines(path)
    final = lines[-1]["final"]
    steps = [r["cpu_s"] for r in lines if "i" in r and not r.get("design") and r["i"] > 8]
    n = sum(1 for r in lines if "i" in r)
    return final["cum_regret"], steps, n


def stat(values):
    v = np.asarray(values, dtype=float)
    hw = 1.96 * v.std(ddof=1) / math.sqrt(len(v)) if len(v) > 1 else float("nan")
    return f"{v.mean():,.0f} +- {hw:,.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", default="/tmp/ref/optimist/traces/styblinski_tang")
    ap.add_argument("--ports", default="/tmp/ref")
    ap.add_argument("--seeds", action="append")
    args = ap.parse_args()
    for seeds_text in args.seeds or ["0-29", "0-9"]:
        seeds = parse_seeds(seeds_text)
        cum, cpu = {}, {}
        for label in OPTIMIST:
            for s in seeds:
                p = os.path.join(args.traces, label, f"seed-{s}.jsonl")
                if os.path.exists(p):
                    c, steps, n = optimist_run(p)
                    assert n == 72, (p, n)
                    cum.setdefault(label, {})[s] = c
                    cpu.setdefault(label, []).extend(steps)
        for port in PORTS:
            for s in seeds:
                p = os.path.join(args.ports, port, f"seed-{s}.jsonl")
                if os.path.exists(p):
                    try:
                        c, steps, n = port_run(p)
                    except (KeyError, ValueError):
                        continue  # unfinished
                    assert n == 72, (p, n)
                    cum.setdefault(port, {})[s] = c
                    cpu.setdefault(port, []).extend(steps)
        print(f"\nseeds {seeds_text}: mean cumulative regret +- 95% half-width; time per step after the design "
              "(median / mean): ports CPU (time.process_time), optimist wall clock (suggest_s + tell_s)")
        print("| algorithm | runs | cumulative regret | time per step |")
        print("| --- | --- | --- | --- |")
        for key in OPTIMIST + list(PORTS):
            if key not in cum:
                continue
            name = f"optimist {key}" if key in OPTIMIST else PORTS[key]
            c = cpu[key]
            print(f"| {name} | {len(cum[key])} | {stat(list(cum[key].values()))} | "
                  f"{1e3 * np.median(c):.1f} / {1e3 * np.mean(c):.1f} ms |")
        print("\n| paired difference | seeds | optimist - port | optimist better on |")
        print("| --- | --- | --- | --- |")
        for a, b in PAIRS:
            if a not in cum or b not in cum:
                continue
            common = sorted(set(cum[a]) & set(cum[b]))
            if len(common) < 2:
                continue
            diff = [cum[a][s] - cum[b][s] for s in common]
            wins = sum(1 for x in diff if x < 0)
            note = " (designs differ: not paired)" if b == "turbo1_lhs" else ""
            print(f"| optimist {a} - {PORTS[b]}{note} | {len(common)} | {stat(diff)} | {wins}/{len(common)} seeds |")


if __name__ == "__main__":
    main()
