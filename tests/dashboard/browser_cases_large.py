"""The `large` case of test_dashboard_browser.py (which runs it): a 10,000-trial run, its page load
and incremental update times."""
import json
import os

from browser import Browser, Dashboard, describe_load
from browser_args import ARGS
from test_dashboard_browser import CHARTS, Case, best, run_optimist, trace_lines


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
