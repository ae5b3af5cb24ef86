#!/usr/bin/python3
"""Dictionary size m_t and optimizer time per step (ask + tell) against t, from BKB / BBKB /
gp-ucb-arms traces (`optimist run ... --out TRACE.jsonl`): the figure of docs/bkb.md.

Usage: /usr/bin/python3 scripts/plot_bkb_steps.py OUT.png LABEL=TRACE [LABEL=TRACE ...]
       /usr/bin/python3 scripts/plot_bkb_steps.py --deff OUT.png LABEL=TRACE [LABEL=TRACE ...]
The --deff form draws one panel per trace: the estimate of the effective dimension
d_eff = sum_s sigma_t^2(x_s) (diagnostic `d_eff`), m_t and the distinct pulled arms u_t against t.
m_t is `dictionary_size` (BKB, BBKB) or `distinct_pulled` (exact GP-UCB: its "dictionary" is every
distinct pulled arm); the step time is suggest_s + tell_s, averaged over blocks of 20 steps (wall
clock: on a loaded machine the level moves, the shape does not). Writes OUT.png and OUT.svg.
Needs Debian's python3-matplotlib."""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bkb_trace_summary import read as read_trace  # noqa: E402


def read(path):
    """The evaluation rows of a trace (its reader is bkb_trace_summary.py's, next to this file)."""
    return read_trace(path)[1]


def blocks(ts, vs, size=20):
    out_t, out_v = [], []
    for k in range(0, len(ts), size):
        out_t.append(sum(ts[k:k + size]) / len(ts[k:k + size]))
        out_v.append(sum(vs[k:k + size]) / len(vs[k:k + size]))
    return out_t, out_v


def deff_figure(out, specs):
    fig, axes = plt.subplots(1, len(specs), figsize=(3.6 * len(specs), 3.4), squeeze=False)
    for ax, spec in zip(axes[0], specs):
        label, path = spec.rsplit("=", 1)
        rows = read(path)
        t = [r["i"] for r in rows]
        ax.plot(t, [r.get("distinct_pulled") for r in rows], "--", label="u_t (distinct pulled)")
        ax.plot(t, [r.get("dictionary_size") for r in rows], "-", label="m_t (dictionary)")
        ax.plot(t, [r.get("d_eff") for r in rows], ":", label="d_eff estimate")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("t")
        ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    base = os.path.splitext(out)[0]
    fig.savefig(base + ".png", dpi=110)
    fig.savefig(base + ".svg")
    print(base + ".png", base + ".svg")
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    if argv[0] == "--deff":
        return deff_figure(argv[1], argv[2:])
    out = argv[0]
    fig, (ax_m, ax_s) = plt.subplots(1, 2, figsize=(11, 4.2))
    for spec in argv[1:]:
        label, path = spec.rsplit("=", 1)
        rows = read(path)
        t = [r["i"] for r in rows]
        m = [r.get("dictionary_size", r.get("distinct_pulled")) for r in rows]
        step = [r.get("suggest_s", 0.0) + r.get("tell_s", 0.0) for r in rows]
        style = "--" if "gp-ucb-arms" in label else "-"
        ax_m.plot(t, m, style, label=label)
        bt, bs = blocks(t, step)
        ax_s.plot(bt, bs, style, label=label)
    ax_m.set_xlabel("t")
    ax_m.set_ylabel("m_t (exact: distinct pulled arms)")
    ax_m.set_title("dictionary size")
    ax_s.set_xlabel("t")
    ax_s.set_ylabel("time per step, ask + tell (s)")
    ax_s.set_yscale("log")
    ax_s.set_title("optimizer time per step (20-step means)")
    for ax in (ax_m, ax_s):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    base = os.path.splitext(out)[0]
    fig.savefig(base + ".png", dpi=110)
    fig.savefig(base + ".svg")
    print(base + ".png", base + ".svg")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
