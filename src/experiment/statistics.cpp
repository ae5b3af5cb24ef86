#include "optimist/experiment/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <boost/math/distributions/students_t.hpp>

#include "optimist/core/types.hpp"

namespace optimist::experiment {

WaldInterval wald_interval(const std::vector<double>& values, double level) {
  if (values.empty()) throw InvalidArgument("wald_interval: no values");
  if (!(level > 0.0 && level < 1.0))
    throw InvalidArgument("wald_interval: level must be in (0, 1), got " + format_double(level));
  WaldInterval w;
  w.n = values.size();
  double sum = 0.0;
  for (double v : values) {
    if (!std::isfinite(v)) throw InvalidArgument("wald_interval: value " + format_double(v) + " is not finite");
    sum += v;
  }
  w.mean = sum / static_cast<double>(w.n);
  if (w.n < 2) return w;
  double ss = 0.0;
  for (double v : values) ss += (v - w.mean) * (v - w.mean);
  w.sd = std::sqrt(ss / static_cast<double>(w.n - 1));
  w.half_width = normal_quantile(0.5 + level / 2) * w.sd / std::sqrt(static_cast<double>(w.n));
  return w;
}

namespace {

boost::math::students_t t_distribution(std::size_t n, double level, const char* what) {
  if (n < 2) throw InvalidArgument(std::string(what) + ": needs n >= 2 values, got " + std::to_string(n));
  if (!(level > 0.0 && level < 1.0))
    throw InvalidArgument(std::string(what) + ": level must be in (0, 1), got " + format_double(level));
  return boost::math::students_t(static_cast<double>(n - 1));
}

}  // namespace

double wald_coverage(std::size_t n, double level) {
  const auto t = t_distribution(n, level, "wald_coverage");
  return 2.0 * boost::math::cdf(t, normal_quantile(0.5 + level / 2)) - 1.0;
}

double t_quantile(std::size_t n, double level) {
  return boost::math::quantile(t_distribution(n, level, "t_quantile"), 0.5 + level / 2);
}

double median(std::vector<double> values) {
  if (values.empty()) throw InvalidArgument("median: no values");
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + mid) + upper) / 2;
}

}  // namespace optimist::experiment
