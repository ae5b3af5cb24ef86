// Cost of GO-UCB (docs/go-ucb.md, "Performance"): the targets are
//  - a Phase II step (tell = Sigma_t/w_t update, plus refit when due; ask = the acquisition) at
//    d_x = 20, d_w = 551 (one hidden layer of 25): median <= 50 ms;
//  - the Phase I oracle (eq. 2) on n = 8 points: <= 200 ms;
//  - a Phase II step at d_x = 100 with 50 hidden units (d_w = 5101): <= 2 s;
//  - issue 20: report a step with a history of 2,000 points (BM_GoUcbSteps).
// Each timed iteration is one real step of a run on noisy Styblinski-Tang (budget 72); a finished
// run is rebuilt with the timer paused. The median_ms counter is the median over all timed steps.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"

namespace {

using Clock = std::chrono::steady_clock;

nlohmann::json spec_for(const benchmark::State& state) {
  nlohmann::json spec = {{"name", "go-ucb"}};
  if (state.range(2) == 1) {  // model=additive (the default from 3 inputs), range(1) units per input
    spec["model"] = "additive";
    spec["units_per_input"] = state.range(1);
  } else {  // the paper's network, range(1) hidden units
    spec["model"] = "mlp";
    spec["hidden"] = std::vector<std::size_t>{static_cast<std::size_t>(state.range(1))};
  }
  return spec;
}

// One tell of `pending`'s value and the next ask, timed (the objective's own time excluded).
void timed_step(benchmark::State& state, optimist::Optimizer& opt, const optimist::Objective& objective,
                optimist::Trial& pending, std::vector<double>& ms) {
  const double y = objective.function(pending.x);
  const auto start = Clock::now();
  opt.tell(pending, y);
  pending = opt.ask();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  state.SetIterationTime(seconds);
  ms.push_back(1e3 * seconds);
}

void report(benchmark::State& state, std::vector<double>& ms, std::size_t d_w) {
  if (ms.empty()) return;
  double total = 0.0;
  for (double m : ms) total += m;
  state.counters["mean_ms"] = total / static_cast<double>(ms.size());
  std::sort(ms.begin(), ms.end());
  state.counters["median_ms"] = ms[ms.size() / 2];
  state.counters["p90_ms"] = ms[std::min(ms.size() - 1, ms.size() * 9 / 10)];
  state.counters["max_ms"] = ms.back();
  state.counters["d_w"] = static_cast<double>(d_w);
}

// Arguments: d_x, hidden width (or units per input), model (0: mlp, 1: additive). One iteration =
// tell the pending Phase II point, ask the next.
void BM_GoUcbPhaseTwoStep(benchmark::State& state) {
  const auto d = static_cast<std::size_t>(state.range(0));
  const std::size_t budget = 72;
  const optimist::Problem p = optimist::make_problem("styblinski_tang", d);
  const optimist::Objective objective = p.objective(0.01, 7);
  std::unique_ptr<optimist::Optimizer> opt;
  optimist::Trial pending;
  std::vector<double> ms;
  std::size_t d_w = 0;
  auto restart = [&] {
    opt = optimist::make_optimizer(spec_for(state), p.space, p.direction, {.seed = 7, .horizon = budget});
    d_w = dynamic_cast<const optimist::GoUcb&>(*opt).model().num_params();
    while (!dynamic_cast<const optimist::GoUcb&>(*opt).in_phase_two()) {
      const optimist::Trial t = opt->ask();
      opt->tell(t, objective.function(t.x));
    }
    pending = opt->ask();
  };
  for (auto _ : state) {
    if (!opt || opt->history().size() + 1 >= budget) {
      state.PauseTiming();
      restart();
      state.ResumeTiming();
    }
    timed_step(state, *opt, objective, pending, ms);
  }
  report(state, ms, d_w);
}
BENCHMARK(BM_GoUcbPhaseTwoStep)->Args({20, 25, 0})->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(5.0);
BENCHMARK(BM_GoUcbPhaseTwoStep)->Args({20, 9, 1})->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(5.0);
BENCHMARK(BM_GoUcbPhaseTwoStep)->Args({100, 50, 0})->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(20);

// A history that grows (issue 20, "Suggestions that stay fast as the history grows"): one tell +
// ask of a default go-ucb run (d_x = 20, additive model) whose history holds n points, over n / 20
// steps, i.e. one period of the automatic refit schedule, so that its refit's cost is amortized in
// the mean. The run reaches n with the timer paused (minutes at n = 2,000). Counters: mean_ms (the
// amortized cost per suggestion), median_ms (a step without a refit), max_ms (the step that refits:
// about what every step cost with refit_every = 1), refits in the window. recipe:1 is
// refit_every = 1, the default before stop 40 (a refit after every step).
void BM_GoUcbSteps(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::size_t window = n / 20;
  const optimist::Problem p = optimist::make_problem("styblinski_tang", 20);
  const optimist::Objective objective = p.objective(0.01, 7);
  nlohmann::json spec = {{"name", "go-ucb"}};
  if (state.range(1) == 1) spec["refit_every"] = 1;
  auto opt = optimist::make_optimizer(spec, p.space, p.direction, {.seed = 7, .horizon = n + window + 1});
  const auto& g = dynamic_cast<const optimist::GoUcb&>(*opt);
  while (opt->history().size() < n) {
    const optimist::Trial t = opt->ask();
    opt->tell(t, objective.function(t.x));
  }
  optimist::Trial pending = opt->ask();
  const std::size_t refits_before = g.diagnostics().value("refits", std::size_t{0});
  std::vector<double> ms;
  for (auto _ : state) timed_step(state, *opt, objective, pending, ms);
  state.counters["refits"] = static_cast<double>(g.diagnostics().value("refits", std::size_t{0}) - refits_before);
  report(state, ms, g.model().num_params());
}
BENCHMARK(BM_GoUcbSteps)->ArgNames({"n", "recipe"})->Args({500, 0})->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(25);
BENCHMARK(BM_GoUcbSteps)->ArgNames({"n", "recipe"})->Args({2000, 0})->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(100);
BENCHMARK(BM_GoUcbSteps)->ArgNames({"n", "recipe"})->Args({500, 1})->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);

