#include "optimist/experiment/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <boost/math/distributions/students_t.hpp>

#include "optimist/core/types.hpp"

namespace optimist::experiment {

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

std::string to_string(IntervalKind k) { return k == IntervalKind::Wald ? "wald" : "t"; }

MeanInterval mean_interval(const std::vector<double>& values, double level, IntervalKind kind) {
  if (values.empty()) throw InvalidArgument("mean_interval: no values");
  if (!(level > 0.0 && level < 1.0))
    throw InvalidArgument("mean_interval: level must be in (0, 1), got " + format_double(level));
  MeanInterval w;
  w.n = values.size();
  double sum = 0.0;
  for (double v : values) {
    if (!std::isfinite(v)) throw InvalidArgument("mean_interval: value " + format_double(v) + " is not finite");
    sum += v;
  }
  w.mean = sum / static_cast<double>(w.n);
  // Equal values (a deterministic algorithm on a deterministic task) have the value as their mean
  // and no spread: sum / n rounded gave "13.11 +- 2.5e-15".
  if (std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); })) w.mean = values.front();
  if (w.n < 2) return w;
  double ss = 0.0;
  for (double v : values) ss += (v - w.mean) * (v - w.mean);
  w.sd = std::sqrt(ss / static_cast<double>(w.n - 1));
  // Values equal but for round-off (sums taken in another order: "18.3 +- 6.24e-15" beside
  // "18.3 +- 0") have no spread either.
  if (w.sd <= 1e-12 * std::abs(w.mean)) w.sd = 0.0;
  w.multiplier = kind == IntervalKind::Wald ? normal_quantile(0.5 + level / 2) : t_quantile(w.n, level);
  w.half_width = *w.multiplier * w.sd / std::sqrt(static_cast<double>(w.n));
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
