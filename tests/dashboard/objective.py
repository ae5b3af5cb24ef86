"""A small training-like objective for the dashboard tests (the --objective-command protocol of
docs/hpo.md): a validation loss over a log-scaled learning rate, an integer, a categorical and a
parameter whose name is HTML (the page must show it as text). Fails, deterministically, where
the "training" would diverge, so that the run has failed trials. --delay S: each evaluation
takes S seconds, so that a study's workers are seen running. With OBJECTIVE_HOLD=1 in its
environment, the first evaluation never ends: it waits until its worker is gone (killed), so a
test can kill a worker that certainly holds a running trial."""
import json
import math
import os
import sys
import time

delay = float(sys.argv[sys.argv.index("--delay") + 1]) if "--delay" in sys.argv else 0.0
parent = os.getppid()
for line in sys.stdin:
    while os.environ.get("OBJECTIVE_HOLD") == "1" and os.getppid() == parent:
        time.sleep(0.05)
    if os.getppid() != parent:
        sys.exit(0)
    time.sleep(delay)
    x = json.loads(line)["x"]
    lr, layers, activation, extra = x[0], int(x[1]), int(x[2]), x[3]
    if extra > 0.85 or (lr > 0.01 and layers == 4):
        print(json.dumps({"error": "diverged: loss is NaN"}), flush=True)
        continue
    loss = 0.05 + (math.log10(lr) + 3.0) ** 2 / 4 + 0.03 * abs(layers - 2) + 0.02 * activation + 0.1 * (extra - 0.3) ** 2
    print(json.dumps({"y": loss}), flush=True)
