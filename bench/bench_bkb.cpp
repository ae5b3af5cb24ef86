// BKB vs exact GP-UCB on the same arm set: hartmann6 (minimized), A generated Sobol arms,
// noise sd 0.05, one full run per benchmark. Counters: per-step time (ask + tell) averaged over
// steps [t-10, t) for t = 250 and t = T, cumulative regret (noise-free), final |S_t|. Run:
//   build/bench/optimist_bench --benchmark_filter='Bkb/Hartmann6' --benchmark_min_time=0
// (BkbHartmann6/A/T and GpUcbArmsHartmann6/A/T; the exact run at A=5000, T=1000 takes minutes.)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>

#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/core/registry.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

void run_hartmann6(benchmark::State& state, const std::string& name) {
  const auto A = static_cast<std::size_t>(state.range(0));
  const auto T = static_cast<std::size_t>(state.range(1));
  const Problem p = make_problem("hartmann6");
  for (auto _ : state) {
    Objective obj = p.objective(0.05, 1);
    nlohmann::json spec = {{"name", name}, {"seed", 0}, {"arms", A}, {"lambda", 0.0025}, {"xi", 0.05},
                           {"lengthscale", 0.2}, {"beta", "fixed"}, {"beta_scale", 0.2}};
    if (name == "bkb") spec["qbar"] = 1.0;
    auto opt = make_optimizer(spec, p.space, p.direction);
    std::vector<double> step_s(T);
    double cum_regret = 0.0;
    for (std::size_t t = 0; t < T; ++t) {
      const auto t0 = std::chrono::steady_clock::now();
      Trial tr = opt->ask();
      const double y = obj.function(tr.x);
      opt->tell(tr, y);
      step_s[t] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      cum_regret += obj.regret(p.f(tr.x));
    }
    auto window = [&](std::size_t end) {
      end = std::min(end, T);
      double s = 0;
      for (std::size_t t = end - 10; t < end; ++t) s += step_s[t];
      return 1e3 * s / 10.0;
    };
    state.counters["step_ms_t250"] = window(250);
    state.counters["step_ms_tT"] = window(T);
    state.counters["cum_regret"] = cum_regret;
    const auto d = opt->diagnostics();
    state.counters["dict_size"] = d.contains("dictionary_size") ? d["dictionary_size"].get<double>() : 0.0;
    state.counters["distinct_pulled"] = d["distinct_pulled"].get<double>();
  }
}

void BkbHartmann6(benchmark::State& state) { run_hartmann6(state, "bkb"); }
void GpUcbArmsHartmann6(benchmark::State& state) { run_hartmann6(state, "gp-ucb-arms"); }

}  // namespace

BENCHMARK(BkbHartmann6)->Args({5000, 1000})->Args({10000, 5000})->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(GpUcbArmsHartmann6)->Args({5000, 1000})->Iterations(1)->Unit(benchmark::kSecond);
