"""optimist.Study for experiments run by hand: asked with a lease (no heartbeat needed), told by
number from a fresh Study.load (a notebook restarted between ask and tell)."""
import datetime
import math
import multiprocessing
import time
import warnings

import numpy as np
import pytest

from optimist import Categorical, Float, Int, Study
from conftest import run_cli

SPACE = {"temperature": Float(300, 450), "time_h": Int(1, 24), "solvent": Categorical(["water", "ethanol"])}


def test_tell_by_number_from_a_fresh_load(tmp_path):
    url = f"sqlite:///{tmp_path / 'lab.db'}"
    study = Study.create(url, "lab", SPACE, "random", budget=10, direction="maximize", worker="ann")
    plate = [study.ask(lease=math.inf) for _ in range(3)]
    assert [t.number for t in plate] == [0, 1, 2]
    assert all(t.lease_until == math.inf for t in plate)
    assert len({tuple(t.params.items()) for t in plate}) == 3
    del study  # the notebook restarts
    later = Study.load(url, "lab", worker="bob")
    later.tell(plate[0].number, 0.8)
    later.tell(2, 1.25)
    later.tell_failed(1, "crucible cracked")
    trials = later.trials()
    assert [t.state for t in trials] == ["complete", "failed", "complete"]
    assert trials[0].value == 0.8 and trials[2].value == 1.25 and trials[1].error == "crucible cracked"
    assert trials[0].worker == "ann"  # who asked (ran) it stays recorded
    assert later.best_value == 1.25 and later.best_params == plate[2].params


def test_bad_numbers_and_leases_are_refused_by_name(tmp_path):
    url = f"sqlite:///{tmp_path / 'lab.db'}"
    study = Study.create(url, "lab", SPACE, "random", budget=10)
    t = study.ask(lease=datetime.timedelta(hours=1))
    assert t.lease_until is not None and t.lease_until > time.time() + 3500
    with pytest.raises(ValueError, match="has no trial 7 \\(its trials are numbered 0 to 0\\)"):
        study.tell(7, 1.0)
    with pytest.raises(ValueError, match="trial 0: value nan is not finite"):
        study.tell(0, float("nan"))
    with pytest.raises(ValueError, match="a trial number is >= 0, got -1"):
        study.tell(-1, 1.0)
    with pytest.raises(TypeError, match="expected a trial from this study's ask\\(\\) or a trial number, got True"):
        study.tell(True, 1.0)
    for bad in (0, -5, float("nan"), "1d", True):
        with pytest.raises(ValueError, match="lease must be a duration > 0"):
            study.ask(lease=bad)
    study.tell(0, 2.0)
    with pytest.raises(ValueError, match="trial 0 is complete \\(value 2, worker .*\\): it was told already"):
        Study.load(url, "lab").tell(0, 3.0)
    assert study.enqueue({"temperature": 350.0, "time_h": 3, "solvent": "water"}) == 1
    with pytest.raises(ValueError, match="trial 1 is waiting"):
        study.tell_failed(1, "never ran")  # noqa: the message: "was given back: a failure told now changes nothing"
    assert [t.state for t in study.trials()] == ["complete", "waiting"]
    assert study.trials()[0].lease_until is not None


def _in_a_process_that_ends(target, url):
    """Runs target(url, ready) in a forked process that then ends, its heartbeat with it."""
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    child = ctx.Process(target=target, args=(url, ready))
    child.start()
    child.join(60)
    assert child.exitcode == 0 and ready.is_set()


def _ask_and_exit(url, ready):
    """A notebook that asks two trials, one leased, and dies (its heartbeat stops with it)."""
    study = Study.load(url, "lab", worker="notebook")
    study.ask(lease=math.inf)
    study.ask()
    ready.set()


