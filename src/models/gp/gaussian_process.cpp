// Data, standardization and the Cholesky factor of the GP (Rasmussen & Williams, Algorithm 2.1).
#include "optimist/models/gp/gaussian_process.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "optimist/models/linalg.hpp"

namespace optimist {

namespace {

void check_range(const char* what, double lo, double hi) {
  if (!(lo > 0.0) || !(lo <= hi) || !std::isfinite(hi))
    throw InvalidArgument(std::string("GpOptions: bad ") + what + " bounds [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "]");
}

double clip(double v, double lo, double hi) { return std::min(std::max(v, lo), hi); }

}  // namespace

double LogNormalPrior::log_density(double theta) const {
  const double z = (std::log(theta) - loc) / scale;
  return -std::log(theta) - std::log(scale) - 0.5 * std::log(2.0 * std::numbers::pi) - 0.5 * z * z;
}

double LogNormalPrior::log_density_gradient(double theta) const {
  return -1.0 - (std::log(theta) - loc) / (scale * scale);
}

double LogNormalPrior::mode() const { return std::exp(loc - scale * scale); }

double GammaPrior::log_density(double theta) const {
  // lgamma_r, not std::lgamma: lgamma writes the global signgam, a data race when runs fit GPs in
  // parallel threads (found by ThreadSanitizer in the bench runner's parallel runs).
  int sign = 0;
  return concentration * std::log(rate) - lgamma_r(concentration, &sign) + (concentration - 1.0) * std::log(theta) -
         rate * theta;
}

double GammaPrior::log_density_gradient(double theta) const { return (concentration - 1.0) - rate * theta; }

double GammaPrior::mode() const {
  return concentration > 1.0 ? (concentration - 1.0) / rate : std::numeric_limits<double>::min();
}

double HyperparameterPrior::log_density(double theta) const {
  return std::visit([theta](const auto& p) { return p.log_density(theta); }, prior);
}

double HyperparameterPrior::log_density_gradient(double theta) const {
  return std::visit([theta](const auto& p) { return p.log_density_gradient(theta); }, prior);
}

double HyperparameterPrior::mode() const {
  return std::visit([](const auto& p) { return p.mode(); }, prior);
}

bool HyperparameterPrior::valid() const {
  if (const auto* g = std::get_if<GammaPrior>(&prior))
    return g->concentration > 0.0 && g->rate > 0.0 && std::isfinite(g->concentration) && std::isfinite(g->rate);
  const auto& l = std::get<LogNormalPrior>(prior);
  return l.scale > 0.0 && std::isfinite(l.scale) && std::isfinite(l.loc);
}

GaussianProcess::GaussianProcess(Eigen::Index dim, GpOptions options)
    : dim_(dim),
      options_(std::move(options)),
      X_(dim > 0 ? dim : 1, 0),
      kernel_(dim > 0 ? dim : 1, options_.kernel) {
  if (dim < 1) throw InvalidArgument("GaussianProcess: dimension must be >= 1, got " + std::to_string(dim));
  kernel_.set_categories(options_.categories, options_.category_distance);
  kernel_.set_rotation(options_.input_rotation);  // validates it
  check_range("lengthscale", options_.min_lengthscale, options_.max_lengthscale);
  check_range("outputscale", options_.min_outputscale, options_.max_outputscale);
  check_range("noise variance", options_.min_noise_variance, options_.max_noise_variance);
  if (!(options_.max_abs_mean >= 0.0)) throw InvalidArgument("GpOptions: max_abs_mean must be >= 0");
  if (!(options_.worst_margin >= 0.0 && std::isfinite(options_.worst_margin)))
    throw InvalidArgument("GpOptions: worst_margin must be finite and >= 0, got " + std::to_string(options_.worst_margin));
  const std::optional<double>& fixed = options_.fixed_noise_variance;
  if (fixed && !(*fixed >= 0.0 && std::isfinite(*fixed)))
    throw InvalidArgument("GpOptions: fixed_noise_variance must be finite and >= 0");
  for (const HyperparameterPrior* p : {&options_.outputscale_prior, &options_.noise_prior})
    if (!p->valid()) throw InvalidArgument("GpOptions: prior parameters must be finite and positive");
  if (options_.lengthscale_prior && !options_.lengthscale_prior->valid())
    throw InvalidArgument("GpOptions: prior parameters must be finite and positive");
  GpHyperparameters h;
  h.lengthscales =
      Vector::Constant(dim, clip(lengthscale_prior().mode(), options_.min_lengthscale, options_.max_lengthscale));
  h.outputscale = clip(options_.outputscale_prior.mode(), options_.min_outputscale, options_.max_outputscale);
  h.noise_variance = clip(options_.noise_prior.mode(), options_.min_noise_variance, options_.max_noise_variance);
  h.mean = 0.0;
  apply(h);
}

HyperparameterPrior GaussianProcess::lengthscale_prior() const {
  if (options_.lengthscale_prior) return *options_.lengthscale_prior;
  // Hvarfner, Hellsten & Nardi (2024), "Vanilla Bayesian optimization performs great in high
  // dimensions": the median lengthscale grows like sqrt(d), so the prior complexity of the
  // function stays constant with the dimension.
  return LogNormalPrior{std::numbers::sqrt2 + 0.5 * std::log(static_cast<double>(dim_)), std::sqrt(3.0)};
}

void GaussianProcess::set_input_rotation(const Matrix& rotation) {
  kernel_.set_rotation(rotation);  // validates it
  options_.input_rotation = rotation;
  if (size() > 0) refactorize();
}

void GaussianProcess::set_constant_mean(ConstantMean mean) {
  if (mean == options_.mean) return;
  options_.mean = mean;
  update_prior_mean();
}

void GaussianProcess::update_prior_mean() {
  prior_mean_ = learns_mean() ? hyp_.mean : fixed_mean(ys_);
  alpha_stale_ = true;
}

double GaussianProcess::fixed_mean(const Vector& ys) const {
  return options_.mean == ConstantMean::Worst && ys.size() > 0 ? ys.minCoeff() - options_.worst_margin : 0.0;
}

void GaussianProcess::check_point(const Vector& x) const {
  if (x.size() != dim_)
    throw InvalidArgument("GaussianProcess: point of dimension " + std::to_string(x.size()) + ", expected " +
                          std::to_string(dim_));
  if (!x.allFinite()) throw InvalidArgument("GaussianProcess: point with non-finite coordinates");
}

void GaussianProcess::apply(const GpHyperparameters& h) {
  if (h.lengthscales.size() != dim_)
    throw InvalidArgument("GaussianProcess: " + std::to_string(h.lengthscales.size()) + " lengthscales for dimension " +
                          std::to_string(dim_));
  if (!(h.noise_variance >= 0.0) || !std::isfinite(h.noise_variance) || !std::isfinite(h.mean))
    throw InvalidArgument("GaussianProcess: noise variance must be >= 0 and the mean finite");
  kernel_.set_lengthscales(h.lengthscales);  // validates positivity
  kernel_.set_outputscale(h.outputscale);
  hyp_ = h;
  update_prior_mean();
  if (options_.fixed_noise_variance) hyp_.noise_variance = *options_.fixed_noise_variance / (y_scale_ * y_scale_);
}

void GaussianProcess::set_hyperparameters(const GpHyperparameters& h) {
  apply(h);
  refactorize();
}

void GaussianProcess::standardize() {
  const Standardization st = Standardization::fit(y_, options_.output_scaling);
  y_mean_ = st.center;
  y_scale_ = st.scale;
  ys_ = (y_.array() - y_mean_) / y_scale_;
  update_prior_mean();
  if (options_.fixed_noise_variance) hyp_.noise_variance = *options_.fixed_noise_variance / (y_scale_ * y_scale_);
}

void GaussianProcess::set_data(const Matrix& X, const Vector& y) {
  if (X.rows() != dim_ || X.cols() != y.size())
    throw InvalidArgument("GaussianProcess::set_data: X is " + std::to_string(X.rows()) + " x " +
                          std::to_string(X.cols()) + ", y has " + std::to_string(y.size()) + " entries, dimension " +
                          std::to_string(dim_));
  if (!X.allFinite() || !y.allFinite()) throw InvalidArgument("GaussianProcess::set_data: non-finite data");
  X_ = X;
  y_ = y;
  standardize();
  refactorize();
}

void GaussianProcess::set_outputs(const Vector& y) {
  if (y.size() != size())
    throw InvalidArgument("GaussianProcess::set_outputs: " + std::to_string(y.size()) + " outputs for " +
                          std::to_string(size()) + " points");
  if (!y.allFinite()) throw InvalidArgument("GaussianProcess::set_outputs: non-finite output");
  if (size() == 0) return;
  y_ = y;
  ys_ = (y_.array() - y_mean_) / y_scale_;
  update_prior_mean();
}

void GaussianProcess::update_alpha() const {
  const Eigen::Index n = size();
  const Vector r = ys_.array() - prior_mean_;
  const auto L = factor();
  alpha_ = L.triangularView<Eigen::Lower>().solve(r);
  L.transpose().triangularView<Eigen::Upper>().solveInPlace(alpha_);
  // Eq. 2.30 via Algorithm 2.1: -1/2 r^T alpha - sum log L_ii - n/2 log 2 pi.
  lml_ = -0.5 * r.dot(alpha_) - L.diagonal().array().log().sum() -
         0.5 * static_cast<double>(n) * std::log(2.0 * std::numbers::pi);
}

void GaussianProcess::refactorize() {
  // Done by update(): a factorization that a later one replaces (a refit's, after the data's) is
  // never computed.
  pending_factorization_ = size();
  alpha_stale_ = true;
}

void GaussianProcess::update() const {
  if (pending_factorization_ >= 0) {
    factorize_leading(pending_factorization_);
    pending_factorization_ = -1;
  }
  // The points added since, one by one as add_point did (each may fall back to a factorization).
  for (Eigen::Index n = factored_; n < size(); ++n) extend_factor(n);
  if (!alpha_stale_) return;
  alpha_stale_ = false;
  if (size() == 0) {
    alpha_.resize(0);
    lml_ = 0.0;
    return;
  }
  update_alpha();
}

void GaussianProcess::factorize_leading(Eigen::Index m) const {
  kinv_ready_ = false;
  factored_ = m;
  if (m == 0) {
    L_.resize(0, 0);
    jitter_ = 0.0;
    return;
  }
  Matrix K = m == size() ? kernel_.gram(X_) : kernel_.gram(X_.leftCols(m));
  K.diagonal().array() += hyp_.noise_variance;
  jitter_ = cholesky_with_jitter(K, L_);
  form_explicit_inverse_if_due();
}

void GaussianProcess::form_explicit_inverse_if_due() const {
  if (kinv_ready_ || !options_.explicit_inverse || factored_ < kExplicitInverseFrom) return;
  inverse_from_cholesky(Matrix(factor()), Kinv_);
  kinv_ready_ = true;
}

void GaussianProcess::add_point(const Vector& x, double y) {
  check_point(x);
  if (!std::isfinite(y)) throw InvalidArgument("GaussianProcess::add_point: non-finite output");
  const Eigen::Index n = size();
  if (n == 0) {
    set_data(x, Vector::Constant(1, y));
    return;
  }
  // The factor's extension is update()'s (extend_factor); the data and its standardized value now.
  X_.conservativeResize(Eigen::NoChange, n + 1);
  X_.col(n) = x;
  y_.conservativeResize(n + 1);
  y_[n] = y;
  ys_.conservativeResize(n + 1);
  ys_[n] = (y - y_mean_) / y_scale_;
  update_prior_mean();
}

void GaussianProcess::extend_factor(Eigen::Index n) const {
  // Point n joins the factor of the first n: [[L, 0], [l^T, d]] is the factor of
  // [[K, k], [k^T, kss]] with l = L^-1 k, d^2 = kss - l^T l.
  const Vector x = X_.col(n);
  const Vector k = kernel_.cross_with_gradient(x, X_.leftCols(n), nullptr);
  const double kss = kernel_.variance() + hyp_.noise_variance + jitter_;
  const Vector l = factor().triangularView<Eigen::Lower>().solve(k);
  const double d2 = kss - l.squaredNorm();
  if (!(d2 > 1e-12 * kss) || !std::isfinite(d2)) {
    factorize_leading(n + 1);  // the new pivot is not safely positive: factorize again, with jitter
    return;
  }
  // Room for n + 1 rows: grow the buffers geometrically (amortized O(n^2) copies in all).
  const auto reserve = [n](Matrix& M, Eigen::Index keep) {
    if (M.rows() > n) return;
    const Eigen::Index capacity = n + 1 + n / 4 + 8;
    Matrix grown(capacity, capacity);
    grown.topLeftCorner(keep, keep) = M.topLeftCorner(keep, keep);
    M.swap(grown);
  };
  reserve(L_, n);
  L_.col(n).head(n).setZero();
  L_.row(n).head(n) = l.transpose();
  L_(n, n) = std::sqrt(d2);
  if (kinv_ready_) {
    // Block inverse: with b = K^-1 k and the Schur complement d^2 = kss - k^T b,
    // [[K, k], [k^T, kss]]^-1 = [[K^-1 + b b^T / d^2, -b / d^2], [-b^T / d^2, 1 / d^2]].
    const Vector b = (k.transpose() * Kinv_.topLeftCorner(n, n)).transpose();
    reserve(Kinv_, n);
    Kinv_.topLeftCorner(n, n).noalias() += b * (b.transpose() / d2);
    Kinv_.row(n).head(n) = -b.transpose() / d2;
    Kinv_.col(n).head(n) = -b / d2;
    Kinv_(n, n) = 1.0 / d2;
  }
  factored_ = n + 1;
  form_explicit_inverse_if_due();  // the data just reached kExplicitInverseFrom points
}

}  // namespace optimist
