"""The command line of test_dashboard_browser.py (`--optimist`, `--out`, the case), shared with the
case modules it runs: one namespace, filled in place by its argument parser before a case runs."""
import argparse

ARGS = argparse.Namespace()
