#!/bin/bash
# Stop 68's held-out check of `auto` (docs/robust.md): six scikit-learn tasks the defaults were not
# chosen on, auto against random search and Optuna's TPE, seeds 0-9, budgets 30 and 50, one process
# at a time. From a scratch folder: bash /path/to/scripts/heldout_real3/run_all.sh /path/to/build/python
# (~12 min on 2 cores; results/ and cache/ go to the current folder; then analyze.py prints the tables).
here=$(cd "$(dirname "$0")" && pwd)
for t in pick_wine pick_wine_conditional kridge_diabetes et_breast_cancer svc_digits gbm_wine mlp_digits; do
  PYTHONPATH=${1:-build/python} nice -n 10 /usr/bin/python3 "$here/run_task.py" $t 10 30,50
done
