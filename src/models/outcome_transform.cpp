#include "optimist/models/outcome_transform.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace optimist {

namespace {

// numpy.median: the middle value, or the mean of the two middle values.
double median(const Vector& y) {
  std::vector<double> v(y.data(), y.data() + y.size());
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return 0.5 * (*mid + *std::max_element(v.begin(), mid));
}

}  // namespace

Standardization Standardization::fit(const Vector& y, OutputScaling rule) {
  const Eigen::Index n = y.size();
  Standardization s;
  double sd = 0.0;
  if (rule == OutputScaling::MeanSampleSd) {
    s.center = n > 0 ? y.mean() : 0.0;
    sd = n > 1 ? std::sqrt((y.array() - s.center).square().sum() / static_cast<double>(n - 1)) : 0.0;
  } else {
    s.center = n > 0 ? median(y) : 0.0;
    sd = n > 1 ? std::sqrt((y.array() - y.mean()).square().sum() / static_cast<double>(n)) : 0.0;
    if (sd < 1e-6) sd = 1.0;  // turbo_1.py's rule
  }
  const double max_abs = n > 0 ? y.cwiseAbs().maxCoeff() : 0.0;
  if (!(sd > 1e-12 * max_abs) || !std::isfinite(sd)) sd = 1.0;
  s.scale = sd;
  return s;
}

}  // namespace optimist
