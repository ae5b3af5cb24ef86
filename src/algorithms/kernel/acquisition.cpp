#include "optimist/algorithms/kernel/acquisition.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>
#include <limits>
#include <numbers>

namespace optimist {

namespace {

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log(2 pi) / 2, c1 of Ament et al. eq. 9

// Posterior sd floor relative to the output scale: keeps z finite at observed points of a
// noise-free model (BoTorch clamps sigma the same way).
constexpr double kMinRelativeSd = 1e-9;

// 1 - t R(t) = h(-t) / phi(t) for t >= 1. erfcx-based up to t = 40 (cancellation costs at most
// log10(t^2) < 3.3 digits); beyond, the asymptotic series 1/t^2 - 3/t^4 + 15/t^6 - ... whose
// truncation error after 7 terms is below 1e-12 relative there.
double one_minus_t_mills(double t) {
  if (t <= 40.0) return 1.0 - t * mills_ratio(t);
  const double u = 1.0 / (t * t);
  double term = u, sum = 0.0;
  for (int k = 1; k <= 7; ++k) {
    sum += term;
    term *= -(2.0 * k + 1.0) * u;
  }
  return sum;
}

}  // namespace

double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 0.0) {
    // erfcx(-x) = 2 exp(x^2) - erfcx(x); overflows for x < -26.6.
    if (x < -26.6) return std::numeric_limits<double>::infinity();
    return 2.0 * std::exp(x * x) - erfcx(-x);
  }
  // exp(x^2) erfc(x) is accurate to ~1e-16 below 3 (checked against long double).
  if (x < 3.0) return std::exp(x * x) * std::erfc(x);
  if (std::isinf(x)) return 0.0;
  // Continued fraction (Abramowitz & Stegun 7.1.14), 40 terms give full precision for x >= 3:
  // sqrt(pi) erfcx(x) = 1 / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))).
  double f = x;
  for (int k = 40; k >= 1; --k) f = x + (0.5 * k) / f;
  return 1.0 / (std::sqrt(std::numbers::pi) * f);
}

double normal_pdf(double z) { return std::exp(-0.5 * z * z - kLogSqrt2Pi); }
double normal_cdf(double z) { return 0.5 * std::erfc(-z * kInvSqrt2); }

double mills_ratio(double t) { return std::sqrt(std::numbers::pi / 2.0) * erfcx(t * kInvSqrt2); }

double log_normal_cdf(double z) {
  if (z < 0.0) return -0.5 * z * z - kLogSqrt2Pi + std::log(mills_ratio(-z));  // Phi(z) = phi(z) R(-z)
  return std::log1p(-0.5 * std::erfc(z * kInvSqrt2));
}

double log_normal_cdf_derivative(double z) {
  if (z < 0.0) return 1.0 / mills_ratio(-z);
  return normal_pdf(z) / normal_cdf(z);
}

double ei_h(double z) { return normal_pdf(z) + z * normal_cdf(z); }

double log_ei_h(double z) {
  // Ament et al. (2023), eq. 9: for z <= -1, h(z) = phi(z) (1 - |z| R(|z|)), so
  // log h = -z^2/2 - c1 + log(1 - |z| R(|z|)); the log of the bracket is taken with log1p where
  // the bracket is not small.
  if (z > -1.0) return std::log(ei_h(z));
  const double t = -z;
  return -0.5 * z * z - kLogSqrt2Pi + std::log(one_minus_t_mills(t));
}

double log_ei_h_derivative(double z) {
  // h'(z) = Phi(z), so d log h / dz = Phi(z) / h(z) = R(|z|) / (1 - |z| R(|z|)) for z <= -1.
  if (z > -1.0) return normal_cdf(z) / ei_h(z);
  const double t = -z;
  return mills_ratio(t) / one_minus_t_mills(t);
}

double expected_improvement(double mean, double sd, double best, double xi) {
  if (!(sd > 0.0)) return std::max(mean - best - xi, 0.0);
  return sd * ei_h((mean - best - xi) / sd);
}

double log_expected_improvement(double mean, double sd, double best, double xi) {
  if (!(sd > 0.0)) return std::log(std::max(mean - best - xi, 0.0));
  return log_ei_h((mean - best - xi) / sd) + std::log(sd);
}

