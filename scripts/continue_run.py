#!/usr/bin/python3
"""Continue one algorithm's runs with another: where in a run does one algorithm gain on another?

For each seed of a finished `optimist bench` sweep that holds both algorithms' traces on a problem,
writes a trace made of the `--to` algorithm's meta line and the first `--after` evaluations of the
`--from` algorithm's trace, continues it to the budget with `optimist run --resume` (the `--to`
algorithm is told those evaluations, then asks for the rest; the k-th evaluation keeps the k-th
noise draw), and prints the continued runs' cumulative and simple regret minus the `--from` runs',
paired by seed (mean +- 1.96 sd / sqrt(n)). `--after 0` reproduces the `--to` runs themselves.
docs/go-ucb.md, fourteenth round:

  optimist bench --config st.json --out base --no-plot     # gp-ei and go-ucb, seeds 0-99
  /usr/bin/python3 scripts/continue_run.py base --problem styblinski_tang --from gp-ei --to go-ucb --after 40
"""
import argparse
import json
import math
import pathlib
import subprocess
import sys
import tempfile


def read_trace(path):
    lines = path.read_text().splitlines()
    evaluations = [line for line in lines[1:] if line.startswith('{"i"')]
    recommend = next((json.loads(line)["recommend"] for line in lines if line.startswith('{"recommend"')), None)
    return lines[0], evaluations, recommend


def paired(diffs):
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else float("nan")
    return f"{mean:+.1f} +- {1.96 * sd / math.sqrt(n):.1f} (lower on {sum(d < 0 for d in diffs)} of {n})"


def continue_runs(sweep, problem, source, target, after, out, optimist):
    """Continues every seed; returns the paired differences (cumulative, simple regret)."""
    if after < 0:
        sys.exit(f"continue_run: --after must be >= 0, got {after}")
    root = sweep / "traces" / problem
    out.mkdir(parents=True, exist_ok=True)
    cumulative, simple = [], []
    for source_path in sorted((root / source).glob("seed-*.jsonl")):
        target_path = root / target / source_path.name
        if not target_path.exists():
            continue
        _, source_evals, source_rec = read_trace(source_path)
        target_meta, _, _ = read_trace(target_path)
        if after > len(source_evals):
            sys.exit(f"continue_run: {source_path} has {len(source_evals)} evaluations, fewer than --after {after}")
        continued = out / source_path.name
        continued.write_text("\n".join([target_meta] + source_evals[:after]) + "\n")
        subprocess.run([optimist, "run", "--resume", str(continued), "-q"], check=True, capture_output=True)
        _, evals, rec = read_trace(continued)
        cumulative.append(json.loads(evals[-1])["cum_regret"] - json.loads(source_evals[-1])["cum_regret"])
        simple.append(rec["simple_regret"] - source_rec["simple_regret"])
    if not cumulative:
        sys.exit(f"continue_run: no seed of {root} has traces of both '{source}' and '{target}'")
    return cumulative, simple


def self_test(optimist):
    """A continued run keeps the source's first evaluations; after 0 it is the target's own run,
    after all of them the source's."""
    with tempfile.TemporaryDirectory() as tmp:
        sweep = pathlib.Path(tmp) / "sweep"
        config = pathlib.Path(tmp) / "sweep.json"
        config.write_text(json.dumps({"seeds": 3, "budget": 14, "noise": 0.01, "dim": 3, "metric": "cumulative_regret",
                                      "algorithms": ["random", "go-ucb"], "problems": ["styblinski_tang"]}))
        subprocess.run([optimist, "bench", "--config", str(config), "--out", str(sweep), "--no-plot", "-q"], check=True,
                       capture_output=True)
        runs = sweep / "traces" / "styblinski_tang"
        own = {}
        for name in ("random", "go-ucb"):
            own[name] = [json.loads(read_trace(p)[1][-1])["cum_regret"] for p in sorted((runs / name).glob("seed-*.jsonl"))]
        expected = [g - r for g, r in zip(own["go-ucb"], own["random"])]
        cumulative, _ = continue_runs(sweep, "styblinski_tang", "random", "go-ucb", 0, pathlib.Path(tmp) / "a0", optimist)
        assert cumulative == expected, f"after 0: {cumulative} != the go-ucb runs' {expected}"
        cumulative, simple = continue_runs(sweep, "styblinski_tang", "random", "go-ucb", 14, pathlib.Path(tmp) / "a14", optimist)
        assert cumulative == [0.0] * 3, f"after all 14: {cumulative} != 0"
        continue_runs(sweep, "styblinski_tang", "random", "go-ucb", 6, pathlib.Path(tmp) / "a6", optimist)
        for p in sorted((runs / "random").glob("seed-*.jsonl")):
            kept = [json.loads(e)["x"] for e in read_trace(p)[1][:6]]
            continued = read_trace(pathlib.Path(tmp) / "a6" / p.name)
            assert [json.loads(e)["x"] for e in continued[1][:6]] == kept, f"{p.name}: the first 6 points changed"
            assert len(continued[1]) == 14 and json.loads(continued[0])["meta"]["algorithm"] == "go-ucb", p.name
    print("continue_run self-test: ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep", type=pathlib.Path, nargs="?", help="an optimist bench output folder")
    ap.add_argument("--problem", help="the problem's label in the sweep (a folder under traces/)")
    ap.add_argument("--from", dest="source", help="the algorithm label whose evaluations start each run")
    ap.add_argument("--to", dest="target", help="the algorithm label that continues them")
    ap.add_argument("--after", type=int, help="how many of the --from run's evaluations to keep")
    ap.add_argument("--out", type=pathlib.Path, help="folder for the continued traces (default: SWEEP/continued/...)")
    ap.add_argument("--optimist", default=str(pathlib.Path(__file__).resolve().parent.parent / "build" / "optimist"))
    ap.add_argument("--self-test", action="store_true", help="check the tool on a small sweep of its own")
    a = ap.parse_args()
    if a.self_test:
        return self_test(a.optimist)
    if a.sweep is None or None in (a.problem, a.source, a.target, a.after):
        ap.error("give SWEEP, --problem, --from, --to and --after (or --self-test)")
    out = a.out or a.sweep / "continued" / a.problem / f"{a.source}-then-{a.target}-after-{a.after}"
    cumulative, simple = continue_runs(a.sweep, a.problem, a.source, a.target, a.after, out, a.optimist)
    print(f"{a.target} after {a.source}'s first {a.after} evaluations, minus {a.source} ({a.problem}):")
    print(f"  cumulative regret {paired(cumulative)}")
    print(f"  simple regret of the recommendation {paired(simple)}")


if __name__ == "__main__":
    main()
