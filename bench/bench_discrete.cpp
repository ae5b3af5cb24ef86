// Suggestion time on integer/categorical spaces against the continuous case of the same dimension
// (issue 27's target: a mixed space of 5,000 points at n = 200 within 2x of the continuous case).
// One suggestion is one ask() of the registered optimizer after n told points (the model's refit
// and the acquisition's maximization, excluding the n evaluated points on the finite space); the
// tell after it is not timed. Run:
//   build/bench/optimist_bench --benchmark_filter=Suggestion --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/rng.hpp"

using namespace optimist;

namespace {

// 5,000 points: a categorical with 5 choices, integers in 1..10 and 1..100 (the discrete preset's
// mixed_large), and the continuous box of the same dimension.
Space mixed_space() {
  Space s;
  s.add_categorical("family", {"f1", "f2", "f3", "f4", "f5"}).add_integer("i", 1, 10).add_integer("j", 1, 100);
  return s;
}

Space continuous_space() { return Space::box(3, 0.0, 1.0); }

// A smooth landscape on the unit cube, the same for both spaces.
double value(const Optimizer& opt, const Vector& x) {
  const Vector u = opt.space().to_unit(x);
  return std::sin(5.0 * u[0]) + std::cos(3.0 * u[1] * u[2]) - (u.array() - 0.4).square().sum();
}

void run(benchmark::State& state, const std::string& algorithm, bool discrete, const nlohmann::json& options = {}) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Space space = discrete ? mixed_space() : continuous_space();
  nlohmann::json spec = options.is_object() ? options : nlohmann::json::object();
  spec["name"] = algorithm;
  auto opt = make_optimizer(spec, space, Direction::Maximize, {.seed = 1, .horizon = 2 * n});
  Rng rng(7);
  // n told points: random, then the optimizer's own (so its model and fits are warm).
  while (opt->history().size() + 20 < n) {
    const Vector x = space.to_user(space.snap_unit(rng.uniform_vector(3)));
    bool seen = false;
    for (const auto& o : opt->history()) seen = seen || o.trial.x == x;
    if (!seen) opt->tell(x, value(*opt, x));
  }
  while (opt->history().size() < n) {
    const Trial t = opt->ask();
    opt->tell(t, value(*opt, t.x));
  }
  for (auto _ : state) {
    const Trial t = opt->ask();
    state.PauseTiming();
    opt->tell(t, value(*opt, t.x));
    state.ResumeTiming();
  }
  state.counters["n"] = static_cast<double>(opt->history().size());
}

void BM_SuggestionGpEiMixed5000(benchmark::State& s) { run(s, "gp-ei", true); }
void BM_SuggestionGpEiContinuous(benchmark::State& s) { run(s, "gp-ei", false); }
void BM_SuggestionTurboMixed5000(benchmark::State& s) { run(s, "turbo", true); }
void BM_SuggestionTurboContinuous(benchmark::State& s) { run(s, "turbo", false); }
void BM_SuggestionGoUcbMixed5000(benchmark::State& s) { run(s, "go-ucb", true); }
void BM_SuggestionGoUcbContinuous(benchmark::State& s) { run(s, "go-ucb", false); }
// GO-UCB's default family differs between the two spaces (the paper's network with a categorical,
// the additive one on a 3-D box): the same network on both isolates the cost of the discrete step.
void BM_SuggestionGoUcbMlpContinuous(benchmark::State& s) { run(s, "go-ucb", false, {{"model", "mlp"}}); }

}  // namespace

BENCHMARK(BM_SuggestionGpEiMixed5000)->Arg(200)->Iterations(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SuggestionGpEiContinuous)->Arg(200)->Iterations(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SuggestionTurboMixed5000)->Arg(200)->Iterations(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SuggestionTurboContinuous)->Arg(200)->Iterations(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SuggestionGoUcbMixed5000)->Arg(200)->Iterations(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SuggestionGoUcbContinuous)->Arg(200)->Iterations(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SuggestionGoUcbMlpContinuous)->Arg(200)->Iterations(20)->Unit(benchmark::kMillisecond);
