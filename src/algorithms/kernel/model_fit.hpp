// Hyperparameter fits shared by GP-BO and TuRBO (when to refit: refit_schedule.hpp): a thorough multi-start
// fit whenever the data has doubled since the last one, cheap warm-started refits in between, and
// the subset a GP conditions on past a size cap (subset_indices). Measured costs: docs/gp-bo.md,
// "Speed as the history grows".
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "algorithms/refit_schedule.hpp"
#include "optimist/models/gp/gaussian_process.hpp"

namespace optimist::kernel_detail {

/// Options of the warm refits: one L-BFGS-B run of at most 10 iterations from the current
/// hyperparameters, no random starts (after a few new points the optimum moves little).
inline GpFitOptions warm_fit_options() {
  GpFitOptions f;
  f.random_starts = 0;
  f.restarts = 1;
  f.max_iterations = 10;
  return f;
}

/// Past kRefitEveryStepUpTo points a warm refit also stops once an L-BFGS-B iteration improves the
/// log posterior by less than this relative amount (about 0.002 nats at n = 500, where a warm refit's
/// last iterations gain ~4e-4 nats each at an O(n^3) evaluation each: docs/gp-bo.md, "Warm refits
/// past 100 points"). Up to 100 points refits are cheap and run to the gradient tolerance.
inline constexpr double kLargeRefitValueTolerance = 1e-6;

/// gp.fit with its own (warm) options, and kLargeRefitValueTolerance past kRefitEveryStepUpTo points.
inline void warm_refit(GaussianProcess& gp, Rng& rng) {
  if (static_cast<std::size_t>(gp.size()) <= kRefitEveryStepUpTo) {
    gp.fit(rng);
    return;
  }
  GpFitOptions f = gp.options().fit;
  f.value_tolerance = std::max(f.value_tolerance, kLargeRefitValueTolerance);
  gp.fit(rng, f);
}

/// Largest data the multi-start part of a thorough fit runs on (a random subset beyond it).
inline constexpr std::size_t kThoroughFitPoints = 512;

/// Fits gp's hyperparameters. Callers run a thorough fit at the first fit and whenever the data
/// has doubled since the last thorough one: a warm chain can stay in a local optimum found with few
/// points, and the doubling schedule escapes it at O(log n) extra fits. thorough: the GP's default
/// multi-start fit (8 scored Sobol starts plus the current hyperparameters, two L-BFGS-B runs),
/// run on a copy with default fit options and installed in gp with the same data and
/// standardization; past kThoroughFitPoints points the multi-start runs on a random subset of that
/// many and a warm refit on all the data polishes its result. Otherwise gp.fit with gp's own
/// (warm) options.
inline void fit_hyperparameters(GaussianProcess& gp, bool thorough, Rng& rng) {
  if (!thorough) {
    warm_refit(gp, rng);
    return;
  }
  GpOptions o = gp.options();
  o.fit = GpFitOptions{};
  const bool subset = static_cast<std::size_t>(gp.size()) > kThoroughFitPoints;
  if (subset) o.fit.max_points = kThoroughFitPoints;
  GaussianProcess multi(gp.dim(), o);
  multi.set_data(gp.inputs(), gp.outputs());
  multi.set_hyperparameters(gp.hyperparameters());  // the warm start among the starts
  multi.fit(rng);
  GaussianProcess refitted(gp.dim(), gp.options());
  refitted.set_data(gp.inputs(), gp.outputs());  // the standardization of `multi`
  refitted.set_hyperparameters(multi.hyperparameters());
  if (subset) warm_refit(refitted, rng);
  gp = std::move(refitted);
}

/// The columns of X (d x n) a model capped at `cap` points conditions on, sorted: all of them if
/// n <= cap; otherwise the cap / 2 nearest to `center` in the lengthscale-scaled Euclidean distance
/// (exact detail where the search refines) and cap - cap / 2 drawn uniformly among the others
/// (the coverage of the rest of the space, with the density of the sampling).
inline std::vector<Eigen::Index> subset_indices(const Matrix& X, const Vector& center, const Vector& lengthscales,
                                                std::size_t cap, std::size_t n_near, Rng& rng) {
  const auto n = static_cast<std::size_t>(X.cols());
  std::vector<Eigen::Index> idx(n);
  std::iota(idx.begin(), idx.end(), Eigen::Index{0});
  if (n <= cap) return idx;
  n_near = std::min(n_near, cap);
  const Vector inv = lengthscales.cwiseInverse();
  Vector dist(static_cast<Eigen::Index>(n));
  for (std::size_t j = 0; j < n; ++j)
    dist[static_cast<Eigen::Index>(j)] = (X.col(static_cast<Eigen::Index>(j)) - center).cwiseProduct(inv).squaredNorm();
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(n_near), idx.end(),
                    [&](Eigen::Index a, Eigen::Index b) { return dist[a] < dist[b] || (dist[a] == dist[b] && a < b); });
  // Partial Fisher-Yates over the rest.
  for (std::size_t i = n_near; i < cap; ++i) std::swap(idx[i], idx[i + rng.below(n - i)]);
  idx.resize(cap);
  std::sort(idx.begin(), idx.end());
  return idx;
}

}  // namespace optimist::kernel_detail
