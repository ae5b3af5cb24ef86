// GO-UCB's confidence set over parameters: Sigma_t (eq. 3), its center w_t (eq. 5) and
// Ball_t = {w : ||w - w_t||^2_{Sigma_t} <= beta_t} (eq. 6).
#pragma once

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <vector>

#include "optimist/core/types.hpp"

namespace optimist {

/// Sigma_t = lambda I + sum_i g_i g_i^T with g_i = grad_w f_{x_i}(w_i), and
/// w_t = Sigma_t^{-1} (sum_i g_i c_i + lambda w_0) with c_i = g_i^T w_i + y_i - f_{x_i}(w_i), the
/// closed-form minimizer (5) of the regularized linearized least squares (4).
///
/// Two exact representations, chosen once at construction:
///  - Dense: the Cholesky factor L of Sigma (d_w x d_w), rank-one updated in O(d_w^2) per
///    observation (Eigen's LLT::rankUpdate); memory O(d_w^2). Best when many observations are
///    expected relative to d_w.
///  - LowRank: the gradients G (t x d_w) and the eigendecomposition of G G^T; by Woodbury every
///    operation costs O(t d_w) and a new observation O(t^2 d_w + t^3). Best when t << d_w (a
///    551-parameter network with a budget of 72: ~10x cheaper per bonus evaluation). Once t
///    reaches dense_from(d_w) it turns itself into Dense (Sigma = lambda I + G^T G, one Cholesky):
///    past that an observation's O(t^3) costs more than Dense's bonus evaluations save (docs/
///    go-ucb.md, "A growing history").
/// Ball points are parameterized as w = w_t + sqrt(beta) S^{-T} u with ||u|| <= 1 and S S^T =
/// Sigma (S = L for Dense, the symmetric square root for LowRank), so clamping u to the unit
/// ball is the exact Mahalanobis projection onto Ball_t.
class GradientEllipsoid {
 public:
  enum class Representation { Dense, LowRank };

  /// The number of observations at which a LowRank ellipsoid of d_w parameters becomes Dense:
  /// max(128, min(d_w / 2, cbrt(100 d_w^2))). A LowRank update costs ~10 t^3 (the eigensolver), and
  /// Dense's bonus costs ~d_w^2 more than LowRank's ~t d_w at each of a step's ~1,000 evaluations:
  /// they cross near t = cbrt(100 d_w^2) for large d_w, near d_w / 2 for a few hundred parameters.
  static std::size_t dense_from(std::size_t d_w) {
    const double dw = static_cast<double>(d_w);
    return std::max<std::size_t>(128, static_cast<std::size_t>(std::min(dw / 2.0, std::cbrt(100.0 * dw * dw))));
  }

  /// Contract: lambda > 0 and finite; w0 non-empty and finite.
  GradientEllipsoid(Vector w0, double lambda, Representation representation);

  /// Adds one observation: g = grad_w f_{x}(w_i) and its linearization target c (see above).
  void add(const Vector& g, double target);
  /// Adds the rows of G (t x d_w) with their targets, as t calls of add() would (the same state,
  /// bit for bit), but refreshes w_t and the LowRank eigenbasis once at the end instead of after
  /// each row: a rebuild after a refit costs O(t d_w^2) (Dense) or O(t^2 d_w + t^3) (LowRank)
  /// instead of t times that.
  void add_many(const Matrix& G, const Vector& targets);

  std::size_t num_params() const { return static_cast<std::size_t>(w0_.size()); }
  std::size_t size() const { return count_; }
  double lambda() const { return lambda_; }
  /// The representation now (a LowRank one becomes Dense at dense_from(d_w) observations).
  Representation representation() const { return representation_; }

  /// w_t of eq. (5).
  const Vector& center() const { return center_; }
  /// Sigma^{-1} v.
  Vector inverse_apply(const Vector& v) const;
  /// ||g||_{Sigma^{-1}} = sqrt(g^T Sigma^{-1} g) (the bonus of Lemma 5.4).
  double inverse_norm(const Vector& g) const;
  /// inverse_norm of every row of J (n x d_w).
  Vector inverse_norms(const Matrix& J) const;

  /// w_t + sqrt(beta) S^{-T} u: a point of Ball_t when ||u|| <= 1.
  Vector from_ball(const Vector& u, double beta) const;
  /// Inverse of from_ball: u = S^T (w - w_t) / sqrt(beta).
  Vector to_ball(const Vector& w, double beta) const;
  /// Gradient in u of h(from_ball(u, beta)) given the gradient of h in w: sqrt(beta) S^{-1} grad.
  Vector ball_gradient(const Vector& grad_w, double beta) const;
  /// The exact Mahalanobis projection of w onto Ball_t: the closest point in ||.||_Sigma.
  Vector project(const Vector& w, double beta) const;
  /// ||w - w_t||_Sigma.
  double mahalanobis_distance(const Vector& w) const;

  /// Sigma_t as a dense matrix (for tests and diagnostics; O(d_w^2) memory).
  Matrix sigma() const;
  /// The dense Cholesky factor L (Dense representation only).
  Matrix dense_factor() const;

 private:
  void append(const Vector& g, double target);  // add() without refreshing the center or eigenbasis
  void become_dense();
  void update_center();
  void update_low_rank();
  // Symmetric square-root helpers of the LowRank form.
  Vector low_rank_apply(const Vector& v, double power) const;  // Sigma^{power} v for power in {-1,-1/2,1/2}

  Vector w0_;
  double lambda_;
  Representation representation_;
  std::size_t count_ = 0;
  Vector rhs_;  // sum_i g_i c_i + lambda w0
  Vector center_;
  // Dense
  Eigen::LLT<Matrix> llt_;
  // LowRank: gradients as rows, Gram matrix G G^T, and the orthonormal eigenbasis V (d_w x r)
  // of G^T G with eigenvalues s (r).
  Matrix gradients_;
  Matrix gram_;
  Matrix basis_;
  Vector eigenvalues_;
};

}  // namespace optimist
