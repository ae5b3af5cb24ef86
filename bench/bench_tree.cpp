// Overhead of the tree optimizers per evaluation, objective excluded (garland's formula costs
// ~10 ns): ask + tell through the Optimizer base and through the driver, 1-D, n evaluations.
#include <benchmark/benchmark.h>

#include <cmath>

#include "optimist/algorithms/tree/hoo.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {


void ask_tell(benchmark::State& state, const std::string& name) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  const Problem p = make_problem("garland");
  for (auto _ : state) {
    auto opt = make_optimizer({{"name", name}}, p.space, p.direction, {.horizon = n});
    for (std::uint64_t t = 0; t < n; ++t) {
      Trial tr = opt->ask();
      opt->tell(tr, p.f(tr.x));
    }
    benchmark::DoNotOptimize(opt->recommend());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void driver(benchmark::State& state, const std::string& name) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  const Problem p = make_problem("garland");
  for (auto _ : state) {
    auto opt = make_optimizer({{"name", name}}, p.space, p.direction, {.horizon = n});
    RunOptions ro;
    ro.budget = n;
    benchmark::DoNotOptimize(optimize(*opt, p.objective(), ro));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

// HOO's own cost per pull (select + update, O(depth * K) with a fixed horizon), without the
// Optimizer base: n pulls of garland values at the cell centers.
void hoo_tree(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  const Problem p = make_problem("garland");
  for (auto _ : state) {
    HooTree t(1, 2, 1.0, 0.7, static_cast<double>(n), hoo_truncation_depth(1.0, 0.7, static_cast<double>(n)));
    double x = 0.0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint32_t node = t.select();
      t.partition().center(node, &x);
      t.update(node, p.f(Vector::Constant(1, x)));
    }
    benchmark::DoNotOptimize(t.most_played());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

}  // namespace

BENCHMARK(hoo_tree)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ask_tell, hoo, std::string("hoo"))->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ask_tell, poo, std::string("poo"))->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ask_tell, stosoo, std::string("stosoo"))->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(ask_tell, sequool, std::string("sequool"))->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ask_tell, soo, std::string("soo"))->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ask_tell, stroquool, std::string("stroquool"))->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ask_tell, uniform_grid, std::string("uniform-grid"))->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(driver, sequool, std::string("sequool"))->Arg(1000000)->Unit(benchmark::kMillisecond);
// A full budget of 10^7 evaluations (issue 23's limit; docs/reliability.md, "Limits"): time and,
// with /usr/bin/time, memory of one run.
BENCHMARK_CAPTURE(ask_tell, sequool_1e7, std::string("sequool"))->Arg(10000000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ask_tell, soo_1e7, std::string("soo"))->Arg(10000000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(driver, soo, std::string("soo"))->Arg(1000000)->Unit(benchmark::kMillisecond);
