#include "optimist/experiment/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

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

double median(std::vector<double> values) {
  if (values.empty()) throw InvalidArgument("median: no values");
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + mid) + upper) / 2;
}

}  // namespace optimist::experiment
