"""Shared helpers of the Python tests (run by ctest against the build tree: PYTHONPATH=<build>/python)."""
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
TIMING_FIELDS = ("suggest_s", "eval_s", "tell_s")


def cli_path() -> str:
    """The optimist CLI of this build (ctest sets OPTIMIST_CLI; by hand, build/optimist)."""
    path = os.environ.get("OPTIMIST_CLI", str(REPO / "build" / "optimist"))
    if not os.path.exists(path):
        pytest.fail(f"the optimist CLI is not at {path}; build it or set OPTIMIST_CLI")
    return path


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([cli_path(), *args], capture_output=True, text=True, timeout=120)


def trace_lines(path) -> list:
    """The lines of a trace without the timing fields (the only fields that differ between two
    runs of the same settings, docs/trace-format.md)."""
    lines = []
    for text in pathlib.Path(path).read_text().splitlines():
        line = json.loads(text)
        for k in TIMING_FIELDS:
            line.pop(k, None)
        lines.append(line)
    return lines