def test_a_leased_trial_outlives_the_grace_period_an_unleased_one_does_not(tmp_path):
    url = f"sqlite:///{tmp_path / 'lab.db'}"
    space = tmp_path / "space.toml"
    space.write_text('[[parameters]]\nname = "x"\ntype = "continuous"\nlower = 0\nupper = 1\n')
    r = run_cli("study", "create", "--storage", url, "--name", "lab", "--space", str(space), "--direction", "minimize",
                "--algorithm", "random", "--budget", "10", "--grace", "0.5", "--heartbeat", "0.2")
    assert r.returncode == 0, r.stderr
    _in_a_process_that_ends(_ask_and_exit, url)
    time.sleep(1.2)  # past the grace period: nobody heartbeats either trial now
    study = Study.load(url, "lab", worker="next")
    again = study.ask()
    assert again.origin == "requeued"  # the unleased trial's point, handed out again
    trials = study.trials()
    assert trials[0].state == "running" and trials[0].lease_until == math.inf
    assert trials[1].state == "failed" and "stale" in trials[1].error
    assert again.x == trials[1].x
    study.tell(0, 0.5)  # the leased trial, told days later
    assert study.trials()[0].value == 0.5


def test_set_budget_gives_a_finished_study_more_trials(tmp_path):
    url = f"sqlite:///{tmp_path / 'lab.db'}"
    study = Study.create(url, "lab", SPACE, "gp-ei", budget=3, worker="ann")
    for _ in range(3):
        t = study.ask(lease=math.inf)
        study.tell(t, t.params["temperature"] / 100)
    assert study.ask() is None  # the budget is used
    with pytest.raises(ValueError, match="a budget of 2 is below the 3 trial\\(s\\) it has counted"):
        study.set_budget(2)
    for bad in (0, -1, 2.5, True, "5"):
        with pytest.raises(ValueError, match="budget must be a positive integer or None"):
            study.set_budget(bad)
    study.set_budget(5)
    assert Study.load(url, "lab").budget == 5
    asked = [study.ask(lease=math.inf) for _ in range(2)]
    assert all(t is not None for t in asked) and study.ask() is None
    study.set_budget(None)
    assert Study.load(url, "lab").budget is None and study.ask() is not None


def test_adding_the_same_history_twice_is_refused(tmp_path):
    # A notebook cell that adds past experiments, run twice, would count each one twice: refused,
    # naming the trial, as `optimist study add` refuses it; allow_duplicates=True adds it again.
    study = Study.create(f"sqlite:///{tmp_path / 'lab.db'}", "lab", SPACE, "random", budget=10, direction="maximize")
    past = [({"temperature": 320.5, "time_h": 2, "solvent": "water"}, 0.41),
            ({"temperature": 444.25, "time_h": 24, "solvent": "ethanol"}, 0.93)]
    assert [study.add(p, v) for p, v in past] == [0, 1]
    with pytest.raises(ValueError, match=r"trial 1 was added with the same parameters and value 0\.93; added twice\? "
                                         r"\(allow_duplicates=True adds it again\)"):
        study.add(*past[1])
    assert len(study.trials()) == 2
    assert study.add(past[0][0], 0.45) == 2  # the same point measured again: another value
    assert study.add(*past[0], allow_duplicates=True) == 3
    assert study.add_failed(past[0][0], "spilled") == 4 and study.add_failed(past[0][0], "spilled") == 5  # failures repeat
    with pytest.raises(TypeError, match="allow_duplicates must be True or False"):
        study.add(*past[0], allow_duplicates="yes")
    assert len(study.trials()) == 6


def test_several_evaluations_are_added_at_once_all_or_none(tmp_path):
    # A table of past experiments: add(points, values) as Optimizer.tell(points, values) takes it
    # (it read the list of points as one point); one bad value or a repeat adds none.
    pd = pytest.importorskip("pandas")
    study = Study.create(f"sqlite:///{tmp_path / 'lab.db'}", "lab", SPACE, "random", budget=10, direction="maximize")
    points = [{"temperature": 320.5, "time_h": 2, "solvent": "water"},
              {"temperature": 444.25, "time_h": 24, "solvent": "ethanol"}]
    assert study.add(points, [0.41, 0.93]) == [0, 1]
    with pytest.raises(ValueError, match="evaluation 1: .*value nan is not finite"):
        study.add([{"temperature": 330.0, "time_h": 4, "solvent": "water"}] * 2, [0.5, float("nan")])
    with pytest.raises(ValueError, match=r"evaluation 1: trial 0 was added with the same parameters and value 0\.41"):
        study.add([{"temperature": 330.0, "time_h": 4, "solvent": "water"}, points[0]], [0.5, 0.41])
    with pytest.raises(ValueError, match="2 points but 1 values"):
        study.add(points, [0.5])
    assert len(study.trials()) == 2
    frame = pd.DataFrame([{"temperature": 350.0, "time_h": 6, "solvent": "water"},
                          {"temperature": 360.0, "time_h": 8, "solvent": "ethanol"}])
    assert study.add(frame, np.array([0.6, 0.7])) == [2, 3]
    assert [t.value for t in study.trials()] == [0.41, 0.93, 0.6, 0.7]
    assert study.trials()[3].params["solvent"] == "ethanol"


