// CPU per suggestion of GP-EI and TuRBO at d = 20 (docs/gp-bo.md, "Speed as the history grows").
// BM_GpEiSteps / BM_TurboSteps: the average cost of a sequence of tell + ask steps starting at n
// points (the run's design holds n points; its first fit is made before the timer starts), long
// enough to include the refits the schedule makes there, so that their amortized cost shows;
// recipe:0 is the default (automatic refit schedule, capped model), recipe:1 the recipe before
// issue 20 (refit_every = 1, max_model_points = 0). The other benchmarks time the parts of one step.
// Run:
//   build/bench/optimist_bench --benchmark_filter='GpEiSteps|TurboSteps'
//   build/bench/optimist_bench --benchmark_filter=GpBo --benchmark_repetitions=5
//   build/bench/optimist_bench --benchmark_filter=GpEiReplay  (a history told at once: a resume)
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/kernel/model_fit.hpp"
#include "optimist/algorithms/kernel/acquisition.hpp"
#include "optimist/algorithms/kernel/turbo.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

constexpr Eigen::Index kDim = 20;

// Styblinski-Tang on [-5, 5]^20 at unit-cube point u (to be maximized: negated), plus noise.
double styblinski_tang(const Vector& u, Rng& rng) {
  const Eigen::ArrayXd x = 10.0 * u.array() - 5.0;
  return -0.5 * (x.pow(4) - 16.0 * x.square() + 5.0 * x).sum() + 0.01 * rng.normal();
}

// A GP on n random points, fitted cold once (as after the design), and the next point.
struct Fixture {
  GaussianProcess gp{kDim, [] {
                       GpOptions o;
                       o.fit = kernel_detail::warm_fit_options();  // as in GpBo
                       return o;
                     }()};
  Vector next_x;
  double next_y = 0.0;
  explicit Fixture(Eigen::Index n) {
    Rng rng(42);
    Matrix X(kDim, n);
    Vector y(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      X.col(j) = rng.uniform_vector(kDim);
      y[j] = styblinski_tang(X.col(j), rng);
    }
    gp.set_data(X, y);
    Rng fit_rng(1);
    kernel_detail::fit_hyperparameters(gp, true, fit_rng);
    next_x = rng.uniform_vector(kDim);
    next_y = styblinski_tang(next_x, rng);
  }
};

// One step of the recipe before issue 20 on a fixed GP of n - 1 points: add the point, warm refit,
// maximize log-EI (512 raw samples, 10 L-BFGS-B restarts).
void BM_GpBoEiSuggestion(benchmark::State& state) {
  const Fixture fx(state.range(0) - 1);
  std::uint64_t k = 0;
  for (auto _ : state) {
    state.PauseTiming();
    GaussianProcess gp = fx.gp;
    state.ResumeTiming();
    gp.add_point(fx.next_x, fx.next_y);
    Rng fit_rng(++k);
    gp.fit(fit_rng);
    const LogExpectedImprovement acq(gp, gp.outputs().maxCoeff());
    BoxMaximizerOptions opt;  // raw_samples 512, restarts 10: the gp-ei defaults
    Rng rng(k);
    benchmark::DoNotOptimize(maximize_acquisition(acq, {}, opt, rng));
  }
}
BENCHMARK(BM_GpBoEiSuggestion)->Arg(72)->Arg(500)->Unit(benchmark::kMillisecond);

void BM_GpBoWarmFit(benchmark::State& state) {
  const Fixture fx(state.range(0) - 1);
  std::uint64_t k = 0;
  for (auto _ : state) {
    state.PauseTiming();
    GaussianProcess gp = fx.gp;
    state.ResumeTiming();
    gp.add_point(fx.next_x, fx.next_y);
    Rng fit_rng(++k);
    gp.fit(fit_rng);
    benchmark::DoNotOptimize(gp.log_marginal_likelihood());
  }
}
BENCHMARK(BM_GpBoWarmFit)->Arg(72)->Arg(500)->Unit(benchmark::kMillisecond);

