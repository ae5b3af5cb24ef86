"""Traces: minimize writes the CLI's trace (same points for the same seed), reads it back, and
`optimist run --resume` continues a trace written from Python."""
import json
import re
import os
import subprocess
import sys

import numpy as np
import pytest

import optimist
from conftest import run_cli, trace_lines


@pytest.mark.parametrize("algorithm, seed, noise", [("gp-ei", 3, 0.0), ("go-ucb", 1, 0.0), ("gp-ei", 2, 0.5),
                                                    ("turbo", 4, 0.0), ("sequool", 0, 0.0)])
def test_minimize_writes_the_cli_trace_for_the_same_seed(tmp_path, algorithm, seed, noise):
    cli, py = tmp_path / "cli.jsonl", tmp_path / "py.jsonl"
    done = run_cli("run", "--problem", "branin", "--algorithm", algorithm, "--budget", "16", "--seed", str(seed),
                   "--noise", str(noise), "--out", str(cli), "--quiet")
    assert done.returncode == 0, done.stderr
    problem = optimist.problems.get("branin", noise=noise)
    res = optimist.minimize(problem, algorithm=algorithm, budget=16, seed=seed, trace=py)
    assert trace_lines(py) == trace_lines(cli)  # every field but the timings, meta and recommend lines included
    assert np.array_equal(np.array(res.x_iters), np.array([e["x"] for e in trace_lines(cli)[1:-1]]))


def test_ask_tell_from_python_asks_the_cli_points(tmp_path):
    cli = tmp_path / "cli.jsonl"
    assert run_cli("run", "--problem", "branin", "--algorithm", "gp-ei", "--budget", "12", "--seed", "7",
                   "--out", str(cli), "--quiet").returncode == 0
    branin = optimist.problems.branin
    opt = optimist.Optimizer(branin.space, "gp-ei", seed=7)
    for line in trace_lines(cli)[1:-1]:
        t = opt.ask()
        assert t.x.tolist() == line["x"]
        opt.tell(t, branin(t.x))


def test_cli_resumes_a_trace_written_from_python(tmp_path):
    py, full = tmp_path / "py.jsonl", tmp_path / "full.jsonl"
    optimist.minimize(optimist.problems.branin, algorithm="gp-ei", budget=8, seed=5, trace=py)
    done = run_cli("run", "--resume", str(py), "--budget", "14", "--quiet")
    assert done.returncode == 0, done.stderr
    assert run_cli("run", "--problem", "branin", "--algorithm", "gp-ei", "--budget", "14", "--seed", "5",
                   "--out", str(full), "--quiet").returncode == 0
    resumed, uninterrupted = trace_lines(py), trace_lines(full)
    assert resumed[0]["meta"]["run"]["resumed_after"] == [8]
    assert resumed[1:] == uninterrupted[1:]  # the continued run is the uninterrupted one


def test_read_trace_of_a_user_objective_with_categorical_values(tmp_path):
    space = {"kernel": optimist.Categorical(["rbf", "linear"]), "c": optimist.Float(1e-2, 1e2, log=True)}

    def score(p):
        if p["c"] > 50:
            raise MemoryError("too big")
        return abs(np.log10(p["c"])) + (0.0 if p["kernel"] == "rbf" else 1.0)

    path = tmp_path / "user.jsonl"
    res = optimist.minimize(score, space, algorithm="sobol", budget=10, seed=2, trace=path, on_failure="mark-failed",
                            name="svm")
    t = optimist.read_trace(path)
    assert t.complete and len(t) == 10 and t.meta["problem"] == "svm" and t.meta["direction"] == "minimize"
    assert t.meta["f_star"] is None and t.meta["seed"] == 2 and "seed" not in t.meta["options"]
    assert t.meta["horizon"] == 10
    assert {e["x"][0] for e in t.evaluations} <= {"rbf", "linear"}
    np.testing.assert_array_equal(t.y, res.func_vals)
    assert t.space.names == ["kernel", "c"]
    df = t.to_pandas()
    assert list(df.columns[:3]) == ["i", "kernel", "c"] and (df["status"] == "failed").sum() == res.n_failed
    failed = [e for e in t.evaluations if e["status"] == "failed"]
    assert all("MemoryError: too big" in e["error"] for e in failed)


