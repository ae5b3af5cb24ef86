# optimist -- user-facing targets: demo, test, build, deps, python-install, asan, bench, clean.
BUILD_DIR      ?= build
ASAN_DIR       ?= build-asan
JOBS           ?= $(shell nproc)
DEMO_ALGORITHM ?= go-ucb
DEMO_BUDGET    ?= 72
BENCH_ARGS     ?=
PRESET         ?=
SEEDS          ?=

.DEFAULT_GOAL := build
.PHONY: demo test build deps python-install asan bench bench-preset clean

# Installs the missing Debian packages (needs root or sudo only when something is missing).
deps:
	bash scripts/install-deps.sh

# Release build of the library, the CLI ($(BUILD_DIR)/optimist), tests and benchmarks.
build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD_DIR) -j$(JOBS)

# Installs the Python package (built when pybind11 is found) for /usr/bin/python3, into its own
# platlib (/usr/local/lib/python3.11/dist-packages): `import optimist` then works from any folder.
python-install: build
	@if [ -d $(BUILD_DIR)/python/optimist ]; then \
	  cmake --install $(BUILD_DIR) --component python || sudo cmake --install $(BUILD_DIR) --component python; \
	else echo "python-install: the Python package was not built (pybind11 or python3-dev missing)"; fi

# Runs the test suite; the last line printed is ctest's summary.
test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j2

# One optimization run of a noisy 20-dimensional problem; the trace goes to results/.
# Then the Python quick start, run from results/ by the installed package.
demo: build python-install
	mkdir -p results
	./$(BUILD_DIR)/optimist run --problem styblinski_tang --dim 20 --algorithm $(DEMO_ALGORITHM) \
	  --budget $(DEMO_BUDGET) --seed 1 --noise 0.01 --out results/demo-trace.jsonl
	@if [ -d $(BUILD_DIR)/python/optimist ]; then cd results && /usr/bin/python3 ../python/examples/quickstart.py; fi

# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer, in $(ASAN_DIR)/.
asan: deps
	cmake -S . -B $(ASAN_DIR) -DOPTIMIST_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(ASAN_DIR) -j$(JOBS)
	ctest --test-dir $(ASAN_DIR) --output-on-failure -j2

# Runs every benchmark program built into $(BUILD_DIR)/bench/, e.g.
# make bench BENCH_ARGS=--benchmark_filter=GP
bench: build
	@found=0; for b in $(BUILD_DIR)/bench/*; do \
	  if [ -f "$$b" ] && [ -x "$$b" ]; then found=1; echo "== $$b"; "$$b" $(BENCH_ARGS) || exit 1; fi; \
	done; [ $$found = 1 ] || echo "bench: no benchmark programs in $(BUILD_DIR)/bench/"

# Runs an `optimist bench` preset into results/<preset>/ (resumable), e.g.
# make bench-preset PRESET=tree-deterministic SEEDS=3
bench-preset: build
	@[ -n "$(PRESET)" ] || { echo "usage: make bench-preset PRESET=<name> [SEEDS=K] [JOBS=J]"; \
	  ./$(BUILD_DIR)/optimist bench --list-presets; exit 2; }
	./$(BUILD_DIR)/optimist bench --preset $(PRESET) --out results/$(PRESET) --jobs $(JOBS) \
	  $(if $(SEEDS),--seeds $(SEEDS))

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) build-debug
