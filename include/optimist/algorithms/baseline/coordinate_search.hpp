// Coordinate (compass) search: the worked example of docs/architecture.md, "Adding an algorithm".
#pragma once

#include <cstddef>
#include <optional>

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/optimizer.hpp"

namespace optimist {

struct CoordinateSearchOptions {
  double initial_step = 0.25;  ///< the first poll step, in unit-cube coordinates
  double min_step = 1e-6;      ///< a step below it ends the local search: a random restart
};

/// Compass search (Kolda, Lewis & Torczon, SIAM Review 2003, Algorithm 3.2): poll the 2d points
/// center +- step * e_i in turn; move the center to the first poll that improves on it; halve the
/// step when all 2d polls fail; below min_step restart from a uniform random point. The state is a
/// function of the told values alone (the determinism contract), polls already taken are skipped.
/// Sequential: ask(n) returns one point.
class CoordinateSearch : public Optimizer {
 public:
  CoordinateSearch(const Space& space, Direction direction, const CoordinateSearchOptions& options,
                   const RunContext& context = {});

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;
  void observe_failure(const Observation& obs) override;
  nlohmann::json diagnostics() const override;

 private:
  /// The poll point of direction k (0..2d-1: +e_0, -e_0, +e_1, ...) at the step `step`.
  Vector poll_point(std::size_t k, double step) const;
  /// Counts a poll that did not improve; after 2d of them halves the step (or restarts).
  void unsuccessful_poll();

  CoordinateSearchOptions options_;
  std::optional<Vector> center_;  ///< empty before the first value and after a restart
  double center_value_ = 0.0;
  double step_;
  std::size_t failures_ = 0;  ///< polls told since the center or the step last changed
};

AlgorithmInfo coordinate_search_info();

}  // namespace optimist
