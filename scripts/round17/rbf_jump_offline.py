#!/usr/bin/python3
"""Offline test of the sixteenth round's lead (seventeenth round): a family whose g_i do not rise
beyond the data. Per coordinate a row of Gaussian bumps (centres on a grid over [0, 1], width s),
additive, linear in its weights: Bayesian ridge regression on standardized y, so the bonus is the
exact posterior sd and decays to the prior beyond the data (g_i flat at 0 there). On a trace's
first K evaluations: the best one-coordinate move of the incumbent (outside a 0.1 trust region) by
mean gain - k sd of the gain, taken only when that is > 0; its TRUE gain on styblinski_tang.
rbf_jump_offline.py OUT LABEL [--data]   (--data: the moved coordinate takes only values it has
taken at evaluated points, instead of a grid of 101 values over [0, 1])"""
import json, sys, pathlib
import numpy as np
DATA = "--data" in sys.argv
argv = [a for a in sys.argv[1:] if a != "--data"]
root = pathlib.Path(argv[0]); lab = argv[1]
def h(x): return 0.5 * (x ** 4 - 16 * x ** 2 + 5 * x)
runs = []
for p in sorted((root / "traces" / "styblinski_tang" / lab).glob("seed-*.jsonl")):
    ev = [json.loads(l) for l in p.read_text().splitlines()[1:] if l.startswith('{"i"')]
    runs.append((np.array([e["x"] for e in ev]), np.array([e["y"] for e in ev])))
grid = np.linspace(0, 1, 101)
def run(K, nc, s, sw2, sn2, kk):
    gains = []; njump = 0; right = 0
    C = np.linspace(0, 1, nc)
    for X, y in runs:
        U = (X[:K] + 5) / 10; ys = (y[:K] - y[:K].mean()) / y[:K].std()
        d = U.shape[1]
        phi = lambda u: np.exp(-0.5 * ((u[..., None] - C) / s) ** 2)   # (..., nc)
        P = phi(U).reshape(K, d * nc)
        A = P.T @ P / sn2 + np.eye(d * nc) / (sw2 / d)
        S = np.linalg.inv(A); m = S @ P.T @ ys / sn2
        inc = U[int(np.argmax(y[:K]))]
        best = (0.0, None, None)
        for i in range(d):
            cand = U[:, i] if DATA else grid
            far = np.abs(cand - inc[i]) > 0.1
            D = phi(cand[far]) - phi(np.array([inc[i]]))         # (G, nc)
            Wi = m[i * nc:(i + 1) * nc]; Si = S[i * nc:(i + 1) * nc, i * nc:(i + 1) * nc]
            mu = D @ Wi; sd = np.sqrt(np.einsum('gk,kl,gl->g', D, Si, D))
            sc = mu - kk * sd
            j = int(np.argmax(sc))
            if sc[j] > best[0]: best = (sc[j], i, cand[far][j])
        if best[1] is not None:
            njump += 1
            xi = inc[best[1]] * 10 - 5; xn = best[2] * 10 - 5
            g = h(xi) - h(xn); gains.append(g); right += g > 0
    g = np.array(gains) if gains else np.zeros(1)
    return f"K {K} nc {nc} s {s} sw2 {sw2} sn2 {sn2} k {kk}: jumps {njump}/{len(runs)}, true gain {g.mean():+.1f} per jump, positive {right}"
for K in (9, 12, 16, 24, 32, 48):
    for nc, s in ((5, 0.25), (9, 0.125)):
        for kk in (0, 1, 2, 3):
            print(run(K, nc, s, 1.0, 0.01, kk))
