// Quasi-random search along a scrambled Sobol sequence.
#pragma once

#include "optimist/core/optimizer.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/sobol.hpp"

namespace optimist {

/// The k-th asked point (k = told + pending trials) is Sobol point k, so a batch of n is the next
/// n points of the sequence and a replayed history continues the same sequence.
struct SobolSearchOptions {
  bool scramble = true;  ///< linear matrix scramble + digital shift
};

class SobolSearch : public Optimizer {
 public:
  using Options = SobolSearchOptions;
  SobolSearch(const Space& space, Direction direction, const Options& options = {}, const RunContext& context = {});
  bool supports_batch() const override { return true; }

 protected:
  std::vector<Vector> propose(std::size_t n) override;

 private:
  SobolSequence sequence_;
};

AlgorithmInfo sobol_search_info();

}  // namespace optimist
