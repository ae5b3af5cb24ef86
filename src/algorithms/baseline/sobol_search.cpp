#include "optimist/algorithms/baseline/sobol_search.hpp"

#include "optimist/algorithms/option_table.hpp"

namespace optimist {

SobolSearch::SobolSearch(const Space& space, Direction direction, const Options& options, const RunContext& context)
    : Optimizer("sobol", space, direction, context), sequence_(space.dim(), options.scramble, context.seed) {}

std::vector<Vector> SobolSearch::propose(std::size_t n) {
  const std::uint64_t first = history().size() + pending().size();
  std::vector<Vector> out;
  if (!space().has_discrete() || !avoids_repeats()) {
    for (std::size_t k = 0; k < n; ++k) out.push_back(sequence_.point(first + k));
    return out;
  }
  // Integer and categorical parameters: snapped Sobol points coincide; the k-th ask takes the first
  // point of the sequence from index k on that is free (not evaluated, pending or in this batch),
  // and after kMaxWalk taken ones the free point nearest to point k.
  constexpr std::uint64_t kMaxWalk = 4096;
  PointSet batch;
  for (std::size_t k = 0; k < n; ++k) {
    std::optional<Vector> u;
    for (std::uint64_t j = first + k; j < first + k + kMaxWalk && !u; ++j) {
      const Vector v = sequence_.point(j);
      const Vector x = user_point(v);
      if (!is_taken_user(x) && !batch.contains(x)) u = v;
    }
    if (!u) u = free_point_near(sequence_.point(first + k), &batch);
    if (!u) break;  // the space is full (the base class asks at most the free points)
    batch.insert(user_point(*u));
    out.push_back(*u);
  }
  return out;
}

namespace {

const OptionTable<SobolSearch::Options>& sobol_search_options() {
  static const auto table = OptionTable<SobolSearch::Options>().flag(
      "scramble", &SobolSearch::Options::scramble,
      "linear matrix scramble and digital shift (false: plain Sobol, starts at the origin)");
  return table;
}

}  // namespace

AlgorithmInfo sobol_search_info() {
  AlgorithmInfo info;
  info.name = "sobol";
  info.family = "baseline";
  info.summary = "scrambled Sobol quasi-random sequence (space-filling design)";
  info.batch = true;
  info.options = sobol_search_options().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<SobolSearch>(space, direction, sobol_search_options().read(v), context);
  };
  return info;
}

}  // namespace optimist
