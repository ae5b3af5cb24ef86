#include "optimist/models/outcome_transform.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
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

// Mean and root-mean-square deviation that neither overflow (outputs of 1e200, whose squares are
// infinite) nor underflow (1e-200): outside [1e-150, 1e150] the values are divided by the largest
// magnitude first. Inside, the plain formulas, so ordinary runs keep their exact numbers.
double stable_mean(const Vector& y) {
  const double m = y.mean();
  if (std::isfinite(m)) return m;
  const double a = y.cwiseAbs().maxCoeff();
  return std::isfinite(a) ? a * (y.array() / a).mean() : m;
}

double rms_about(const Vector& y, double c, double denominator) {
  const double a = (y.array() - c).abs().maxCoeff();
  if (!(a > 0.0) || !std::isfinite(a)) return a;
  if (a >= 1e-150 && a <= 1e150) return std::sqrt((y.array() - c).square().sum() / denominator);
  return a * std::sqrt(((y.array() - c) / a).square().sum() / denominator);
}

}  // namespace

Standardization Standardization::fit(const Vector& y, OutputScaling rule) {
  const Eigen::Index n = y.size();
  Standardization s;
  double sd = 0.0;
  if (rule == OutputScaling::MeanSampleSd) {
    s.center = n > 0 ? stable_mean(y) : 0.0;
    sd = n > 1 ? rms_about(y, s.center, static_cast<double>(n - 1)) : 0.0;
  } else {
    s.center = n > 0 ? median(y) : 0.0;
    sd = n > 1 ? rms_about(y, stable_mean(y), static_cast<double>(n)) : 0.0;
    if (sd < 1e-6) sd = 1.0;  // turbo_1.py's rule
  }
  const double max_abs = n > 0 ? y.cwiseAbs().maxCoeff() : 0.0;
  if (!(sd > 1e-12 * max_abs) || !std::isfinite(sd)) sd = 1.0;
  s.scale = sd;
  return s;
}

void RunningMoments::add(double y) {
  ++n_;
  if (const double a = std::abs(y); a > scale_) {
    m2_scaled_ *= (scale_ / a) * (scale_ / a);
    scale_ = a;
  }
  const double delta = y - mean_;
  mean_ += delta / static_cast<double>(n_);
  if (scale_ > 0.0) m2_scaled_ += (delta / scale_) * ((y - mean_) / scale_);
}

double RunningMoments::population_sd() const {
  return n_ < 2 ? 0.0 : scale_ * std::sqrt(std::max(0.0, m2_scaled_) / static_cast<double>(n_));
}

Vector half_rank_warp(const Vector& y) {
  const Eigen::Index n = y.size();
  if (n < 3) return y;
  const double m = median(y);
  std::vector<double> above;
  for (Eigen::Index i = 0; i < n; ++i)
    if (y[i] >= m) above.push_back(y[i]);
  const double sigma = rms_about(Eigen::Map<const Vector>(above.data(), static_cast<Eigen::Index>(above.size())), m,
                                 static_cast<double>(above.size()));
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

Vector compress_warp(const Vector& y) {
  const Vector h = half_rank_warp(y);  // y itself for fewer than 3 values or a plateau
  if (h == y) return y;
  const double m = median(y);
  Vector w = y;
  // Below the median h = m + sigma z: the value's distance shrunk by kCompressFactor, and no
  // further than the half-rank warp puts it. Both terms increase with y: so does their max.
  for (Eigen::Index i = 0; i < y.size(); ++i)
    if (y[i] < m) w[i] = std::max(h[i], m + (y[i] - m) / kCompressFactor);
  return w;
}

double yeo_johnson(double x, double lambda) {
  constexpr double kTiny = 1e-10;
  if (x >= 0.0) return std::abs(lambda) < kTiny ? std::log1p(x) : std::expm1(lambda * std::log1p(x)) / lambda;
  const double mu = 2.0 - lambda;
  return std::abs(mu) < kTiny ? -std::log1p(-x) : -std::expm1(mu * std::log1p(-x)) / mu;
}

namespace {

// The Yeo-Johnson profile log-likelihood of lambda (Yeo & Johnson, eq. 3.1, up to constants):
// -n/2 log(variance of the transformed values) + (lambda - 1) sum sign(x) log1p(|x|).
double yeo_johnson_log_likelihood(const Vector& x, double lambda) {
  const Eigen::Index n = x.size();
  Vector t(n);
  double jacobian = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    t[i] = yeo_johnson(x[i], lambda);
    jacobian += std::copysign(std::log1p(std::abs(x[i])), x[i]);
  }
  const double variance = (t.array() - t.mean()).square().mean();
  if (!(variance > 0.0) || !std::isfinite(variance)) return -std::numeric_limits<double>::infinity();
  return -0.5 * static_cast<double>(n) * std::log(variance) + (lambda - 1.0) * jacobian;
}

}  // namespace

Vector power_warp(const Vector& y) {
  const Eigen::Index n = y.size();
  if (n < 3) return y;
  const double mean = stable_mean(y), sd = rms_about(y, mean, static_cast<double>(n));
  if (!(sd > 0.0) || !std::isfinite(sd)) return y;
  const Vector loss = -(y.array() - mean) / sd;
  // Golden-section search of the (unimodal in practice) likelihood over lambda in [-2, 4].
  constexpr double kGolden = 0.6180339887498949;
  double a = -2.0, b = 4.0;
  double c = b - kGolden * (b - a), d = a + kGolden * (b - a);
  double fc = yeo_johnson_log_likelihood(loss, c), fd = yeo_johnson_log_likelihood(loss, d);
  while (b - a > 1e-4) {
    if (fc >= fd) {
      b = d, d = c, fd = fc;
      c = b - kGolden * (b - a), fc = yeo_johnson_log_likelihood(loss, c);
    } else {
      a = c, c = d, fc = fd;
      d = a + kGolden * (b - a), fd = yeo_johnson_log_likelihood(loss, d);
    }
  }
  const double lambda = 0.5 * (a + b);
  Vector w(n);
  for (Eigen::Index i = 0; i < n; ++i) w[i] = -yeo_johnson(loss[i], lambda);
  return w;
}

Vector warp_outputs(const Vector& y, OutputWarp warp) {
  switch (warp) {
    case OutputWarp::Power: return power_warp(y);
    case OutputWarp::HalfRank: return half_rank_warp(y);
    case OutputWarp::Compress: return compress_warp(y);
    case OutputWarp::None: return y;
    case OutputWarp::Alternate:
    case OutputWarp::Auto: break;
  }
  throw std::logic_error("warp_outputs: output warp '" + std::string(kOutputWarpNames.name(warp)) +
                         "' is a rule, resolve it to a warp first");
}

}  // namespace optimist
