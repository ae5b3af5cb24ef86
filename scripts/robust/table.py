#!/usr/bin/env python3
"""Markdown table of a robust sweep's summary.json: mean simple regret at T per algorithm, with
+ / **-** / = for a paired 95% interval against the reference (random search) wholly below / above
zero / neither, then the mean rank and the counts of better and worse rows (docs/robust.md).

    /usr/bin/python3 scripts/robust/table.py OUT/summary.json
"""
import json
import sys


def fmt(v: float) -> str:
    if v == 0:
        return "0"
    return f"{v:.3g}" if 1e-3 <= abs(v) < 1e4 else f"{v:.2e}".replace("e-0", "e-").replace("e+0", "e")


def main(path: str) -> None:
    summary = json.load(open(path))
    problems = summary["problems"]
    labels = [a["label"] for a in problems[0]["algorithms"]]
    print("| task | " + " | ".join(labels) + " |")
    print("| --- |" + " --- |" * len(labels))
    for p in problems:
        cells = []
        for a in p["algorithms"]:
            cell = fmt(a["metric"]["mean"])
            paired = a.get("paired")
            if paired:
                d = paired["difference"]
                lo, hi = d["mean"] - d["half_width"], d["mean"] + d["half_width"]
                cell += " +" if hi < 0 else " **-**" if lo > 0 else " ="
            cells.append(cell)
        print(f"| {p['name']} T{p['budget']} | " + " | ".join(cells) + " |")
    across = {a["label"]: a for a in summary["across_problems"]["algorithms"]}
    n = summary["across_problems"]["ranked_problems"]
    print(f"| **mean rank** ({n} rows) | " + " | ".join(f"{across[l]['mean_rank']:.2f}" for l in labels) + " |")
    print("| better / worse than random | " + " | ".join(
        "" if l == summary["across_problems"]["reference"] else
        f"{across[l]['significantly_better']} / {across[l]['significantly_worse']}" for l in labels) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
