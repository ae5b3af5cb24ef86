#!/usr/bin/env bash
# Throughput of a study: W worker processes, each evaluating N trials of an objective program that
# sleeps S seconds (default 0.2), on storage URL. Prints the wall time and evaluations per second.
#   bench/study_throughput.sh build/optimist sqlite:////tmp/tp.db 8 16
# (docs/studies.md, "Performance", pairs 8 workers with 1 under farm-bench.)
set -euo pipefail
optimist=$(realpath "$1") url=$2 workers=$3 per_worker=$4 sleep_s=${5:-0.2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/obj.py" <<PY
import json, sys, time
for line in sys.stdin:
    x = json.loads(line)['x']
    time.sleep($sleep_s)
    print(json.dumps({'y': sum((v - 0.3) ** 2 for v in x)}), flush=True)
PY
echo '{"parameters": [{"name": "a", "type": "continuous", "lower": 0, "upper": 1}, {"name": "b", "type": "continuous", "lower": 0, "upper": 1}]}' > "$dir/space.json"
name="tp-$$-$RANDOM"
(cd "$dir" && "$optimist" study create --storage "$url" --name "$name" --objective-command "/usr/bin/python3 $dir/obj.py" \
  --space space.json --direction minimize --algorithm random --budget $((workers * per_worker)) > /dev/null)
start=$(date +%s.%N)
# --trust-command: a worker runs the study's stored command only when told to (docs/security.md);
# without it every worker exited 2 at once and the script printed a rate of nothing (stop 60).
pids=()
for ((w = 0; w < workers; ++w)); do
  "$optimist" worker --storage "$url" --name "$name" --trust-command -q > /dev/null 2> "$dir/worker-$w.err" &
  pids+=($!)
done
failed=0
for ((w = 0; w < workers; ++w)); do
  if ! wait "${pids[$w]}"; then
    echo "worker $w failed:" >&2
    cat "$dir/worker-$w.err" >&2
    failed=1
  fi
done
end=$(date +%s.%N)
"$optimist" study export --storage "$url" --name "$name" --out "$dir/export.jsonl" > /dev/null
told=$(/usr/bin/python3 -c 'import json, sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l).get("status") == "ok"))' "$dir/export.jsonl")
"$optimist" study delete --storage "$url" --name "$name" > /dev/null
if ((failed)) || ((told != workers * per_worker)); then
  echo "study_throughput: $told of $((workers * per_worker)) trials told; no rate" >&2
  exit 1
fi
python3 -c "t = $end - $start; n = $workers * $per_worker; print(f'{n} evaluations by $workers workers in {t:.2f} s: {n / t:.2f} evaluations/s')"
