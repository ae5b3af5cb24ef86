#include "optimist/models/outcome_transform.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "optimist/core/normal_quantile.hpp"

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

Vector half_rank_warp(const Vector& y) {
  const Eigen::Index n = y.size();
  if (n < 3) return y;
  const double m = median(y);
  double sum_sq = 0.0;
  Eigen::Index upper = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    if (y[i] >= m) {
      sum_sq += (y[i] - m) * (y[i] - m);
      ++upper;
    }
  const double sigma = std::sqrt(sum_sq / static_cast<double>(upper));
  if (!(sigma > 0.0) || !std::isfinite(sigma)) return y;
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return y[a] < y[b]; });
  Vector w = y;
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first + 1;  // [first, last): one group of equal values
    while (last < order.size() && y[order[last]] == y[order[first]]) ++last;
    const double value = y[order[first]];
    if (value < m) {
      const double mid_rank = 0.5 * static_cast<double>(first + last - 1);
      const double z = normal_quantile((mid_rank + 0.5) / static_cast<double>(n));
      // z < 0 below the median's rank; min() keeps the order strict against m itself.
      for (std::size_t k = first; k < last; ++k) w[order[k]] = m + sigma * std::min(z, 0.0);
    }
    first = last;
  }
  return w;
}

Vector warp_outputs(const Vector& y, OutputWarp warp) {
  return warp == OutputWarp::HalfRank ? half_rank_warp(y) : y;
}

}  // namespace optimist
