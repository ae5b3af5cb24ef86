#include "optimist/algorithms/baseline/random_search.hpp"

namespace optimist {

RandomSearch::RandomSearch(const Space& space, Direction direction, const RunContext& context)
    : Optimizer("random", space, direction, context) {}

std::vector<Vector> RandomSearch::propose(std::size_t n) {
  // Uniform over the points not yet evaluated, pending or drawn for this batch (on a continuous
  // space: plain uniform draws, one each).
  Rng rng = rng_for_ask();
  std::vector<Vector> out;
  PointSet batch;
  for (std::size_t k = 0; k < n; ++k) {
    out.push_back(free_uniform_point(rng, &batch));
    if (space().has_discrete()) batch.insert(user_point(out.back()));
  }
  return out;
}

AlgorithmInfo random_search_info() {
  AlgorithmInfo info;
  info.name = "random";
  info.family = "baseline";
  info.summary = "uniform random search over the unit cube of the space (over the points not yet evaluated, for a deterministic objective)";
  info.batch = true;
  info.create = [](const Space& space, Direction direction, const OptionValues&, const RunContext& context) {
    return std::make_unique<RandomSearch>(space, direction, context);
  };
  return info;
}

}  // namespace optimist