def test_history_past_the_budget_is_kept_with_a_warning_that_says_how_to_ask_more(tmp_path):
    study = Study.create(f"sqlite:///{tmp_path / 'lab.db'}", "lab", SPACE, "random", budget=3, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # within the budget: no warning
        study.add({"temperature": 320.5, "time_h": 2, "solvent": "water"}, 0.41)
        study.add({"temperature": 330.0, "time_h": 4, "solvent": "water"}, 0.45)
    with pytest.warns(UserWarning, match=r"study 'lab' now counts 3 trials: its budget of 3 is used, so ask\(\) returns "
                                         r"None until it is raised, e\.g\. study\.set_budget\(6\)"):
        study.add({"temperature": 335.0, "time_h": 4, "solvent": "water"}, 0.47)  # uses it up, as the CLI says
    with pytest.warns(UserWarning, match=r"now counts 4 trials: its budget of 3 is used"):
        study.add_failed({"temperature": 340.0, "time_h": 8, "solvent": "water"}, "spilled")
    assert len(study.trials()) == 4 and study.ask() is None
    study.set_budget(6)
    assert study.ask() is not None


def _branin(x):
    a, b = x["a"], x["b"]
    return (b - 5.1 / (4 * math.pi ** 2) * a * a + 5 / math.pi * a - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(a) + 10


def test_a_trial_that_will_not_be_run_is_given_back(tmp_path):
    # A sample cancelled before it was measured: release() instead of tell_failed(). Not counted,
    # its point queued again (or not), and the algorithm acts as if it had never been asked: the
    # evaluations are those of a study where it was not (gp-ei, told a failure, would put the worst
    # value so far at the point it had just chosen).
    url = f"sqlite:///{tmp_path / 'lab.db'}"
    space = {"a": Float(-5, 10), "b": Float(0, 15)}
    plain = Study.create(url, "plain", space, "gp-ei", budget=7, seed=4)
    plain.optimize(_branin)
    reference = [t.params for t in plain.trials()]
    for requeue in (True, False):
        name = f"lab-{requeue}"
        lab = Study.create(url, name, space, "gp-ei", budget=7, seed=4, worker="ann")
        evaluated = []
        for _ in range(3):
            t = lab.ask(lease=math.inf)
            evaluated.append(t.params)
            lab.tell(t, _branin(t.params))
        cancelled = lab.ask(lease=math.inf)
        assert lab.budget_used == 4
        office = Study.load(url, name, worker="bob")  # another process, by number
        office.release(cancelled.number, "sample cancelled", requeue=requeue)
        record = office.trials()[cancelled.number]
        assert record.state == "failed" and record.stale and record.given_back and record.error == "sample cancelled"
        assert record.worker == "ann"
        assert office.budget_used == 3
        assert [t.state for t in office.trials()][4:] == (["waiting"] if requeue else [])
        t = office.ask()
        assert t.origin == ("requeued" if requeue else "asked")
        assert t.params == (cancelled.params if requeue else reference[3])
        evaluated.append(t.params)
        office.tell(t, _branin(t.params))
        office.optimize(lambda x: (evaluated.append(x), _branin(x))[1])
        assert evaluated == reference
        assert office.recommend() == plain.recommend()


def test_giving_back_names_what_is_wrong(tmp_path):
    url = f"sqlite:///{tmp_path / 'lab.db'}"
    study = Study.create(url, "lab", SPACE, "random", budget=3, worker="ann")
    plate = [study.ask(lease=math.inf) for _ in range(3)]
    assert study.ask() is None  # the budget is used
    study.tell(plate[0], 0.8)
    with pytest.raises(ValueError, match=r"trial 0 is complete \(value 0\.8, worker 'ann'\): it was told already, so it "
                                         r"cannot be given back"):
        study.release(0)
    with pytest.raises(ValueError, match="has no trial 7 \\(its trials are numbered 0 to 2\\)"):
        study.release(7)
    with pytest.raises(ValueError, match="a trial number is >= 0, got -1"):
        study.release(-1)
    with pytest.raises(TypeError, match="expected a trial from this study's ask\\(\\) or a trial number, got True"):
        study.release(True)
    with pytest.raises(TypeError, match="why must be a string"):
        study.release(1, why=3)
    with pytest.raises(TypeError, match="requeue must be True or False, got 'no'"):
        study.release(1, requeue="no")
    study.release(plate[1], requeue=False)  # the asker's own StudyTrial
    assert study.trials()[1].error == "given back" and len(study.trials()) == 3
    with pytest.raises(ValueError, match="trial 1 was given back already: its point was not queued again"):
        Study.load(url, "lab").release(1)
    assert study.ask(lease=math.inf) is not None  # its place in the budget is free again
    with pytest.raises(ValueError, match="trial 1 was given back: a failure told now changes nothing"):
        study.tell_failed(1, "never ran")
    assert not study.trials()[0].given_back and not study.trials()[0].stale


def _ask_one_and_exit(url, ready):
    """A worker that asks a trial and dies: its heartbeat stops with it."""
    Study.load(url, "hb", worker="dead").ask()
    ready.set()


def test_heartbeat_and_grace_are_set_from_python(tmp_path):
    """Study.create takes the CLI's --heartbeat and --grace (before, only the CLI could set them,
    and a Python-created study always waited 60 s for a dead worker's trial)."""
    url = f"sqlite:///{tmp_path / 'hb.db'}"
    study = Study.create(url, "hb", {"x": Float(0, 1)}, "random", budget=5, heartbeat=0.2, grace=0.5)
    assert (study.heartbeat, study.grace) == (0.2, 0.5)
    assert (Study.load(url, "hb").heartbeat, Study.load(url, "hb").grace) == (0.2, 0.5)
    _in_a_process_that_ends(_ask_one_and_exit, url)
    time.sleep(1.0)  # past the 0.5 s grace period
    again = Study.load(url, "hb", worker="next").ask()
    assert again.origin == "requeued"  # the dead worker's point, handed out again
    trials = study.trials()
    assert trials[0].state == "failed" and "stale" in trials[0].error and trials[0].x == again.x
    # load_if_exists: other settings are refused, the defaults mean "as stored".
    with pytest.raises(ValueError, match="exists with grace=0.5, not grace=2.0"):
        Study.create(url, "hb", {"x": Float(0, 1)}, "random", budget=5, heartbeat=0.2, grace=2.0, load_if_exists=True)
    assert Study.create(url, "hb", {"x": Float(0, 1)}, "random", load_if_exists=True).grace == 0.5
    assert (Study.create(url, "default", {"x": Float(0, 1)}, "random").heartbeat, Study.load(url, "default").grace) == (10, 60)


def test_bad_heartbeat_and_grace_are_refused_and_a_tight_one_warned_about(tmp_path):
    url = f"sqlite:///{tmp_path / 'hb.db'}"
    space = {"x": Float(0, 1)}
    for kwargs, says in (({"heartbeat": 0}, "heartbeat must be a finite number of seconds > 0 or None, got 0"),
                         ({"grace": float("nan")}, "grace must be a finite number of seconds > 0 or None, got nan"),
                         ({"heartbeat": "1"}, "heartbeat must be a finite number of seconds > 0 or None, got '1'"),
                         ({"heartbeat": 5, "grace": 5}, "must be below the grace period")):
        with pytest.raises(ValueError, match=says):
            Study.create(url, "bad", space, "random", **kwargs)
    with pytest.warns(UserWarning, match="a heartbeat every 1.8 s with a grace period of 2 s leaves 0.2 s"):
        Study.create(url, "tight", space, "random", heartbeat=1.8, grace=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Study.create(url, "fine", space, "random", heartbeat=1, grace=2)
