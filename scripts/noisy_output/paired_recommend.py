import json, sys, glob, os, math
out = sys.argv[1]; a, b = sys.argv[2], sys.argv[3]
for prob in sorted(os.listdir(f"{out}/traces")):
    def rec(label):
        r = {}
        for f in glob.glob(f"{out}/traces/{prob}/{label}/*.jsonl"):
            for line in open(f):
                j = json.loads(line)
                if "recommend" in j: r[os.path.basename(f)] = j["recommend"]["simple_regret"]
        return r
    ra, rb = rec(a), rec(b)
    d = [rb[k] - ra[k] for k in ra if k in rb]
    n = len(d); m = sum(d)/n; sd = (sum((x-m)**2 for x in d)/(n-1))**.5
    print(f"{prob:18s} n={n} {b} minus {a}: {m:+.4g} +- {1.96*sd/math.sqrt(n):.3g}  lower on {sum(x<0 for x in d)}, higher on {sum(x>0 for x in d)}  worst {max(d):+.3g}")
