import json, glob, sys, numpy as np, math, sim
budget = int(sys.argv[1]); methods = sys.argv[2].split(","); ref = methods[0]
def load(m):
    out = {}
    for fn in glob.glob(f"results/{m}-b{budget}-s*.json"):
        s = int(fn.split("-s")[-1][:-5]); out[s] = json.load(open(fn))
    return out
R = {m: load(m) for m in methods}
print(f"budget {budget}; best chi^2 (truth = 84.6); paired diff in log10(best) vs {ref}: mean +- 95% t-CI, wins of {ref}")
print("| method | seeds | median best chi2 | mean log10 best | runs < 200 | |Ea1 err| median | mean fails | vs %s |" % ref)
print("|---|---|---|---|---|---|---|---|")
from scipy import stats
for m in methods:
    d = R[m]; ss = sorted(d)
    b = np.array([d[s]["best"] for s in ss]); lb = np.log10(b)
    ea = np.median([abs(d[s]["x"]["Ea1"] - 70) for s in ss])
    fails = np.mean([d[s]["nfail"] for s in ss])
    common = [s for s in ss if s in R[ref]]
    diff = np.array([math.log10(R[ref][s]["best"]) - math.log10(d[s]["best"]) for s in common])
    if m != ref and len(diff) > 1:
        h = stats.t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / math.sqrt(len(diff))
        cmp = f"{diff.mean():+.2f} +- {h:.2f} ({int((diff<0).sum())}/{len(diff)})"
    else: cmp = ""
    print(f"| {m} | {len(ss)} | {np.median(b):.4g} | {lb.mean():.2f} | {(b<200).sum()} | {ea:.1f} | {fails:.1f} | {cmp} |")
