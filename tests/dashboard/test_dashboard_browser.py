#!/usr/bin/python3
"""`optimist dashboard` in a real browser (headless Chromium through Selenium), run by ctest:

  test_dashboard_browser.py --optimist BUILD/optimist --out BUILD/dashboard-test live|large|study

live:  a trace being written (a real run's lines appended as the test goes): rows of the trials
       table, the best value, new trials appearing without a reload, every plot drawn, log axes,
       names that are HTML shown as text, sorting and filtering; shown as stopped while no process
       holds its lock, running while one does.
large: a 10,000-trial run: the page load time and the server time of an incremental update,
       written to OUT/dashboard-perf.json (reported, not asserted: speed is measured, not tested).
study: a SQLite study that two `optimist worker` processes fill while the page is open: running
       trials with their heartbeat, one timeline lane per worker, new trials without a reload,
       the final count and best value equal to the study's own export, a study name that is HTML;
       trials asked by hand (`study ask --lease`) with their lease end instead of a heartbeat.
Screenshots go to OUT/.

This file parses the command line and holds what the cases share (helpers, the Case base class);
the cases are in browser_cases_trace.py (live), browser_cases_large.py (large) and
browser_cases_study.py (study), next to it."""
import argparse
import os
import shutil
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree from the modules imported below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_args import ARGS  # noqa: E402  (filled in place by the parser below; the cases share it)

HERE = os.path.dirname(os.path.abspath(__file__))
CHARTS = ["chart-history", "chart-parallel", "chart-slice", "chart-timeline", "chart-diagnostics"]


def run_optimist(*args):
    subprocess.run([ARGS.optimist, "run", "-q", *args], check=True, stdout=subprocess.DEVNULL)


def run_fixture(out, space, algorithm, budget, *seed):
    """A trace of the fixture objective (objective.py: some points fail) on `space`, minimized."""
    run_optimist("--objective-command", f"/usr/bin/python3 {HERE}/objective.py", "--space", f"{HERE}/{space}",
                 "--direction", "minimize", "--algorithm", algorithm, "--budget", str(budget), *seed,
                 "--on-failure", "mark-failed", "--out", out)


def hold_lock(path):
    """A process holding a lock on the trace, as its writer does (a classic POSIX lock, which the
    writer's kind conflicts with and the server sees); it holds it until killed."""
    holder = subprocess.Popen(["/usr/bin/python3", "-c", "import fcntl, sys; f = open(sys.argv[1], 'a'); "
                               "fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB); print('locked', flush=True); "
                               "sys.stdin.read()", path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "locked\n"
    return holder


def trace_lines(path):
    with open(path) as f:
        return f.read().splitlines(keepends=True)


def best(evaluations, direction="minimize"):
    values = [e["y"] for e in evaluations if e["status"] == "ok"]
    return min(values) if direction == "minimize" else max(values)


class Case(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.join(ARGS.out, self.id().split(".")[-1])
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.dashboard = None
        self.browser = None

    def tearDown(self):
        if self.browser:
            self.browser.quit()
        if self.dashboard:
            self.assertEqual(self.dashboard.stop(), 0, "optimist dashboard ends with status 0 on SIGTERM")

    def append(self, path, text):
        with open(path, "a") as f:
            f.write(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--optimist", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("case", choices=["live", "large", "study"])
    parser.parse_args(namespace=ARGS)
    os.makedirs(ARGS.out, exist_ok=True)
    # Imported here, not at the top: the case modules import this file's helpers and Case.
    from browser_cases_large import LargeStudy
    from browser_cases_study import LiveStudy
    from browser_cases_trace import LiveTrace
    case = {"live": LiveTrace, "large": LargeStudy, "study": LiveStudy}[ARGS.case]
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
