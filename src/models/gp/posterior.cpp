// Posterior mean, variance, their x-gradients and joint samples (Rasmussen & Williams,
// Algorithm 2.1 and eqs. 2.25-2.26), computed in standardized units and returned in original units.
#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/models/linalg.hpp"

namespace optimist {

namespace {

void check_points(const Matrix& X, Eigen::Index dim, const char* where) {
  if (X.rows() != dim)
    throw InvalidArgument(std::string("GaussianProcess::") + where + ": points of dimension " +
                          std::to_string(X.rows()) + ", expected " + std::to_string(dim));
}

}  // namespace

GpPrediction GaussianProcess::predict(const Vector& x, bool with_noise) const {
  check_point(x);
  update();
  double mean = prior_mean_, var = kernel_.variance();
  if (size() > 0) {
    const Vector k = kernel_.cross_with_gradient(x, X_, nullptr);
    mean += k.dot(alpha_);                                              // eq. 2.25
    var -= factor().triangularView<Eigen::Lower>().solve(k).squaredNorm();  // eq. 2.26: v = L^-1 k
  }
  var = std::max(var, 0.0) + (with_noise ? hyp_.noise_variance : 0.0);
  return {y_mean_ + y_scale_ * mean, y_scale_ * y_scale_ * var};
}

Eigen::Block<const Matrix> GaussianProcess::explicit_inverse() const {
  update();
  if (!kinv_ready_) {
    inverse_from_cholesky(Matrix(factor()), Kinv_);
    kinv_ready_ = true;
  }
  return std::as_const(Kinv_).topLeftCorner(size(), size());
}

GpPredictionWithGradient GaussianProcess::predict_with_gradient(const Vector& x, bool with_noise) const {
  check_point(x);
  update();
  GpPredictionWithGradient out;
  double mean = prior_mean_, var = kernel_.variance();
  Vector dmean = Vector::Zero(dim_), dvar = Vector::Zero(dim_);
  if (options_.explicit_inverse && size() >= kExplicitInverseFrom) {
    Matrix J;
    const Vector k = kernel_.cross_with_gradient(x, X_, &J);
    mean += k.dot(alpha_);
    dmean.noalias() = J * alpha_;
    // w = K^-1 k: var -= k^T w (eq. 2.26), d/dx (k^T K^-1 k) = 2 J w.
    // A symmetric product: it reads one triangle, half the memory traffic of a general one
    // (docs/gp-bo.md, "Candidate work").
    Vector w;
    symmetric_product(explicit_inverse(), k, w);
    var -= k.dot(w);
    dvar.noalias() = -2.0 * (J * w);
  } else if (size() > 0) {
    Matrix J;  // d x n: column j is d k(x, x_j) / dx
    const Vector k = kernel_.cross_with_gradient(x, X_, &J);
    mean += k.dot(alpha_);
    dmean = J * alpha_;
    const auto L = factor();
    Vector w = L.triangularView<Eigen::Lower>().solve(k);
    var -= w.squaredNorm();
    // d/dx (k^T K^-1 k) = 2 J K^-1 k, with K^-1 k = L^-T v.
    L.transpose().triangularView<Eigen::Upper>().solveInPlace(w);
    dvar = -2.0 * (J * w);
  }
  out.mean = y_mean_ + y_scale_ * mean;
  out.variance = y_scale_ * y_scale_ * (std::max(var, 0.0) + (with_noise ? hyp_.noise_variance : 0.0));
  out.mean_gradient = y_scale_ * dmean;
  out.variance_gradient = (y_scale_ * y_scale_) * dvar;
  return out;
}

void GaussianProcess::predict(const Matrix& X, Vector& mean, Vector& variance, bool with_noise) const {
  check_points(X, dim_, "predict");
  update();
  const Eigen::Index m = X.cols();
  mean = Vector::Constant(m, prior_mean_);
  variance = Vector::Constant(m, kernel_.variance());
  if (size() > 0) {
    auto Ks = scratch_matrix(ScratchSlot::kPredictCross, size(), m);  // n x m
    kernel_.cross(X_, X, Ks);
    mean.noalias() += Ks.transpose() * alpha_;
    lower_solve_in_place(factor(), Ks);
    variance -= Ks.colwise().squaredNorm().transpose();
  }
  variance = variance.cwiseMax(0.0).array() + (with_noise ? hyp_.noise_variance : 0.0);
  mean = (y_mean_ + y_scale_ * mean.array()).matrix();
  variance *= y_scale_ * y_scale_;
}

void GaussianProcess::predict_mean(const Matrix& X, Vector& mean) const {
  check_points(X, dim_, "predict_mean");
  update();
  mean = Vector::Constant(X.cols(), prior_mean_);
  if (size() > 0) {
    auto K = scratch_matrix(ScratchSlot::kCrossKernel, X.cols(), size());
    kernel_.cross_fast(X, X_, K);
    mean.noalias() += K * alpha_;
  }
  mean = (y_mean_ + y_scale_ * mean.array()).matrix();
}

void GaussianProcess::predict_mean_and_variance_bound(const Matrix& X, Vector& mean, Vector& variance_bound) const {
  check_points(X, dim_, "predict_mean_and_variance_bound");
  update();
  const double s = kernel_.variance();
  mean = Vector::Constant(X.cols(), prior_mean_);
  variance_bound = Vector::Constant(X.cols(), s);
  if (size() > 0) {
    auto K = scratch_matrix(ScratchSlot::kCrossKernel, X.cols(), size());  // m x n, as predict_mean's
    kernel_.cross_fast(X, X_, K);
    mean.noalias() += K * alpha_;
    const double diagonal = s + hyp_.noise_variance + jitter_;
    Vector nearest = K.col(0).cwiseAbs();  // max over each row, column by column (contiguous)
    for (Eigen::Index j = 1; j < K.cols(); ++j) nearest = nearest.cwiseMax(K.col(j).cwiseAbs());
    variance_bound = (s - nearest.array().square() / diagonal).max(0.0) + 1e-9 * s;
  }
  mean = (y_mean_ + y_scale_ * mean.array()).matrix();
  variance_bound *= y_scale_ * y_scale_;
}

void GaussianProcess::predict_with_gradient(const Matrix& X, Vector& mean, Vector& variance, Matrix& mean_gradient,
                                            Matrix& variance_gradient, bool with_noise) const {
  check_points(X, dim_, "predict_with_gradient");
  const Eigen::Index m = X.cols();
  mean.resize(m);
  variance.resize(m);
  mean_gradient.resize(dim_, m);
  variance_gradient.resize(dim_, m);
  for (Eigen::Index j = 0; j < m; ++j) {
    const GpPredictionWithGradient p = predict_with_gradient(X.col(j), with_noise);
    mean[j] = p.mean;
    variance[j] = p.variance;
    mean_gradient.col(j) = p.mean_gradient;
    variance_gradient.col(j) = p.variance_gradient;
  }
}

void GaussianProcess::solve_in_place(Matrix& R) const {
  if (R.rows() != size())
    throw InvalidArgument("GaussianProcess::solve_in_place: " + std::to_string(R.rows()) + " rows for " +
                          std::to_string(size()) + " observations");
  if (size() == 0) return;
  update();
  factor().triangularView<Eigen::Lower>().solveInPlace(R);
  factor().transpose().triangularView<Eigen::Upper>().solveInPlace(R);
}

Vector GaussianProcess::leave_one_out_residuals(double mean) const {
  const Eigen::Index n = size();
  if (n < 2) return {};
  update();
  // With A = (K + noise I)^-1: r_i = [A (y - m)]_i / A_ii (eq. 5.12), A from the factor.
  Matrix inverse = Matrix::Identity(n, n);
  solve_in_place(inverse);
  const Vector alpha = inverse * (ys_.array() - mean).matrix();
  return alpha.cwiseQuotient(inverse.diagonal());
}

Matrix GaussianProcess::posterior_covariance(const Matrix& X) const {
  check_points(X, dim_, "posterior_covariance");
  update();
  Matrix S = kernel_.gram(X);
  if (size() > 0) {
    Matrix V = kernel_.cross(X_, X);
    factor().triangularView<Eigen::Lower>().solveInPlace(V);
    // Eq. 2.24 with K^-1 = L^-T L^-1: S -= V^T V, lower half only (half the flops), then mirrored.
    S.selfadjointView<Eigen::Lower>().rankUpdate(V.transpose(), -1.0);
    for (Eigen::Index j = 0; j + 1 < S.cols(); ++j)
      S.row(j).tail(S.cols() - j - 1) = S.col(j).tail(S.cols() - j - 1).transpose();
  }
  return (y_scale_ * y_scale_) * S;
}

Matrix GaussianProcess::sample_posterior(const Matrix& X, std::size_t n_samples, Rng& rng) const {
  const Eigen::Index m = X.cols();
  const auto ns = static_cast<Eigen::Index>(n_samples);
  Vector mean, var;
  predict(X, mean, var);
  const Matrix S = posterior_covariance(X);  // exactly symmetric
  Matrix Z(m, ns);
  for (Eigen::Index s = 0; s < ns; ++s)
    for (Eigen::Index i = 0; i < m; ++i) Z(i, s) = rng.normal();
  Matrix out(m, ns);
  try {
    Matrix L;
    cholesky_with_jitter(S, L);
    out.noalias() = L.triangularView<Eigen::Lower>() * Z;
  } catch (const NumericalError&) {
    // Rank-deficient beyond the jitter range: S = P^T L D L^T P with D clamped at 0 still gives
    // draws with covariance S (up to its negative round-off).
    const Eigen::LDLT<Matrix> ldlt(S);
    const Vector sd = ldlt.vectorD().cwiseMax(0.0).cwiseSqrt();
    Matrix T = sd.asDiagonal() * Z;
    T = ldlt.matrixL() * T;
    out = ldlt.transpositionsP().transpose() * T;
  }
  out.colwise() += mean;
  return out;
}

}  // namespace optimist
