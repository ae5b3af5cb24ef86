#!/usr/bin/python3
"""Figures of an `optimist bench` folder: one panel per problem, one line per algorithm, the mean
over seeds with its interval shaded (the summary's: Student's t by default, or the papers' Wald
interval with "interval": "wald", as in the GO-UCB and SequOOL papers' figures).

Usage: /usr/bin/python3 scripts/plot_results.py DIR   (DIR holds summary.json)
Writes DIR/plots/<figure>.png and .svg for each figure the sweep asks for ("plots" in sweep):
  metric        the sweep's metric against t (cumulative regret, average Phase II regret, ...)
  metric_log    the same on a log scale
  simple_regret f* - best f evaluated so far, log scale
  suggest_time  optimizer time per step (suggest_s + tell_s) averaged over blocks of steps, log scale
Needs Debian's python3-matplotlib (Agg backend, no display)."""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

METRIC_LABELS = {
    "cumulative_regret": "cumulative regret",
    "average_phase2_regret": "average Phase II regret",
    "simple_regret": "simple regret (f* - best f)",
}


def figure_kinds(summary):
    metric = summary["metric"]
    kinds = {
        "metric": ("metric", METRIC_LABELS.get(metric, metric), False),
        "metric_log": ("metric", METRIC_LABELS.get(metric, metric), True),
        "simple_regret": ("simple_regret", "simple regret (f* - best f)", True),
        "suggest_time": ("suggest_s", "optimizer time per step, ask + tell (s)", True),
    }
    return [(name, *kinds[name]) for name in summary["sweep"].get("plots", ["metric"]) if name in kinds]


def finite(v):
    return v is not None and isinstance(v, (int, float)) and math.isfinite(v)


