#include "optimist/algorithms/parametric/gradient_ellipsoid.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

#include "optimist/models/linalg.hpp"

namespace optimist {

GradientEllipsoid::GradientEllipsoid(Vector w0, double lambda, Representation representation)
    : w0_(std::move(w0)), lambda_(lambda), representation_(representation) {
  if (!(lambda_ > 0.0) || !std::isfinite(lambda_))
    throw InvalidArgument("GradientEllipsoid: lambda must be positive and finite, got " + std::to_string(lambda_));
  if (w0_.size() == 0 || !w0_.allFinite()) throw InvalidArgument("GradientEllipsoid: w0 must be non-empty and finite");
  rhs_ = lambda_ * w0_;
  center_ = w0_;
  const Eigen::Index d = w0_.size();
  if (representation_ == Representation::Dense) {
    llt_.compute(lambda_ * Matrix::Identity(d, d));
  } else {
    gradients_.resize(0, d);
    basis_.resize(d, 0);
  }
}

void GradientEllipsoid::add(const Vector& g, double target) {
  append(g, target);
  if (representation_ == Representation::LowRank) update_low_rank();
  update_center();
}

void GradientEllipsoid::add_many(const Matrix& G, const Vector& targets) {
  if (G.rows() != targets.size())
    throw InvalidArgument("GradientEllipsoid::add_many: " + std::to_string(G.rows()) + " gradients and " +
                          std::to_string(targets.size()) + " targets");
  if (G.rows() == 0) return;
  Eigen::Index i = 0;
  if (representation_ == Representation::LowRank) {
    // The rows that stay LowRank (the last of them may make it Dense), appended as append() does
    // but into matrices sized once: growing them row by row reallocated and copied both at every
    // row, a fresh mapping each time (docs/go-ucb.md, "Stop 54").
    const auto t0 = gradients_.rows();
    const auto room = static_cast<Eigen::Index>(dense_from(num_params())) - t0;
    const Eigen::Index k = std::min(G.rows(), std::max<Eigen::Index>(room, 0));
    if (!G.topRows(k).allFinite() || !targets.head(k).allFinite())
      throw NumericalError("GradientEllipsoid::add: non-finite gradient or target (the model's gradient is not finite)");
    Matrix gradients(t0 + k, G.cols());
    gradients.topRows(t0) = gradients_;
    Matrix gram(t0 + k, t0 + k);
    gram.topLeftCorner(t0, t0) = gram_;
    for (; i < k; ++i) {
      const Eigen::Index t = t0 + i;
      ++count_;
      rhs_ += G.row(i).transpose() * targets[i];
      gradients.row(t) = G.row(i);
      const Vector cross = gradients.topRows(t + 1) * G.row(i).transpose();
      gram.row(t).head(t + 1) = cross.transpose();
      gram.col(t).head(t + 1) = cross;
    }
    gradients_ = std::move(gradients);
    gram_ = std::move(gram);
    if (static_cast<std::size_t>(t0 + k) >= dense_from(num_params())) become_dense();
  }
  for (; i < G.rows(); ++i) append(G.row(i).transpose(), targets[i]);
  if (representation_ == Representation::LowRank) update_low_rank();
  update_center();
}

void GradientEllipsoid::append(const Vector& g, double target) {
  if (g.size() != w0_.size())
    throw InvalidArgument("GradientEllipsoid::add: gradient has " + std::to_string(g.size()) + " entries, expected " +
                          std::to_string(w0_.size()));
  if (!g.allFinite() || !std::isfinite(target))
    throw NumericalError("GradientEllipsoid::add: non-finite gradient or target (the model's gradient is not finite)");
  ++count_;
  rhs_ += g * target;  // sum_i g_i c_i of eq. (5)
  if (representation_ == Representation::Dense) {
    llt_.rankUpdate(g, 1.0);  // Sigma_{t+1} = Sigma_t + g g^T, eq. (3), O(d_w^2)
  } else {
    const Eigen::Index t = gradients_.rows();
    gradients_.conservativeResize(t + 1, Eigen::NoChange);
    gradients_.row(t) = g.transpose();
    const Vector cross = gradients_ * g;  // O(t d_w) extension of the Gram matrix
    gram_.conservativeResize(t + 1, t + 1);
    gram_.row(t) = cross.transpose();
    gram_.col(t) = cross;
    if (static_cast<std::size_t>(t + 1) >= dense_from(num_params())) become_dense();
  }
}

void GradientEllipsoid::become_dense() {
  // Sigma = lambda I + G^T G (eq. 3) in one product and one factorization; rhs_ is unchanged.
  const Eigen::Index d = w0_.size();
  Matrix sigma = lambda_ * Matrix::Identity(d, d);
  sigma.selfadjointView<Eigen::Lower>().rankUpdate(gradients_.transpose());
  llt_.compute(sigma);
  representation_ = Representation::Dense;
  gradients_.resize(0, 0);
  gram_.resize(0, 0);
  basis_.resize(0, 0);
  eigenvalues_.resize(0);
}

void GradientEllipsoid::update_low_rank() {
  // G^T G = V diag(s) V^T with V = G^T U diag(s)^{-1/2}, from G G^T = U diag(s) U^T.
  Eigen::SelfAdjointEigenSolver<Matrix> eig(gram_);
  const Vector& s = eig.eigenvalues();
  const double cutoff = 1e-12 * std::max(1.0, s.maxCoeff());
  std::vector<Eigen::Index> keep;
  for (Eigen::Index k = 0; k < s.size(); ++k)
    if (s[k] > cutoff) keep.push_back(k);
  const auto r = static_cast<Eigen::Index>(keep.size());
  Matrix U(gram_.rows(), r);
  eigenvalues_.resize(r);
  for (Eigen::Index k = 0; k < r; ++k) {
    U.col(k) = eig.eigenvectors().col(keep[static_cast<std::size_t>(k)]) / std::sqrt(s[keep[static_cast<std::size_t>(k)]]);
    eigenvalues_[k] = s[keep[static_cast<std::size_t>(k)]];
  }
  basis_ = gradients_.transpose() * U;
}

Vector GradientEllipsoid::low_rank_apply(const Vector& v, double power) const {
  // Sigma = lambda (I - V V^T) + V diag(lambda + s) V^T, so Sigma^p = lambda^p (I - V V^T) + V diag((lambda+s)^p) V^T.
  const Vector coef = basis_.transpose() * v;
  const Vector scaled = (eigenvalues_.array() + lambda_).pow(power).matrix().cwiseProduct(coef);
  return std::pow(lambda_, power) * (v - basis_ * coef) + basis_ * scaled;
}

void GradientEllipsoid::update_center() { center_ = inverse_apply(rhs_); }  // eq. (5)

Vector GradientEllipsoid::inverse_apply(const Vector& v) const {
  if (representation_ == Representation::Dense) return llt_.solve(v);
  return low_rank_apply(v, -1.0);
}

double GradientEllipsoid::inverse_norm(const Vector& g) const {
  if (representation_ == Representation::Dense) return llt_.matrixL().solve(g).norm();
  const Vector coef = basis_.transpose() * g;
  const double outside = (g.squaredNorm() - coef.squaredNorm()) / lambda_;
  const double inside = (coef.array().square() / (eigenvalues_.array() + lambda_)).sum();
  return std::sqrt(std::max(0.0, outside + inside));
}

Vector GradientEllipsoid::inverse_norms(const Matrix& J) const {
  if (representation_ == Representation::Dense) {
    // One triangular solve for all rows; BLAS's once Sigma_t holds kLapackFrom gradients (fewer
    // compute exactly as before it was used).
    if (count_ < static_cast<std::size_t>(kLapackFrom)) {
      const Matrix whitened = llt_.matrixL().solve(J.transpose());
      return whitened.colwise().norm().transpose();
    }
    Matrix whitened = J.transpose();
    lower_solve_in_place(llt_.matrixLLT(), whitened);
    return whitened.colwise().norm().transpose();
  }
  const Matrix coef = J * basis_;  // n x r
  Vector out(J.rows());
  for (Eigen::Index i = 0; i < J.rows(); ++i) {
    // r = 0 (no direction kept yet): coef has no data, and a row of it would offset a null pointer.
    const double kept = coef.cols() ? coef.row(i).squaredNorm() : 0.0;
    const double outside = (J.row(i).squaredNorm() - kept) / lambda_;
    const double inside =
        coef.cols() ? (coef.row(i).array().square() / (eigenvalues_.transpose().array() + lambda_)).sum() : 0.0;
    out[i] = std::sqrt(std::max(0.0, outside + inside));
  }
  return out;
}

Vector GradientEllipsoid::from_ball(const Vector& u, double beta) const {
  const double r = std::sqrt(beta);
  if (representation_ == Representation::Dense) return center_ + r * llt_.matrixU().solve(u);  // L^{-T} u
  return center_ + r * low_rank_apply(u, -0.5);
}

Vector GradientEllipsoid::to_ball(const Vector& w, double beta) const {
  const Vector d = (w - center_) / std::sqrt(beta);
  if (representation_ == Representation::Dense) return llt_.matrixU() * d;  // L^T d
  return low_rank_apply(d, 0.5);
}

Vector GradientEllipsoid::ball_gradient(const Vector& grad_w, double beta) const {
  const double r = std::sqrt(beta);
  if (representation_ == Representation::Dense) return r * llt_.matrixL().solve(grad_w);  // (L^{-T})^T grad
  return r * low_rank_apply(grad_w, -0.5);
}

Vector GradientEllipsoid::project(const Vector& w, double beta) const {
  Vector u = to_ball(w, beta);
  const double n = u.norm();
  if (n <= 1.0) return w;
  return from_ball(u / n, beta);
}

double GradientEllipsoid::mahalanobis_distance(const Vector& w) const { return to_ball(w, 1.0).norm(); }

Matrix GradientEllipsoid::sigma() const {
  const Eigen::Index d = w0_.size();
  if (representation_ == Representation::Dense) return llt_.reconstructedMatrix();
  return lambda_ * Matrix::Identity(d, d) + gradients_.transpose() * gradients_;
}

Matrix GradientEllipsoid::dense_factor() const {
  if (representation_ != Representation::Dense) throw InvalidArgument("GradientEllipsoid::dense_factor: not the Dense representation");
  return llt_.matrixL();
}

}  // namespace optimist
