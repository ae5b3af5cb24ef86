#include "optimist/algorithms/random/sobol_search.hpp"

namespace optimist {

SobolSearch::SobolSearch(const Space& space, Direction direction, const Options& options, const RunContext& context)
    : Optimizer("sobol", space, direction, context), sequence_(space.dim(), options.scramble, context.seed) {}

std::vector<Vector> SobolSearch::propose(std::size_t n) {
  const std::uint64_t first = history().size() + pending().size();
  std::vector<Vector> out;
  for (std::size_t k = 0; k < n; ++k) out.push_back(sequence_.point(first + k));
  return out;
}

AlgorithmInfo sobol_search_info() {
  const SobolSearch::Options defaults;
  AlgorithmInfo info;
  info.name = "sobol";
  info.family = "baseline";
  info.summary = "scrambled Sobol quasi-random sequence (space-filling design)";
  info.batch = true;
  info.options = {{"scramble", defaults.scramble, "linear matrix scramble and digital shift (false: plain Sobol, starts at the origin)", {}}};
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<SobolSearch>(space, direction, SobolSearch::Options{v.get<bool>("scramble")}, context);
  };
  return info;
}

}  // namespace optimist
