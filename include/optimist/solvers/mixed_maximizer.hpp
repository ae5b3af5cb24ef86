// Maximization over a mixed box: continuous coordinates anywhere in [lower, upper], integer and
// categorical coordinates only at their valid values (the centres of their unit-cube intervals),
// skipping points the caller excludes (evaluated or pending ones). The inner solver shared by
// GP-UCB/EI/PI, GO-UCB and TuRBO's fallback on integer and categorical spaces (docs/discrete.md):
//
//  - no continuous dimension and at most enumerate_limit combinations in the box: every valid
//    point not excluded is scored (in batches) and the best is returned: the exact argmax;
//  - otherwise a multi-start local search: scrambled Sobol candidates snapped to valid values
//    (plus the given starts, and every discrete combination with the best candidate's continuous
//    part when the discrete part is small) are scored; from the best `restarts` of them, rounds of
//    (1) L-BFGS-B on the continuous coordinates (the first round also relaxes the integers, then
//    rounds them) and (2) a move to the best discrete neighbour (an integer one value up or down,
//    a categorical any other value) while it improves. The best point seen that is not excluded
//    is returned; when every point seen is excluded and the space is small enough, the free points
//    are scanned.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>

#include "optimist/core/discrete_domain.hpp"
#include "optimist/solvers/box_maximizer.hpp"

namespace optimist {

struct MixedMaximizerOptions {
  /// Raw samples, restarts (local searches) and the L-BFGS-B settings of the continuous phases.
  BoxMaximizerOptions box{};
  /// Enumerate every valid point when the box holds at most this many discrete combinations and
  /// the space has no continuous dimension; with continuous dimensions, up to this many
  /// combinations are added as candidates.
  std::uint64_t enumerate_limit = 2048;
  /// Rounds of (continuous phase, discrete move) per local search.
  std::size_t max_rounds = 30;
  /// When every point the search saw is excluded: scan up to this many combinations for free ones.
  std::uint64_t scan_limit = 200000;
};

struct MixedMaximizerResult {
  std::optional<Vector> x;  ///< the best valid point not excluded (snapped); empty if none was found
  double value = -HUGE_VAL;
  std::size_t evaluations = 0;  ///< points scored (batch and single)
  bool enumerated = false;      ///< true when x is the exact argmax over the free points of the box
};

/// Maximizes f (value and gradient; gradients are used on continuous and integer coordinates only)
/// over the valid points of [lower, upper] for which excluded(u) is false (u snapped). `batch`
/// scores columns at once (optional). Discrete dimensions allow the values whose centres lie in
/// [lower_i, upper_i] (DiscreteDomain::index_range). Deterministic for a given rng state.
MixedMaximizerResult maximize_mixed(const DiscreteDomain& domain, const BoxObjective& f, const BoxBatchObjective& batch,
                                    const Vector& lower, const Vector& upper, const std::vector<Vector>& starts,
                                    const std::function<bool(const Vector&)>& excluded,
                                    const MixedMaximizerOptions& options, Rng& rng);

}  // namespace optimist
