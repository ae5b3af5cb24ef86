#include "optimist/solvers/box_maximizer.hpp"

#include <LBFGSB.h>

#include <algorithm>
#include <exception>
#include <numeric>
#include <string>
#include <utility>

#include "optimist/core/sobol.hpp"

namespace optimist {

void check_search_sizes(const std::string& algorithm, std::size_t raw_samples, std::size_t restarts) {
  if (raw_samples > kMaxRawSamples)
    throw InvalidArgument(algorithm + ": option 'raw_samples' must be at most " + std::to_string(kMaxRawSamples) +
                          ", got " + std::to_string(raw_samples));
  if (restarts > kMaxRestarts)
    throw InvalidArgument(algorithm + ": option 'restarts' must be at most " + std::to_string(kMaxRestarts) + ", got " +
                          std::to_string(restarts));
}

namespace {

// Thrown through LBFGSpp to end one local search (non-finite value, or f threw).
struct AbortSearch {};
// Thrown through LBFGSpp when a local search enters the basin of an earlier one (merge_radius).
struct MergeSearch {};

void check_box(const Vector& lower, const Vector& upper) {
  if (lower.size() == 0 || lower.size() != upper.size())
    throw InvalidArgument("maximize_in_box: bounds must be non-empty and of equal size (got " +
                          std::to_string(lower.size()) + " and " + std::to_string(upper.size()) + ")");
  for (Eigen::Index i = 0; i < lower.size(); ++i)
    if (!std::isfinite(lower[i]) || !std::isfinite(upper[i]) || lower[i] > upper[i])
      throw InvalidArgument("maximize_in_box: bad bounds [" + std::to_string(lower[i]) + ", " +
                            std::to_string(upper[i]) + "] in dimension " + std::to_string(i));
}

}  // namespace

BoxMaximizerResult maximize_in_box(const BoxObjective& f, const Vector& lower, const Vector& upper,
                                   const std::vector<Vector>& starts, const BoxMaximizerOptions& options,
                                   Rng& rng, const BoxBatchObjective& batch) {
  check_box(lower, upper);
  const Eigen::Index d = lower.size();
  const double ninf = -std::numeric_limits<double>::infinity();
  BoxMaximizerResult result;
  result.x = 0.5 * (lower + upper);
  auto record = [&](const Vector& x, double v) {
    if (std::isfinite(v) && v > result.value) {
      result.value = v;
      result.x = x;
    }
  };

  // Candidates: the given starts first, then the raw Sobol samples mapped into the box.
  const auto n_starts = static_cast<Eigen::Index>(starts.size());
  const auto n_raw = static_cast<Eigen::Index>(options.raw_samples);
  Matrix cand(d, n_starts + n_raw);
  for (Eigen::Index j = 0; j < n_starts; ++j) {
    if (starts[j].size() != d)
      throw InvalidArgument("maximize_in_box: start " + std::to_string(j) + " has dimension " +
                            std::to_string(starts[j].size()) + ", expected " + std::to_string(d));
    cand.col(j) = starts[j].cwiseMax(lower).cwiseMin(upper);
  }
  if (n_raw > 0) {
    const SobolSequence sobol(static_cast<std::size_t>(d), true, rng.next_u64());
    cand.rightCols(n_raw) =
        (lower.replicate(1, n_raw) + (upper - lower).asDiagonal() * sobol.points(0, options.raw_samples))
            .cwiseMin(upper.replicate(1, n_raw));
  }

  // Score every candidate by value.
  Vector scores(cand.cols());
  if (batch && cand.cols() > 0) {
    scores = batch(cand);
    if (scores.size() != cand.cols())
      throw InvalidArgument("maximize_in_box: the batch objective returned a wrong size");
  } else {
    for (Eigen::Index j = 0; j < cand.cols(); ++j) scores[j] = f(cand.col(j), nullptr);
  }
  result.evaluations += static_cast<std::size_t>(cand.cols());
  for (Eigen::Index j = 0; j < cand.cols(); ++j) {
    if (!std::isfinite(scores[j])) scores[j] = ninf;
    record(cand.col(j), scores[j]);
  }

  // The best `restarts` finite candidates, ties broken by index (deterministic).
  std::vector<Eigen::Index> order(static_cast<std::size_t>(cand.cols()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return scores[a] > scores[b]; });

  LBFGSpp::LBFGSBParam<double> param;
  param.m = std::max(options.memory, 1);
  param.epsilon = options.gradient_tolerance;
  param.epsilon_rel = 0.0;  // the default compares to |x|, meaningless for box coordinates
  param.past = 1;
  param.delta = options.value_tolerance;
  param.max_iterations = std::max(options.max_iterations, 1);
  LBFGSpp::LBFGSBSolver<double> solver(param);

  std::exception_ptr user_error;
  Vector xc(d), g(d);
  // The points earlier local searches evaluated on their way up, with their values (merge_radius):
  // every one lies in the basin its search climbed (multi-level single linkage compares with all
  // sample points; the ends alone merge a third fewer evaluations, docs/gp-bo.md). A search that
  // failed is left out: the top of its basin may not have been reached.
  std::vector<std::pair<Vector, double>> climbed, path;
  const double merge_sq = options.merge_radius * options.merge_radius;
  const auto in_known_basin = [&](const Vector& x, double v) {
    for (const auto& [p, value] : climbed)
      if (v <= value && (x - p).squaredNorm() < merge_sq) return true;
    return false;
  };
  auto negated = [&](const Eigen::VectorXd& z, Eigen::VectorXd& grad) -> double {
    xc = z.cwiseMax(lower).cwiseMin(upper);  // guard against round-off just outside the box
    g.setZero();
    double v;
    try {
      v = f(xc, &g);
    } catch (...) {
      user_error = std::current_exception();
      throw AbortSearch{};
    }
    ++result.evaluations;
    if (!std::isfinite(v)) throw AbortSearch{};
    record(xc, v);
    if (!g.allFinite()) throw AbortSearch{};
    if (merge_sq > 0.0) {
      if (in_known_basin(xc, v)) throw MergeSearch{};
      path.emplace_back(xc, v);
    }
    grad = -g;
    return -v;
  };

  const std::size_t n_local = std::min<std::size_t>(options.restarts, order.size());
  for (std::size_t k = 0; k < n_local; ++k) {
    const Eigen::Index j = order[k];
    if (!std::isfinite(scores[j])) break;
    Eigen::VectorXd x = cand.col(j);
    double fx = 0.0;
    ++result.local_searches;
    path.clear();
    try {
      solver.minimize(negated, x, fx, lower, upper);
      climbed.insert(climbed.end(), path.begin(), path.end());
    } catch (const MergeSearch&) {
      ++result.merged_searches;  // its path led into a known basin: part of it too
      climbed.insert(climbed.end(), path.begin(), path.end());
    } catch (const AbortSearch&) {
      if (user_error) std::rethrow_exception(user_error);
      ++result.failed_searches;
    } catch (const std::exception&) {  // LBFGSpp line-search failures: keep the best point seen
      ++result.failed_searches;
    }
  }
  return result;
}

}  // namespace optimist
