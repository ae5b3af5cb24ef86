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

/// What a Wald interval of n normally distributed values really covers: P(|T| <= z) for T
/// Student's t with n - 1 degrees of freedom, z the normal quantile of `level` (0.811 for n = 3 at
/// 95%, 0.918 for n = 10). Throws InvalidArgument for n < 2 or level outside (0, 1).
double wald_coverage(std::size_t n, double level);

/// The Student's t quantile with n - 1 degrees of freedom at (1 + level) / 2: the multiplier an
/// exact interval for the mean of n normal values uses (4.303 for n = 3 at 95%). Throws as above.
double t_quantile(std::size_t n, double level);

using optimist::normal_quantile;  // core/normal_quantile.hpp

/// Median (mean of the two middle values for an even count); throws InvalidArgument when empty.
double median(std::vector<double> values);

}  // namespace optimist::experiment
