"""Ctrl-C and SIGTERM reaching a run with workers in other processes (process pools, a local Dask
cluster), as a terminal (the whole process group) or a scheduler (the driver) sends them."""
import os
import signal
import subprocess
import sys
import time

import pytest

import optimist

RUN = """
import concurrent.futures as cf, os, sys, time, optimist
def train(p):
    open(os.path.join(sys.argv[1], f"started-{os.getpid()}-{time.time_ns()}"), "w").close()
    time.sleep(float(sys.argv[3]))
    open(os.path.join(sys.argv[1], f"ended-{os.getpid()}-{time.time_ns()}"), "w").close()
    return (p["x"] - 0.5) ** 2
def run(executor):
    t0 = time.monotonic()
    try:
        res = optimist.minimize(train, {"x": optimist.Float(-2, 2)}, algorithm="random", budget=20,
                                executor=executor, n_parallel=2, trace=os.path.join(sys.argv[1], "t.jsonl"))
        print("RESULT", res.status, res.nfev, flush=True)
    except BaseException as e:
        r = getattr(e, "optimist_result", None)
        print("RAISED", type(e).__name__, getattr(e, "code", ""), None if r is None else r.nfev,
              f"{time.monotonic() - t0:.2f}", flush=True)
        raise
if __name__ == "__main__":
    kind = sys.argv[2]
    if kind == "dask":
        import distributed
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            run(client)
    else:
        with cf.ProcessPoolExecutor(max_workers=2) as pool:
            list(pool.map(abs, [1, 2]))  # workers started before the run
            print("WORKERS", *[p.pid for p in pool._processes.values()], flush=True)
            run(pool)
"""


def _start(tmp_path, kind, seconds):
    (tmp_path / "run.py").write_text(RUN)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(optimist.__file__)))
    # Output to files, not pipes: workers orphaned by a killed driver would hold a pipe open.
    with open(tmp_path / "out.txt", "w") as out, open(tmp_path / "err.txt", "w") as err:
        child = subprocess.Popen([sys.executable, str(tmp_path / "run.py"), str(tmp_path), kind, str(seconds)],
                                 env=env, stdout=out, stderr=err, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("started-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    return child


def _finish(child, tmp_path, timeout):
    """Waits for the child; returns (stdout, stderr)."""
    child.wait(timeout=timeout)
    return (tmp_path / "out.txt").read_text(), (tmp_path / "err.txt").read_text()


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sigterm_stops_minimize_after_the_evaluations_under_way_and_exits_143(tmp_path):
    # A scheduler's SIGTERM to the driver used to kill it at once: the pool's workers were orphaned
    # and the evaluations in flight lost. Now it acts as Ctrl-C, then raises SystemExit(143).
    child = _start(tmp_path, "pool", 1.0)
    child.send_signal(signal.SIGTERM)
    out, err = _finish(child, tmp_path, 60)
    workers = [int(p) for p in out.split("WORKERS ")[1].split("\n")[0].split()]
    time.sleep(0.2)
    orphans = [pid for pid in workers if _alive(pid)]
    for pid in orphans:  # (the old code left them)
        os.kill(pid, signal.SIGKILL)
    assert child.returncode == 143, err
    assert "SIGTERM: stopping after the evaluation under way" in err
    assert "RAISED SystemExit 143 2 " in out  # the two evaluations under way, kept
    t = optimist.read_trace(tmp_path / "t.jsonl")
    assert t.complete and len(t) == 2 and t.recommend["stop_reason"] == "cancelled"
    assert not orphans


@pytest.mark.parametrize("target", ["group", "driver"])
def test_a_second_ctrl_c_aborts_the_workers_evaluations_at_once(tmp_path, target):
    # The second Ctrl-C must still abort quickly: a terminal's reaches the workers, which are shielded
    # from the first one only; one sent to the driver alone (kill -INT, Jupyter's interrupt) used to
    # leave the workers sleeping on, and the pool's shutdown at the end of the `with` waited for them.
    child = _start(tmp_path, "pool", 30.0)
    for _ in range(2):
        if target == "group":
            os.killpg(child.pid, signal.SIGINT)
        else:
            child.send_signal(signal.SIGINT)
        time.sleep(0.3)
    t0 = time.monotonic()
    out, err = _finish(child, tmp_path, 60)
    assert time.monotonic() - t0 < 10, err
    assert child.returncode != 0 and "RAISED KeyboardInterrupt  0 " in out, err
    assert not list(tmp_path.glob("ended-*"))  # aborted, not run to the end
    t = optimist.read_trace(tmp_path / "t.jsonl")
    assert t.complete and len(t) == 0


def test_a_terminal_ctrl_c_with_a_local_dask_cluster_of_processes_returns_the_evaluations(tmp_path):
    # The Ctrl-C reached the Dask worker processes too and stopped them: their evaluations never came
    # back and the driver waited for ever.
    pytest.importorskip("distributed")
    child = _start(tmp_path, "dask", 1.0)
    os.killpg(child.pid, signal.SIGINT)
    try:
        out, err = _finish(child, tmp_path, 30)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        pytest.fail("the run hung after a Ctrl-C")
    assert child.returncode == 0, err
    assert "RESULT cancelled 2" in out, err
