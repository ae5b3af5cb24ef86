"""The `study` case of test_dashboard_browser.py (which runs it): SQLite studies filled by workers
and by hand while the page is open."""
import json
import os
import sqlite3
import subprocess
import time

from browser import Browser, Dashboard
from browser_args import ARGS
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from test_dashboard_browser import CHARTS, HERE, Case, best, trace_lines


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
