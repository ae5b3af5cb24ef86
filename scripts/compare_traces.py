#!/usr/bin/python3
"""Compares two folders of traces (bench output `traces/`) line by line, ignoring wall-clock fields.

    compare_traces.py BASE_TRACES HEAD_TRACES [--label NAME] [--ignore-option KEY ...]

Every trace of either side must exist on the other with the same evaluation and recommend lines,
compared as parsed JSON (so the doubles compare bit for bit) without the timing fields
suggest_s, tell_s and eval_s. The meta lines are compared after moving the seed and the planning
horizon out of the options: traces written before the RunContext change (issue 22) recorded them
as options "seed" and "budget", later ones as the meta's "seed" and "horizon"
(docs/trace-format.md, "Older traces"). --ignore-option drops an option from both metas: one a
change added (its default keeps the old arithmetic) or whose default became "auto" resolving to
the old value. Exit status 1 on any difference, listing the first ones.
"""
import argparse
import json
import pathlib
import sys

TIMING = {"suggest_s", "tell_s", "eval_s"}
IGNORED_OPTIONS = set()


def normalized_meta(meta):
    m = dict(meta)
    options = dict(m.get("options", {}))
    legacy = "seed" in options  # written before the RunContext change
    options.pop("seed", None)
    for key in IGNORED_OPTIONS:
        options.pop(key, None)
    horizon = m.pop("horizon", None)
    if legacy:
        budget = options.pop("budget", None)
        horizon = (budget or None) if budget is not None else m.get("budget")
    m["options"] = options
    m["horizon"] = horizon
    m.pop("version", None)
    return m


def normalized(line):
    obj = json.loads(line)
    if "meta" in obj:
        return {"meta": normalized_meta(obj["meta"])}
    return {k: v for k, v in obj.items() if k not in TIMING}


def first_difference(a, b, path=""):
    if type(a) is not type(b):
        return f"{path}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in {'head' if k in b else 'base'}"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("head")
    ap.add_argument("--label", default="")
    ap.add_argument("--ignore-option", action="append", default=[])
    args = ap.parse_args()
    IGNORED_OPTIONS.update(args.ignore_option)
    base, head = pathlib.Path(args.base), pathlib.Path(args.head)
    names = sorted({p.relative_to(base) for p in base.rglob("*.jsonl")} | {p.relative_to(head) for p in head.rglob("*.jsonl")})
    problems, lines = [], 0
    for name in names:
        a, b = base / name, head / name
        if not a.exists() or not b.exists():
            problems.append(f"{name}: only in {'head' if b.exists() else 'base'}")
            continue
        la, lb = a.read_text().splitlines(), b.read_text().splitlines()
        if len(la) != len(lb):
            problems.append(f"{name}: {len(la)} lines vs {len(lb)}")
            continue
        for k, (x, y) in enumerate(zip(la, lb), start=1):
            d = first_difference(normalized(x), normalized(y))
            if d:
                problems.append(f"{name} line {k}: {d}")
                break
        lines += len(la)
    label = f"{args.label}: " if args.label else ""
    if problems:
        print(f"{label}{len(problems)} of {len(names)} traces differ")
        for p in problems[:20]:
            print("  " + p)
        return 1
    print(f"{label}{len(names)} traces, {lines} lines identical (timing fields aside)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
