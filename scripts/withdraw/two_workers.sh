#!/bin/bash
# usage: scripts/withdraw/two_workers.sh PYTHONPATH P_FAIL STUDIES -> per study: repeated points / of them from optimist's asks
# Two processes share one SQLite Optuna study (OptimistSampler gp-ei, a 10 x 10 grid, 25 trials each),
# a fraction P_FAIL of trials failing before they suggest (docs/python.md, the Optuna section).
export PYTHONPATH=$1
for r in $(seq 1 $3); do
  db=${TMPDIR:-/tmp}/two_workers_r$r.db; rm -f $db
  /usr/bin/python3 -c "import optuna; optuna.logging.set_verbosity(optuna.logging.WARNING); optuna.create_study(study_name='o3', storage='sqlite:///$db')"
  /usr/bin/python3 $(dirname $0)/two_workers.py sqlite:///$db $((2*r)) $2 2>/dev/null & /usr/bin/python3 $(dirname $0)/two_workers.py sqlite:///$db $((2*r+1)) $2 2>/dev/null; wait
  /usr/bin/python3 $(dirname $0)/count_repeats.py sqlite:///$db
done | tr '\n' ' '; echo
