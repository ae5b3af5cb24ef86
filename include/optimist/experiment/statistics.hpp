// Summary statistics of repeated runs.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "optimist/core/normal_quantile.hpp"

namespace optimist::experiment {

/// Mean with a Wald interval mean +- z sd / sqrt(n), z the standard normal quantile of
/// (1 + level) / 2 (1.95996 for 95%, 2.32635 for 98%), sd the sample standard deviation (n - 1).
struct WaldInterval {
  std::size_t n = 0;
  double mean = 0.0;
  double sd = 0.0;                   ///< 0 when n < 2
  std::optional<double> half_width;  ///< empty when n < 2 (no spread to measure)
};

/// Throws InvalidArgument when values is empty, a value is not finite or level is not in (0, 1).
WaldInterval wald_interval(const std::vector<double>& values, double level);

using optimist::normal_quantile;  // core/normal_quantile.hpp

/// Median (mean of the two middle values for an even count); throws InvalidArgument when empty.
double median(std::vector<double> values);

}  // namespace optimist::experiment
