#!/usr/bin/env bash
# Installs the Debian (bookworm) packages optimist needs to build and test -- only the missing ones
# -- and the dashboard's browser libraries from npm (web/package-lock.json, into web/node_modules).
# Fast and silent apart from one line each when everything is already there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(
  # build and C++ dependencies
  build-essential cmake pkg-config ccache libeigen3-dev liblbfgspp-dev nlohmann-json3-dev
  # LAPACK/BLAS for the GP's large matrices (the single-threaded OpenBLAS)
  libopenblas-serial-dev
  libcli11-dev libtomlplusplus-dev libboost-dev libgtest-dev libgmock-dev libbenchmark-dev
  # studies: SQLite (embedded) and PostgreSQL (client library; the server for the tests)
  libsqlite3-dev libpqxx-dev postgresql-15
  # dashboard: HTTP server (its chart library, Apache ECharts, comes from npm: see the end)
  libcpp-httplib-dev zlib1g-dev
  # Python package (for Debian's /usr/bin/python3), its tests and the Optuna/Dask integrations
  python3-dev pybind11-dev python3-numpy python3-pytest python3-pandas python3-optuna python3-distributed
  # figures, the hyperparameter-tuning problems' classifiers
  python3-matplotlib python3-sklearn
  # browser tests of the dashboard
  chromium chromium-driver python3-selenium
  # fuzzing and sanitizers (clang's libFuzzer and runtimes)
  clang libfuzzer-14-dev libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" == "install ok installed" ]] || missing+=("$p")
done
# npm, for the dashboard's browser libraries: Debian's when the machine has none of its own.
command -v npm >/dev/null 2>&1 || missing+=(npm)

# The dashboard's chart library, at the version web/package-lock.json pins (npm ci checks its
# integrity hash); skipped while web/node_modules is newer than the lock file.
install_web() {
  local web="$root/web"
  if [[ -f "$web/node_modules/.package-lock.json" && "$web/node_modules/.package-lock.json" -nt "$web/package-lock.json" ]]; then
    echo "install-deps: web libraries are installed (web/node_modules)"
    return
  fi
  echo "install-deps: installing web libraries (npm ci in web/)"
  (cd "$web" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
}

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages are installed"
  install_web
  exit 0
fi

if ((EUID == 0)); then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: not root and sudo is not available; as root run:" >&2
  echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

# OpenBLAS's packages make themselves the system's BLAS and LAPACK (update-alternatives, priority
# 90). That would change numpy's and so scikit-learn's arithmetic, and with it the values of the
# hpo and robust tasks (docs/gp-bo.md, "Stop 51"). optimist links OpenBLAS by its own path and
# needs none of it, so the selections stay what they were (Debian's reference BLAS and LAPACK on a
# machine that had no other).
arch="$(uname -m)-linux-gnu"
blas_alternatives=("libblas.so.3-$arch" "liblapack.so.3-$arch")
declare -A blas_before=()
for name in "${blas_alternatives[@]}"; do
  blas_before[$name]="$(update-alternatives --query "$name" 2>/dev/null | awk '/^Value:/ {print $2}')"
done
keep_blas_selection() {
  local name old reference
  for name in "${blas_alternatives[@]}"; do
    old="${blas_before[$name]}"
    case "$name" in
      libblas*) reference="/usr/lib/$arch/blas/libblas.so.3" ;;
      *) reference="/usr/lib/$arch/lapack/liblapack.so.3" ;;
    esac
    [[ -z "$old" ]] && old="$reference"
    [[ "$old" == *openblas* || ! -e "$old" ]] && continue
    if [[ "$(update-alternatives --query "$name" 2>/dev/null | awk '/^Value:/ {print $2}')" != "$old" ]]; then
      echo "install-deps: keeping $old as the system's ${name%%-*}"
      "${as_root[@]}" update-alternatives --set "$name" "$old" >/dev/null
    fi
  done
}

echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
[[ " ${missing[*]} " == *" libopenblas-serial-dev "* ]] && keep_blas_selection
install_web
