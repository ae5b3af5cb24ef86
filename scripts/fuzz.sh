#!/usr/bin/env bash
# Runs each libFuzzer target of a sanitizer build from its committed corpus (make fuzz; docs/reliability.md,
# "Fuzzing"), FUZZ_JOBS targets at a time. New inputs go to <asan_dir>/fuzz/corpus/<target>/, a crash to
# <asan_dir>/fuzz/crash-<target>-*, the output to <asan_dir>/fuzz/<target>.log. A crash, a sanitizer
# report, an input slower than 10 s or above 2 GB fails the target; any failed target fails the script.
#
# usage: scripts/fuzz.sh <asan_dir> <seconds> <jobs> "<target> ..." [extra libFuzzer arguments]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
asan_dir=$1 seconds=$2 jobs=$3 targets=$4
shift 4
extra=("$@")

run_one() {
  local t=$1 max_len=4096
  case $t in trace|trace_view|config|space|http) max_len=16384;; storage_url) max_len=1024;; esac
  local dict=()
  [[ -f fuzz/dict/$t.dict ]] && dict=(-dict=fuzz/dict/$t.dict)
  mkdir -p "$asan_dir/fuzz/corpus/$t"
  if ! "$asan_dir/fuzz/fuzz_$t" "$asan_dir/fuzz/corpus/$t" "fuzz/corpus/$t" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -max_len=$max_len "${dict[@]}" \
      -artifact_prefix="$asan_dir/fuzz/crash-$t-" -print_final_stats=1 "${extra[@]}" \
      2> "$asan_dir/fuzz/$t.log"; then
    tail -60 "$asan_dir/fuzz/$t.log"
    echo "fuzz_$t failed: see $asan_dir/fuzz/$t.log"
    return 1
  fi
  echo "== fuzz_$t: $seconds s," \
    "$(grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$asan_dir/fuzz/$t.log" | tr '\n' ' ')"
}

failed=0
running=0
for t in $targets; do
  run_one "$t" &
  running=$((running + 1))
  if (( running >= jobs )); then
    wait -n || failed=1
    running=$((running - 1))
  fi
done
while (( running > 0 )); do
  wait -n || failed=1
  running=$((running - 1))
done
exit $failed
