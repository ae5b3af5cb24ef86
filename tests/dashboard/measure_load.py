#!/usr/bin/python3
"""Page load times of `optimist dashboard` in headless Chromium, for docs/dashboard.md:

  measure_load.py --optimist build/optimist [--loads 3] [--study ID] -- DASHBOARD-ARGS...

e.g. -- --storage sqlite:////tmp/big.db  or  -- run.jsonl. Prints each load's timings."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, Dashboard, describe_load  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--optimist", required=True)
parser.add_argument("--loads", type=int, default=3)
parser.add_argument("--study", help="the study to open (default: the only one)")
parser.add_argument("args", nargs="+")
options = parser.parse_args()
dashboard = Dashboard(options.optimist, options.args)
browser = Browser(1400, 1000)
try:
    url = dashboard.url + (f"#study={options.study}" if options.study else "")
    for k in range(options.loads):
        print(f"load {k + 1}: {describe_load(browser.measure_load(url))}")
finally:
    browser.quit()
    dashboard.stop()
