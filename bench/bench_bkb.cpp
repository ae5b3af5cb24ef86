// BKB vs exact GP-UCB on the same arm set: hartmann6 (minimized), A generated Sobol arms,
// noise sd 0.05, one full run per benchmark. Counters at checkpoints c in {250, 500, 1000, 2000,
// 3000, 4000, 5000} (those <= T): step_ms_tc / cpu_ms_tc = wall / thread CPU time of one step
// (ask + tell) averaged over steps [c-50, c); m_tc = |S_t| (bkb, bbkb) or distinct pulled arms
// (gp-ucb-arms); regret_tc = cumulative noise-free regret over the first c steps. Run:
//   build/bench/optimist_bench --benchmark_filter='Hartmann6/5000/1000' --benchmark_min_time=0
// (the exact runs take minutes: A=5000, T=1000 about 4 min, A=10000, T=1000 about 8 min.)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <string>

#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

// CPU time of this thread: the machine is shared, so wall time per step is inflated by load.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void run_hartmann6(benchmark::State& state, const std::string& name) {
  const auto A = static_cast<std::size_t>(state.range(0));
  const auto T = static_cast<std::size_t>(state.range(1));
  const Problem p = make_problem("hartmann6");
  for (auto _ : state) {
    Objective obj = p.objective(0.05, 1);
    nlohmann::json spec = {{"name", name}, {"arms", A}, {"lambda", 0.0025}, {"xi", 0.05},
                           {"lengthscale", 0.2}, {"beta", "fixed"}, {"beta_scale", 0.2}};
    if (name == "bkb" || name == "bbkb") spec["qbar"] = 1.0;
    auto opt = make_optimizer(spec, p.space, p.direction);
    std::vector<double> step_s(T), step_cpu(T);
    double cum_regret = 0.0;
    for (std::size_t t = 0; t < T; ++t) {
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = thread_cpu_s();
      Trial tr = opt->ask();
      const double y = obj.function(tr.x);
      opt->tell(tr, y);
      step_s[t] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      step_cpu[t] = thread_cpu_s() - c0;
      cum_regret += obj.regret(p.f(tr.x));
      const std::size_t c = t + 1;
      if (c == 250 || c == 500 || c % 1000 == 0) {
        double s = 0, cpu = 0;
        for (std::size_t i = c - 50; i < c; ++i) {
          s += step_s[i];
          cpu += step_cpu[i];
        }
        const auto d = opt->diagnostics();
        const std::string tag = "_t" + std::to_string(c);
        state.counters["step_ms" + tag] = 1e3 * s / 50.0;
        state.counters["cpu_ms" + tag] = 1e3 * cpu / 50.0;
        state.counters["regret" + tag] = cum_regret;
        state.counters["m" + tag] = d.contains("dictionary_size") ? d["dictionary_size"].get<double>()
                                                                 : d["distinct_pulled"].get<double>();
      }
    }
    const auto d = opt->diagnostics();
    state.counters["distinct_pulled"] = d["distinct_pulled"].get<double>();
  }
}

void BkbHartmann6(benchmark::State& state) { run_hartmann6(state, "bkb"); }
void GpUcbArmsHartmann6(benchmark::State& state) { run_hartmann6(state, "gp-ucb-arms"); }
void BbkbHartmann6(benchmark::State& state) { run_hartmann6(state, "bbkb"); }

}  // namespace

BENCHMARK(BkbHartmann6)->Args({5000, 1000})->Args({10000, 5000})->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BbkbHartmann6)->Args({5000, 1000})->Args({10000, 5000})->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(GpUcbArmsHartmann6)->Args({5000, 1000})->Args({10000, 1000})->Iterations(1)->Unit(benchmark::kSecond);
