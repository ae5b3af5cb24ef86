// CPU per suggestion of GP-EI and TuRBO at d = 20: one step = warm-started hyperparameter refit
// after one new observation + acquisition maximization (512 raw samples, 10 L-BFGS-B restarts),
// exactly what GpBo does per tell/ask. Run:
//   build/bench/optimist_bench --benchmark_filter=GpBo --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <cmath>

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
  std::uint64_t k = 0;
  for (auto _ : state) {
    Rng rng(++k);
    benchmark::DoNotOptimize(maximize_acquisition(acq, {}, BoxMaximizerOptions{}, rng));
  }
}
BENCHMARK(BM_GpBoLogEiMaximization)->Arg(72)->Arg(500)->Unit(benchmark::kMillisecond);

// One LML + gradient evaluation, the unit of the fit's cost.
void BM_GpBoLmlGradient(benchmark::State& state) {
  const Fixture fx(state.range(0));
  const Vector theta = fx.gp.parameters();
  Vector g;
  for (auto _ : state) benchmark::DoNotOptimize(fx.gp.log_marginal_likelihood(theta, &g, true));
}
BENCHMARK(BM_GpBoLmlGradient)->Arg(72)->Arg(500)->Unit(benchmark::kMillisecond);

// TuRBO: a whole tell + ask (refit of the run's GP, 2000 candidates, RFF Thompson sample), with
// the default recipe (reference:0) and the reference code's 50 Adam steps (reference:1); the design
// has n points, so the GP holds n to n + 10.
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