// Arguments as above. One iteration = the tell of the n = 8th Phase I point, which runs
// the oracle of eq. (2) (all restarts) and builds Sigma_0.
void BM_GoUcbPhaseOneOracle(benchmark::State& state) {
  const auto d = static_cast<std::size_t>(state.range(0));
  const optimist::Problem p = optimist::make_problem("styblinski_tang", d);
  const optimist::Objective objective = p.objective(0.01, 7);
  std::vector<double> ms;
  std::size_t d_w = 0;
  std::uint64_t seed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto opt = optimist::make_optimizer(spec_for(state), p.space, p.direction, {.seed = ++seed, .horizon = 72});
    const auto& g = dynamic_cast<const optimist::GoUcb&>(*opt);
    d_w = g.model().num_params();
    optimist::Trial last;
    double y_last = 0;
    for (std::size_t i = 0; i < g.n_init(); ++i) {
      const optimist::Trial t = opt->ask();
      if (i + 1 == g.n_init()) {
        last = t;
        y_last = objective.function(t.x);
      } else {
        opt->tell(t, objective.function(t.x));
      }
    }
    state.ResumeTiming();
    const auto start = Clock::now();
    opt->tell(last, y_last);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    state.SetIterationTime(seconds);
    ms.push_back(1e3 * seconds);
  }
  report(state, ms, d_w);
}
BENCHMARK(BM_GoUcbPhaseOneOracle)->Args({20, 25, 0})->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(30);
BENCHMARK(BM_GoUcbPhaseOneOracle)->Args({20, 9, 1})->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(30);

}  // namespace
