"""The quick start of docs/python.md: tune three hyperparameters of a toy "training run".

Run with Debian's interpreter from any folder once the package is installed (make demo):
    /usr/bin/python3 python/examples/quickstart.py
"""
import math

import optimist


def validation_loss(p):
    """A stand-in for training a model: best near lr = 3e-3, 3 layers, tanh."""
    return (math.log10(p["lr"]) + 2.5) ** 2 + 0.1 * (p["layers"] - 3) ** 2 + (0.0 if p["activation"] == "tanh" else 0.3)


space = {
    "lr": optimist.Float(1e-5, 1e-1, log=True),
    "layers": optimist.Int(1, 6),
    "activation": optimist.Categorical(["relu", "tanh", "gelu"]),
}
res = optimist.minimize(validation_loss, space, algorithm="gp-ei", budget=30, seed=0, trace="quickstart-trace.jsonl")
print(f"best loss {res.fun:.4g} at {res.x}")
print(f"{res.nfev} evaluations in {res.timings['total_s']:.2f} s; trace: {res.trace}")
