// Log marginal likelihood, its analytic gradient (Rasmussen & Williams eqs. 2.30 and 5.9), the
// log-normal priors, and the multi-start L-BFGS-B fit over the log hyperparameters.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <numeric>
#include <vector>

#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/models/linalg.hpp"
#include "optimist/solvers/box_maximizer.hpp"

namespace optimist {

// Buffers reused across the evaluations of one fit.
struct GaussianProcess::Workspace {
  Matrix K, D, L, W;
  Vector alpha;
};

Eigen::Index GaussianProcess::num_parameters() const {
  return dim_ + 1 + (options_.fixed_noise_variance ? 0 : 1) + (learns_mean() ? 1 : 0);
}

Vector GaussianProcess::parameters() const {
  Vector theta(num_parameters());
  theta.head(dim_) = hyp_.lengthscales.array().log().matrix();
  Eigen::Index i = dim_;
  theta[i++] = std::log(hyp_.outputscale);
  if (!options_.fixed_noise_variance) theta[i++] = std::log(hyp_.noise_variance);
  if (learns_mean()) theta[i++] = hyp_.mean;
  return theta;
}

void GaussianProcess::parameter_bounds(Vector& lower, Vector& upper) const {
  lower.resize(num_parameters());
  upper.resize(num_parameters());
  lower.head(dim_).setConstant(std::log(options_.min_lengthscale));
  upper.head(dim_).setConstant(std::log(options_.max_lengthscale));
  Eigen::Index i = dim_;
  lower[i] = std::log(options_.min_outputscale);
  upper[i++] = std::log(options_.max_outputscale);
  if (!options_.fixed_noise_variance) {
    lower[i] = std::log(options_.min_noise_variance);
    upper[i++] = std::log(options_.max_noise_variance);
  }
  if (learns_mean()) {
    lower[i] = -options_.max_abs_mean;
    upper[i++] = options_.max_abs_mean;
  }
}

GpHyperparameters GaussianProcess::unpack(const Vector& theta) const {
  if (theta.size() != num_parameters())
    throw InvalidArgument("GaussianProcess: expected " + std::to_string(num_parameters()) + " parameters, got " +
                          std::to_string(theta.size()));
  GpHyperparameters h;
  h.lengthscales = theta.head(dim_).array().exp().matrix();
  Eigen::Index i = dim_;
  h.outputscale = std::exp(theta[i++]);
  h.noise_variance = options_.fixed_noise_variance ? hyp_.noise_variance : std::exp(theta[i++]);
  h.mean = learns_mean() ? theta[i++] : hyp_.mean;  // a fixed mean leaves the learned value as it is
  return h;
}

double GaussianProcess::evaluate(const Matrix& X, const Vector& ys, const Vector& theta, Vector* grad, bool with_prior,
                                 Workspace& ws) const {
  const GpHyperparameters h = unpack(theta);
  const double mean = learns_mean() ? h.mean : fixed_mean(ys);  // ys may be a subset (a large fit's starts)
  Kernel kernel(options_.kernel, h.lengthscales, h.outputscale, options_.categories, options_.category_distance);
  kernel.set_rotation(options_.input_rotation);
  const Eigen::Index n = X.cols();
  kernel.gram_with_derivative(X, ws.K, grad ? &ws.D : nullptr);
  ws.K.diagonal().array() += h.noise_variance;
  try {
    cholesky_with_jitter(ws.K, ws.L);
  } catch (const NumericalError&) {
    return -std::numeric_limits<double>::infinity();
  }
  ws.K.diagonal().array() -= h.noise_variance;  // back to the noise-free Gram matrix
  const Vector r = ys.array() - mean;
  ws.alpha = ws.L.triangularView<Eigen::Lower>().solve(r);
  ws.L.triangularView<Eigen::Lower>().transpose().solveInPlace(ws.alpha);
  // Eq. 2.30.
  double value = -0.5 * r.dot(ws.alpha) - ws.L.diagonal().array().log().sum() -
                 0.5 * static_cast<double>(n) * std::log(2.0 * std::numbers::pi);

  if (grad) {
    grad->resize(theta.size());
    // Eq. 5.9: d/d theta_j = 1/2 tr(W dK/d theta_j), W = alpha alpha^T - K^-1, formed once so that
    // every hyperparameter costs O(n^2) (lengthscales: one O(d n^2) product in total).
    inverse_from_cholesky(ws.L, ws.W);
    // In place, column by column: the n x n temporaries of `alpha alpha^T - W` and of W .* D were
    // fresh allocations (and page faults) at every evaluation; the entries are the same.
    for (Eigen::Index j = 0; j < n; ++j) ws.W.col(j) = ws.alpha * ws.alpha[j] - ws.W.col(j);
    ws.D.array() *= ws.W.array();  // D is not needed past this product
    Vector& g = *grad;
    g.head(dim_) = 0.5 * kernel.lengthscale_contract(X, ws.D);
    Eigen::Index i = dim_;
    g[i++] = 0.5 * ws.W.cwiseProduct(ws.K).sum();  // dK / d log s = K
    if (!options_.fixed_noise_variance) g[i++] = 0.5 * h.noise_variance * ws.W.trace();
    if (learns_mean()) g[i++] = ws.alpha.sum();  // d/dc of -1/2 (y-c)^T K^-1 (y-c)
  }

  if (with_prior && options_.use_priors) {
    const HyperparameterPrior lp = lengthscale_prior();
    for (Eigen::Index p = 0; p < dim_; ++p) {
      value += lp.log_density(h.lengthscales[p]);
      if (grad) (*grad)[p] += lp.log_density_gradient(h.lengthscales[p]);
    }
    value += options_.outputscale_prior.log_density(h.outputscale);
    if (grad) (*grad)[dim_] += options_.outputscale_prior.log_density_gradient(h.outputscale);
    if (!options_.fixed_noise_variance) {
      value += options_.noise_prior.log_density(h.noise_variance);
      if (grad) (*grad)[dim_ + 1] += options_.noise_prior.log_density_gradient(h.noise_variance);
    }
  }
  return value;
}

double GaussianProcess::log_marginal_likelihood(const Vector& theta, Vector* grad, bool with_prior) const {
  if (size() == 0) {
    if (grad) *grad = Vector::Zero(num_parameters());
    return 0.0;
  }
  Workspace ws;
  return evaluate(X_, ys_, theta, grad, with_prior, ws);
}

void GaussianProcess::fit(Rng& rng, const GpFitOptions& fit_options) {
  if (size() == 0) return;
  standardize();
  refactorize();  // (recorded only: the factorization is the one at the end, as before)
  // Optional random subset for the fit (partial Fisher-Yates, in the original order).
  Matrix Xsub;
  Vector ysub;
  const std::size_t cap = fit_options.max_points;
  const bool subset = cap > 0 && static_cast<std::size_t>(size()) > cap;
  if (subset) {
    std::vector<Eigen::Index> idx(static_cast<std::size_t>(size()));
    std::iota(idx.begin(), idx.end(), Eigen::Index{0});
    for (std::size_t i = 0; i < cap; ++i) std::swap(idx[i], idx[i + rng.below(idx.size() - i)]);
    idx.resize(cap);
    std::sort(idx.begin(), idx.end());
    Xsub.resize(dim_, static_cast<Eigen::Index>(cap));
    ysub.resize(static_cast<Eigen::Index>(cap));
    for (std::size_t i = 0; i < cap; ++i) {
      Xsub.col(static_cast<Eigen::Index>(i)) = X_.col(idx[i]);
      ysub[static_cast<Eigen::Index>(i)] = ys_[idx[i]];
    }
  }
  const Matrix& X = subset ? Xsub : X_;
  const Vector& ys = subset ? ysub : ys_;

  Vector lower, upper;
  parameter_bounds(lower, upper);
  const Vector start = parameters().cwiseMax(lower).cwiseMin(upper);
  Workspace ws;
  // Divided by n so that the tolerances mean the same at every data size (as GPyTorch's
  // ExactMarginalLogLikelihood).
  const double n = static_cast<double>(X.cols());
  // The first evaluation is the start's score (maximize_in_box scores the given starts first).
  double start_value = std::numeric_limits<double>::quiet_NaN();
  bool first = true;
  // With no random starts the one start is scored and then searched from, and the search's first
  // evaluation is that point again with the gradient: the score computes the gradient too and
  // keeps it for that call (the same numbers; one kernel matrix and factorization fewer per refit).
  const bool one_start = fit_options.random_starts == 0;
  Vector kept_theta, kept_grad;
  double kept_value = 0.0;
  bool kept = false;
  const auto same = [](const Vector& a, const Vector& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
  };
  const BoxObjective objective = [&](const Vector& theta, Vector* grad) {
    if (kept && grad && same(theta, kept_theta)) {
      kept = false;
      *grad = kept_grad;
      return kept_value;
    }
    kept = false;
    const bool keep = one_start && first && !grad;
    Vector* g = keep ? &kept_grad : grad;
    const double v = evaluate(X, ys, theta, g, true, ws) / n;
    if (first) {
      first = false;
      if (std::isfinite(v)) start_value = v * n;
    }
    if (g) *g /= n;
    if (keep && std::isfinite(v)) {
      kept = true;
      kept_theta = theta;
      kept_value = v;
    }
    return v;
  };
  BoxMaximizerOptions opt;
  opt.raw_samples = fit_options.random_starts;
  opt.restarts = fit_options.restarts;
  opt.max_iterations = fit_options.max_iterations;
  opt.gradient_tolerance = fit_options.gradient_tolerance;
  opt.value_tolerance = fit_options.value_tolerance;
  const BoxMaximizerResult best = maximize_in_box(objective, lower, upper, {start}, opt, rng);
  last_fit_ = {best.evaluations, best.local_searches, best.failed_searches, static_cast<std::size_t>(X.cols()),
               best.value * n, start_value};
  if (best.found()) apply(unpack(best.x));
  refactorize();
}

}  // namespace optimist
