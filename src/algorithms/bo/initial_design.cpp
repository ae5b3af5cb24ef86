#include "optimist/algorithms/bo/initial_design.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace optimist {

DesignSequence::DesignSequence(InitialDesign kind, std::size_t dim, std::size_t size, std::uint64_t sobol_seed,
                               std::uint64_t lhs_seed)
    : kind_(kind), dim_(dim), sobol_(dim, true, sobol_seed) {
  if (kind_ != InitialDesign::Lhs || size == 0) return;
  // Per dimension: a random permutation of the size cells, then a uniform offset within each.
  Rng rng(lhs_seed);
  const auto d = static_cast<Eigen::Index>(dim);
  const auto m = static_cast<Eigen::Index>(size);
  lhs_.resize(d, m);
  std::vector<Eigen::Index> perm(size);
  for (Eigen::Index i = 0; i < d; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) perm[static_cast<std::size_t>(j)] = j;
    for (std::size_t j = perm.size(); j > 1; --j) std::swap(perm[j - 1], perm[rng.below(j)]);
    for (Eigen::Index j = 0; j < m; ++j)
      lhs_(i, j) = (static_cast<double>(perm[static_cast<std::size_t>(j)]) + rng.uniform()) / static_cast<double>(m);
  }
}

Vector DesignSequence::point(std::uint64_t index, Rng& rng) const {
  switch (kind_) {
    case InitialDesign::Uniform:
      return rng.uniform_vector(static_cast<Eigen::Index>(dim_));
    case InitialDesign::Lhs:
      if (index < static_cast<std::uint64_t>(lhs_.cols())) return lhs_.col(static_cast<Eigen::Index>(index));
      break;
    case InitialDesign::Sobol:
      break;
  }
  return sobol_.point(index);
}

namespace {

// A partial cover (fewer points than choices) would only forbid repeats: measured worse than
// independent draws on mixed_large at budget 10 (docs/go-ucb.md, "Phase I's categorical choices").
bool coverable(const Parameter& p, std::size_t size) {
  const std::size_t k = p.cardinality();
  return p.kind == ParameterKind::Categorical && k >= 2 && k <= kMaxCoveredChoices && k <= size;
}

}  // namespace

bool covers_categories(const Space& space, std::size_t size) {
  return std::any_of(space.parameters().begin(), space.parameters().end(), [&](const Parameter& p) { return coverable(p, size); });
}

void cover_categories(const Space& space, std::uint64_t seed, std::size_t size, std::uint64_t index, Vector& u) {
  std::vector<std::size_t> perm;
  for (std::size_t i = 0; i < space.dim(); ++i) {
    const Parameter& p = space[i];
    if (!coverable(p, size)) continue;
    const std::size_t k = p.cardinality();
    // Only the permutation's first (index mod k) + 1 entries are needed (Fisher-Yates from the front).
    Rng rng(derive_seed(derive_seed(seed, i), index / k));
    perm.resize(k);
    for (std::size_t j = 0; j < k; ++j) perm[j] = j;
    const std::size_t r = index % k;
    for (std::size_t j = 0; j <= r; ++j) std::swap(perm[j], perm[j + rng.below(k - j)]);
    u[static_cast<Eigen::Index>(i)] = p.cell_center(perm[r]);
  }
}

}  // namespace optimist
