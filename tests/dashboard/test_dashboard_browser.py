#!/usr/bin/python3
"""`optimist dashboard` in a real browser (headless Chromium through Selenium), run by ctest:

  test_dashboard_browser.py --optimist BUILD/optimist --out BUILD/dashboard-test live|large

live:  a trace being written (a real run's lines appended as the test goes): rows of the trials
       table, the best value, new trials appearing without a reload, every plot drawn, log axes,
       names that are HTML shown as text, sorting and filtering.
large: a 10,000-trial run: the page load time and the server time of an incremental update,
       written to OUT/dashboard-perf.json (reported, not asserted: speed is measured, not tested).
Screenshots go to OUT/."""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, Dashboard  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = None
CHARTS = ["chart-history", "chart-parallel", "chart-slice", "chart-timeline", "chart-diagnostics"]


def run_optimist(*args):
    subprocess.run([ARGS.optimist, "run", "-q", *args], check=True, stdout=subprocess.DEVNULL)


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

        self.assertEqual(b.rows(), 25)
        self.assertEqual(b.js("return document.querySelector('#trial-count').dataset.count"), "25")
        self.assert_best(best(evals[:25]))
        failed = sum(e["status"] == "failed" for e in evals[:25])
        self.assertEqual(b.js("return document.querySelectorAll('#trials tbody tr.state-failed').length"), failed)
        complete = 25 - failed
        for chart in CHARTS:
            b.wait(f"{chart} to draw", "return document.getElementById(arguments[0]).dataset.drawn === arguments[1]",
                   chart, str(complete))
            self.assertGreater(b.colored_pixels(chart), 100, f"{chart} drew data")

        # A log-scaled parameter gets a log axis; a categorical one its choices.
        axes = b.echarts_option("chart-parallel")["parallelAxis"]
        self.assertEqual([a["type"] for a in axes], ["log", "value", "category", "value", "value"])
        self.assertEqual(axes[2]["data"], ["relu", "tanh", "<b>gelu</b>"])
        self.assertEqual(b.echarts_option("chart-slice")["xAxis"][0]["type"], "log")
        # A parameter named with HTML is shown as text, never run.
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

        self.append(live, "".join(lines[28:]))  # the rest and the recommend line: the run ends
        b.wait("the run to finish", "return document.querySelector('#run-state').textContent === 'finished'")
        self.assertEqual(b.rows(), 40)
        self.assert_best(best(evals))
        b.wait("the plots to redraw", "return document.getElementById('chart-history').dataset.drawn === arguments[0]",
               str(sum(e["status"] == "ok" for e in evals)))

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

        loads = []
        for _ in range(2):  # the first load also parses the trace on the server
            b.driver.get("about:blank")
            b.driver.get(self.dashboard.url)
            b.wait("the study to load", "return document.body.dataset.state === 'ready'")
            for chart in CHARTS:
                b.wait(f"{chart} to draw", "return document.getElementById(arguments[0]).dataset.drawn !== undefined",
                       chart)
            loads.append(b.js("""
                const at = (name) => performance.getEntriesByName(name)[0].startTime;
                const drawn = performance.getEntriesByType('mark').filter(m => m.name.startsWith('optimist-drawn-'));
                return {data_ms: at('optimist-data'), ready_ms: at('optimist-ready'),
                        all_drawn_ms: Math.max(...drawn.map(m => m.startTime)),
                        trials_requests: performance.getEntriesByType('resource').filter(e => e.name.includes('/api/trials'))
                          .map(e => ({server_ms: e.serverTiming.length ? e.serverTiming[0].duration : null,
                                      fetch_ms: e.responseEnd - e.startTime, bytes: e.encodedBodySize})),
                        draw_ms: Object.fromEntries(performance.getEntriesByType('measure')
                          .filter(m => m.name.startsWith('optimist-draw-')).map(m => [m.name.slice(14), m.duration]))};"""))
        self.assertEqual(b.js("return document.querySelector('#trial-count').dataset.count"), "9999")
        self.assertEqual(b.rows(), 50)
        self.assertEqual(b.js("return document.querySelector('#best-value').dataset.value"), str(best(evals[:-1])))
        for chart in CHARTS[:-1]:  # random search reports no diagnostics
            self.assertGreater(b.colored_pixels(chart), 100, f"{chart} drew data")

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
            print(f"page load {k + 1} with 10,000 trials: data {load['data_ms']:.0f} ms, ready {load['ready_ms']:.0f} ms,"
                  f" every plot drawn {load['all_drawn_ms']:.0f} ms after navigation start; server time of the trial pages "
                  f"{[round(r['server_ms'], 1) for r in load['trials_requests'][:2]]} ms")
        print(f"incremental update: server time {[round(r['server_ms'], 3) for r in incremental]} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--optimist", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("case", choices=["live", "large"])
    ARGS = parser.parse_args()
    os.makedirs(ARGS.out, exist_ok=True)
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(LiveTrace if ARGS.case == "live" else LargeStudy)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
