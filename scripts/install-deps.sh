#!/usr/bin/env bash
# Installs the Debian (bookworm) packages optimist needs to build and test -- only the missing ones.
# Fast and silent apart from one line when everything is already there.
set -euo pipefail

packages=(
  # build and C++ dependencies
  build-essential cmake pkg-config ccache libeigen3-dev liblbfgspp-dev nlohmann-json3-dev
  libcli11-dev libtomlplusplus-dev libboost-dev libgtest-dev libgmock-dev libbenchmark-dev
  # studies: SQLite (embedded) and PostgreSQL (client library; the server for the tests)
  libsqlite3-dev libpqxx-dev postgresql-15
  # dashboard: HTTP server and the chart library it serves locally
  libcpp-httplib-dev libjs-chart.js
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

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages are installed"
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

echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
