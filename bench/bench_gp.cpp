// Cost of the GP model layer at d = 20 (the GP-UCB/EI/PI and TuRBO targets: fit + acquisition
// <= 25 ms at n = 72 and <= 250 ms at n = 500): hyperparameter fits (cold, warm, budgeted,
// subset), posterior evaluations, the O(n^2) update, box maximization of an acquisition, and
// Thompson samples.
#include <benchmark/benchmark.h>

#include <cmath>

#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/solvers/box_maximizer.hpp"

namespace {

using namespace optimist;

constexpr Eigen::Index kDim = 20;

double smooth(const Vector& x) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double di = static_cast<double>(i);
    s += std::sin(3.0 * x[i] + 0.5 * di) * (1.0 + 0.1 * di);
  }
  return s + (x.array() - 0.4).square().sum();
}

struct Data {
  Matrix X;
  Vector y;
};

Data make_data(Eigen::Index n, std::uint64_t seed = 1) {
  Rng rng(seed);
  Data d{Matrix(kDim, n), Vector(n)};
  for (Eigen::Index j = 0; j < n; ++j) {
    d.X.col(j) = rng.uniform_vector(kDim);
    d.y[j] = smooth(d.X.col(j)) + 0.01 * rng.normal();
  }
  return d;
}

// Fit options by benchmark argument: 0 default, 1 budget (warm start only, 20 iterations),
// 2 budget on a random subset of 250 points.
GpOptions options_for(int64_t mode) {
  GpOptions opt;
  if (mode >= 1) {
    opt.fit.random_starts = 0;
    opt.fit.restarts = 1;
    opt.fit.max_iterations = 20;
  }
  if (mode == 2) opt.fit.max_points = 250;
  return opt;
}

GaussianProcess fitted(Eigen::Index n, const GpOptions& opt = {}) {
  const Data d = make_data(n);
  GaussianProcess gp(kDim, opt);
  gp.set_data(d.X, d.y);
  Rng rng(2);
  gp.fit(rng);
  return gp;
}

void report(benchmark::State& state, const GaussianProcess& gp) {
  state.counters["evals"] = static_cast<double>(gp.last_fit().evaluations);
  state.counters["lml"] = gp.log_marginal_likelihood();
}

