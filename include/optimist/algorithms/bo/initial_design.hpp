// The initial design of the model-based algorithms (GP-BO, TuRBO, GO-UCB): which points are
// evaluated before a model is fitted. Each algorithm accepts the kinds its name table lists.
#pragma once

#include "optimist/core/enum_names.hpp"

namespace optimist {

enum class InitialDesign {
  Sobol,    ///< scrambled Sobol points (low discrepancy)
  Uniform,  ///< independent uniform points
  Lhs,      ///< a Latin hypercube (TuRBO's reference code)
};

/// Every kind; algorithms that accept fewer have their own table of the same names.
inline constexpr EnumNames<InitialDesign, 3> kInitialDesignNames{
    {{{InitialDesign::Sobol, "sobol"}, {InitialDesign::Uniform, "uniform"}, {InitialDesign::Lhs, "lhs"}}}};
/// Sobol or uniform (GP-BO, GO-UCB).
inline constexpr EnumNames<InitialDesign, 2> kSobolOrUniformNames{
    {{{InitialDesign::Sobol, "sobol"}, {InitialDesign::Uniform, "uniform"}}}};

}  // namespace optimist
