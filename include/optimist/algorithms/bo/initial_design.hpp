// The initial design of the model-based algorithms (GP-BO, TuRBO, GO-UCB): which points are
// evaluated before a model is fitted. Each algorithm accepts the kinds its name table lists.
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimist/core/enum_names.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/core/sobol.hpp"
#include "optimist/core/space.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

enum class InitialDesign {
  Sobol,    ///< scrambled Sobol points (low discrepancy)
  Uniform,  ///< independent uniform points
  Lhs,      ///< a Latin hypercube (TuRBO's reference code)
};

/// Every kind; algorithms that accept fewer have their own table of the same names.
inline constexpr EnumNames<InitialDesign, 3> kInitialDesignNames{
    {{{InitialDesign::Sobol, "sobol"}, {InitialDesign::Uniform, "uniform"}, {InitialDesign::Lhs, "lhs"}}}};
/// Sobol or uniform (GP-BO).
inline constexpr EnumNames<InitialDesign, 2> kSobolOrUniformNames{
    {{{InitialDesign::Sobol, "sobol"}, {InitialDesign::Uniform, "uniform"}}}};
/// The same, uniform first (GO-UCB: the paper's design is the default).
inline constexpr EnumNames<InitialDesign, 2> kUniformOrSobolNames{
    {{{InitialDesign::Uniform, "uniform"}, {InitialDesign::Sobol, "sobol"}}}};

/// The points of one initial design in the unit cube, by index, so that an ask can take the next
/// one after any number of told and pending points:
/// - Sobol: the index-th point of a scrambled Sobol sequence of `sobol_seed`;
/// - uniform: a fresh uniform point drawn from the caller's stream (the ask's);
/// - Latin hypercube: column `index` of one hypercube of `size` points drawn from `lhs_seed`
///   (TuRBO's reference utils.py: shuffled cell centres plus a uniform shift within the cell);
///   past `size` (a design continued after failed points) the Sobol points of `sobol_seed`.
/// Built once per design (GP-BO: per run; TuRBO: per trust-region run; GO-UCB: per run).
class DesignSequence {
 public:
  DesignSequence(InitialDesign kind, std::size_t dim, std::size_t size, std::uint64_t sobol_seed,
                 std::uint64_t lhs_seed = 0);

  InitialDesign kind() const { return kind_; }
  Vector point(std::uint64_t index, Rng& rng) const;

 private:
  InitialDesign kind_;
  std::size_t dim_;
  SobolSequence sobol_;
  Matrix lhs_;  // dim x size, columns the hypercube's points (kind Lhs only)
};

/// How a design draws a categorical's choices: independently for each point (the uniform design's
/// x ~ U(X)), or covering them when the design has at least as many points as choices (each block
/// of k consecutive points takes a random permutation of the k choices, so each point is still
/// uniform over them and no choice is left out of the design).
enum class DesignCategories { Cover, Independent };
inline constexpr EnumNames<DesignCategories, 2> kDesignCategoriesNames{
    {{{DesignCategories::Cover, "cover"}, {DesignCategories::Independent, "independent"}}}};

/// Categoricals of more choices than this are left as the design draws them (a design never
/// covers them, and a permutation per point would cost O(k)).
inline constexpr std::size_t kMaxCoveredChoices = 64;

/// Sets the categorical coordinates of point `index` of a design of `size` points (a unit point)
/// to cover their choices (DesignCategories::Cover): in each categorical of k <= size choices, the
/// choice at position index mod k of the permutation drawn from (seed, parameter, index / k).
/// Other coordinates, and categoricals the design cannot cover, are left as they are.
void cover_categories(const Space& space, std::uint64_t seed, std::size_t size, std::uint64_t index, Vector& u);
/// True when cover_categories would set a coordinate of a design of `size` points.
bool covers_categories(const Space& space, std::size_t size);

}  // namespace optimist
