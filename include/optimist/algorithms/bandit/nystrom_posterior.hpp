// BKB's estimator (Calandriello et al., COLT 2019, eq. 4) over a finite arm set, kept between steps
// and updated in place when a pull is added or the dictionary S_t changes, so that a step costs
// O(A r) instead of the O(A m^2 + m^3) rebuild of Sec. 3.2 (r = rank of the embedding, r <= m).
//
// Representation. The Nystrom embedding z(x) = (K_S^1/2)^+ k_S(x) is used in Cholesky (Gram-Schmidt)
// coordinates: the arms of S are taken in order; an arm whose residual variance
// rho^2 = k(x,x) - ||z(x)||^2 is positive (above 1e-12 k(x,x)) adds one coordinate, the others lie
// in the span already and add none (the pseudo-inverse). Any rotation of z leaves eq. (4) unchanged,
// so z(x) = R^-T k_B(x) with K_B = R^T R (B: the arms that added a coordinate) is eq. (4)'s z up
// to a rotation. The engine keeps, for all A arms:
//   Z = [z(x_1) .. z(x_A)] (r x A), ||z(x)||^2, and q(x) = z(x)^T V^-1 z(x),
// and V = sum_pulls z z^T + lambda I (r x r) with its Cholesky factor, b = sum_pulls y z and
// c = sum_pulls z. Then (eq. 4, with an optional prior mean y0 and output scale s):
//   mu(x)      = z(x)^T V^-1 (b - y0 c) / s
//   sigma^2(x) = (k(x,x) - ||z(x)||^2) / lambda + q(x).
// Updates (each O(A r) plus O(r^2), or O(r^3) for a removal):
//   - a pull:   V += z z^T (rank-one Cholesky update), q -= (Z^T V^-1 z)^2 / (1 + z^T V^-1 z);
//   - an arm joins S: one new coordinate zeta(x) = (k(x, x_j) - z_j^T z(x)) / rho_j, V grows by a
//     row and a column (Cholesky append), q += (zeta - Z^T V^-1 v)^2 / (schur complement);
//   - an arm leaves S: Givens rotations bring its coordinate to the last position (as in deleting
//     a column of a triangular factor), q -= (e^T V^-1 z)^2 / (e^T V^-1 e), the coordinate is dropped;
//   - a new arm (continuous mode): z = R^-T k_B(x).
// rebuild() computes the same state from scratch (O(m^3 + A r^2)); tests check both agree. By
// default it leaves ||z||^2 and q to the first reader or update (refresh), so a rebuild in tell
// splits its two A r^2 solves between that step and the next; a rebuild by the reader itself
// computes them in the same pass over the arms (RebuildCache::Now).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "optimist/core/types.hpp"
#include "optimist/models/gp/kernel.hpp"

namespace optimist {

/// The pulls, as the bandit keeps them: the distinct pulled arms, and per arm (indexed as the
/// columns of the arm matrix) the pull count n_a and the sum s_a of rewards.
struct PullStats {
  const std::vector<std::size_t>& pulled;
  const std::vector<std::uint64_t>& counts;
  const Vector& sums;
};

/// How rebuild() splits its work. Later: the embedding now, ||z||^2 and q at the first read or
/// update (a rebuild in one step, its readers in the next, split the two A r^2 solves between
/// them). Now: all of it in one pass over the arms. Split: that pass over the first third of the
/// arms now, over the rest in finish_rebuild(), which must come before any read or update.
enum class RebuildCache { Later, Now, Split };

class NystromPosterior {
 public:
  NystromPosterior(Kernel kernel, double lambda);

  const Kernel& kernel() const { return kernel_; }
  double lambda() const { return lambda_; }
  /// New kernel hyperparameters; the state is rebuilt.
  void set_kernel(const Kernel& kernel, const Matrix& arms, const PullStats& pulls);
  /// New kernel hyperparameters and dictionary `members`; the state is rebuilt.
  void set_kernel(const Kernel& kernel, const Matrix& arms, const std::vector<std::size_t>& members, const PullStats& pulls,
                  RebuildCache cache = RebuildCache::Later);

  /// The state for dictionary `members` (arm indices, in order) and all pulls, from scratch.
  void rebuild(const Matrix& arms, const std::vector<std::size_t>& members, const PullStats& pulls,
               RebuildCache cache = RebuildCache::Later);
  /// Completes a rebuild(..., RebuildCache::Split) (`arms` as given to it); no-op otherwise.
  void finish_rebuild(const Matrix& arms);
  bool rebuild_pending() const { return pending_from_ >= 0; }
  /// One more pull of `arm` with reward y (the caller has counted it in PullStats already or not:
  /// only y and the arm are used).
  void add_pull(std::size_t arm, double y);
  /// Arm joins S. `pulls` must describe every pull added so far.
  void add_member(std::size_t arm, const Matrix& arms, const PullStats& pulls);
  /// Arm leaves S.
  void remove_member(std::size_t arm, const Matrix& arms, const PullStats& pulls);
  /// The arm matrix gained columns (continuous mode): embed them.
  void add_arms(const Matrix& arms);

