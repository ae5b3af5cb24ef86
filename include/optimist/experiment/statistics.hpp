// Summary statistics of repeated runs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "optimist/core/normal_quantile.hpp"

namespace optimist::experiment {

/// How the half-width of a mean's confidence interval is made from sd / sqrt(n).
enum class IntervalKind {
  StudentT,  ///< t_{n-1} quantile of (1 + level) / 2: exact for normal values (2.262 at n = 10, 95%)
  Wald,      ///< standard normal quantile (1.95996 at 95%): the papers' "1.96 sd / sqrt(n)", too
             ///< narrow with few values (wald_coverage)
};
std::string to_string(IntervalKind k);  ///< "t" or "wald", the sweep key's values

/// Mean with a confidence interval mean +- multiplier sd / sqrt(n), sd the sample standard
/// deviation (n - 1), the multiplier as `kind` says.
struct MeanInterval {
  std::size_t n = 0;
  double mean = 0.0;
  double sd = 0.0;                   ///< 0 when n < 2
  std::optional<double> half_width;  ///< empty when n < 2 (no spread to measure)
  std::optional<double> multiplier;  ///< the quantile used; empty when n < 2
};

/// Throws InvalidArgument when values is empty, a value is not finite or level is not in (0, 1).
MeanInterval mean_interval(const std::vector<double>& values, double level, IntervalKind kind);

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