void BM_GpBoLogEiMaximization(benchmark::State& state) {
  const Fixture fx(state.range(0));
  const LogExpectedImprovement acq(fx.gp, fx.gp.outputs().maxCoeff());
  BoxMaximizerOptions options;  // the box maximizer's defaults: no merging
  options.value_tolerance = 1e-6;  // gp-ei's acquisition_tolerance
  // merge:1: gp-ei's merged restarts past 100 points (half the shortest lengthscale).
  if (state.range(1) == 1) options.merge_radius = 0.5 * fx.gp.hyperparameters().lengthscales.minCoeff();
  std::uint64_t k = 0;
  double evaluations = 0.0, merged = 0.0;
  for (auto _ : state) {
    Rng rng(++k);
    const BoxMaximizerResult r = maximize_acquisition(acq, {}, options, rng);
    evaluations += static_cast<double>(r.evaluations);
    merged += static_cast<double>(r.merged_searches);
  }
  state.counters["evaluations"] = benchmark::Counter(evaluations, benchmark::Counter::kAvgIterations);
  state.counters["merged"] = benchmark::Counter(merged, benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_GpBoLogEiMaximization)->ArgNames({"n", "merge"})->Args({72, 0})->Args({500, 0})->Args({500, 1})->Unit(benchmark::kMillisecond);

// One LML + gradient evaluation, the unit of the fit's cost.
void BM_GpBoLmlGradient(benchmark::State& state) {
  const Fixture fx(state.range(0));
  const Vector theta = fx.gp.parameters();
  Vector g;
  for (auto _ : state) benchmark::DoNotOptimize(fx.gp.log_marginal_likelihood(theta, &g, true));
}
BENCHMARK(BM_GpBoLmlGradient)->Arg(72)->Arg(500)->Arg(1000)->Unit(benchmark::kMillisecond);

// One tell + ask of a run whose history holds n points. Iterations = steps timed: one or two
// periods of the default refit schedule at n (n / 20 steps), fewer with the old recipe (a refit
// every step, each as costly as the whole window of the default).
void run_steps(benchmark::State& state, const std::string& algorithm) {
  const auto n = static_cast<std::size_t>(state.range(0));
  // recipe 0: the defaults; 1: the recipe before issue 20 (refit every step, no cap, and for gp-*
  // the acquisition tolerance 1e-9); 2 (gp-* only): the defaults with the tolerance 1e-9.
  const std::int64_t recipe = state.range(1);
  const Space space = Space::box(static_cast<std::size_t>(kDim), 0.0, 1.0);
  nlohmann::json options = {{"name", algorithm}, {"n_init", n}};
  if (recipe == 1) {
    options["refit_every"] = 1;
    options["max_model_points"] = 0;
  }
  if (recipe >= 1 && algorithm.rfind("gp-", 0) == 0) options["acquisition_tolerance"] = 1e-9;
  auto opt = make_optimizer(options, space, Direction::Maximize, RunContext{.seed = 3});
  Rng rng(5);
  for (std::size_t k = 0; k < n; ++k) {
    const Trial t = opt->ask();
    opt->tell(t, styblinski_tang(t.unit, rng));
  }
  Trial t = opt->ask();  // the first fit, on n points
  for (auto _ : state) {
    opt->tell(t, styblinski_tang(t.unit, rng));
    t = opt->ask();
  }
}

// Steps from a fit at n observations through the `periods`-th refit of the default schedule
// (refit_due with refit_every = 0), that refit included: a window of whole refit periods, so the
// refits' amortized cost is counted at its rate (at n = 500: 53 steps, refits at 526 and 553;
// before stop 42 the window was 50 steps, which held one refit instead of two).
std::int64_t steps_through_refits(std::size_t n, int periods) {
  std::size_t last = n, m = n;
  for (int k = 0; k < periods; ++k) {
    do ++m;
    while (!refit_due(m, last, 0));
    last = m;
  }
  return static_cast<std::int64_t>(m - n);
}

void BM_GpEiSteps(benchmark::State& state) { run_steps(state, "gp-ei"); }
BENCHMARK(BM_GpEiSteps)->ArgNames({"n", "recipe"})->Args({500, 0})->Iterations(steps_through_refits(500, 2))->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpEiSteps)->ArgNames({"n", "recipe"})->Args({500, 1})->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpEiSteps)->ArgNames({"n", "recipe"})->Args({500, 2})->Iterations(steps_through_refits(500, 2))->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpEiSteps)->ArgNames({"n", "recipe"})->Args({2000, 0})->Iterations(steps_through_refits(2000, 1))->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpEiSteps)->ArgNames({"n", "recipe"})->Args({2000, 1})->Iterations(2)->Unit(benchmark::kMillisecond);

