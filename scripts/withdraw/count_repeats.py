import optuna, sys
from optuna.trial import TrialState
s = optuna.load_study(study_name="o3", storage=sys.argv[1])
seen, dups, ours = set(), 0, 0
for t in sorted(s.trials, key=lambda t: t.number):
    if t.state == TrialState.COMPLETE:
        p = (t.params.get("a"), t.params.get("b"))
        if p in seen:
            dups += 1
            ours += "optimist:asked" in t.system_attrs
        seen.add(p)
print(f"{dups}/{ours}")