double probability_of_improvement(double mean, double sd, double best, double xi) {
  if (!(sd > 0.0)) return mean > best + xi ? 1.0 : 0.0;
  return normal_cdf((mean - best - xi) / sd);
}

double upper_confidence_bound(double mean, double sd, double beta) { return mean + std::sqrt(beta) * sd; }

double srinivas_beta_finite(double t, double log_domain_size, double delta) {
  const double pi2 = std::numbers::pi * std::numbers::pi;
  return 2.0 * (log_domain_size + 2.0 * std::log(t) + std::log(pi2 / (6.0 * delta)));
}

double srinivas_beta_continuous(double t, double d, double delta, double a, double b, double r) {
  const double pi2 = std::numbers::pi * std::numbers::pi;
  return 2.0 * std::log(2.0 * t * t * pi2 / (3.0 * delta)) +
         2.0 * d * std::log(t * t * d * b * r * std::sqrt(std::log(4.0 * d * a / delta)));
}

// ---- AcquisitionFunction ----

AcquisitionFunction::AcquisitionFunction(const GaussianProcess& gp)
    : gp_(gp), min_sd_(kMinRelativeSd * gp.output_scale()) {}

double AcquisitionFunction::value(const Vector& x, Vector* grad) const {
  if (!grad) {
    const GpPrediction p = gp_.predict(x);
    const double sd = std::max(std::sqrt(p.variance), min_sd_);
    return transform(p.mean, sd, nullptr, nullptr);
  }
  const GpPredictionWithGradient p = gp_.predict_with_gradient(x);
  const double raw_sd = std::sqrt(p.variance);
  const bool floored = !(raw_sd > min_sd_);
  const double sd = floored ? min_sd_ : raw_sd;
  double d_mean = 0.0, d_sd = 0.0;
  const double v = transform(p.mean, sd, &d_mean, &d_sd);
  // d sd / dx = (d var / dx) / (2 sd); zero where the floor is active.
  *grad = d_mean * p.mean_gradient;
  if (!floored) *grad += (d_sd / (2.0 * sd)) * p.variance_gradient;
  return v;
}

Vector AcquisitionFunction::values(const Matrix& X) const {
  Vector mean, var;
  gp_.predict(X, mean, var);
  Vector out(X.cols());
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    out[j] = transform(mean[j], std::max(std::sqrt(var[j]), min_sd_), nullptr, nullptr);
  return out;
}

Vector AcquisitionFunction::top_values(const Matrix& X, std::size_t keep) const {
  const Eigen::Index m = X.cols();
  if (!increasing_in_sd() || gp_.size() < GaussianProcess::kExplicitInverseFrom || keep == 0 ||
      static_cast<Eigen::Index>(keep) >= m)
    return values(X);
  // Upper bounds from the exact means and an upper bound of each sd (the variance given the
  // nearest observation alone), in decreasing order.
  Vector mean, variance_bound;
  gp_.predict_mean_and_variance_bound(X, mean, variance_bound);
  Vector bound(m);
  for (Eigen::Index j = 0; j < m; ++j) {
    bound[j] = transform(mean[j], std::max(std::sqrt(variance_bound[j]), min_sd_), nullptr, nullptr);
    if (std::isnan(bound[j])) bound[j] = std::numeric_limits<double>::infinity();  // never pruned
  }
  std::vector<Eigen::Index> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return bound[a] > bound[b]; });
  // Exact values by blocks, down the bounds, until the next bound is below the keep-th largest
  // exact value (with a relative margin for the round-off between batched and blocked means).
  Vector out = Vector::Constant(m, -std::numeric_limits<double>::infinity());
  std::vector<double> exact;
  double threshold = -std::numeric_limits<double>::infinity();
  constexpr std::size_t kBlock = 32;
  std::size_t pos = 0;
  while (pos < order.size()) {
    std::vector<Eigen::Index> block;
    const std::size_t size = pos == 0 ? std::max(keep, kBlock) : kBlock;
    for (; pos < order.size() && block.size() < size; ++pos) {
      const double b = bound[order[pos]];
      if (b < threshold - 1e-9 * (1.0 + std::abs(threshold))) break;
      block.push_back(order[pos]);
    }
    if (block.empty()) break;
    const Vector v = values(X(Eigen::all, block));
    for (std::size_t i = 0; i < block.size(); ++i) {
      out[block[i]] = v[static_cast<Eigen::Index>(i)];
      if (std::isfinite(v[static_cast<Eigen::Index>(i)])) exact.push_back(v[static_cast<Eigen::Index>(i)]);
    }
    if (exact.size() >= keep) {
      std::nth_element(exact.begin(), exact.begin() + static_cast<std::ptrdiff_t>(keep - 1), exact.end(), std::greater<>());
      threshold = exact[keep - 1];
    }
    if (block.size() < size) break;  // stopped by the bound
  }
  return out;
}

