// Study overhead (docs/studies.md, "Performance"): per-trial cost of ask + heartbeat + tell with
// random search and no objective, on SQLite and PostgreSQL, after 0, 1000 and 4000 trials (flat:
// no replay per ask); gp-ei's ask + tell in a 500-trial study vs in memory.
// PostgreSQL runs when OPTIMIST_BENCH_POSTGRES is a server URL whose database may be written to,
// e.g. one started by `build/tests/optimist_test_postgres start /tmp/pg.txt` (docs/studies.md).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "optimist/core/registry.hpp"
#include "optimist/problems/problem.hpp"
#include "optimist/study/study.hpp"

namespace {

using namespace optimist;

std::string bench_url(const std::string& backend) {
  if (backend == "postgresql") {
    const char* url = std::getenv("OPTIMIST_BENCH_POSTGRES");
    return url ? url : "";
  }
  static const auto dir = std::filesystem::temp_directory_path() / ("optimist-bench-study-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return "sqlite:///" + (dir / "bench.db").string();
}

StudyConfig config(const std::string& algorithm) {
  static int counter = 0;
  const Problem p = make_problem("branin");
  StudyConfig c;
  c.name = "bench-" + algorithm + "-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
  c.space = p.space;
  c.direction = p.direction;
  c.algorithm = algorithm;
  return c;
}

StudyOptions quiet_options() {
  StudyOptions o;
  o.heartbeat_thread = false;  // heartbeat() is called in the timed loop instead
  return o;
}

void trial_overhead(benchmark::State& state, const std::string& backend) {
  const std::string url = bench_url(backend);
  if (url.empty()) {
    state.SkipWithError("set OPTIMIST_BENCH_POSTGRES to a PostgreSQL URL");
    return;
  }
  Study study = Study::create(url, config("random"), quiet_options());
  for (std::int64_t k = 0; k < state.range(0); ++k) study.tell(*study.ask(), 1.0);
  for (auto _ : state) {
    const auto t = study.ask();
    study.heartbeat();
    study.tell(*t, 1.0);
  }
  state.counters["trials_at_start"] = static_cast<double>(state.range(0));
  Storage(url).delete_study(study.name());
}

void gp_ei_cycle(benchmark::State& state, bool in_study) {
  const std::size_t n = 500;
  const Problem p = make_problem("branin");
  Rng rng(1);
  std::vector<Vector> xs;
  for (std::size_t k = 0; k < n; ++k) xs.push_back(p.space.to_user(rng.uniform_vector(2)));
  if (!in_study) {
    auto opt = make_optimizer({{"name", "gp-ei"}, {"seed", 0}}, p.space, p.direction);
    for (const auto& x : xs) opt->tell(x, p.f(x));
    for (auto _ : state) {
      const Trial t = opt->ask();
      opt->tell(t, p.f(t.x));
    }
    return;
  }
  const std::string url = bench_url("sqlite");
  Study study = Study::create(url, config("gp-ei"), quiet_options());
  for (const auto& x : xs) study.add(x, p.f(x));
  study.recommend();  // the first sync: 500 tells, as the in-memory optimizer had before its loop
  for (auto _ : state) {
    const auto t = study.ask();
    study.tell(*t, p.f(t->x));
  }
  Storage(url).delete_study(study.name());
}

}  // namespace

BENCHMARK_CAPTURE(trial_overhead, sqlite, std::string("sqlite"))->Arg(0)->Arg(1000)->Arg(4000)->Iterations(500)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(trial_overhead, postgresql, std::string("postgresql"))->Arg(0)->Arg(1000)->Arg(4000)->Iterations(500)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gp_ei_cycle, in_memory_500, false)->Iterations(5)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gp_ei_cycle, sqlite_study_500, true)->Iterations(5)->Unit(benchmark::kMillisecond);
