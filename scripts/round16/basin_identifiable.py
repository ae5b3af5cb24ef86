#!/usr/bin/python3
"""Can the first k points tell which basin each coordinate should be in? (sixteenth round)
basin_identifiable.py OUT LABEL [k]: fits the right additive family, a quartic per coordinate
(81 parameters, ridge), to a trace's first k evaluations, and for the incumbent after k asks, per
coordinate, whether moving it to the other basin's minimum (x_i -> -x_i, the mirror) is predicted to
gain. Prints how often the prediction is right for coordinates in the wrong basin (x_i > 0) and
in the right one."""
import json, sys, pathlib
import numpy as np
root = pathlib.Path(sys.argv[1]); lab = sys.argv[2]; k = int(sys.argv[3]) if len(sys.argv) > 3 else 24
def feats(X):
    u = X / 5.0
    return np.hstack([u, u ** 2, u ** 3, u ** 4, np.ones((len(X), 1))])
def fits(lam):
    """Per run: the first k points, the quartic family's ridge fit to them, and the incumbent."""
    for p in (root / "traces" / "styblinski_tang" / lab).glob("seed-*.jsonl"):
        ev = [json.loads(l) for l in p.read_text().splitlines()[1:] if l.startswith('{"i"')]
        X = np.array([e["x"] for e in ev])[:k]; y = np.array([e["y"] for e in ev])[:k]
        ys = (y - y.mean()) / y.std()
        F = feats(X); w = np.linalg.solve(F.T @ F + lam * np.eye(F.shape[1]), F.T @ ys)
        yield X, w, X[np.argmax(y)], X.shape[1]
for lam in (1e-3, 1e-1, 1.0):
    tp = fn = fp = tn = 0; gain_if_followed = []
    for X, w, inc, d in fits(lam):
        def g(i, t):
            u = t / 5.0
            return w[i] * u + w[d + i] * u ** 2 + w[2 * d + i] * u ** 3 + w[3 * d + i] * u ** 4
        h = lambda t: 0.5 * (t ** 4 - 16 * t ** 2 + 5 * t)
        for i in range(d):
            target = -2.9035 if inc[i] > 0 else 2.7468
            pred = g(i, target) > g(i, inc[i])   # model (maximizing -f) says the move gains
            true = h(target) < h(inc[i])
            tp += pred and true; fp += pred and not true; fn += (not pred) and true; tn += (not pred) and not true
            if pred: gain_if_followed.append(h(inc[i]) - h(target))
    print(f"{lab} first {k}, ridge {lam}: flips predicted to gain {tp + fp} (right {tp}, wrong {fp}); "
          f"missed {fn}, correctly kept {tn}; mean true gain of a predicted flip {np.mean(gain_if_followed):+.1f}")

# The coordinate jump under this family: per seed, the coordinate whose model-argmax over [-5, 5]
# predicts the largest gain; the true gain of moving it there.
grid = np.linspace(-5, 5, 201)
for lam in (1e-3, 1e-1, 1.0):
    gains = []
    for X, w, inc, d in fits(lam):
        G = lambda i, t: w[i] * t / 5 + w[d + i] * (t / 5) ** 2 + w[2 * d + i] * (t / 5) ** 3 + w[3 * d + i] * (t / 5) ** 4
        best = max(((G(i, grid).max() - G(i, inc[i]), i, grid[np.argmax(G(i, grid))]) for i in range(d)))
        h = lambda t: 0.5 * (t ** 4 - 16 * t ** 2 + 5 * t)
        gains.append(h(inc[best[1]]) - h(best[2]))
    gains = np.array(gains)
    print(f"  best single-coordinate jump, ridge {lam}: true gain {gains.mean():+.1f} (positive on {(gains > 0).sum()} of {len(gains)})")
