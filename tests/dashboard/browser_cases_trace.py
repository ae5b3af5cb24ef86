"""The `live` case of test_dashboard_browser.py (which runs it): a trace being written while the
page is open."""
import json
import os
import shutil
import time

from browser import Browser, Dashboard
from browser_args import ARGS
from test_dashboard_browser import CHARTS, Case, best, hold_lock, run_fixture, run_optimist, trace_lines


class LiveTrace(Case):
    def test_live_trace(self):
        full = os.path.join(self.dir, "full.jsonl")
        run_fixture(full, "space.json", "gp-ei", 40, "--seed", "1")
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
        run_fixture(full, "space_plain.json", "random", 90, "--seed", "3")
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
        self.assertEqual(b.errors(), [])
        # Deleted: the page says the run is gone (it said "disconnected" and logged a 404 every poll).
        os.remove(live)
        b.wait("the run gone", "return document.querySelector('#study-error').textContent.includes('no longer served')")
        self.assertRegex(b.js("return document.querySelector('#status').textContent"), "^live")
        shutil.copy(first, live)
        b.wait("the run back", "return document.querySelectorAll('#trials tbody tr').length === 12 && "
               "document.querySelector('#study-error').hidden")
        # One poll may list the study and then ask for its trials after the deletion: that one 404
        # is the server's right answer (the browser logs it); more would be the old every-poll 404s.
        errors = b.errors()
        raced = [e for e in errors if "/api/trials?study=live&" in e and "404" in e]
        self.assertLessEqual(len(raced), 1, errors)
        self.assertEqual([e for e in errors if e not in raced], [])

    def test_categorical_indexes_in_a_trace(self):
        # A trace may give a categorical value as its choice's 0-based index (docs/trace-format.md,
        # "Points": readers take it; a trace written by hand or by another tool). The server passed
        # it on, though the API gives choices: the plots (a categorical value as its choice's place
        # in one Float64Array) drew such a trial nowhere on the axis, the table showed the index.
        written = os.path.join(self.dir, "written.jsonl")
        run_fixture(written, "space_plain.json", "random", 12)
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
