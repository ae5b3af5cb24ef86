#include "optimist/algorithms/random/random_search.hpp"

namespace optimist {

RandomSearch::RandomSearch(const Space& space, Direction direction, const Options& options)
    : Optimizer("random", space, direction, options.seed) {}

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
  info.create = [](const Space& space, Direction direction, const OptionValues& v) {
    return std::make_unique<RandomSearch>(space, direction, RandomSearch::Options{v.seed()});
  };
  return info;
}

}  // namespace optimist
