// Server time of the dashboard's JSON API over a 10,000-trial trace of random search on
// hartmann6, as `optimist dashboard` answers the page (docs/dashboard.md):
//   DashboardFirstLoad        the page's first /api/trials pages (5,000 trials each): parse the
//                             trace, then serialize
//   DashboardAllTrials/5000   one page of 5,000 trials once the trace is read
//   DashboardIncremental      a poll: one new trial appended, then /api/trials?after=<previous>
//   DashboardStudies          /api/studies (the study list, polled every second)
// Run: build/bench/optimist_bench --benchmark_filter=Dashboard
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "dashboard/api.hpp"
#include "dashboard/trace_source.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

constexpr std::size_t kTrials = 10000;

// A real run's trace: written once per process by the driver, removed at exit.
struct TempTrace {
  std::string path;
  ~TempTrace() { std::filesystem::remove(path); }
};

const std::string& trace_path() {
  static const TempTrace trace{[] {
    const auto file = std::filesystem::temp_directory_path() / ("optimist_bench_dashboard_" + std::to_string(getpid()) + ".jsonl");
    const Problem p = make_problem("hartmann6");
    auto opt = make_optimizer({{"name", "random"}}, p.space, p.direction, RunContext{.seed = 1});
    TraceWriter writer(file.string(), p.trace_meta("random", {{"name", "random"}}, 1, 0.0, kTrials), p.space);
    RunOptions options;
    options.budget = kTrials;
    options.trace = &writer;
    optimize(*opt, p.objective(), options);
    return file.string();
  }()};
  return trace.path;
}

std::string study_id() { return trace_path().substr(0, trace_path().size() - 6); }  // without ".jsonl"

void BM_DashboardFirstLoad(benchmark::State& state) {
  for (auto _ : state) {
    dashboard::TraceSource source({trace_path()});
    dashboard::Api api(source, {});
    auto first = api.get("/api/trials", {{"study", study_id()}, {"limit", "5000"}});
    auto second = api.get("/api/trials", {{"study", study_id()}, {"limit", "5000"}, {"after", "5000"}});
    benchmark::DoNotOptimize(first.body.size() + second.body.size());
  }
}
BENCHMARK(BM_DashboardFirstLoad)->Unit(benchmark::kMillisecond);

void BM_DashboardAllTrials(benchmark::State& state) {
  dashboard::TraceSource source({trace_path()});
  dashboard::Api api(source, {});
  const std::string limit = std::to_string(state.range(0));
  api.get("/api/trials", {{"study", study_id()}, {"limit", limit}});
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto r = api.get("/api/trials", {{"study", study_id()}, {"limit", limit}});
    bytes = r.body.size();
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_DashboardAllTrials)->Arg(5000)->Unit(benchmark::kMillisecond);

void BM_DashboardIncremental(benchmark::State& state) {
  // A copy without the recommend line (the run goes on) that grows by one evaluation per iteration.
  const std::string path = trace_path() + ".growing.jsonl";
  std::string last_evaluation;
  {
    std::ifstream in(trace_path());
    std::ofstream out(path, std::ios::trunc);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("{\"recommend\"", 0) == 0) continue;
      out << line << "\n";
      last_evaluation = line;
    }
  }
  const std::string id = path.substr(0, path.size() - 6);
  dashboard::TraceSource source({path});
  dashboard::Api api(source, {});
  api.get("/api/trials", {{"study", id}, {"limit", "100000"}});
  nlohmann::json line = nlohmann::json::parse(last_evaluation);
  std::size_t next = kTrials + 1;
  std::ofstream out(path, std::ios::app);
  for (auto _ : state) {
    state.PauseTiming();
    line["i"] = next;
    out << line.dump() << "\n" << std::flush;
    state.ResumeTiming();
    const auto r = api.get("/api/trials", {{"study", id}, {"after", std::to_string(next - 1)}});
    if (r.body.find("\"number\":" + std::to_string(next)) == std::string::npos) state.SkipWithError("new trial missing");
    ++next;
  }
  std::filesystem::remove(path);
}
BENCHMARK(BM_DashboardIncremental)->Unit(benchmark::kMicrosecond);

void BM_DashboardStudies(benchmark::State& state) {
  dashboard::TraceSource source({trace_path()});
  dashboard::Api api(source, {});
  for (auto _ : state) benchmark::DoNotOptimize(api.get("/api/studies", {}).body.size());
}
BENCHMARK(BM_DashboardStudies)->Unit(benchmark::kMicrosecond);

}  // namespace
