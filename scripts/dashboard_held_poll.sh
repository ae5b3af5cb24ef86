#!/bin/bash
# What one poll of the dashboard costs behind a trial held open: `study ask` holds trial 0, a worker
# adds 20,000 trials (random search, rastrigin 30-D), then curl asks as the page does (after its
# last trial, naming the open one) and as it did before stop 67 (after its last settled trial: from
# the start, in pages of 5,000). The server's --log gives each request's time. From the repository
# root: bash scripts/dashboard_held_poll.sh
set -e; O=${OPTIMIST:-build/optimist}; D=$(mktemp -d); U=sqlite:///$D/s.db
$O study create --storage $U --name s --problem rastrigin --dim 30 --algorithm random --budget 30000 >/dev/null
$O study ask --storage $U --name s --format json >/dev/null
$O worker --storage $U --name s -q --budget 20000 2>/dev/null
$O dashboard --storage $U --port 18097 --log 2> $D/log & P=$!; sleep 1
curl -s -o /dev/null "http://127.0.0.1:18097/api/trials?study=s&limit=100000"   # the first load
for k in 1 2 3; do
  curl -s -o /dev/null -w "new poll (after=20000&include=0): %{size_download} B\n" "http://127.0.0.1:18097/api/trials?study=s&limit=5000&after=20000&include=0"
done
for k in 1 2 3; do
  curl -s -o /dev/null -w "old poll (after nothing settled: first page of 5000): %{size_download} B\n" "http://127.0.0.1:18097/api/trials?study=s&limit=5000"
done
sleep 0.5; grep -o "GET /api/trials[^ ]* 200 [0-9]* B app;dur=[0-9.]*" $D/log | tail -6
kill $P; wait $P 2>/dev/null || true
rm -rf "$D"
