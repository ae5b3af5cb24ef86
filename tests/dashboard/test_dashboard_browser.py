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
Screenshots go to OUT/."""
import argparse
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, Dashboard, describe_load  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = None
CHARTS = ["chart-history", "chart-parallel", "chart-slice", "chart-timeline", "chart-diagnostics"]


def run_optimist(*args):
    subprocess.run([ARGS.optimist, "run", "-q", *args], check=True, stdout=subprocess.DEVNULL)


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


class LiveTrace(Case):
    def test_live_trace(self):
        full = os.path.join(self.dir, "full.jsonl")
        run_optimist("--objective-command", f"/usr/bin/python3 {HERE}/objective.py", "--space", f"{HERE}/space.json",
                     "--direction", "minimize", "--algorithm", "gp-ei", "--budget", "40", "--seed", "1",
                     "--on-failure", "mark-failed", "--out", full)
        lines = trace_lines(full)
        evals = [json.loads(line) for line in lines[1:-1]]
        self.assertEqual(len(evals), 40)
        self.assertTrue(any(e["status"] == "failed" for e in evals[:25]), "the fixture has a failed trial early on")

        live = os.path.join(self.dir, "live.jsonl")
        with open(live, "w") as f:
            f.writelines(lines[:26])  # meta and 25 evaluations: the run is under way
        self.dashboard = Dashboard(ARGS.optimist, [live, "--poll-ms", "250"])
        self.browser = b = Browser(1400, 1000)
        b.driver.get(self.dashboard.url)
        b.wait("the study to load", "return document.body.dataset.state === 'ready'")
        # Copied by hand, locked by no process: a run whose writer is gone, and how to continue it.
        b.wait("the run shown as stopped", "return document.querySelector('#run-state').textContent === 'stopped'")
        note = b.js("return document.querySelector('#run-stopped').textContent")
        self.assertIn("Continue it with optimist run --resume ", note)
        self.assertIn(live, note)
        writer = hold_lock(live)
        self.addCleanup(lambda: (writer.kill(), writer.wait()))
        # Written to a few seconds ago: live, as the study list would say (idle after 30 s).
        b.wait("the run shown as live", "return /^(live|idle )/.test(document.querySelector('#run-state').textContent) "
               "&& document.querySelector('#run-stopped').hidden")

        self.assertEqual(b.rows(), 25)
        self.assertEqual(b.js("return document.querySelector('#trial-count').dataset.count"), "25")
        self.assert_best(best(evals[:25]))
        failed = sum(e["status"] == "failed" for e in evals[:25])
        self.assertEqual(b.js("return document.querySelectorAll('#trials tbody tr.state-failed').length"), failed)
        complete = 25 - failed
        for chart in CHARTS:
            b.drawn(chart, complete)
            self.assertGreater(b.colored_pixels(chart), 100, f"{chart} drew data")

        # A log-scaled parameter gets a log axis; a categorical one its choices.
        axes = b.echarts_option("chart-parallel")["parallelAxis"]
        self.assertEqual([a["type"] for a in axes], ["log", "value", "category", "value", "value"])
        self.assertEqual(axes[2]["data"], ["relu", "tanh", "<b>gelu</b>"])
        self.assertEqual(b.echarts_option("chart-slice")["xAxis"][0]["type"], "log")
        # A parameter named with HTML is shown as text, never run.
        self.assertIsNone(b.js("return document.body.dataset.injected"))
        self.assertEqual(b.js("return document.querySelectorAll('img, b').length"), 0)
        # ...also in a chart's tooltip (drawn on the canvas, never as HTML).
        b.js("document.getElementById('chart-slice').scrollIntoView({block: 'center'});"
             "echarts.getInstanceByDom(document.getElementById('chart-slice'))"
             ".dispatchAction({type: 'showTip', seriesIndex: 3, dataIndex: 0})")
        b.wait("a frame", "return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        self.assertIsNone(b.js("return document.body.dataset.injected"))
        self.assertEqual(b.js("return document.querySelectorAll('img, b').length"), 0)
        headers = b.js("return [...document.querySelectorAll('#trials thead th')].map(th => th.textContent)")
        self.assertIn('<img src=x onerror="document.body.dataset.injected=1">', headers)

        # New trials appear without a reload; a half-written line waits for its end.
        b.js("window.noReload = 42")
        self.append(live, lines[26] + lines[27][:30])
        b.wait("trial 26", "return document.querySelectorAll('#trials tbody tr').length === 26")
        self.assertEqual(b.js("return document.querySelector('#trials tbody tr').dataset.number"), "26")
        self.append(live, lines[27][30:])
        b.wait("trial 27", "return document.querySelectorAll('#trials tbody tr').length === 27")
        self.assertEqual(b.js("return window.noReload"), 42, "the page was not reloaded")
        self.assert_best(best(evals[:27]))
        self.assertEqual(b.js("return document.querySelector('#run-state').textContent"), "live")
        writer.kill()  # kill -9: the lock goes with the process
        writer.wait()
        b.wait("the killed run shown as stopped", "return document.querySelector('#run-state').textContent === 'stopped'")

        self.append(live, "".join(lines[28:]))  # the rest and the recommend line: the run ends
        b.wait("the run to finish", "return document.querySelector('#run-state').textContent === 'finished'")
        self.assertEqual(b.rows(), 40)
        self.assert_best(best(evals))
        b.drawn("chart-history", sum(e["status"] == "ok" for e in evals))

        # Sorting and filtering.
        b.js("document.querySelector('#trials thead th[data-key=value]').click()")
        first = b.js("return document.querySelector('#trials tbody tr td:nth-child(3)').textContent")
        self.assertAlmostEqual(float(first), best(evals), delta=abs(best(evals)) * 1e-5)
        b.js("const f = document.querySelector('#trial-filter'); f.value = 'state=failed';"
             "f.dispatchEvent(new Event('input'))")
        self.assertEqual(b.rows(), sum(e["status"] == "failed" for e in evals))
        b.js("const f = document.querySelector('#trial-filter'); f.value = 'layers>=3 value<0.2';"
             "f.dispatchEvent(new Event('input'))")
        expected = sum(e["status"] == "ok" and e["x"][1] >= 3 and e["y"] < 0.2 for e in evals)
        self.assertEqual(b.js("return Number(document.querySelector('.table-info').dataset.count)"), expected)
        b.js("const f = document.querySelector('#trial-filter'); f.value = ''; f.dispatchEvent(new Event('input'))")

        # The log scale toggle.
        b.js("document.querySelector('#log-scale').click()")
        self.assertEqual(b.echarts_option("chart-history")["yAxis"][0]["type"], "log")
        b.js("document.querySelector('#log-scale').click()")
        self.assertEqual(b.errors(), [])
        b.driver.execute_script("window.scrollTo(0, 0)")
        b.driver.save_screenshot(os.path.join(ARGS.out, "dashboard-live-top.png"))
        b.screenshot(os.path.join(ARGS.out, "dashboard-live.png"))

    def test_brush_filters_the_table(self):
        # Brushing parallel coordinates' axes lists the selected trials in the table, with their
        # count; the text filter applies too; trials arriving later are judged by the same
        # intervals; a redraw keeps the brush; clearing it (the note's button, or in the chart) clears both.
        full = os.path.join(self.dir, "full.jsonl")
        run_optimist("--objective-command", f"/usr/bin/python3 {HERE}/objective.py", "--space", f"{HERE}/space_plain.json",
                     "--direction", "minimize", "--algorithm", "random", "--budget", "90", "--seed", "3",
                     "--on-failure", "mark-failed", "--out", full)
        lines = trace_lines(full)
        evals = [json.loads(line) for line in lines[1:-1]]
        live = os.path.join(self.dir, "live.jsonl")
        with open(live, "w") as f:
            f.writelines(lines[:61])  # meta and 60 evaluations
        self.dashboard = Dashboard(ARGS.optimist, [live, "--poll-ms", "250"])
        self.browser = b = Browser(1400, 1000)
        b.driver.get(self.dashboard.url)
        b.wait("the study to load", "return document.body.dataset.state === 'ready'")
        b.js("const s = document.querySelector('#page-size'); s.value = '100'; s.dispatchEvent(new Event('change'))")
        chart = "echarts.getInstanceByDom(document.getElementById('chart-parallel'))"

        def brush(axis, intervals):
            b.js(f"{chart}.dispatchAction({{type: 'axisAreaSelect', parallelAxisIndex: arguments[0], intervals: arguments[1]}})",
                 axis, intervals)

        def listed(count):
            return b.wait(f"{count} trials listed", "const n = [...document.querySelectorAll('#trials tbody tr')]"
                          ".map(tr => Number(tr.dataset.number)).sort((a, b) => a - b);"
                          "return n.length === arguments[0] && n", count)

        def chosen(upto, test):
            return sorted(e["i"] for e in evals[:upto] if e["status"] == "ok" and test(e))

        def intervals():
            return b.js(f"const m = {chart}.getModel(); return [0, 1, 2, 3, 4].map(i => m.getComponent('parallelAxis', i).activeIntervals)")

        note = "document.querySelector('#trials .brush-note')"
        complete = sum(e["status"] == "ok" for e in evals[:60])
        b.drawn("chart-parallel", complete)
        # "learning_rate between 1e-3 and 1e-2 and value < 0.3" (axis 4: the value's).
        brush(0, [[1e-3, 1e-2]])
        brush(4, [[0, 0.3]])
        expected = chosen(60, lambda e: 1e-3 <= e["x"][0] <= 1e-2 and e["y"] <= 0.3)
        self.assertGreaterEqual(len(expected), 3, "the fixture has trials to select")
        self.assertLess(len(expected), complete - 10)
        self.assertEqual(listed(len(expected)), expected)
        self.assertEqual(b.js(f"return {note}.hidden"), False)
        self.assertEqual(b.js(f"return [{note}.dataset.selected, {note}.dataset.lines]"), [str(len(expected)), str(complete)])
        self.assertEqual(b.js(f"return {note}.querySelector('.brush-text').textContent"),
                         f"{len(expected)} of {complete} complete trials selected in the parallel coordinates: "
                         "learning_rate 0.001–0.01, value 0–0.3")
        # A categorical axis holds the choice's index: relu or tanh.
        brush(2, [[0, 1]])
        expected = chosen(60, lambda e: 1e-3 <= e["x"][0] <= 1e-2 and e["y"] <= 0.3 and e["x"][2] in ("relu", "tanh"))
        self.assertEqual(listed(len(expected)), expected)
        # With the text filter: both apply.
        b.js("const f = document.querySelector('#trial-filter'); f.value = 'layers>=2'; f.dispatchEvent(new Event('input'))")
        by_number = {e["i"]: e for e in evals}  # a trace's trial numbers: its lines' "i"
        both = [n for n in expected if by_number[n]["x"][1] >= 2]
        self.assertNotEqual(both, expected)
        self.assertEqual(listed(len(both)), both)
        self.assertEqual(b.js(f"return {note}.dataset.selected"), str(len(expected)))
        b.js("const f = document.querySelector('#trial-filter'); f.value = ''; f.dispatchEvent(new Event('input'))")
        self.assertEqual(listed(len(expected)), expected)

        # New trials, while the table is on screen and the plot not: judged by the same intervals.
        b.js("document.getElementById('trials').scrollIntoView()")
        self.append(live, "".join(lines[61:]))
        b.wait("the run to finish", "return document.querySelector('#run-state').textContent === 'finished'")
        selects = lambda e: 1e-3 <= e["x"][0] <= 1e-2 and e["y"] <= 0.3 and e["x"][2] in ("relu", "tanh")  # noqa: E731
        later = chosen(90, selects)
        self.assertGreater(len(later), len(expected), "some later trials are selected")
        self.assertEqual(listed(len(later)), later)
        complete = sum(e["status"] == "ok" for e in evals)
        self.assertEqual(b.js(f"return {note}.dataset.lines"), str(complete))
        # The plot redrawn with them (its option merged) keeps the brush.
        b.drawn("chart-parallel", complete)
        kept = [[[1e-3, 1e-2]], [], [[0, 1]], [], [[0, 0.3]]]
        self.assertEqual(intervals(), kept)
        # ...and a redraw that replaces its option (the log scale) gets it back, covers drawn.
        b.js("document.querySelector('#log-scale').click()")
        b.wait("the value axis on a log scale", f"return {chart}.getOption().parallelAxis[4].type === 'log'")
        self.assertEqual(intervals(), kept)
        self.assertEqual(listed(len(later)), later)
        # Clearing in the chart (a click on an axis) clears the table's filter too.
        for axis in (0, 2, 4):
            brush(axis, [])
        b.wait("the note gone", f"return {note}.hidden")
        self.assertEqual(listed(90), sorted(by_number))
        # The note's clear button clears the chart's brush and the table's filter.
        brush(1, [[3, 4]])
        expected = chosen(90, lambda e: e["x"][1] >= 3)
        self.assertEqual(listed(len(expected)), expected)
        b.js(f"{note}.querySelector('button').click()")
        b.wait("the note gone", f"return {note}.hidden")
        self.assertEqual(listed(90), sorted(by_number))
        self.assertEqual(intervals(), [[], [], [], [], []])
        b.js("document.querySelector('#log-scale').click()")
        self.assertEqual(b.errors(), [])

    def test_replaced_trace(self):
        # A trace replaced under the open page (a new run over the same --out): the page held the
        # old run's trials, asked only for those after them, and showed them under the new run's counts.
        first, second = (os.path.join(self.dir, f"{name}.jsonl") for name in ("first", "second"))
        run_optimist("--problem", "branin", "--algorithm", "random", "--budget", "12", "--seed", "1", "--out", first)
        run_optimist("--problem", "hartmann6", "--algorithm", "random", "--budget", "5", "--seed", "2", "--out", second)
        served = os.path.join(self.dir, "served")
        os.makedirs(served)
        live = os.path.join(served, "live.jsonl")
        shutil.copy(first, live)
        shutil.copy(first, os.path.join(served, "other.jsonl"))
        self.dashboard = Dashboard(ARGS.optimist, [served, "--poll-ms", "200"])
        self.browser = b = Browser(1400, 1000)
        b.driver.get(self.dashboard.url + "#study=live")
        b.wait("the study to load", "return document.body.dataset.state === 'ready'")
        self.assertEqual(b.js("return document.querySelector('#status').textContent"), "live · every 200 ms")
        self.assertEqual(b.rows(), 12)
        b.drawn("chart-history", 12)
        os.replace(shutil.copy(second, live + ".tmp"), live)
        b.wait("the new run's 5 trials", "return document.querySelectorAll('#trials tbody tr').length === 5")
        headers = b.js("return [...document.querySelectorAll('#trials thead th')].map(th => th.textContent)")
        self.assertIn("x6", headers)  # the new run's space
        self.assertEqual(b.js("return document.querySelector('.table-info').dataset.count"), "5")
        evals = [json.loads(line) for line in trace_lines(second)[1:-1]]
        self.assert_best(best(evals))
        b.drawn("chart-history", 5)
        # Deleted: the page says the run is gone (it said "disconnected" and logged 404s).
        os.remove(live)
        b.wait("the run gone", "return document.querySelector('#study-error').textContent.includes('no longer served')")
        self.assertRegex(b.js("return document.querySelector('#status').textContent"), "^live")
        shutil.copy(first, live)
        b.wait("the run back", "return document.querySelectorAll('#trials tbody tr').length === 12 && "
               "document.querySelector('#study-error').hidden")
        self.assertEqual(b.errors(), [])

    def test_categorical_indexes_in_a_trace(self):
        # A trace may give a categorical value as its choice's 0-based index (docs/trace-format.md,
        # "Points": readers take it; a trace written by hand or by another tool). The server passed
        # it on, though the API gives choices: the plots (a categorical value as its choice's place
        # in one Float64Array) drew such a trial nowhere on the axis, the table showed the index.
        written = os.path.join(self.dir, "written.jsonl")
        run_optimist("--objective-command", f"/usr/bin/python3 {HERE}/objective.py", "--space", f"{HERE}/space_plain.json",
                     "--direction", "minimize", "--algorithm", "random", "--budget", "12", "--on-failure", "mark-failed",
                     "--out", written)
        lines = [json.loads(line) for line in trace_lines(written)]
        choices = lines[0]["meta"]["space"]["parameters"][2]["choices"]
        names = []
        indexed = os.path.join(self.dir, "indexed.jsonl")
        with open(indexed, "w") as f:
            for line in lines:
                if "i" in line:
                    names.append(line["x"][2])
                    line["x"][2] = choices.index(line["x"][2])
                f.write(json.dumps(line) + "\n")
        complete = sum(1 for line in lines if line.get("status") == "ok")
        self.dashboard = Dashboard(ARGS.optimist, [indexed])
        self.browser = b = Browser(1400, 1000)
        b.driver.get(self.dashboard.url)
        b.wait("the study to load", "return document.body.dataset.state === 'ready'")
        cells = b.js("const h = [...document.querySelectorAll('#trials thead th')].findIndex(th => th.textContent === 'activation');"
                     "return [...document.querySelectorAll('#trials tbody tr')].map(tr => tr.cells[h].textContent).reverse()")
        self.assertEqual(cells, names)
        self.assertRegex(b.js("return document.querySelector('#best-point').textContent"), r"activation = (relu|tanh|gelu)")
        b.drawn("chart-parallel", complete)
        self.assertEqual(b.js("const d = echarts.getInstanceByDom(document.getElementById('chart-parallel')).getOption()"
                              ".series[0].data; return Array.from(d).filter(Number.isNaN).length"), 0)
        b.drawn("chart-slice", complete)
        self.assertEqual(b.js("const d = echarts.getInstanceByDom(document.getElementById('chart-slice')).getOption()"
                              ".series[2].data; return [Array.from(d).filter(Number.isNaN).length, d.length / 3]"), [0, complete])
        self.assertGreater(b.colored_pixels("chart-slice"), 100)
        self.assertEqual(b.errors(), [])

    def test_failed_first_load_recovers(self):
        # The first load of a study fails (the server restarting, the database busy, the network):
        # the page said "Failed to fetch" and stayed loading for ever; the poll now tries again.
        served = os.path.join(self.dir, "served")
        os.makedirs(served)
        run = os.path.join(self.dir, "run.jsonl")
        run_optimist("--problem", "branin", "--algorithm", "random", "--budget", "7", "--seed", "3", "--out", run)
        shutil.copy(run, os.path.join(served, "first.jsonl"))
        shutil.copy(run, os.path.join(served, "other.jsonl"))
        self.dashboard = Dashboard(ARGS.optimist, [served, "--poll-ms", "200"])
        self.browser = b = Browser(1400, 1000)
        b.driver.execute_cdp_cmd("Network.enable", {})
        b.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/trials*"]})
        b.driver.get(self.dashboard.url + "#study=first")
        b.wait("the failed load said so", "return !document.querySelector('#study-error').hidden && "
               "document.querySelector('#study-error').textContent")
        time.sleep(0.5)  # a few polls: each tries again, and fails again
        self.assertNotEqual(b.js("return document.body.dataset.state"), "ready")
        b.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        b.wait("the study loaded after all", "return document.body.dataset.state === 'ready'", timeout=20)
        self.assertEqual(b.rows(), 7)
        self.assertTrue(b.js("return document.querySelector('#study-error').hidden"))
        # An address naming a run not written yet: said so, and opened when it appears.
        b.js("location.hash = '#study=later'")
        b.wait("the run not served yet", "return document.querySelector('#study-error').textContent.includes('not served (yet)')",
               timeout=20)
        shutil.copy(run, os.path.join(served, "later.jsonl"))
        b.wait("the run opened when it appeared", "return document.body.dataset.state === 'ready' && "
               "document.querySelector('#study-name').textContent === 'later'", timeout=20)
        self.assertEqual(b.rows(), 7)
        self.assertTrue(b.js("return document.querySelector('#study-error').hidden"))

    def assert_best(self, expected):
        shown = self.browser.wait("the best value", "return document.querySelector('#best-value').dataset.value === "
                                  "String(arguments[0]) && arguments[0]", expected)
        self.assertEqual(shown, expected)


class LargeStudy(Case):
    def test_ten_thousand_trials(self):
        full = os.path.join(self.dir, "full.jsonl")
        run_optimist("--problem", "hartmann6", "--algorithm", "random", "--budget", "10000", "--seed", "1",
                     "--out", full)
        lines = trace_lines(full)
        live = os.path.join(self.dir, "big.jsonl")
        with open(live, "w") as f:
            f.writelines(lines[:-2])  # 9,999 evaluations; the last and the recommend line come later
        evals = [json.loads(line) for line in lines[1:-1]]
        self.dashboard = Dashboard(ARGS.optimist, [live, "--poll-ms", "500"])
        self.browser = b = Browser(1400, 1000)

        loads = [b.measure_load(self.dashboard.url) for _ in range(2)]  # the second with warm browser caches
        self.assertEqual(b.js("return document.querySelector('#trial-count').dataset.count"), "9999")
        self.assertEqual(b.rows(), 50)
        self.assertEqual(b.js("return document.querySelector('#best-value').dataset.value"), str(best(evals[:-1])))
        for chart in CHARTS[:-1]:  # random search reports no diagnostics
            b.js("document.getElementById(arguments[0]).scrollIntoView({block: 'center'})", chart)
            self.assertGreater(b.colored_pixels(chart), 100, f"{chart} drew data")
        b.js("window.scrollTo(0, 0)")

        # One more trial: the page asks only for what follows trial 9,999.
        b.js("performance.clearResourceTimings()")
        self.append(live, lines[-2])
        b.wait("trial 10,000", "return document.querySelector('#trial-count').dataset.count === '10000'")
        incremental = b.js("""return performance.getEntriesByType('resource').filter(e => e.name.includes('/api/trials'))
            .map(e => ({url: e.name.slice(location.origin.length), server_ms: e.serverTiming[0].duration,
                        bytes: e.encodedBodySize}))""")
        self.assertTrue(all("after=9999" in r["url"] or "after=10000" in r["url"] for r in incremental), incremental)
        self.assertEqual(b.errors(), [])
        b.driver.save_screenshot(os.path.join(ARGS.out, "dashboard-10k-top.png"))
        b.screenshot(os.path.join(ARGS.out, "dashboard-10k.png"))

        figures = {"trials": 10000, "page_loads": loads, "incremental_updates": incremental,
                   "incremental_server_ms_max": max(r["server_ms"] for r in incremental)}
        with open(os.path.join(ARGS.out, "dashboard-perf.json"), "w") as f:
            json.dump(figures, f, indent=2)
        for k, load in enumerate(loads):
            print(f"page load {k + 1} with 10,000 trials: {describe_load(load)}")
        print(f"incremental update: server time {[round(r['server_ms'], 3) for r in incremental]} ms")


class LiveStudy(Case):
    def test_study_filled_by_workers(self):
        url = "sqlite:///" + os.path.join(self.dir, "studies.db")
        name = "tuning"
        warm_up = '<img src=x onerror="document.body.dataset.injected=2">warm-up'
        objective = f"/usr/bin/python3 {HERE}/objective.py --delay 0.3"
        common = ["--storage", url, "--objective-command", objective, "--space", f"{HERE}/space_plain.json",
                  "--direction", "minimize"]
        subprocess.run([ARGS.optimist, "study", "create", "--name", name, *common, "--algorithm", "gp-ei",
                        "--budget", "30", "--seed", "1", "--heartbeat", "0.5", "--grace", "2"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([ARGS.optimist, "study", "create", "--name", warm_up, *common, "--budget", "3"], check=True,
                       stdout=subprocess.DEVNULL)
        # The workers run the stored command: confirmed with --trust-command (docs/security.md).
        subprocess.run([ARGS.optimist, "worker", "--storage", url, "--name", warm_up, "-q", "--trust-command"], check=True,
                       capture_output=True)
        self.dashboard = Dashboard(ARGS.optimist, ["--storage", url, "--poll-ms", "250"])
        self.browser = b = Browser(1400, 1000)
        b.driver.get(self.dashboard.url)
        b.wait("the study list", "return document.querySelectorAll('#studies tbody tr').length === 2")
        names = b.js("return [...document.querySelectorAll('#studies tbody .name')].map(td => td.textContent)")
        self.assertEqual(sorted(names), sorted([name, warm_up]))  # HTML in a name is text
        b.js("[...document.querySelectorAll('#studies tbody tr')].find(tr => tr.dataset.id === arguments[0]).click()", name)
        b.wait("the study to load", "return document.body.dataset.state === 'ready'")
        self.assertEqual(b.js("return document.querySelector('#study-name').textContent"), name)

        # Three workers; w3 is killed (-9) while it holds a trial, which the others then fail as stale.
        # w3's objective holds its first trial until w3 is gone: killed between two trials (a
        # suggestion takes a few ms), it would leave no stale trial (the CI run of stop 30).
        workers = [subprocess.Popen([ARGS.optimist, "worker", "--storage", url, "--name", name, "-q", "--trust-command",
                                     "--worker-name", f"w{k}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    env={**os.environ, "OBJECTIVE_HOLD": "1" if k == 3 else "0"})
                   for k in (1, 2, 3)]
        try:
            b.js("window.noReload = 7")
            row = b.wait("a running trial of w3 with its heartbeat",
                         "const tr = [...document.querySelectorAll('#trials tbody tr.state-running')]"
                         "  .find(tr => [...tr.cells].some(td => td.textContent === 'w3'));"
                         "return tr && [...tr.cells].map(td => td.textContent)")
            workers[2].kill()
            heartbeat = b.js("return [...document.querySelectorAll('#trials thead th')].findIndex(th => th.textContent === 'heartbeat')")
            self.assertRegex(row[heartbeat], r"ago$")
            self.assertRegex(row[-3], r"\(running\)$")  # duration so far
            b.js("document.getElementById('chart-timeline').scrollIntoView({block: 'center'})")
            b.wait("the three workers' lanes in the timeline",
                   "const o = echarts.getInstanceByDom(document.getElementById('chart-timeline')).getOption();"
                   "return o && o.yAxis && o.yAxis[0].data.join(',') === 'w1,w2,w3'")
            b.wait("w3's trial failed as stale", "return [...document.querySelectorAll('#trials tbody tr')]"
                   ".some(tr => tr.cells[1].textContent === 'failed (stale)' && tr.textContent.includes('w3'))")
            b.driver.save_screenshot(os.path.join(ARGS.out, "dashboard-study-running.png"))
            b.js("window.scrollTo(0, 0)")
            b.wait("the history drawn", "return Number(document.getElementById('chart-history').dataset.drawn) > 0")
            b.driver.save_screenshot(os.path.join(ARGS.out, "dashboard-study-running-top.png"))
        finally:
            for w in workers[:2]:
                self.assertEqual(w.wait(timeout=240), 0, w.stderr.read().decode())
            workers[2].wait(timeout=60)
        b.wait("the study to finish", "return document.querySelector('#run-state').textContent === 'finished'")
        self.assertEqual(b.js("return window.noReload"), 7, "the page was not reloaded")
        b.js("const s = document.querySelector('#page-size'); s.value = '100'; s.dispatchEvent(new Event('change'))")
        failed = b.js("return Number(document.querySelector('#state-counts').textContent.match(/(\\d+) failed/)[1])")
        self.assertEqual(b.js("return document.querySelectorAll('#trials tbody tr.state-failed').length"), failed)

        export = os.path.join(self.dir, "export.jsonl")
        subprocess.run([ARGS.optimist, "study", "export", "--storage", url, "--name", name, "--out", export], check=True,
                       stdout=subprocess.DEVNULL)
        evals = [json.loads(line) for line in trace_lines(export)[1:] if '"i"' in line]
        # Every trial of the study is in the table: the export's and the stale one (not evaluated).
        stale = b.js("return [...document.querySelectorAll('#trials tbody tr')].filter(tr => tr.cells[1].textContent === 'failed (stale)').length")
        self.assertGreaterEqual(stale, 1)
        self.assertEqual(int(b.js("return document.querySelector('#trial-count').dataset.count")), len(evals) + stale)
        self.assertEqual(b.rows(), len(evals) + stale)
        self.assertEqual(float(b.js("return document.querySelector('#best-value').dataset.value")), best(evals))
        complete = sum(e["status"] == "ok" for e in evals)
        self.assertIn(f"({stale} stale, not counted)", b.js("return document.querySelector('#trial-count').textContent"))
        for chart in CHARTS:  # gp-ei's diagnostics too: each trial keeps those of its suggestion
            b.drawn(chart, complete)
            self.assertGreater(b.colored_pixels(chart), 100, f"{chart} drew data")
        self.assertIsNone(b.js("return document.body.dataset.injected"))
        self.assertEqual(b.errors(), [])
        b.js("window.scrollTo(0, 0)")
        b.driver.save_screenshot(os.path.join(ARGS.out, "dashboard-study-top.png"))
        b.screenshot(os.path.join(ARGS.out, "dashboard-study.png"))

    def test_unused_conditional_parameters_are_marked(self):
        # A conditional parameter (docs/discrete.md): '—' in the table where unused, left out of the
        # best point and of its slice plot, drawn on its own "— unused" place in parallel coordinates.
        url = "sqlite:///" + os.path.join(self.dir, "cond.db")
        lab = ["--storage", url, "--name", "cond"]
        space_file = os.path.join(self.dir, "space.json")
        bowl = {"parent": "kind", "values": ["bowl"]}
        with open(space_file, "w") as f:
            json.dump({"parameters": [
                {"name": "kind", "type": "categorical", "choices": ["flat", "bowl"]},
                {"name": "width", "type": "integer", "lower": 1, "upper": 5, "condition": bowl},
                {"name": "edge", "type": "categorical", "choices": ["soft", "hard"], "condition": bowl},
                {"name": "rate", "type": "continuous", "lower": 1e-4, "upper": 0.1, "log": True, "condition": bowl},
                {"name": "x", "type": "continuous", "lower": 0, "upper": 1}]}, f)
        subprocess.run([ARGS.optimist, "study", "create", *lab, "--space", space_file, "--direction", "minimize",
                        "--algorithm", "random", "--budget", "10"], check=True, stdout=subprocess.DEVNULL)
        for params, value in ((["kind=flat", "x=0.2"], "0.1"), (["kind=bowl", "width=4", "edge=hard", "rate=0.01", "x=0.5"], "0.7"),
                              (["kind=bowl", "width=2", "edge=soft", "rate=0.001", "x=0.9"], "0.4")):
            subprocess.run([ARGS.optimist, "study", "add", *lab, *[a for p in params for a in ("--param", p)], "--value", value],
                           check=True, stdout=subprocess.DEVNULL)
        self.dashboard = Dashboard(ARGS.optimist, ["--storage", url])
        self.browser = b = Browser(1400, 1000)
        b.driver.get(self.dashboard.url + "#study=cond")
        b.wait("the study to load", "return document.body.dataset.state === 'ready' && "
               "document.querySelectorAll('#trials tbody tr').length === 3")
        widths = b.js("const h = [...document.querySelectorAll('#trials thead th')].findIndex(th => th.textContent === 'width');"
                      "return Object.fromEntries([...document.querySelectorAll('#trials tbody tr')]"
                      "  .map(tr => [tr.cells[0].textContent, tr.cells[h].textContent]))")
        self.assertEqual(widths, {"0": "—", "1": "4", "2": "2"})
        self.assertEqual(b.js("return document.querySelector('#best-point').textContent"), "best point: kind = flat, x = 0.2")
        b.js("document.getElementById('chart-slice').scrollIntoView({block: 'center'})")
        slice_sizes = b.wait("the slice plots", "const c = echarts.getInstanceByDom(document.getElementById('chart-slice'));"
                             "const o = c && c.getOption();"  # flat data: a point's 3 values one after the other
                             "return o && o.series && o.series.map(s => s.data.length / s.dimensions.length)")
        self.assertEqual(slice_sizes, [3, 2, 2, 2, 3])  # width's, edge's and rate's plots: the two bowl trials

        # Parallel coordinates: the flat trial's line goes through the "— unused" place of width,
        # edge and rate (a log axis), under their ranges (it was drawn at width 1, edge "soft" and
        # rate 1e-4, values it never had).
        b.drawn("chart-parallel", 3)
        drawn = b.js("""
            const c = echarts.getInstanceByDom(document.getElementById('chart-parallel'));
            const labels = [], lines = [];
            c.getZr().storage.getDisplayList(true).forEach((e) => {
              if (e.type === 'polyline') lines.push(e.shape.points.map(([x, y]) => [Math.round(x), Math.round(y)]));
              const text = e.style && e.style.text;
              if (e.type !== 'tspan' || text === undefined || text === '') return;  // a text's drawn part
              const r = e.getBoundingRect().clone();
              r.applyTransform(e.getComputedTransform());
              labels.push([String(text), Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]);
            });
            return {labels, lines};""")
        lines = sorted(drawn["lines"], key=lambda pts: pts[-1][1])  # by the value axis' y: 0.1 (flat) last
        self.assertEqual(len(lines), 3)
        self.assertEqual([len(pts) for pts in lines], [6, 6, 6])  # a point on every axis, none skipped
        label_y = {}
        for text, x, y in drawn["labels"]:
            label_y.setdefault(text, []).append((x, y))
        unused = sorted(label_y.get("— unused", []))
        self.assertEqual(len(unused), 3, f"an '— unused' label on width's, edge's and rate's axes: {drawn['labels']}")
        flat = lines[-1]
        for axis, (x, y) in zip((1, 2, 3), unused):
            self.assertLess(abs(flat[axis][0] - x), 40, "the label is by its axis")
            self.assertLess(abs(flat[axis][1] - y), 4, f"the flat trial's line through axis {axis}'s '— unused'")
            for bowl_line in lines[:2]:
                self.assertLess(bowl_line[axis][1], y - 15, "the bowl trials' lines above it, in the range")
        # Under the lower bound and the first choice: width 1 and "soft" are where no flat line goes.
        one = [y for x, y in label_y["1"] if abs(x - unused[0][0]) < 40]
        soft = [y for x, y in label_y["soft"] if abs(x - unused[1][0]) < 40]
        lower_rate = [y for x, y in label_y["1e-4"] if abs(x - unused[2][0]) < 40]  # a decade tick at the lower bound
        self.assertEqual((len(one), len(soft), len(lower_rate)), (1, 1, 1))
        for (x, y), lowest in zip(unused, (one[0], soft[0], lower_rate[0])):
            self.assertGreater(y, lowest + 10)
        self.assertGreater(b.colored_pixels("chart-parallel"), 100)
        # Brushing an "— unused" place lists the trials without the parameter: edge's first
        # category, width's slot under its range (the chart's own axis minimum).
        chart = "echarts.getInstanceByDom(document.getElementById('chart-parallel'))"
        listed = "return [...document.querySelectorAll('#trials tbody tr')].map(tr => tr.dataset.number).join()"
        b.js(f"{chart}.dispatchAction({{type: 'axisAreaSelect', parallelAxisIndex: 2, intervals: [[0, 0]]}})")
        b.wait("the flat trial alone", f"{listed.replace('return ', 'return (')}) === '0'")
        self.assertIn("1 of 3 complete trials selected in the parallel coordinates: edge — unused",
                      b.js("return document.querySelector('#trials .brush-note').textContent"))
        b.js(f"const c = {chart}; c.dispatchAction({{type: 'axisAreaSelect', parallelAxisIndex: 2, intervals: []}});"
             "const slot = c.getModel().getComponent('parallelAxis', 1).axis.scale.getExtent()[0];"
             "c.dispatchAction({type: 'axisAreaSelect', parallelAxisIndex: 1, intervals: [[slot, 3]]})")
        b.wait("the flat trial and width 2", f"{listed.replace('return ', 'return (')}) === '2,0'")
        b.js("document.querySelector('#trials .brush-note button').click()")
        b.wait("all three again", f"{listed.replace('return ', 'return (')}) === '2,1,0'")
        b.screenshot(os.path.join(ARGS.out, "dashboard-conditional.png"))
        self.assertEqual(b.errors(), [])

    def test_hand_held_trials_show_their_lease(self):
        # Trials asked by hand (`study ask`) have no heartbeat: their lease end is shown instead.
        url = "sqlite:///" + os.path.join(self.dir, "lab.db")
        lab = ["--storage", url, "--name", "lab"]
        with open(os.path.join(HERE, "space_plain.json")) as f:
            space = json.load(f)
        long_name = "temperature_of_the_annealing_furnace_in_the_second_stage_of_the_process_" * 2
        space["parameters"][3]["name"] = long_name
        space_file = os.path.join(self.dir, "space.json")
        with open(space_file, "w") as f:
            json.dump(space, f)
        subprocess.run([ARGS.optimist, "study", "create", *lab, "--space", space_file, "--direction",
                        "minimize", "--algorithm", "random", "--budget", "5"], check=True, stdout=subprocess.DEVNULL)
        for lease in ("14d", "forever", "1h"):
            subprocess.run([ARGS.optimist, "study", "ask", *lab, "--lease", lease], check=True, stdout=subprocess.DEVNULL)
        # The third will not be run: given back (not queued again), a bar of its own colour.
        subprocess.run([ARGS.optimist, "study", "tell", *lab, "--trial", "2", "--give-back", "sample lost", "--no-requeue"],
                       check=True, stdout=subprocess.DEVNULL)
        # A second study, last changed two hours ago (its times moved back in the database): idle.
        idle = ["--storage", url, "--name", "idle"]
        subprocess.run([ARGS.optimist, "study", "create", *idle, "--space", space_file, "--direction", "minimize",
                        "--algorithm", "random", "--budget", "5"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([ARGS.optimist, "study", "ask", *idle], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([ARGS.optimist, "study", "tell", *idle, "--trial", "0", "--value", "0.00423664"], check=True,
                       stdout=subprocess.DEVNULL)
        db = sqlite3.connect(os.path.join(self.dir, "lab.db"))
        with db:
            db.execute("UPDATE studies SET created = created - 7200 WHERE name = 'idle'")
            db.execute("UPDATE trials SET created = created - 7200, started = started - 7200, finished = finished - 7200, "
                       "heartbeat = heartbeat - 7200 WHERE study_id = (SELECT id FROM studies WHERE name = 'idle')")
        db.close()
        self.dashboard = Dashboard(ARGS.optimist, ["--storage", url])
        self.browser = b = Browser(1400, 1000)
        b.driver.get(self.dashboard.url + "#study=lab")
        b.wait("the study to load", "return document.body.dataset.state === 'ready'")
        held = b.wait("the two held trials", "const h = [...document.querySelectorAll('#trials thead th')]"
                      "  .findIndex(th => th.textContent === 'heartbeat');"
                      "const rows = [...document.querySelectorAll('#trials tbody tr.state-running')];"
                      "return rows.length === 2 && Object.fromEntries(rows.map(tr => [tr.cells[0].textContent, tr.cells[h].textContent]))")
        self.assertRegex(held["0"], r"^leased until \d{4}-\d{2}-\d{2} \d{2}:\d{2}$")
        end = time.strftime("%Y-%m-%d", time.localtime(time.time() + 14 * 86400))
        self.assertTrue(held["0"].startswith(f"leased until {end}"), held["0"])
        self.assertEqual(held["1"], "held until told")
        # Both held by the same worker name at once: a lane each in the timeline (they drew over
        # each other in one).
        b.js("document.getElementById('chart-timeline').scrollIntoView({block: 'center'})")
        lanes = b.wait("the timeline's lanes", "const o = echarts.getInstanceByDom(document.getElementById('chart-timeline'))"
                       ".getOption(); return o && o.yAxis && o.yAxis[0].data")
        self.assertEqual(len(lanes), 3, lanes)  # the given-back trial overlaps both
        self.assertTrue(all(lane.endswith(f" · {k + 1}") for k, lane in enumerate(lanes)), lanes)
        # Each bar's state is the index of its legend entry: the given-back trial has its own.
        legend = b.js("return echarts.getInstanceByDom(document.getElementById('chart-timeline')).getOption()"
                      ".legend[0].data.map(d => d.name)")
        states = b.js("return Object.fromEntries(echarts.getInstanceByDom(document.getElementById('chart-timeline'))"
                      ".getOption().series[0].data.map(d => [d[4], d[3]]))")
        self.assertEqual({number: legend[k] for number, k in states.items()},
                         {"0": "running", "1": "running", "2": "given back"})
        self.assertEqual(b.js("return [...document.querySelectorAll('#trials tbody tr')].find(tr => tr.cells[0].textContent === '2')"
                              ".cells[1].textContent"), "given back")
        # A 146-character parameter name is cut in the table's header (it pushed the columns after
        # it off screen), and named whole in its tooltip.
        th = b.js("return [...document.querySelectorAll('#trials thead th')].find(th => th.textContent === arguments[0])"
                  ".getBoundingClientRect().width", long_name)
        self.assertLess(th, 300)
        # (The table may scroll in its own box, next to the study list: the page does not.)
        self.assertEqual(b.js("return document.documentElement.scrollWidth - innerWidth"), 0)

        # The idle study (its long parameter name in its best point): the progress card says what
        # the list says, idle (it said "running" for any study not finished), and the page does not
        # scroll sideways (the best point's 146-character name widened the page by 265 px).
        b.js("document.querySelector('#studies tbody tr[data-id=idle]').click()")
        b.wait("the idle study", "return document.body.dataset.state === 'ready' && "
               "document.querySelector('#study-name').textContent === 'idle'")
        card = b.js("return document.querySelector('#run-state').textContent")
        listed = b.js("return document.querySelector('#studies tbody tr[data-id=idle] td:nth-child(2) > div:last-child').textContent")
        self.assertRegex(card, r"^idle 2 h")
        self.assertEqual(card, listed)
        self.assertIn(long_name, b.js("return document.querySelector('#best-point').textContent"))
        self.assertEqual(b.js("return document.documentElement.scrollWidth - innerWidth"), 0)
        # The list's best value whole (it was cut to "0.0042366" with no ellipsis).
        self.assertTrue(b.js("const d = document.querySelector('#studies tbody tr[data-id=idle] .best');"
                             "return d.textContent === '0.00423664' && d.scrollWidth <= d.clientWidth"))

        # The keyboard. Tab: a skip link first, then the list's filter, the list as one stop (its 200
        # rows came before the study's content), the study's controls.
        b.driver.get("about:blank")
        b.driver.get(self.dashboard.url + "#study=lab")
        b.wait("the study to load", "return document.body.dataset.state === 'ready'")
        tab_order = []
        for _ in range(4):
            ActionChains(b.driver).send_keys(Keys.TAB).perform()
            tab_order.append(b.js("const e = document.activeElement; return e.id || e.dataset.id || e.tagName"))
        self.assertEqual(tab_order, ["skip", "study-filter", "lab", "log-scale"])
        # Enter on the skip link: on to the study.
        b.js("document.querySelector('#skip').focus()")
        ActionChains(b.driver).send_keys(Keys.ENTER).perform()
        self.assertEqual(b.js("return document.activeElement.id"), "study")
        self.assertIn("#study=lab", b.driver.current_url)
        # The study list is one tab stop, arrows move in it.
        b.js("document.querySelector('#studies tbody tr[data-id=lab]').focus()")
        ActionChains(b.driver).send_keys(Keys.ARROW_UP).perform()  # the list is in name order
        self.assertEqual(b.js("return document.activeElement.dataset.id"), "idle")
        self.assertNotEqual(b.js("return getComputedStyle(document.activeElement).outlineStyle"), "none",
                            "a focused row has a visible focus ring")
        # Sortable headers: Space as Enter, and aria-sort.
        b.js("document.querySelector('#trials thead th[data-key=value]').focus()")
        ActionChains(b.driver).send_keys(Keys.SPACE).perform()
        self.assertEqual(b.js("return document.querySelector('#trials thead th[data-key=value]').getAttribute('aria-sort')"),
                         "ascending")
        ActionChains(b.driver).send_keys(Keys.SPACE).perform()
        self.assertEqual(b.js("return document.querySelector('#trials thead th[data-key=value]').getAttribute('aria-sort')"),
                         "descending")

        self.assertEqual(b.errors(), [])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--optimist", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("case", choices=["live", "large", "study"])
    ARGS = parser.parse_args()
    os.makedirs(ARGS.out, exist_ok=True)
    case = {"live": LiveTrace, "large": LargeStudy, "study": LiveStudy}[ARGS.case]
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