// Fit from the prior-mode initial hyperparameters. Args: n, mode.
void BM_GpFitCold(benchmark::State& state) {
  const Data d = make_data(state.range(0));
  const GpOptions opt = options_for(state.range(1));
  GaussianProcess gp(kDim, opt);
  gp.set_data(d.X, d.y);
  for (auto _ : state) {
    state.PauseTiming();
    GaussianProcess g = gp;
    Rng rng(3);
    state.ResumeTiming();
    g.fit(rng);
    benchmark::DoNotOptimize(g.log_marginal_likelihood());
    state.PauseTiming();
    report(state, g);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_GpFitCold)->Args({72, 0})->Args({72, 1})->Args({500, 0})->Args({500, 1})->Args({500, 2})
    ->Unit(benchmark::kMillisecond);

// The BO loop: a fitted model gets one new point and refits (warm start). Args: n, mode.
void BM_GpRefitWarm(benchmark::State& state) {
  const Eigen::Index n = state.range(0);
  const GpOptions opt = options_for(state.range(1));
  const Data d = make_data(n + 1);
  GaussianProcess gp(kDim, opt);
  gp.set_data(d.X.leftCols(n), d.y.head(n));
  Rng fit_rng(2);
  gp.fit(fit_rng);
  for (auto _ : state) {
    state.PauseTiming();
    GaussianProcess g = gp;
    Rng rng(3);
    state.ResumeTiming();
    g.add_point(d.X.col(n), d.y[n]);
    g.fit(rng);
    benchmark::DoNotOptimize(g.log_marginal_likelihood());
    state.PauseTiming();
    report(state, g);
    state.ResumeTiming();
  }
}
BENCHMARK(BM_GpRefitWarm)->Args({72, 0})->Args({72, 1})->Args({500, 0})->Args({500, 1})->Args({500, 2})
    ->Unit(benchmark::kMillisecond);

// One log-marginal-likelihood evaluation with its gradient (the unit cost of a fit). Arg: n.
void BM_GpLmlGradient(benchmark::State& state) {
  const GaussianProcess gp = fitted(state.range(0));
  const Vector theta = gp.parameters();
  Vector g;
  for (auto _ : state) benchmark::DoNotOptimize(gp.log_marginal_likelihood(theta, &g, true));
}
BENCHMARK(BM_GpLmlGradient)->Arg(72)->Arg(500)->Unit(benchmark::kMillisecond);

void BM_GpAddPoint(benchmark::State& state) {
  const Eigen::Index n = state.range(0);
  const Data d = make_data(n + 1);
  GaussianProcess gp(kDim);
  gp.set_data(d.X.leftCols(n), d.y.head(n));
  for (auto _ : state) {
    state.PauseTiming();
    GaussianProcess g = gp;
    state.ResumeTiming();
    g.add_point(d.X.col(n), d.y[n]);
    benchmark::DoNotOptimize(g.log_marginal_likelihood());
  }
}
BENCHMARK(BM_GpAddPoint)->Arg(72)->Arg(500)->Unit(benchmark::kMicrosecond);

// Posterior mean, variance and both x-gradients at one point. Arg: n.
void BM_GpPredictWithGradient(benchmark::State& state) {
  const GaussianProcess gp = fitted(state.range(0));
  Rng rng(4);
  const Vector x = rng.uniform_vector(kDim);
  for (auto _ : state) benchmark::DoNotOptimize(gp.predict_with_gradient(x).variance);
}
BENCHMARK(BM_GpPredictWithGradient)->Arg(72)->Arg(500)->Unit(benchmark::kMicrosecond);

// Mean and variance at 512 points in one batch (the raw-sample scoring of an acquisition). Arg: n.
void BM_GpPredictBatch512(benchmark::State& state) {
  const GaussianProcess gp = fitted(state.range(0));
  Rng rng(5);
  Matrix X(kDim, 512);
  for (Eigen::Index j = 0; j < 512; ++j) X.col(j) = rng.uniform_vector(kDim);
  Vector m, v;
  for (auto _ : state) {
    gp.predict(X, m, v);
    benchmark::DoNotOptimize(v.data());
  }
}
BENCHMARK(BM_GpPredictBatch512)->Arg(72)->Arg(500)->Unit(benchmark::kMillisecond);

// maximize_in_box with default options (512 Sobol points, 10 L-BFGS-B restarts) of the posterior
// mean (Arg 1 = 0) or UCB mean + 2 sd (Arg 1 = 1), batch scorer for the raw samples. Args: n, acq.
void BM_GpMaximizeAcquisition(benchmark::State& state) {
  const GaussianProcess gp = fitted(state.range(0));
  const bool ucb = state.range(1) == 1;
  const BoxObjective f = [&](const Vector& x, Vector* grad) {
    if (!grad) {
      const GpPrediction p = gp.predict(x);
      return ucb ? p.mean + 2.0 * std::sqrt(p.variance) : p.mean;
    }
    const GpPredictionWithGradient p = gp.predict_with_gradient(x);
    if (!ucb) {
      *grad = p.mean_gradient;
      return p.mean;
    }
    const double sd = std::sqrt(std::max(p.variance, 1e-18));
    *grad = p.mean_gradient + p.variance_gradient / sd;  // d(2 sd) = dvar / sd
    return p.mean + 2.0 * sd;
  };
  const BoxBatchObjective batch = [&](const Matrix& X) {
    Vector m, v;
    gp.predict(X, m, v);
    return ucb ? Vector(m.array() + 2.0 * v.array().sqrt()) : m;
  };
  std::size_t evals = 0;
  for (auto _ : state) {
    Rng rng(6);
    const BoxMaximizerResult r =
        maximize_in_box(f, Vector::Zero(kDim), Vector::Ones(kDim), {}, BoxMaximizerOptions{}, rng, batch);
    evals = r.evaluations;
    benchmark::DoNotOptimize(r.value);
  }
  state.counters["evals"] = static_cast<double>(evals);
}
BENCHMARK(BM_GpMaximizeAcquisition)->Args({72, 0})->Args({72, 1})->Args({500, 0})->Args({500, 1})
    ->Unit(benchmark::kMillisecond);

// One joint Thompson sample at m candidates (TuRBO). Args: n, m.
void BM_GpSamplePosterior(benchmark::State& state) {
  const GaussianProcess gp = fitted(state.range(0));
  Rng rng(7);
  Matrix X(kDim, state.range(1));
  for (Eigen::Index j = 0; j < X.cols(); ++j) X.col(j) = rng.uniform_vector(kDim);
  for (auto _ : state) benchmark::DoNotOptimize(gp.sample_posterior(X, 1, rng).data());
}
BENCHMARK(BM_GpSamplePosterior)->Args({72, 1000})->Args({500, 1000})->Args({500, 2000})
    ->Unit(benchmark::kMillisecond);

}  // namespace

// Kernel matrix of 2000 candidates against n points, d = 20 (TuRBO's pathwise update):
// fast:0 Kernel::cross (direct differences, scalar exp), fast:1 Kernel::cross_fast.
void BM_KernelCross(benchmark::State& state) {
  Rng rng(1);
  const Matrix A = Matrix::NullaryExpr(20, 2000, [&] { return rng.uniform(); });
  const Matrix B = Matrix::NullaryExpr(20, state.range(0), [&] { return rng.uniform(); });
  const Kernel k(KernelType::Matern52, Vector::Constant(20, 0.8), 1.0);
  for (auto _ : state) benchmark::DoNotOptimize((state.range(1) ? k.cross_fast(A, B) : k.cross(A, B)).data());
}
BENCHMARK(BM_KernelCross)->ArgsProduct({{500}, {0, 1}})->ArgNames({"n", "fast"})->Unit(benchmark::kMillisecond);