def test_read_trace_errors_name_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"meta": {"algorithm": "random"}}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1: trace meta: missing 'problem'"):
        optimist.read_trace(bad)
    with pytest.raises(ValueError, match="cannot read trace file"):
        optimist.read_trace(tmp_path / "absent.jsonl")
    # A cut-off last line (a killed run) is ignored.
    good = tmp_path / "good.jsonl"
    optimist.minimize(optimist.problems.branin, algorithm="random", budget=3, trace=good)
    text = good.read_text().splitlines()
    good.write_text("\n".join(text[:3]) + "\n" + text[3][:20])
    t = optimist.read_trace(good)
    assert len(t) == 2 and not t.complete
    assert json.loads(text[0])["meta"]["problem"] == "branin"
    # An evaluation line a resume would refuse is refused here too, naming it.
    for change, message in [(('"status":"ok"', '"status":"pruned"'), 'evaluation 1: "status" must be "ok" or "failed", got "pruned"'),
                            (('"i":1,"x":[', '"i":1,"x":[99,'), 'evaluation 1: "x": '),
                            (('"i":1,', '"i":7,'), "evaluation 7 found where 1 was expected")]:
        assert change[0] in text[1], text[1]
        good.write_text("\n".join([text[0], text[1].replace(*change), text[2]]) + "\n")
        with pytest.raises(ValueError, match=re.escape(f"trace '{good}': {message}")):
            optimist.read_trace(good)


def test_resume_continues_an_interrupted_run_without_repeating_it(tmp_path):
    calls = []

    def f(p):
        calls.append(p)
        return (p["x"] - 0.3) ** 2 + (0.0 if p["c"] == "b" else 0.5)

    space = {"x": optimist.Float(-1, 1), "c": optimist.Categorical(["a", "b"])}
    path = tmp_path / "run.jsonl"
    first = optimist.minimize(f, space, algorithm="gp-ei", budget=12, seed=3, trace=path,
                              callback=lambda ev: ev.i == 5)  # stopped after 5, as by Ctrl-C
    assert first.status == "cancelled" and first.nfev == 5
    calls.clear()
    resumed = optimist.minimize(f, space, algorithm="gp-ei", budget=12, seed=3, trace=path, resume=path)
    assert len(calls) == 7 and resumed.nfev == 12 and resumed.history.y.shape == (12,)
    whole = optimist.minimize(f, space, algorithm="gp-ei", budget=12, seed=3)
    assert resumed.x_iters == whole.x_iters  # the continued run is the uninterrupted one
    t = optimist.read_trace(path)
    assert t.complete and len(t) == 12 and t.meta["run"]["resumed_after"] == [5]


def test_a_run_choosing_among_functions_resumes_in_another_process(tmp_path):
    # The trace named a function choice by str(), "<function relu at 0x7f35...>": a new process
    # prints another address, so resume refused its own trace ("'act' is categorical ... there").
    # Functions defined again stand for that process: other objects, other addresses.
    def choices():
        namespace = {}
        exec("def relu(v): return max(v, 0.0)\ndef gelu(v): return v\nclass Adam: pass\n", namespace)
        return [namespace["relu"], namespace["gelu"], namespace["Adam"](), namespace["Adam"]()]

    first_choices, later_choices = choices(), choices()
    assert first_choices[0] is not later_choices[0]

    def space(options):
        return {"act": optimist.Categorical(options), "lr": optimist.Float(1e-4, 1e-1, log=True)}

    def f(p):
        return float(p["act"].__class__.__name__ == "function" and p["act"].__name__ == "gelu") + abs(p["lr"] - 0.01)

    path = tmp_path / "run.jsonl"
    first = optimist.minimize(f, space(first_choices), algorithm="gp-ei", budget=8, seed=0, trace=path,
                              callback=lambda ev: ev.i == 4)
    assert first.nfev == 4
    resumed = optimist.minimize(f, space(later_choices), algorithm="gp-ei", budget=8, seed=0, trace=path, resume=path)
    assert resumed.nfev == 8
    assert all(any(p["act"] is c for c in later_choices) for p in resumed.x_iters[4:])  # this process's objects
    labels = optimist.read_trace(path).meta["space"]["parameters"][0]["choices"]
    # Two Adam() print alike: every choice is numbered then.
    assert labels == ["0:<function relu>", "1:<function gelu>", "2:<Adam object>", "3:<Adam object>"]