void BM_TurboSteps(benchmark::State& state) { run_steps(state, "turbo"); }
BENCHMARK(BM_TurboSteps)->ArgNames({"n", "recipe"})->Args({500, 0})->Iterations(steps_through_refits(500, 2))->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TurboSteps)->ArgNames({"n", "recipe"})->Args({500, 1})->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TurboSteps)->ArgNames({"n", "recipe"})->Args({2000, 0})->Iterations(steps_through_refits(2000, 1))->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TurboSteps)->ArgNames({"n", "recipe"})->Args({2000, 1})->Iterations(2)->Unit(benchmark::kMillisecond);

// A history of n observations told in one go to a fresh optimizer, then one ask: what a resumed
// run (`optimist run --resume`) or a study worker joining pays before its first point
// (docs/gp-bo.md, "Replaying a history"). The history is n random points of the default run's
// space (not a run's own points: those take minutes to make); the replay refits along the
// default schedule from the 11th point on, as the live run did.
void BM_GpEiReplay(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Space space = Space::box(static_cast<std::size_t>(kDim), 0.0, 1.0);
  Rng rng(7);
  std::vector<std::pair<Vector, double>> history;
  for (std::size_t k = 0; k < n; ++k) {
    Vector u = rng.uniform_vector(kDim);
    const double y = styblinski_tang(u, rng);
    history.emplace_back(std::move(u), y);
  }
  for (auto _ : state) {
    auto opt = make_optimizer({{"name", "gp-ei"}}, space, Direction::Maximize, RunContext{.seed = 3});
    for (const auto& [x, y] : history) opt->tell(x, y);
    benchmark::DoNotOptimize(opt->ask());
  }
}
BENCHMARK(BM_GpEiReplay)->Arg(500)->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpEiReplay)->Arg(2000)->Iterations(1)->Unit(benchmark::kMillisecond);

// TuRBO's reference recipe (reference:1: a fresh fit by 50 Adam steps every step) against the
// default, over 10 steps after a design of n points.
void BM_GpBoTurboSuggestion(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Space space = Space::box(static_cast<std::size_t>(kDim), 0.0, 1.0);
  auto opt = make_optimizer({{"name", "turbo"}, {"n_init", n}, {"recipe", state.range(1) == 0 ? "ml" : "reference"}}, space, Direction::Maximize, RunContext{.seed = 3});
  Rng rng(5);
  for (std::size_t k = 0; k < n; ++k) {
    const Trial t = opt->ask();
    opt->tell(t, styblinski_tang(t.unit, rng));
  }
  Trial t = opt->ask();
  for (auto _ : state) {
    opt->tell(t, styblinski_tang(t.unit, rng));
    t = opt->ask();
  }
}
BENCHMARK(BM_GpBoTurboSuggestion)->ArgsProduct({{72, 500}, {0, 1}})->ArgNames({"n", "reference"})->Iterations(10)->Unit(benchmark::kMillisecond);

}  // namespace
