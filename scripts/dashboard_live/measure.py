#!/usr/bin/python3
"""The dashboard page's cost while a big study grows (docs/dashboard.md, "Live updates").

Builds, in a temporary folder, a SQLite database with one study: rastrigin in 30 dimensions,
20,000 trials of random search (`optimist worker`, a few seconds). Serves it with
`optimist dashboard`, opens the study in headless Chromium (1400x1000: the history and parallel
coordinates plots on screen), and while feeder.py adds ~3 trials a second (each running for
0.3 s, every 10th failed) samples the page's main-thread busy time (Chromium's TaskDuration: all
scripts, style, layout and painting on the page's main thread) and its JS heap, over WINDOW
seconds. Prints the busy % every 15 s and at the end, and the heap's min and max (sampled every
2.5 s). Stops the server, the feeder and Chromium on exit, Ctrl-C or error, and removes the folder.

From the repository root, with the build present (about 1.5 minutes with the default window):

  /usr/bin/python3 scripts/dashboard_live/measure.py [WINDOW-SECONDS, default 60]

$OPTIMIST names the binary (default build/optimist); the Python package is taken from the
`python` folder next to it. /usr/bin/python3 is Debian's, which has Selenium (the browser helpers
are tests/dashboard/browser.py's). Figures depend on the machine and on its load.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ left in tests/dashboard
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "dashboard"))
from browser import Browser, Dashboard, describe_load  # noqa: E402

WINDOW = float(sys.argv[1]) if len(sys.argv) > 1 else 60
OPTIMIST = os.environ.get("OPTIMIST", "build/optimist")
PYTHONPATH = os.path.join(os.path.dirname(os.path.abspath(OPTIMIST)), "python")
if not os.access(OPTIMIST, os.X_OK):
    sys.exit(f"{OPTIMIST} not found: run from the repository root after building (make build), or set $OPTIMIST")
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a `kill` cleans up as Ctrl-C does


def run(*args):
    done = subprocess.run([OPTIMIST, *args], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{OPTIMIST} {' '.join(args)}: exit status {done.returncode}\n{done.stderr}")


def cleanup(step):  # one failing step (a Chromium already gone) must not skip the others
    try:
        step()
    except Exception as e:
        print(f"cleanup: {type(e).__name__}: {str(e).strip().splitlines()[0]}", file=sys.stderr)


folder = tempfile.mkdtemp(prefix="optimist-dashboard-live-")
url = f"sqlite:///{folder}/live.db"
dashboard = browser = feeder = None
exitcode = 0
try:
    t = time.time()
    run("study", "create", "--storage", url, "--name", "big30", "--problem", "rastrigin", "--dim", "30",
        "--algorithm", "random", "--budget", "100000")
    run("worker", "--storage", url, "--name", "big30", "-q", "--budget", "20000")
    print(f"database: 20,000 trials of 30 parameters in {time.time() - t:.0f} s", flush=True)

    dashboard = Dashboard(OPTIMIST, ["--storage", url])
    browser = Browser(1400, 1000)
    print("page load:", describe_load(browser.measure_load(dashboard.url + "#study=big30")), flush=True)
    driver = browser.driver
    driver.execute_cdp_cmd("Performance.enable", {})

    def metrics():
        m = {x["name"]: x["value"] for x in driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]}
        return m["TaskDuration"], m["ScriptDuration"], m["JSHeapUsedSize"] / 1e6

    def count():  # the trials the page shows ("20,000 / 100,000 ...")
        return int(browser.js("return document.querySelector('#trial-count').textContent").split()[0].replace(",", ""))

    time.sleep(5)  # let the load's last drawings end
    feeder = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "feeder.py"), url, "big30", "0.3"],
                              env=dict(os.environ, PYTHONPATH=PYTHONPATH))
    print(f"feeding ~3 trials/s for {WINDOW:.0f} s", flush=True)
    shown0 = count()
    task0, script0, heap = metrics()
    heaps = [heap]
    t0, sample, report = time.time(), 2.5, 15
    while (elapsed := time.time() - t0) < WINDOW:
        time.sleep(max(0, min(sample, WINDOW) - elapsed))
        sample += 2.5
        task, script, heap = metrics()
        heaps.append(heap)
        elapsed = time.time() - t0
        if elapsed >= min(report, WINDOW):
            report += 15
            print(f"  t={elapsed:3.0f} s  main thread busy {100 * (task - task0) / elapsed:5.1f} %  "
                  f"(scripts {100 * (script - script0) / elapsed:4.1f} %)  JS heap {heap:6.1f} MB", flush=True)
    if feeder.poll() is not None:
        raise SystemExit(f"the feeder stopped early (exit status {feeder.returncode})")
    received = count() - shown0
    print(f"the page received {received} new trials ({received / elapsed:.1f}/s)")
    print(f"RESULT over {elapsed:.0f} s: main thread busy {100 * (task - task0) / elapsed:.1f} %, "
          f"JS heap min {min(heaps):.0f} MB, max {max(heaps):.0f} MB ({len(heaps)} samples)")
    if browser.errors():
        print("browser errors:", browser.errors())
except KeyboardInterrupt:
    print("interrupted: stopping", file=sys.stderr)
    exitcode = 130
finally:
    if feeder:
        cleanup(lambda: (feeder.terminate(), feeder.wait(timeout=10)))
    if browser:
        cleanup(browser.quit)
    if dashboard:
        cleanup(dashboard.stop)
    shutil.rmtree(folder, ignore_errors=True)
sys.exit(exitcode)
