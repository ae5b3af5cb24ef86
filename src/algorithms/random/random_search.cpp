#include "optimist/algorithms/random/random_search.hpp"

namespace optimist {

RandomSearch::RandomSearch(const Space& space, Direction direction, const RunContext& context)
    : Optimizer("random", space, direction, context) {}

std::vector<Vector> RandomSearch::propose(std::size_t n) {
  Rng rng = rng_for_ask();
  std::vector<Vector> out;
  for (std::size_t k = 0; k < n; ++k) out.push_back(rng.uniform_vector(static_cast<Eigen::Index>(space().dim())));
  return out;
}

AlgorithmInfo random_search_info() {
  AlgorithmInfo info;
  info.name = "random";
  info.family = "baseline";
  info.summary = "uniform random search over the unit cube of the space";
  info.batch = true;
  info.create = [](const Space& space, Direction direction, const OptionValues&, const RunContext& context) {
    return std::make_unique<RandomSearch>(space, direction, context);
  };
  return info;
}

}  // namespace optimist