  std::size_t num_arms() const { return static_cast<std::size_t>(zz_.size()); }
  /// m = |S|.
  std::size_t size() const { return basis_.size() + dependent_.size(); }
  /// r = number of embedding coordinates (r <= m).
  std::size_t rank() const { return basis_.size(); }
  bool contains(std::size_t arm) const { return arm < member_.size() && member_[arm] != 0; }
  /// True if the arm is a member that gives a coordinate.
  bool in_basis(std::size_t arm) const { return arm < member_.size() && member_[arm] == 1; }
  /// Members of S: the coordinate-giving arms in coordinate order, then the others.
  std::vector<std::size_t> members() const;
  /// Arms that give a coordinate, in coordinate order.
  const std::vector<std::size_t>& basis() const { return basis_; }

  /// sigma~_t^2 of eq. (4) for every arm.
  const Vector& variance() const;
  /// mu~_t of eq. (4) for every arm, for the prior mean y0 and output scale s (y0 = 0, s = 1: the
  /// paper's zero-mean estimator).
  void mean(double y0, double s, Vector& out) const;
  /// V^-1 (b - y0 c) / s: mu(x) = z(x)^T of this.
  Vector mean_weights(double y0, double s) const;
  /// z(x) of every arm (r x A).
  Eigen::Block<const Matrix> embedding() const { return Zbuf_.topLeftCorner(rank(), num_arms()); }
  /// R (r x r, upper triangular): the embedding of the basis arms, K_B = R^T R.
  Matrix basis_factor() const;
  /// V^-1 (r x r).
  Matrix v_inverse() const;
  /// Variance of every arm after `extra` more pulls (arm indices, repeats allowed), without
  /// changing the state (BBKB's hallucinated pulls).
  Vector variance_after(const std::vector<std::size_t>& extra) const;

  /// For each basis arm (in basis() order), its variance under the dictionary without it:
  /// sigma~^2_{S \ i}(x_i) = sigma~^2(x_i) + 1 / (lambda ||w_i||^2) - (w_i^T V^-1 z_i)^2 / (w_i^T V^-1 w_i),
  /// w_i = R^-T e_i the direction only arm i spans (as remove_member). O(r^3).
  Vector leave_one_out_variance() const;
  /// The same for one basis arm, O(r^2).
  double leave_one_out_variance(std::size_t arm) const;

  /// Recomputes ||z||^2 and q from Z and V (O(A r^2)); removes the drift of many updates.
  void refresh() { recompute_cache(); }
  /// Incremental updates since the last rebuild or refresh.
  std::size_t updates_since_refresh() const { return updates_; }

 private:
  void reserve_rank(std::size_t r);
  void reserve_arms(std::size_t a);
  Eigen::Block<Matrix> Z() { return Zbuf_.topLeftCorner(rank(), num_arms()); }
  Eigen::Block<const Matrix> L() const { return Lbuf_.topLeftCorner(rank(), rank()); }
  Vector solve_v(const Vector& x) const;  // V^-1 x
  void append_coordinate(std::size_t arm, const Matrix& arms, const PullStats& pulls);
  void retry_dependent(const Matrix& arms, const PullStats& pulls);
  void embed_arms(const Matrix& arms, Eigen::Index from, Eigen::Index to, bool with_cache);  // rebuild's pass
  void settle() const;  // refresh() if a rebuild left zz_ and q_ to compute
  void recompute_cache() const;  // refresh(): zz_ and q_ from Z and V

  Kernel kernel_;
  double lambda_;
  std::vector<std::size_t> basis_;      // arms giving a coordinate, in order
  std::vector<std::size_t> dependent_;  // members in the span of the basis
  std::vector<char> member_;            // per arm: 0 no, 1 basis, 2 dependent
  Matrix Zbuf_;  // capacity rows x capacity arms; top-left r x A is Z
  Matrix Vbuf_;  // V, top-left r x r
  Matrix Lbuf_;  // Cholesky factor of V (lower), top-left r x r
  Vector b_, c_;  // sum_pulls y z, sum_pulls z (r)
  Matrix embed_basis_, embed_factor_;  // the last rebuild's basis arms and R (K_B = R^T R)
  Eigen::Index pending_from_ = -1;     // Split: the arms from this on wait for finish_rebuild (-1: none)
  // ||z||^2 and q are a cache of Z and V: mutable, so that a const reader completes a rebuild
  // that left them to it (settle).
  mutable Vector zz_;  // ||z(x)||^2 (A)
  mutable Vector q_;   // z^T V^-1 z (A)
  mutable Vector var_;
  mutable bool stale_ = false;  // zz_ and q_ not computed since the last rebuild (settle)
  Vector work_a_, work_b_;  // A-sized work vectors of the updates (kept: no fresh memory per step)
  mutable bool var_valid_ = false;
  mutable std::size_t updates_ = 0;
};

}  // namespace optimist
