// Cost of the GO-UCB model layer: the batched Jacobian that builds Sigma_t (n = 72 points), and
// the per-point x-gradients used when maximizing the acquisition over x. Mlp arguments: d_x,
// hidden width (one layer) and, for batched calls, the number of points.
#include <benchmark/benchmark.h>

#include <memory>

#include "../examples/custom_model/arrhenius_model.hpp"
#include "optimist/models/parametric/autodiff_model.hpp"
#include "optimist/models/parametric/mlp.hpp"

namespace {

using optimist::Activation;
using optimist::Matrix;
using optimist::Mlp;
using optimist::Vector;

// Arguments: d_x, hidden width (one hidden layer).
std::unique_ptr<Mlp> make(const benchmark::State& state) {
  return std::make_unique<Mlp>(static_cast<std::size_t>(state.range(0)),
                               std::vector<std::size_t>{static_cast<std::size_t>(state.range(1))},
                               Activation::Sigmoid);
}

void set_labels(benchmark::State& state, const Mlp& m) {
  state.counters["d_w"] = static_cast<double>(m.num_params());
}

void BM_MlpJacobianW(benchmark::State& state) {
  const auto m = make(state);
  optimist::Rng rng(1);
  const Vector w = m->sample_params(rng);
  const Eigen::Index n = state.range(2);
  Matrix X(static_cast<Eigen::Index>(m->input_dim()), n);
  for (Eigen::Index i = 0; i < n; ++i) X.col(i) = rng.uniform_vector(X.rows());
  for (auto _ : state) benchmark::DoNotOptimize(m->jacobian_w(w, X));
  set_labels(state, *m);
}
BENCHMARK(BM_MlpJacobianW)->Args({20, 25, 72})->Args({100, 50, 72})->Unit(benchmark::kMicrosecond);

// The same Jacobian by the per-point gradient_w loop (the ParametricModel default), for reference.
void BM_MlpJacobianWPerPoint(benchmark::State& state) {
  const auto m = make(state);
  optimist::Rng rng(1);
  const Vector w = m->sample_params(rng);
  const Eigen::Index n = state.range(2);
  Matrix X(static_cast<Eigen::Index>(m->input_dim()), n);
  for (Eigen::Index i = 0; i < n; ++i) X.col(i) = rng.uniform_vector(X.rows());
  for (auto _ : state) benchmark::DoNotOptimize(m->ParametricModel::jacobian_w(w, X));
  set_labels(state, *m);
}
BENCHMARK(BM_MlpJacobianWPerPoint)->Args({20, 25, 72})->Args({100, 50, 72})->Unit(benchmark::kMicrosecond);

void BM_MlpValues(benchmark::State& state) {
  const auto m = make(state);
  optimist::Rng rng(1);
  const Vector w = m->sample_params(rng);
  const Eigen::Index n = state.range(2);
  Matrix X(static_cast<Eigen::Index>(m->input_dim()), n);
  for (Eigen::Index i = 0; i < n; ++i) X.col(i) = rng.uniform_vector(X.rows());
  for (auto _ : state) benchmark::DoNotOptimize(m->values(w, X));
  set_labels(state, *m);
}
BENCHMARK(BM_MlpValues)->Args({20, 25, 72})->Args({100, 50, 72})->Unit(benchmark::kMicrosecond);

void BM_MlpGradientW(benchmark::State& state) {
  const auto m = make(state);
  optimist::Rng rng(1);
  const Vector w = m->sample_params(rng), x = rng.uniform_vector(static_cast<Eigen::Index>(m->input_dim()));
  Vector g;
  for (auto _ : state) benchmark::DoNotOptimize(m->gradient_w(w, x, g));
  set_labels(state, *m);
}
BENCHMARK(BM_MlpGradientW)->Args({20, 25})->Args({100, 50});

void BM_MlpGradientX(benchmark::State& state) {
  const auto m = make(state);
  optimist::Rng rng(1);
  const Vector w = m->sample_params(rng), x = rng.uniform_vector(static_cast<Eigen::Index>(m->input_dim()));
  Vector g;
  for (auto _ : state) benchmark::DoNotOptimize(m->gradient_x(w, x, g));
  set_labels(state, *m);
}
BENCHMARK(BM_MlpGradientX)->Args({20, 25})->Args({100, 50});

void BM_MlpMixedProduct(benchmark::State& state) {
  const auto m = make(state);
  optimist::Rng rng(1);
  const Vector w = m->sample_params(rng), x = rng.uniform_vector(static_cast<Eigen::Index>(m->input_dim()));
  const Vector v = rng.normal_vector(w.size());
  Vector g;
  for (auto _ : state) benchmark::DoNotOptimize(m->mixed_product(w, x, v, g));
  set_labels(state, *m);
}
BENCHMARK(BM_MlpMixedProduct)->Args({20, 25})->Args({100, 50});

// The finite-difference default (one gradient_w and two gradient_x), for reference.
void BM_MlpMixedProductFiniteDifference(benchmark::State& state) {
  const auto m = make(state);
  optimist::Rng rng(1);
  const Vector w = m->sample_params(rng), x = rng.uniform_vector(static_cast<Eigen::Index>(m->input_dim()));
  const Vector v = rng.normal_vector(w.size());
  Vector g;
  for (auto _ : state) benchmark::DoNotOptimize(m->ParametricModel::mixed_product(w, x, v, g));
  set_labels(state, *m);
}
BENCHMARK(BM_MlpMixedProductFiniteDifference)->Args({20, 25})->Args({100, 50});

}  // namespace

// ---- AutodiffModel on the example's Arrhenius yield model (d_x = 2, d_w = 4) ----

namespace {

template <optimist::MixedProduct Mode>
void BM_ArrheniusMixedProduct(benchmark::State& state) {
  const auto m = optimist::make_autodiff_model<Mode>(arrhenius::YieldModel{}, 2, 4);
  const Vector w = arrhenius::reference_params(), x = Vector::Constant(2, 0.4), v = Vector::Ones(4);
  Vector g;
  for (auto _ : state) benchmark::DoNotOptimize(m->mixed_product(w, x, v, g));
}
BENCHMARK(BM_ArrheniusMixedProduct<optimist::MixedProduct::NestedAutodiff>);
BENCHMARK(BM_ArrheniusMixedProduct<optimist::MixedProduct::FiniteDifference>);

void BM_ArrheniusGradientW(benchmark::State& state) {
  const auto m = optimist::make_autodiff_model(arrhenius::YieldModel{}, 2, 4);
  const Vector w = arrhenius::reference_params(), x = Vector::Constant(2, 0.4);
  Vector g;
  for (auto _ : state) benchmark::DoNotOptimize(m->gradient_w(w, x, g));
}
BENCHMARK(BM_ArrheniusGradientW);

}  // namespace
