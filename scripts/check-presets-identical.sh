#!/usr/bin/env bash
# Behaviour check for refactors: runs bench presets at a base commit (in a temporary worktree) and
# with this checkout's build, and compares every trace line by line, ignoring the wall-clock fields
# (scripts/compare_traces.py). Exit 0 when every trace matches.
#
#   scripts/check-presets-identical.sh BASE_COMMIT [PRESET...]
#
# PRESET defaults to goucb-synthetic tree-deterministic bkb-scaling. The base side is built once per
# commit and its traces are cached under $OPTIMIST_CHECK_CACHE (default /tmp/optimist-preset-check),
# so re-running after each refactor step only re-runs this checkout. This checkout is built in
# $BUILD_DIR (default: build). Runs use --jobs ${JOBS:-2} under `nice -n 10`. BASE_ONLY=1 stops
# after the base side (to prepare the cache). IGNORE_OPTIONS="a b" passes --ignore-option for each
# (options a change added, or whose default became "auto"; compare_traces.py).
set -euo pipefail

if [[ $# -lt 1 ]]; then
  sed -n '2,12p' "$0"
  exit 2
fi
repo=$(git rev-parse --show-toplevel)
base=$(git -C "$repo" rev-parse --verify "$1^{commit}")
shift
presets=("$@")
[[ ${#presets[@]} -gt 0 ]] || presets=(goucb-synthetic tree-deterministic bkb-scaling)
cache=${OPTIMIST_CHECK_CACHE:-/tmp/optimist-preset-check}
jobs=${JOBS:-2}
build_dir=${BUILD_DIR:-$repo/build}
python=/usr/bin/python3

build_cli() {  # source dir, build dir (configured only when new: an existing build keeps its settings)
  if [[ ! -f "$2/CMakeCache.txt" ]]; then
    cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DOPTIMIST_BUILD_TESTS=OFF -DOPTIMIST_BUILD_BENCHMARKS=OFF \
          -DOPTIMIST_BUILD_EXAMPLES=OFF >/dev/null
  fi
  nice -n 10 cmake --build "$2" -j2 --target optimist_cli >/dev/null
}

run_presets() {  # cli, out root
  for p in "${presets[@]}"; do
    if [[ -f "$2/$p/summary.json" ]]; then continue; fi
    echo "  running $p -> $2/$p"
    nice -n 10 "$1" bench --preset "$p" --out "$2/$p" --jobs "$jobs" --no-plot --quiet >/dev/null
  done
}

base_root="$cache/$base"
mkdir -p "$base_root"
if [[ ! -x "$base_root/optimist" ]]; then
  echo "building the base $base"
  tree=$(mktemp -d /tmp/optimist-base-XXXXXX)
  git -C "$repo" worktree add --detach "$tree/src" "$base" >/dev/null
  build_cli "$tree/src" "$tree/build"
  cp "$tree/build/optimist" "$base_root/optimist"
  git -C "$repo" worktree remove --force "$tree/src"
  rm -rf "$tree"
fi
echo "base $base:"
run_presets "$base_root/optimist" "$base_root/out"
if [[ -n ${BASE_ONLY:-} ]]; then exit 0; fi

echo "this checkout ($(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD || echo ', with uncommitted changes')):"
build_cli "$repo" "$build_dir"
head_root=$(mktemp -d /tmp/optimist-head-XXXXXX)
cp "$build_dir/optimist" "$head_root/optimist"  # a copy: rebuilding the checkout meanwhile changes nothing
run_presets "$head_root/optimist" "$head_root"

status=0
for p in "${presets[@]}"; do
  ignore=()
  for o in ${IGNORE_OPTIONS:-}; do ignore+=(--ignore-option "$o"); done
  "$python" "$repo/scripts/compare_traces.py" "$base_root/out/$p/traces" "$head_root/$p/traces" --label "$p" "${ignore[@]}" || status=1
done
if [[ $status -eq 0 ]]; then rm -rf "$head_root"; else echo "traces of this checkout kept in $head_root"; fi
exit $status