def binned(pts, bins=60):
    """Per-step times averaged over consecutive blocks of t, so a trend is visible through jitter."""
    size = max(1, len(pts) // bins)
    out = []
    for k in range(0, len(pts), size):
        block = pts[k:k + size]
        out.append((sum(p[0] for p in block) / len(block), sum(p[1] for p in block) / len(block), None))
    return out


def algorithm_colors(summary):
    """One colour per algorithm label for every panel: matplotlib's cycle, per panel, would shift
    the colours of a panel where an algorithm has no line (no finished run, all means 0 on a log
    scale), and the legend, taken from one panel, would then name the wrong lines."""
    labels = [a["label"] for a in summary["sweep"]["algorithms"]]
    for problem in summary["problems"]:
        labels += [a["label"] for a in problem["algorithms"] if a["label"] not in labels]
    # Past 10 algorithms the colours repeat: a line style tells them apart (13 in the discrete
    # preset drew random and soo alike).
    styles = ["-", "--", ":", "-."]
    return {label: ("C%d" % (k % 10), styles[(k // 10) % len(styles)]) for k, label in enumerate(labels)}


def draw_panel(ax, problem, curve_key, ylabel, log, level, colors):
    for alg in problem["algorithms"]:
        curves = alg.get("curves", {})
        curve = curves.get(curve_key)
        if not curve:
            continue
        pts = [(t, m, h) for t, m, h in zip(curves["t"], curve["mean"], curve["half_width"]) if finite(m)]
        if log:
            positive = [(t, m, h) for t, m, h in pts if m > 0]
            if pts and not positive:  # 0 at every t: no line on a log scale, but said in the legend
                color, style = colors[alg["label"]]
                ax.plot([], [], label=alg["label"] + " (0 throughout: off the log scale)", color=color, linestyle=style)
            pts = positive
        if not pts:
            continue
        if curve_key == "suggest_s":
            pts = binned(pts)
        ts = [p[0] for p in pts]
        mean = [p[1] for p in pts]
        color, style = colors[alg["label"]]
        line, = ax.plot(ts, mean, label=alg["label"], linewidth=1.4, color=color, linestyle=style)
        if curve_key == "suggest_s":
            continue  # per-step times jitter too much for a meaningful band
        half = [p[2] if finite(p[2]) else 0.0 for p in pts]
        lo = [m - h for m, h in zip(mean, half)]
        hi = [m + h for m, h in zip(mean, half)]
        if log:  # an interval may reach below 0; clip to the mean's scale
            lo = [max(l, m * 1e-3) for l, m in zip(lo, mean)]
        ax.fill_between(ts, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
    if log:
        ax.set_yscale("log")
    title = problem["label"]
    if problem.get("f_star_source") == "best observed in sweep":
        title += " (f* = best seen)"
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("t (evaluations)")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)


def plot(directory):
    with open(os.path.join(directory, "summary.json")) as fh:
        summary = json.load(fh)
    problems = summary["problems"]
    if not problems:
        raise SystemExit("plot_results.py: no problems in summary.json")
    out = os.path.join(directory, "plots")
    os.makedirs(out, exist_ok=True)
    level = summary.get("level", 0.95)
    colors = algorithm_colors(summary)
    written = []
    for name, curve_key, ylabel, log in figure_kinds(summary):
        n = len(problems)
        cols = min(3, n)
        rows = math.ceil(n / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False)
        for k, problem in enumerate(problems):
            draw_panel(axes[k // cols][k % cols], problem, curve_key, ylabel, log, level, colors)
        for k in range(n, rows * cols):
            axes[k // cols][k % cols].axis("off")
        # Every algorithm drawn in any panel, in the sweep's order (not only the first panel's).
        seen = {}
        for ax in axes.flat:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                seen.setdefault(label, handle)
        labels = [label for label in colors if label in seen]
        labels += [label for label in seen if label not in colors and label not in labels]  # "(0 throughout ...)"
        handles = [seen[label] for label in labels]
        # As many columns as the longest label allows in the figure's width (about 0.075 in per
        # character at 10 pt, 0.6 in for the line and the gap); the bottom margin grows with the rows.
        col_width = 0.6 + 0.075 * max((len(l) for l in labels), default=1)
        ncol = max(1, min(len(labels), int(4.6 * cols / col_width))) if handles else 1
        legend_height = 0.3 * math.ceil(len(labels) / ncol) / (3.6 * rows) if handles else 0
        if handles:
            fig.legend(handles, labels, loc="lower center", ncol=ncol, frameon=False)
        sweep = summary["sweep"]
        kind = {"t": "Student's t", "wald": "Wald"}.get(summary.get("interval", "wald"), summary.get("interval"))
        # Say when some runs are not finished (a sweep stopped early): the means are over fewer.
        finished = [a.get("finished", sweep["seeds"]) for p in problems for a in p["algorithms"]]
        short = sum(1 for f in finished if f < sweep["seeds"])
        note = "" if not short else " (%d of %d curves over fewer: unfinished runs)" % (short, len(finished))
        fig.suptitle("%s: mean over %d seed%s, %g%% %s intervals%s" % (sweep["name"], sweep["seeds"],
                                                                     "" if sweep["seeds"] == 1 else "s", 100 * level, kind,
                                                                     note),
                     fontsize=11)
        fig.tight_layout(rect=(0, legend_height, 1, 0.95))
        for ext in ("png", "svg"):
            path = os.path.join(out, "%s.%s" % (name, ext))
            fig.savefig(path, dpi=120)
            written.append(path)
        plt.close(fig)
    for path in written:
        print(path)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: plot_results.py DIR   (DIR written by 'optimist bench --out DIR')\n")
        return 2
    if not os.path.isfile(os.path.join(argv[1], "summary.json")):
        sys.stderr.write("plot_results.py: '%s' holds no summary.json\n" % argv[1])
        return 2
    try:
        plot(argv[1])
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
        # A summary.json not written by 'optimist bench' (or damaged): one line, not a traceback.
        what = "missing field %s" % e if isinstance(e, KeyError) else "%s: %s" % (type(e).__name__, e)
        sys.stderr.write("plot_results.py: '%s' is not a summary written by 'optimist bench' (%s)\n"
                         % (os.path.join(argv[1], "summary.json"), what))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
