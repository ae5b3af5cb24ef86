# optimist -- user-facing targets: demo, test, build, deps, python-install, asan, fuzz, tsan, bench,
# clean. docs/reliability.md describes the sanitizer, fuzzing and CI targets.
BUILD_DIR      ?= build
ASAN_DIR       ?= build-asan
TSAN_DIR       ?= build-tsan
JOBS           ?= $(shell nproc)
WERROR         ?= OFF
# The sanitizer builds: clang (libFuzzer needs it), -O1, line tables for the reports; the library,
# the CLI, the C++ tests and the fuzz targets, not the benchmarks or the example. The ASan build
# also builds the Python extension (its tests preload the sanitizer runtime into Debian's python3);
# the TSan build does not (docs/reliability.md, "What CI runs").
SAN_CXX        ?= clang++
SAN_FLAGS      := -DCMAKE_CXX_COMPILER=$(SAN_CXX) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
                  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DOPTIMIST_BUILD_BENCHMARKS=OFF \
                  -DOPTIMIST_BUILD_EXAMPLES=OFF -DOPTIMIST_WERROR=$(WERROR)
# make fuzz: seconds per target, the targets, and libFuzzer's limits (a slower input is a hang, a
# larger one unbounded memory).
FUZZ_SECONDS   ?= 60
FUZZ_TARGETS   ?= config space trace answer options storage_url http ask_tell trace_view
FUZZ_ARGS      ?=
FUZZ_JOBS      ?= $(JOBS)
# make tsan: the tests of the concurrent parts (studies, workers, parallel runs, the dashboard).
TSAN_TESTS     ?= Stud|Worker|Reliability|Parallel|Jobs|Runner|Sweep|Dashboard|Concurren|Fault
DEMO_ALGORITHM ?= go-ucb
DEMO_BUDGET    ?= 72
BENCH_ARGS     ?=
PRESET         ?=
SEEDS          ?=

.DEFAULT_GOAL := build
.PHONY: demo test build deps python-install asan asan-build asan-test fuzz tsan bench bench-preset clean

# Installs the missing Debian packages (needs root or sudo only when something is missing).
deps:
	bash scripts/install-deps.sh

# Release build of the library, the CLI ($(BUILD_DIR)/optimist), tests and benchmarks.
build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DOPTIMIST_WERROR=$(WERROR)
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
	rm -f results/demo-trace.jsonl  # the demo starts over (optimist keeps an unfinished trace otherwise)
	./$(BUILD_DIR)/optimist run --problem styblinski_tang --dim 20 --algorithm $(DEMO_ALGORITHM) \
	  --budget $(DEMO_BUDGET) --seed 1 --noise 0.01 --out results/demo-trace.jsonl
	@if [ -d $(BUILD_DIR)/python/optimist ]; then cd results && rm -f quickstart-trace.jsonl && /usr/bin/python3 ../python/examples/quickstart.py; fi

# The sanitizer build in $(ASAN_DIR)/: AddressSanitizer + UndefinedBehaviorSanitizer, and the
# libFuzzer programs (the code is instrumented for them too).
asan-build: deps
	cmake -S . -B $(ASAN_DIR) $(SAN_FLAGS) -DOPTIMIST_BUILD_PYTHON=ON -DOPTIMIST_SANITIZE=ON -DOPTIMIST_FUZZ=ON
	cmake --build $(ASAN_DIR) -j$(JOBS)

# The C++ test suite (unit, study, fault and fuzz-replay tests; PostgreSQL included) under
# ASan + UBSan, but for ASAN_SKIP: optimization-outcome tests that take 8-105 s each under ASan -O1
# (1-6 s in Release, where they run) and whose code paths the structural and conformance tests
# cover under the sanitizers (docs/reliability.md, "What CI runs").
ASAN_SKIP      ?= ^(GoUcb\.StallRuleLeavesAStalledRegionAndStaysReplayable|GoUcb\.RealizableTwentyDimensionalTaskBeatsRandomSearch|FiniteSpaceRun\.BaselinesAndTreesNeverNeedTheSafetyNet|TurboM\.FindsHartmann6sOptimum|Turbo\.ImprovesOnASmoothProblem|TreeNoisy\.SequOOLsDefaultsAverageNoiseAndKeepTheDeterministicRate|TreeStroquOOL\.NoisyErrorFallsWithBudgetAndWithNoise|Bbkb\.RegretCloseToBkbOnGpSample|Bkb\.RegretWithinOneAndAHalfOfExactGpUcbOnGpSample|BkbIncremental\.SketchedRegretMatchesExactGpUcbAndBeatsRandomOnGpSamples|GoUcb\.AdditiveModelFindsTheOptimumOfASeparableTask|GpBo\.EiSolvesBraninInFortyEvaluations|GpScaling\.CappedGpEiStillSolvesBraninAndHoldsAtMostTheCapPlusNewPoints|GpBo\.HalfRankWarpSolvesBraninWithCatastrophicValues|GpBo\.ADiagonalRidgeGetsARotatedFrameAndItsPeak|GoUcb\.StallRuleLeavesARidgeOnADiscreteSpace|GpBo\.OnAPlateauFaceStepsFarFromEveryFindingBecomeDesignPoints|GoUcb\.PhaseOneCoversEveryChoiceOfACategorical|GpBo\.MatchedCategoricalDistanceSolvesABinaryQuadraticProgram|GpBo\.PisDefaultThresholdFindsHartmann6sOptimumWhereGreedyPiDoesNot)$$
asan: asan-build
	$(MAKE) asan-test

# The sanitizer suite alone, on an existing $(ASAN_DIR)/ (.ci/run builds it while the Release tests run).
asan-test:
	ctest --test-dir $(ASAN_DIR) --output-on-failure -j2 -E "$(ASAN_SKIP)"

# Each fuzz target for FUZZ_SECONDS from its committed corpus, FUZZ_JOBS at a time (scripts/fuzz.sh:
# where new inputs, crashes and logs go). A crash, a sanitizer report, an input slower than 10 s or
# above 2 GB fails.
fuzz: asan-build
	bash scripts/fuzz.sh $(ASAN_DIR) $(FUZZ_SECONDS) $(FUZZ_JOBS) "$(FUZZ_TARGETS)" $(FUZZ_ARGS)

# The concurrent parts under ThreadSanitizer (studies, workers, parallel evaluation, the dashboard
# server), in $(TSAN_DIR)/.
tsan: deps
	cmake -S . -B $(TSAN_DIR) $(SAN_FLAGS) -DOPTIMIST_BUILD_PYTHON=OFF -DOPTIMIST_TSAN=ON
	cmake --build $(TSAN_DIR) -j$(JOBS) --target optimist_cli optimist_tests optimist_study_tests optimist_test_postgres
	ctest --test-dir $(TSAN_DIR) --output-on-failure -j2 -R "$(TSAN_TESTS)" -E "fuzz_replay"

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
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) build-debug
