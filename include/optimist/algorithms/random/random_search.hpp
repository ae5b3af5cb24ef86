// Uniform random search: the baseline every method must beat.
#pragma once

#include "optimist/core/optimizer.hpp"
#include "optimist/core/registry.hpp"

namespace optimist {

/// Draws every point uniformly from the unit cube. Batch form: n independent draws.
class RandomSearch : public Optimizer {
 public:
  struct Options {
    std::uint64_t seed = 0;
  };
  RandomSearch(const Space& space, Direction direction, const Options& options);
  bool supports_batch() const override { return true; }

 protected:
  std::vector<Vector> propose(std::size_t n) override;
};

AlgorithmInfo random_search_info();

}  // namespace optimist
