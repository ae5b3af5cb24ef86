"""optimist.Study: a stored study shared by workers in several processes (SQLite here)."""
import math
import multiprocessing
import re
import time
import warnings

import numpy as np
import pytest

import optimist
from optimist import Categorical, Float, Study

SPACE = {"x": Float(-2, 2), "kind": Categorical(["a", "b"])}


def objective(p):
    return (p["x"] - 0.5) ** 2 + (0.0 if p["kind"] == "b" else 1.0)


def test_one_worker_runs_the_trials_of_minimize(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    study = Study.create(url, "one", SPACE, "gp-ei", budget=12, seed=4)
    assert study.optimize(objective) == 12 and study.ask() is None and study.budget_used == 12
    res = optimist.minimize(objective, SPACE, algorithm="gp-ei", budget=12, seed=4)
    trials = study.trials()
    assert [t.params for t in trials] == res.x_iters
    assert all(t.state == "complete" for t in trials) and [t.number for t in trials] == list(range(12))
    assert study.best_value == res.fun and study.best_params == res.x
    df = study.trials_dataframe()
    assert list(df.columns[:4]) == ["number", "x", "kind", "value"] and len(df) == 12


def _worker(url, name, n, ready):
    study = Study.load(url, name, worker=f"worker-{n}")
    ready.wait(60)  # both workers start asking together

    def slow(x):
        time.sleep(0.02)
        return float(np.sum((x - 0.25) ** 2))

    study.optimize(slow)


def test_workers_in_two_processes_share_the_budget(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    Study.create(url, "shared", [(-1, 1), (-1, 1)], "gp-ei", budget=16, seed=0)
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Barrier(2)
    workers = [ctx.Process(target=_worker, args=(url, "shared", n, ready)) for n in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    study = Study.load(url, "shared")
    trials = study.trials()
    assert len(trials) == 16 and all(t.state == "complete" for t in trials)
    assert {t.worker for t in trials} == {"worker-0", "worker-1"}
    assert isinstance(trials[0].x, np.ndarray)  # a bounds list: array points, also for other workers
    assert len({tuple(t.x) for t in trials}) == 16  # each asked with the other's trials pending
    assert study.best_value < 0.05


def test_enqueue_add_and_failures(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    study = Study.create(url, "q", SPACE, "random", budget=6, direction="maximize")
    assert study.add({"x": 0.1, "kind": "a"}, 2.0) == 0
    assert study.add_failed({"x": 0.2, "kind": "b"}, "crashed") == 1
    assert study.enqueue({"x": 1.5, "kind": "b"}) == 2
    first = study.ask()
    assert first.origin == "enqueued" and first.params == {"x": 1.5, "kind": "b"}
    with pytest.raises(TypeError, match="must be a number, got '3.0' of type str"):
        study.tell(first, "3.0")
    with pytest.raises(TypeError, match="must be a number"):
        study.add({"x": 0.3, "kind": "a"}, "1")
    study.tell(first, 3.0)
    with pytest.raises(ValueError, match="trial 2 is complete.*told twice"):
        study.tell(first, 3.0)
    # Queued again only when asked to: a point waiting, running or evaluated is not re-run.
    assert study.enqueue({"x": 1.5, "kind": "b"}, skip_if_exists=True) == 2
    assert study.enqueue({"x": 0.1, "kind": "a"}, skip_if_exists=True) == 0
    with pytest.raises(TypeError, match="skip_if_exists must be True or False"):
        study.enqueue({"x": 0.1, "kind": "a"}, skip_if_exists="yes")
    assert len(study.trials()) == 3

    def fails(p):
        raise RuntimeError("rig offline")

    with pytest.raises(RuntimeError, match="rig offline"):
        study.optimize(fails)
    assert study.trials()[3].state == "failed" and "RuntimeError: rig offline" in study.trials()[3].error
    assert study.optimize(lambda p: math.nan, on_failure="mark-failed") == 2
    assert study.ask() is None and study.best_value == 3.0 and study.direction == "maximize"
    assert [t.state for t in study.trials()] == ["complete", "failed", "complete", "failed", "failed", "failed"]


def test_an_interrupted_evaluation_gives_its_trial_back(tmp_path):
    study = Study.create(f"sqlite:///{tmp_path / 's.db'}", "i", SPACE, "random", budget=4)
    seen = []

    def interrupted_at_the_second(p):
        seen.append(p)
        if len(seen) == 2:
            raise KeyboardInterrupt
        return 1.0

    with pytest.raises(KeyboardInterrupt):
        study.optimize(interrupted_at_the_second)
    second = study.trials()[1]
    assert second.state == "failed" and second.error == "released: KeyboardInterrupt stopped the evaluation"
    assert study.trials()[2].state == "waiting" and study.trials()[2].params == second.params
    assert study.budget_used == 1  # the released trial does not count
    assert study.optimize(lambda p: 2.0) == 3
    assert study.trials()[2].state == "complete" and study.trials()[2].value == 2.0
    assert [t.state for t in study.trials()].count("complete") == 4 and study.ask() is None


def test_a_schedulers_sigterm_tells_the_trial_under_way_then_exits(tmp_path):
    # SIGTERM once killed a Python worker at once: exit 143 with its trial left running until the
    # grace period (60 s) failed it. The CLI worker tells it and exits.
    import os
    import signal
    import subprocess
    import sys
    url = f"sqlite:///{tmp_path / 's.db'}"
    Study.create(url, "t", SPACE, "random", budget=10)
    started = tmp_path / "started"
    worker = f"""
import pathlib, time, optimist
def slow(p):
    pathlib.Path({str(started)!r}).touch()
    time.sleep(1.0)
    return 3.0
optimist.Study.load({url!r}, "t").optimize(slow)
"""
    proc = subprocess.Popen([sys.executable, "-c", worker], env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not started.exists() and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "SIGTERM: stopping after the evaluation under way" in err
    trials = Study.load(url, "t").trials()
    assert [t.state for t in trials] == ["complete"] and trials[0].value == 3.0


def test_a_process_the_objective_forks_keeps_sigterms_default_action(tmp_path):
    # Study.optimize handles SIGTERM; a child the objective forks (a multiprocessing pool's worker,
    # stopped with SIGTERM by terminate()) inherits the handler and must still die of it.
    import os
    import signal

    def forks_and_terminates(p):
        pid = os.fork()
        if pid == 0:
            time.sleep(10)
            os._exit(0)
        time.sleep(0.2)
        os.kill(pid, signal.SIGTERM)
        t0 = time.time()
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
        return time.time() - t0

    study = Study.create(f"sqlite:///{tmp_path / 's.db'}", "f", SPACE, "random", budget=1)
    study.optimize(forks_and_terminates)
    assert study.trials()[0].value < 2.0  # it slept on for 10 s, the SIGTERM swallowed


def test_bad_studies_raise_value_error_naming_what_is_wrong(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    Study.create(url, "taken", SPACE, "random")
    with pytest.raises(ValueError, match="study 'taken' already exists"):
        Study.create(url, "taken", SPACE, "random")
    assert Study.create(url, "taken", SPACE, "random", load_if_exists=True).name == "taken"
    with pytest.raises(ValueError, match="no study named 'absent'.*it holds: 'taken'"):
        Study.load(url, "absent")
    with pytest.raises(ValueError, match="no study database at .*typo.db.*Study.create"):
        Study.load(f"sqlite:///{tmp_path / 'typo.db'}", "taken")
    assert not (tmp_path / "typo.db").exists()  # a mistyped path is not left behind as an empty database
    with pytest.raises(ValueError, match="study 'taken' already exists.*pick another name"):
        Study.create(url, "taken", SPACE, "random")
    with pytest.raises(ValueError, match="gp-ei: unknown option 'kernell'"):
        Study.create(url, "bad", SPACE, "gp-ei", kernell="rbf")
    with pytest.raises(ValueError, match="parameter 'batch': a study stores categorical choices as strings"):
        Study.create(url, "ints", {"batch": Categorical([16, 32])}, "random")
    with pytest.raises(ValueError, match="scheme"):
        Study.create("mysql://nowhere/db", "s", SPACE, "random")
    with pytest.raises(ValueError, match="study name \" \" starts or ends with a blank"):
        Study.create(url, " ", SPACE, "random")
    with pytest.raises(ValueError, match="not a SQLite database"):
        (tmp_path / "notes.txt").write_text("not a database, just notes\n" * 10)
        Study.create(f"sqlite:///{tmp_path / 'notes.txt'}", "s", SPACE, "random")


def test_trials_dataframe_keeps_parameters_named_like_its_columns(tmp_path):
    # a parameter "value" was overwritten by the objective's value, "number" overwrote the trial number
    space = {"value": optimist.Float(0, 1), "state": optimist.Categorical(["a", "b"]), "number": optimist.Int(100, 200)}
    study = Study.create(f"sqlite:///{tmp_path / 'c.db'}", "collide", space, "random", budget=3)
    study.optimize(lambda p: p["value"] + 1000)
    df = study.trials_dataframe()
    assert list(df["number"]) == [0, 1, 2]
    assert (df["value"] == df["params_value"] + 1000).all()
    assert set(df["params_state"]) <= {"a", "b"} and list(df["state"]) == ["complete"] * 3
    assert df["params_number"].between(100, 200).all()
    with pytest.raises(TypeError, match="error must be a string"):
        study.tell_failed(study.ask(), None)


def test_workers_creating_with_load_if_exists_at_once_all_get_the_study(tmp_path):
    # 4 of 24 processes started together once got "study 's' already exists".
    import concurrent.futures as cf

    url = f"sqlite:///{tmp_path / 'race.db'}"

    def start(_):
        return Study.create(url, "s", SPACE, "random", budget=10, load_if_exists=True).name

    with cf.ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(start, range(16))) == ["s"] * 16


def test_load_if_exists_continues_a_study_stored_before_a_default_changed(tmp_path):
    """A study stored by an older version (without an option added since, with another default)
    continues: options left out keep the stored values, named ones must match them."""
    import sqlite3
    url = f"sqlite:///{tmp_path / 's.db'}"
    Study.create(url, "s", SPACE, "gp-pi", budget=5)
    with sqlite3.connect(tmp_path / "s.db") as db:
        db.execute("UPDATE studies SET options = json_set(json_remove(options, '$.raw_samples'), '$.xi', 0.0)")
    assert Study.create(url, "s", SPACE, "gp-pi", load_if_exists=True).options["xi"] == 0.0
    # today's default for the key the study lacks; the stored value for the one it has
    assert Study.create(url, "s", SPACE, "gp-pi", raw_samples=512, xi=0.0, load_if_exists=True).budget == 5
    with pytest.raises(ValueError, match="exists with raw_samples=512, not raw_samples=256"):
        Study.create(url, "s", SPACE, "gp-pi", raw_samples=256, load_if_exists=True)
    with pytest.raises(ValueError, match="exists with xi=0.0, not xi='auto'"):
        Study.create(url, "s", SPACE, "gp-pi", xi="auto", load_if_exists=True)
    with sqlite3.connect(tmp_path / "s.db") as db:
        db.execute("UPDATE studies SET options = json_set(options, '$.retired', 1)")
    with pytest.raises(ValueError, match="its stored options no longer apply: gp-pi: unknown option 'retired'"):
        Study.create(url, "s", SPACE, "gp-pi", xi=0.0, load_if_exists=True)


def test_load_if_exists_refuses_a_different_study_and_bad_arguments_are_value_errors(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    Study.create(url, "s", SPACE, "gp-ei", budget=5)
    with pytest.raises(ValueError, match=r"exists with another space \(there: the study's, here: the one given\): 'x' is only there"):
        Study.create(url, "s", {"z": optimist.Float(0, 1)}, "gp-ei", load_if_exists=True)
    with pytest.raises(ValueError, match="uses algorithm 'gp-ei', not 'random'"):
        Study.create(url, "s", SPACE, "random", load_if_exists=True)
    assert Study.create(url, "s", SPACE, load_if_exists=True).algorithm == "gp-ei"
    # a different budget, seed, noise or option was ignored silently; an unknown option too
    for kwargs, message in [({"budget": 7}, "exists with budget=5, not budget=7"), ({"seed": 3}, "with seed=0, not seed=3"),
                            ({"noisy": True}, "with noisy=False, not noisy=True"), ({"xi": 0.5}, "with xi=0.0, not xi=0.5"),
                            ({"foo": 3}, "has no option 'foo'")]:
        with pytest.raises(ValueError, match=message):
            Study.create(url, "s", SPACE, "gp-ei", load_if_exists=True, **kwargs)
    assert Study.create(url, "s", SPACE, "gp-ei", budget=5, xi=0.0, load_if_exists=True).budget == 5
    for kwargs, message in [({"budget": -1}, "budget must be a positive integer"), ({"seed": 1.5}, "seed must be"),
                            ({"f_star": "a"}, "f_star must be a finite number")]:
        with pytest.raises(ValueError, match=message):
            Study.create(url, "t", SPACE, "random", **kwargs)
    # raw pybind11 TypeErrors before
    with pytest.raises(ValueError, match="storage and name must be strings"):
        Study.load(url, None)
    with pytest.raises(ValueError, match="name must be valid Unicode text"):
        Study.create(url, "a\udcff", SPACE, "random")
    study = Study.load(url, "s")
    with pytest.raises(ValueError, match="n_trials must be a positive integer"):
        study.optimize(lambda p: 0.0, n_trials=-1)
    with pytest.raises(TypeError, match="func must be callable"):
        study.optimize(5)
    with pytest.raises(TypeError, match="expected a trial from this study's ask"):
        study.tell(object(), 1.0)
    assert study.budget_used == 0  # nothing was asked by the refused calls


def test_objective_timeout_fails_a_slow_trial_and_the_study_goes_on(tmp_path):
    study = Study.create(f"sqlite:///{tmp_path / 's.db'}", "t", SPACE, "random", budget=5, seed=1)
    calls = []

    def sometimes_hangs(p):
        calls.append(p)
        if len(calls) == 2:
            time.sleep(30)  # interrupted at the timeout
        if len(calls) == 4:
            while True:  # a busy loop in Python is interrupted too
                pass
        return objective(p)

    started = time.monotonic()
    assert study.optimize(sometimes_hangs, on_failure="mark-failed", objective_timeout=0.3) == 5
    assert time.monotonic() - started < 10
    states = [t.state for t in study.trials()]
    assert states == ["complete", "failed", "complete", "failed", "complete"]
    for t in (study.trials()[1], study.trials()[3]):
        assert t.error.startswith(f"objective did not return within 0.3 s (timeout) at trial {t.number} (x = ")
        assert t.error.endswith("it was interrupted") and not t.stale  # a failure: it ran
    assert study.budget_used == 5
    with pytest.raises(optimist.ObjectiveTimeout, match="within 0.2 s"):
        Study.create(f"sqlite:///{tmp_path / 's2.db'}", "t", SPACE, "random", budget=3).optimize(
            lambda p: time.sleep(5), objective_timeout=0.2)


def test_optimize_with_a_timeout_stops_asking_after_it(tmp_path):
    # Optuna's study.optimize(timeout=...) on a study without a budget: it ran until stopped.
    study = Study.create(f"sqlite:///{tmp_path / 's.db'}", "t", SPACE, "random", seed=1)
    started = time.monotonic()
    done = study.optimize(lambda p: time.sleep(0.1) or objective(p), timeout=0.6)
    elapsed = time.monotonic() - started
    assert 1 <= done <= 7 and 0.6 <= elapsed < 0.6 + 0.1 + 2.0  # the trial under way is finished
    assert [t.state for t in study.trials()] == ["complete"] * done
    assert study.optimize(objective, n_trials=2, timeout=60) == 2  # the first limit reached ends it
    for bad in (0, -1, float("nan"), float("inf"), True, "10"):
        with pytest.raises(ValueError, match=f"timeout must be a positive number of seconds or None, got {re.escape(repr(bad))}"):
            study.optimize(objective, timeout=bad)


def test_objective_timeout_of_study_optimize_is_checked(tmp_path):
    import threading
    study = Study.create(f"sqlite:///{tmp_path / 's.db'}", "c", SPACE, "random", budget=3)
    for bad in (0, -1, float("nan"), float("inf"), True, "10"):
        with pytest.raises(ValueError, match="objective_timeout"):
            study.optimize(objective, objective_timeout=bad)
    errors = []
    thread = threading.Thread(target=lambda: errors.append(
        pytest.raises(ValueError, study.optimize, objective, objective_timeout=1.0)))
    thread.start()
    thread.join()
    assert "Study.optimize is called in the thread" in str(errors[0].value)
    assert "run each worker in a process of its own" in str(errors[0].value)
    assert study.budget_used == 0


def test_optimize_warns_when_every_completed_trial_has_the_same_value(tmp_path):
    # As minimize's res.notes and `optimist study show`: an objective that ignores its parameters
    # looks exactly so. Fewer than five values say nothing; a value that differs ends the note.
    study = Study.create(f"sqlite:///{tmp_path / 's.db'}", "flat", SPACE, "random", budget=20, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert study.optimize(lambda p: 0.5, n_trials=4) == 4
    with pytest.warns(UserWarning, match=r"optimist: study 'flat': every one of the 6 values was 0\.5: the points tried "
                                         r"all fell on a plateau"):
        assert study.optimize(lambda p: 0.5, n_trials=2) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        study.optimize(lambda p: p["x"], n_trials=1)
        study.optimize(lambda p: 0.5, n_trials=1)