def test_resume_of_a_noisy_problem_writes_the_cli_trace(tmp_path):
    py, cli = tmp_path / "py.jsonl", tmp_path / "cli.jsonl"
    noisy = optimist.problems.get("branin", noise=0.5)
    optimist.minimize(noisy, algorithm="go-ucb", budget=6, seed=2, trace=py)
    optimist.minimize(noisy, algorithm="go-ucb", budget=12, seed=2, trace=py, resume=py)  # horizon stays 6
    assert run_cli("run", "--problem", "branin", "--algorithm", "go-ucb", "--budget", "6", "--seed", "2",
                   "--noise", "0.5", "--out", str(cli), "--quiet").returncode == 0
    assert run_cli("run", "--resume", str(cli), "--budget", "12", "--quiet").returncode == 0
    assert trace_lines(py) == trace_lines(cli)


def test_resume_refuses_another_run(tmp_path):
    path = tmp_path / "run.jsonl"
    optimist.minimize(optimist.problems.branin, algorithm="gp-ei", budget=4, seed=1, trace=path)
    with pytest.raises(ValueError, match="is a run of gp-ei with seed 1; this call runs gp-ei with seed 2"):
        optimist.minimize(optimist.problems.branin, algorithm="gp-ei", budget=8, seed=2, resume=path)
    with pytest.raises(ValueError, match="other options: kernel = 'matern52' there, 'rbf' here"):
        optimist.minimize(optimist.problems.branin, algorithm="gp-ei", budget=8, seed=1, resume=path, kernel="rbf")
    with pytest.raises(ValueError, match="resume: the search space in"):
        optimist.minimize(lambda x: 0.0, [(0, 1), (0, 1)], algorithm="gp-ei", budget=8, seed=1, resume=path)
    with pytest.raises(ValueError, match="resuming 4 evaluations, more than the budget of 3"):
        optimist.minimize(optimist.problems.branin, algorithm="gp-ei", budget=3, seed=1, resume=path)


def test_optimist_bench_takes_traces_written_from_python_as_finished_runs(tmp_path):
    (tmp_path / "sweep.json").write_text(json.dumps(
        {"name": "py", "seeds": 2, "budget": 10, "algorithms": ["gp-ei"], "problems": [{"name": "branin", "noise": 0.1}]}))
    folder = tmp_path / "out" / "traces" / "branin" / "gp-ei"
    folder.mkdir(parents=True)
    for seed in (0, 1):
        optimist.minimize(optimist.problems.get("branin", noise=0.1), algorithm="gp-ei", budget=10, seed=seed,
                          trace=folder / f"seed-{seed}.jsonl")
    before = {p.name: p.read_text() for p in folder.iterdir()}
    done = run_cli("bench", "--config", str(tmp_path / "sweep.json"), "--out", str(tmp_path / "out"), "--no-plot")
    assert done.returncode == 0, done.stderr
    assert "2 already done" in done.stderr
    assert {p.name: p.read_text() for p in folder.iterdir()} == before  # read, not run again
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    # The summary is these two runs': their final cumulative regrets, averaged.
    row = summary["problems"][0]["algorithms"][0]
    assert row["name"] == "gp-ei" and row["runs"] == 2 and row["finished"] == 2
    final = [optimist.read_trace(folder / f"seed-{seed}.jsonl").evaluations[-1]["cum_regret"] for seed in (0, 1)]
    assert row["cum_regret"]["n"] == 2 and row["cum_regret"]["mean"] == pytest.approx(np.mean(final), rel=1e-12)


def test_a_trace_write_that_fails_keeps_its_message_and_the_result(tmp_path):
    # A file-size limit makes the trace's writes fail (EFBIG) as a full disk would (ENOSPC). The
    # error once became "error writing trace file '...'" with no reason and no result: finishing
    # the run wrote the recommend line to the closed file, and that second error replaced the first.
    script = f"""
import resource, signal, optimist
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, resource.RLIM_INFINITY))
space = {{f"x{{i}}": optimist.Float(-5, 5) for i in range(5)}}
try:
    optimist.minimize(lambda p: sum(v * v for v in p.values()), space, algorithm="random", budget=500,
                      trace={str(tmp_path / "t.jsonl")!r})
except RuntimeError as e:
    print("MESSAGE", e)
    print("RESULT", e.optimist_result.nfev)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert "File too large" in out.stdout and "is not in the trace, which keeps evaluations 1 to" in out.stdout, out
    nfev = int(out.stdout.split("RESULT ")[1])
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert 0 < nfev < 500
    assert len(lines) == nfev  # the meta line and nfev - 1 evaluations: the last one is in the result only
