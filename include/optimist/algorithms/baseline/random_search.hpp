// Uniform random search: the baseline every method must beat.
#pragma once

#include "optimist/core/optimizer.hpp"
#include "optimist/algorithms/registry.hpp"

namespace optimist {

/// Draws every point uniformly from the unit cube. Batch form: n independent draws.
class RandomSearch : public Optimizer {
 public:
  RandomSearch(const Space& space, Direction direction, const RunContext& context = {});
  bool supports_batch() const override { return true; }

 protected:
  std::vector<Vector> propose(std::size_t n) override;
};

AlgorithmInfo random_search_info();

}  // namespace optimist