UpperConfidenceBound::UpperConfidenceBound(const GaussianProcess& gp, double beta) : AcquisitionFunction(gp), beta_(beta) {
  if (!(beta >= 0.0) || !std::isfinite(beta)) throw InvalidArgument("UpperConfidenceBound: beta must be finite and >= 0, got " + std::to_string(beta));
}

double UpperConfidenceBound::transform(double mean, double sd, double* d_mean, double* d_sd) const {
  const double s = std::sqrt(beta_);
  if (d_mean) *d_mean = 1.0;
  if (d_sd) *d_sd = s;
  return mean + s * sd;
}

ExpectedImprovement::ExpectedImprovement(const GaussianProcess& gp, double best, double xi)
    : AcquisitionFunction(gp), best_(best), xi_(xi) {}

double ExpectedImprovement::transform(double mean, double sd, double* d_mean, double* d_sd) const {
  const double z = (mean - best_ - xi_) / sd;
  // d EI / d mean = Phi(z), d EI / d sd = phi(z).
  if (d_mean) *d_mean = normal_cdf(z);
  if (d_sd) *d_sd = normal_pdf(z);
  return sd * ei_h(z);
}

LogExpectedImprovement::LogExpectedImprovement(const GaussianProcess& gp, double best, double xi)
    : AcquisitionFunction(gp), best_(best), xi_(xi) {}

double LogExpectedImprovement::transform(double mean, double sd, double* d_mean, double* d_sd) const {
  const double z = (mean - best_ - xi_) / sd;
  if (d_mean || d_sd) {
    // dz/dmean = 1/sd, dz/dsd = -z/sd; plus d log sd / d sd = 1/sd.
    const double g = log_ei_h_derivative(z);
    if (d_mean) *d_mean = g / sd;
    if (d_sd) *d_sd = (1.0 - g * z) / sd;
  }
  return log_ei_h(z) + std::log(sd);
}

ProbabilityOfImprovement::ProbabilityOfImprovement(const GaussianProcess& gp, double best, double xi)
    : AcquisitionFunction(gp), best_(best), xi_(xi) {}

double ProbabilityOfImprovement::transform(double mean, double sd, double* d_mean, double* d_sd) const {
  const double z = (mean - best_ - xi_) / sd;
  const double pdf = normal_pdf(z);
  if (d_mean) *d_mean = pdf / sd;
  if (d_sd) *d_sd = -pdf * z / sd;
  return normal_cdf(z);
}

LogProbabilityOfImprovement::LogProbabilityOfImprovement(const GaussianProcess& gp, double best, double xi)
    : AcquisitionFunction(gp), best_(best), xi_(xi) {}

double LogProbabilityOfImprovement::transform(double mean, double sd, double* d_mean, double* d_sd) const {
  const double z = (mean - best_ - xi_) / sd;
  if (d_mean || d_sd) {
    const double g = log_normal_cdf_derivative(z);
    if (d_mean) *d_mean = g / sd;
    if (d_sd) *d_sd = -g * z / sd;
  }
  return log_normal_cdf(z);
}

BoxMaximizerResult maximize_acquisition(const AcquisitionFunction& acq, const std::vector<Vector>& starts,
                                        const BoxMaximizerOptions& options, Rng& rng) {
  const Eigen::Index d = acq.model().dim();
  const BoxObjective f = [&acq](const Vector& x, Vector* grad) { return acq.value(x, grad); };
  const std::size_t keep = options.restarts;
  const BoxBatchObjective batch = [&acq, keep](const Matrix& X) { return acq.top_values(X, keep); };
  return maximize_in_box(f, Vector::Zero(d), Vector::Ones(d), starts, options, rng, batch);
}

}  // namespace optimist
