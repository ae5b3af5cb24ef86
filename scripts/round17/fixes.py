#!/usr/bin/python3
"""How do the steps of a window fix wrong-basin coordinates? (seventeenth round)
fixes.py OUT LABEL... [--from A --to B]   (1-based evaluation indices, default 9-24)

Per step t, incumbent = best observed y before t. A coordinate "crosses" when x_t,i and the
incumbent's x_i have opposite signs (the ridge of h is at x = 0.157, so sign is the basin up to
that); a crossing from x_i > 0 to < 0 is a fix, the other way a break. Accepted: the step became
the new incumbent. Prints per step: crossings proposed, fixes / breaks accepted, and for the
accepted fixes the incumbent's x_i before (how far into the wrong basin), the new x_i and the move
|dx_i| in unit-cube terms, the number of coordinates moved by more than 0.1, and the step length."""
import json, sys, pathlib
import numpy as np
args = sys.argv[1:]
lo, hi = 9, 24
if "--from" in args:
    k = args.index("--from"); lo = int(args[k + 1]); del args[k:k + 2]
if "--to" in args:
    k = args.index("--to"); hi = int(args[k + 1]); del args[k:k + 2]
root = pathlib.Path(args[0]); labels = args[1:]
def h(x): return 0.5 * (x ** 4 - 16 * x ** 2 + 5 * x)
for lab in labels:
    n_runs = 0; steps = 0; cross = 0; fix_acc = []; brk_acc = 0; acc = 0; big = []; lens = []
    wrong_start = []; wrong_end = []; near = []; fix_by_step = {}
    for p in sorted((root / "traces" / "styblinski_tang" / lab).glob("seed-*.jsonl")):
        ev = [json.loads(l) for l in p.read_text().splitlines()[1:] if l.startswith('{"i"')]
        X = np.array([e["x"] for e in ev]); y = np.array([e["y"] for e in ev])
        n_runs += 1
        wrong_start.append((X[int(np.argmax(y[:lo - 1]))] > 0).sum())
        inc0 = X[int(np.argmax(y[:lo - 1]))]
        near.append(((inc0 > 0) & (inc0 < 1.5)).sum())
        for t in range(lo - 1, min(hi, len(y))):
            b = int(np.argmax(y[:t])); inc = X[b]; x = X[t]
            steps += 1
            c = np.sign(x) != np.sign(inc); cross += c.sum()
            lens.append(np.linalg.norm(x - inc) / 10)
            big.append((np.abs(x - inc) / 10 > 0.1).sum())
            if y[t] > y[:t].max():
                acc += 1
                fx = np.where(c & (inc > 0))[0]; br = np.where(c & (inc < 0))[0]
                brk_acc += len(br)
                for i in fx:
                    fix_acc.append((inc[i], x[i], abs(x[i] - inc[i]) / 10, np.linalg.norm(x - inc) / 10, (np.abs(x - inc) / 10 > 0.1).sum(), t + 1))
                    fix_by_step[t + 1] = fix_by_step.get(t + 1, 0) + 1
        wrong_end.append((X[int(np.argmax(y[:hi]))] > 0).sum())
    F = np.array(fix_acc) if fix_acc else np.zeros((0, 6))
    print(f"{lab} steps {lo}-{hi}, {n_runs} runs: wrong at start {np.mean(wrong_start):.2f} (of them 0 < x < 1.5: {np.mean(near):.2f}), at end {np.mean(wrong_end):.2f}; "
          f"step length {np.mean(lens):.3f}, coords moved > 0.1 per step {np.mean(big):.2f}")
    print(f"   per run: crossings proposed {cross / n_runs:.1f}, accepted steps {acc / n_runs:.2f}, fixes accepted {len(F) / n_runs:.2f}, breaks accepted {brk_acc / n_runs:.2f}")
    if len(F):
        print(f"   accepted fixes: x_i before {np.median(F[:,0]):.2f} (median; quartiles {np.percentile(F[:,0],25):.2f}-{np.percentile(F[:,0],75):.2f}), after {np.median(F[:,1]):.2f} "
              f"({np.percentile(F[:,1],25):.2f}-{np.percentile(F[:,1],75):.2f}); move {np.median(F[:,2]):.3f} ({np.percentile(F[:,2],25):.3f}-{np.percentile(F[:,2],75):.3f}); "
              f"from deep wrong basin (x_i > 1.5): {(F[:,0] > 1.5).sum() / n_runs:.2f}/run; to deep right basin (x < -1.5): {(F[:,1] < -1.5).sum() / n_runs:.2f}/run; "
              f"step length {np.median(F[:,3]):.3f}, coords moved > 0.1 in that step {np.median(F[:,4]):.0f}")
        print("   fixes by step: " + " ".join(f"{k}:{v}" for k, v in sorted(fix_by_step.items())))
