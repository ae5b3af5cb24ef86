// BKB's eq. (4) estimator kept between steps (nystrom_posterior.hpp explains the representation).
// Above 400 lines on purpose: the rank-one update, adding and removing members and the rebuild share one
// factorization's invariants, which read best side by side.
#include "optimist/algorithms/bandit/nystrom_posterior.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Jacobi>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace optimist {

namespace {

// An arm adds a coordinate when its residual variance exceeds this fraction of k(x,x); below it
// the arm is numerically in the span (the pseudo-inverse of eq. 4 drops such directions).
constexpr double kResidualTolerance = 1e-10;
// Rows the embedding's buffer starts with (it grows by half when full). The rows are the stride
// between arms' embeddings, so rows beyond the rank spread every pass over Z across memory: a
// 16-row start made BKB's second step 1.3x exact GP-UCB's, a horizon-sized buffer its p90 step
// ratio 0.10 -> 0.20 (docs/bkb.md).
constexpr Eigen::Index kMinRows = 2;
// rebuild() and refresh() work on blocks of this many arms (no A-sized temporary).
constexpr Eigen::Index kRefreshBlock = 256;

// L L^T + x x^T = L' L'^T, in place (the classical O(n^2) rank-one Cholesky update).
template <class Block>
void cholesky_rank_one_update(Block L, Vector x) {
  const Eigen::Index n = x.size();
  for (Eigen::Index k = 0; k < n; ++k) {
    const double lkk = L(k, k);
    const double r = std::hypot(lkk, x[k]);
    const double c = r / lkk, s = x[k] / lkk;
    L(k, k) = r;
    if (k + 1 < n) {
      L.col(k).tail(n - k - 1) = (L.col(k).tail(n - k - 1) + s * x.tail(n - k - 1)) / c;
      x.tail(n - k - 1) = c * x.tail(n - k - 1) - s * L.col(k).tail(n - k - 1);
    }
  }
}

}  // namespace

NystromPosterior::NystromPosterior(Kernel kernel, double lambda) : kernel_(std::move(kernel)), lambda_(lambda) {}

void NystromPosterior::set_kernel(const Kernel& kernel, const Matrix& arms, const PullStats& pulls) {
  const std::vector<std::size_t> m = members();
  kernel_ = kernel;
  rebuild(arms, m, pulls);
}

void NystromPosterior::set_kernel(const Kernel& kernel, const Matrix& arms, const std::vector<std::size_t>& members,
                                  const PullStats& pulls, RebuildCache cache) {
  kernel_ = kernel;
  rebuild(arms, members, pulls, cache);
}

std::vector<std::size_t> NystromPosterior::members() const {
  std::vector<std::size_t> m = basis_;
  m.insert(m.end(), dependent_.begin(), dependent_.end());
  return m;
}

void NystromPosterior::reserve_rank(std::size_t r) {
  const auto need = static_cast<Eigen::Index>(r);
  if (need <= Zbuf_.rows() && need <= Vbuf_.rows()) return;
  const Eigen::Index cap = std::max<Eigen::Index>({need, Zbuf_.rows() + Zbuf_.rows() / 2});
  const Eigen::Index rk = static_cast<Eigen::Index>(rank());
  Matrix Z(cap, std::max<Eigen::Index>(Zbuf_.cols(), static_cast<Eigen::Index>(num_arms())));
  Z.topLeftCorner(rk, Zbuf_.cols()) = Zbuf_.topRows(rk);
  Zbuf_.swap(Z);
  Matrix V(cap, cap), L(cap, cap);
  V.topLeftCorner(rk, rk) = Vbuf_.topLeftCorner(rk, rk);
  L.topLeftCorner(rk, rk) = Lbuf_.topLeftCorner(rk, rk);
  Vbuf_.swap(V);
  Lbuf_.swap(L);
  b_.conservativeResize(cap);
  c_.conservativeResize(cap);
}

void NystromPosterior::reserve_arms(std::size_t a) {
  const auto need = static_cast<Eigen::Index>(a);
  if (need <= Zbuf_.cols()) return;
  const Eigen::Index cap = std::max<Eigen::Index>(need, Zbuf_.cols() + Zbuf_.cols() / 2);
  Matrix Z(Zbuf_.rows(), cap);
  Z.leftCols(Zbuf_.cols()) = Zbuf_;
  Zbuf_.swap(Z);
}

Vector NystromPosterior::solve_v(const Vector& x) const {
  Vector w = L().triangularView<Eigen::Lower>().solve(x);
  L().transpose().triangularView<Eigen::Upper>().solveInPlace(w);
  return w;
}

// ---------------------------------------------------------------- rebuild

void NystromPosterior::rebuild(const Matrix& arms, const std::vector<std::size_t>& members, const PullStats& pulls,
                               RebuildCache cache) {
  const Eigen::Index A = arms.cols();
  const double kxx = kernel_.variance();
  basis_.clear();
  dependent_.clear();
  member_.assign(static_cast<std::size_t>(A), 0);
  pending_from_ = -1;
  // Sec. 3.1: K_S and its (pseudo-)inverse square root, here an in-order Cholesky factor R of
  // K_B (K_B = R^T R) that skips the arms already in the span (residual <= tolerance).
  Matrix Xs(arms.rows(), static_cast<Eigen::Index>(members.size()));
  for (std::size_t j = 0; j < members.size(); ++j) Xs.col(static_cast<Eigen::Index>(j)) = arms.col(static_cast<Eigen::Index>(members[j]));
  const Matrix Ks = kernel_.gram(Xs);
  Matrix R = Matrix::Zero(Xs.cols(), Xs.cols());
  std::vector<Eigen::Index> bidx;  // positions in `members` of the basis arms
  for (Eigen::Index j = 0; j < Xs.cols(); ++j) {
    const auto r = static_cast<Eigen::Index>(bidx.size());
    Vector kb(r);
    for (Eigen::Index i = 0; i < r; ++i) kb[i] = Ks(bidx[static_cast<std::size_t>(i)], j);
    const Vector l = R.topLeftCorner(r, r).transpose().triangularView<Eigen::Lower>().solve(kb);
    const double rho2 = Ks(j, j) - l.squaredNorm();
    const std::size_t arm = members[static_cast<std::size_t>(j)];
    if (member_[arm] != 0) continue;  // listed twice
    if (rho2 > kResidualTolerance * kxx) {
      R.col(r).head(r) = l;
      R(r, r) = std::sqrt(rho2);
      bidx.push_back(j);
      basis_.push_back(arm);
      member_[arm] = 1;
    } else {
      dependent_.push_back(arm);
      member_[arm] = 2;
    }
  }
  const auto r = static_cast<Eigen::Index>(basis_.size());
  // The buffers are kept when large enough (a fresh A x r buffer is mostly page faults). The first
  // is zeroed (touched at construction); a larger one grows by half, as reserve_rank, and is not:
  // the rows below r are written below, the others are never read.
  if (Zbuf_.rows() < std::max<Eigen::Index>(r, 1) || Zbuf_.cols() < A) {
    const Eigen::Index rows = std::max<Eigen::Index>({r, kMinRows, Zbuf_.rows() + Zbuf_.rows() / 2});
    if (Zbuf_.size() == 0)
      Zbuf_.setZero(rows, A);
    else
      Zbuf_.resize(rows, A);
    Vbuf_.resize(Zbuf_.rows(), Zbuf_.rows());
    Lbuf_.resize(Zbuf_.rows(), Zbuf_.rows());
  }
  // Kept storage, zeroed in place: a new A-sized vector is fresh memory (page faults) at a step.
  const auto zero = [](Vector& v, Eigen::Index n) {
    if (v.size() != n) v.resize(n);
    v.setZero();
  };
  zero(b_, Zbuf_.rows());
  zero(c_, Zbuf_.rows());
  if (var_.size() != A) var_.setZero(A);  // touched now
  if (work_a_.size() != A) work_a_.setZero(A);  // written before read: touched once, not zeroed again
  if (work_b_.size() != A) work_b_.setZero(A);
  var_valid_ = false;
  stale_ = false;
  updates_ = 0;
  if (r == 0) {
    zero(zz_, A);
    zero(q_, A);
    return;
  }
  if (zz_.size() != A) zz_.setZero(A);  // written below or by the first reader (stale_)
  if (q_.size() != A) q_.setZero(A);
  embed_basis_.resize(arms.rows(), r);
  for (Eigen::Index i = 0; i < r; ++i) embed_basis_.col(i) = arms.col(static_cast<Eigen::Index>(basis_[static_cast<std::size_t>(i)]));
  embed_factor_ = R.topLeftCorner(r, r);
  const auto Rt = embed_factor_.transpose().triangularView<Eigen::Lower>();
  // V_t = sum_a n_a z_a z_a^T + lambda I and the sums over pulls, from the pull counts (Sec. 3.2),
  // with z = R^-T k_B(x) of the pulled arms.
  Matrix Xu(arms.rows(), static_cast<Eigen::Index>(pulls.pulled.size()));
  Vector n(Xu.cols()), s(Xu.cols());
  for (std::size_t j = 0; j < pulls.pulled.size(); ++j) {
    const auto a = static_cast<Eigen::Index>(pulls.pulled[j]);
    Xu.col(static_cast<Eigen::Index>(j)) = arms.col(a);
    n[static_cast<Eigen::Index>(j)] = static_cast<double>(pulls.counts[pulls.pulled[j]]);
    s[static_cast<Eigen::Index>(j)] = pulls.sums[a];
  }
  Matrix Zu = kernel_.cross(embed_basis_, Xu);
  Rt.solveInPlace(Zu);
  auto V = Vbuf_.topLeftCorner(r, r);
  V.noalias() = Zu * n.asDiagonal() * Zu.transpose();
  V.diagonal().array() += lambda_;
  b_.head(r) = Zu * s;
  c_.head(r) = Zu * n;
  const Eigen::LLT<Matrix> llt(V);
  if (llt.info() != Eigen::Success) throw NumericalError("bkb: Cholesky of V_t failed");
  Lbuf_.topLeftCorner(r, r) = llt.matrixL();
  // z(x) = R^-T k_B(x) for every arm: with Later (the default), ||z||^2 and q = ||L_V^-1 z||^2
  // (the second A r^2 solve) are left to the first reader: a rebuild after a refit happens in tell,
  // its readers come at the next ask, so each step pays one solve.
  if (cache == RebuildCache::Later) {
    embed_arms(arms, 0, A, false);
    stale_ = true;
    return;
  }
  // Now: everything in one pass. Split: a third of the arms now, the rest by finish_rebuild.
  const Eigen::Index third = (A / 3 + kRefreshBlock - 1) / kRefreshBlock * kRefreshBlock;  // whole blocks
  const Eigen::Index now = cache == RebuildCache::Now ? A : std::min(A, third);
  embed_arms(arms, 0, now, true);
  if (now < A) pending_from_ = now;
}

void NystromPosterior::finish_rebuild(const Matrix& arms) {
  if (!rebuild_pending()) return;
  embed_arms(arms, pending_from_, static_cast<Eigen::Index>(num_arms()), true);
  pending_from_ = -1;
}

void NystromPosterior::embed_arms(const Matrix& arms, Eigen::Index from, Eigen::Index to, bool with_cache) {
  // z(x) = R^-T k_B(x) for arms [from, to), in blocks (no A-sized temporary), and with_cache their
  // ||z||^2 and q in the same pass.
  const auto r = static_cast<Eigen::Index>(rank());
  const auto Rt = embed_factor_.transpose().triangularView<Eigen::Lower>();
  Matrix P(with_cache ? r : 0, std::min(to - from, kRefreshBlock));
  for (Eigen::Index j0 = from; j0 < to; j0 += kRefreshBlock) {
    const Eigen::Index nb = std::min(kRefreshBlock, to - j0);
    auto Zn = Zbuf_.block(0, j0, r, nb);
    Zn = kernel_.cross(embed_basis_, arms.middleCols(j0, nb));
    Rt.solveInPlace(Zn);
    if (with_cache) {
      zz_.segment(j0, nb) = Zn.colwise().squaredNorm().transpose();
      auto Pn = P.leftCols(nb);
      Pn = Zn;
      L().triangularView<Eigen::Lower>().solveInPlace(Pn);
      q_.segment(j0, nb) = Pn.colwise().squaredNorm().transpose();
    }
  }
}

void NystromPosterior::settle() const {
  if (rebuild_pending()) throw std::logic_error("NystromPosterior: read or updated before finish_rebuild()");
  if (stale_) recompute_cache();
}

void NystromPosterior::recompute_cache() const {
  const auto r = static_cast<Eigen::Index>(rank());
  const auto A = static_cast<Eigen::Index>(num_arms());
  stale_ = false;
  var_valid_ = false;
  updates_ = 0;
  if (r == 0) {
    zz_.setZero();
    q_.setZero();
    return;
  }
  const auto Zr = Zbuf_.topLeftCorner(r, A);
  zz_ = Zr.colwise().squaredNorm().transpose();
  Matrix P(r, std::min(A, kRefreshBlock));
  for (Eigen::Index j0 = 0; j0 < A; j0 += kRefreshBlock) {
    const Eigen::Index n = std::min(kRefreshBlock, A - j0);
    auto Pn = P.leftCols(n);
    Pn = Zr.middleCols(j0, n);
    L().triangularView<Eigen::Lower>().solveInPlace(Pn);
    q_.segment(j0, n) = Pn.colwise().squaredNorm().transpose();
  }
}

// ---------------------------------------------------------------- incremental updates

void NystromPosterior::add_pull(std::size_t arm, double y) {
  settle();
  const auto r = static_cast<Eigen::Index>(rank());
  if (r == 0) return;  // z = 0: nothing moves
  const auto A = static_cast<Eigen::Index>(num_arms());
  const Vector z = Zbuf_.col(static_cast<Eigen::Index>(arm)).head(r);
  // V' = V + z z^T: z_x^T V'^-1 z_x = z_x^T V^-1 z_x - (z_x^T V^-1 z)^2 / (1 + z^T V^-1 z).
  const Vector w = solve_v(z);
  const double denom = 1.0 + z.dot(w);
  Vector& p = work_a_;
  p.resize(A);
  p.noalias() = Zbuf_.topLeftCorner(r, A).transpose() * w;
  q_ = (q_.array() - p.array().square() / denom).max(0.0).matrix();
  Vbuf_.topLeftCorner(r, r).noalias() += z * z.transpose();
  cholesky_rank_one_update(Lbuf_.topLeftCorner(r, r), z);
  b_.head(r) += y * z;
  c_.head(r) += z;
  var_valid_ = false;
  ++updates_;
}

void NystromPosterior::add_member(std::size_t arm, const Matrix& arms, const PullStats& pulls) {
  settle();
  if (contains(arm)) return;
  const double rho2 = kernel_.variance() - zz_[static_cast<Eigen::Index>(arm)];
  if (!(rho2 > kResidualTolerance * kernel_.variance())) {  // in the span already: no new coordinate
    dependent_.push_back(arm);
    member_[arm] = 2;
    return;
  }
  append_coordinate(arm, arms, pulls);
}

void NystromPosterior::append_coordinate(std::size_t arm, const Matrix& arms, const PullStats& pulls) {
  const auto r = static_cast<Eigen::Index>(rank());
  const auto A = static_cast<Eigen::Index>(num_arms());
  const auto j = static_cast<Eigen::Index>(arm);
  const double rho = std::sqrt(kernel_.variance() - zz_[j]);
  reserve_rank(static_cast<std::size_t>(r) + 1);
  // New coordinate (Gram-Schmidt of phi(x_j) against the span): zeta(x) = (k(x, x_j) - z_j^T z(x)) / rho.
  const Vector zj = Zbuf_.col(j).head(r);
  Vector& zeta = work_a_;
  zeta.resize(A);
  for (Eigen::Index j0 = 0; j0 < A; j0 += kRefreshBlock) {  // in blocks: no A-sized temporary
    const Eigen::Index n = std::min(kRefreshBlock, A - j0);
    zeta.segment(j0, n) = kernel_.cross(arms.col(j), arms.middleCols(j0, n)).transpose();
  }
  if (r > 0) zeta.noalias() -= Zbuf_.topLeftCorner(r, A).transpose() * zj;
  zeta /= rho;
  for (std::size_t a : basis_) zeta[static_cast<Eigen::Index>(a)] = 0.0;  // exact: they span the old space
  zeta[j] = rho;
  // V grows by v = sum_a n_a zeta_a z_a and v_rr = sum_a n_a zeta_a^2 + lambda; b, c by one entry.
  Vector v = Vector::Zero(r);
  double vrr = lambda_, bnew = 0.0, cnew = 0.0;
  for (std::size_t a : pulls.pulled) {
    const auto i = static_cast<Eigen::Index>(a);
    const double n = static_cast<double>(pulls.counts[a]);
    if (r > 0) v.noalias() += (n * zeta[i]) * Zbuf_.col(i).head(r);
    vrr += n * zeta[i] * zeta[i];
    bnew += pulls.sums[i] * zeta[i];
    cnew += n * zeta[i];
  }
  // Block inverse: q' = q + (zeta - z^T V^-1 v)^2 / (v_rr - v^T V^-1 v).
  Vector l = Vector::Zero(r);
  double schur = vrr;
  if (r > 0) {
    l = L().triangularView<Eigen::Lower>().solve(v);
    schur = vrr - l.squaredNorm();
    const Vector w = L().transpose().triangularView<Eigen::Upper>().solve(l);
    Vector& p = work_b_;
    p.resize(A);
    p.noalias() = zeta - Zbuf_.topLeftCorner(r, A).transpose() * w;
    schur = std::max(schur, 1e-300);
    q_ = (q_.array() + p.array().square() / schur).matrix();
  } else {
    q_ = (q_.array() + zeta.array().square() / schur).matrix();
  }
  zz_ += zeta.cwiseAbs2();
  Zbuf_.row(r).head(A) = zeta.transpose();
  Vbuf_.row(r).head(r) = v.transpose();
  Vbuf_.col(r).head(r) = v;
  Vbuf_(r, r) = vrr;
  Lbuf_.row(r).head(r) = l.transpose();
  Lbuf_.col(r).head(r).setZero();
  Lbuf_(r, r) = std::sqrt(schur);
  b_[r] = bnew;
  c_[r] = cnew;
  basis_.push_back(arm);
  member_[arm] = 1;
  var_valid_ = false;
  ++updates_;
}

void NystromPosterior::remove_member(std::size_t arm, const Matrix& arms, const PullStats& pulls) {
  settle();
  if (!contains(arm)) return;
  if (member_[arm] == 2) {  // in the span of the others: the span does not change
    dependent_.erase(std::find(dependent_.begin(), dependent_.end(), arm));
    member_[arm] = 0;
    return;
  }
  const auto r = static_cast<Eigen::Index>(rank());
  const auto A = static_cast<Eigen::Index>(num_arms());
  const auto k = static_cast<Eigen::Index>(std::find(basis_.begin(), basis_.end(), arm) - basis_.begin());
  auto Zr = Zbuf_.topLeftCorner(r, A);
  auto V = Vbuf_.topLeftCorner(r, r);
  // The basis arms after position k have a sub-diagonal entry once arm k is gone; Givens
  // rotations of rows (i, i+1) restore the triangular form (as when a column is deleted from a
  // triangular factor), leaving the removed direction as the last coordinate.
  for (Eigen::Index i = k; i + 1 < r; ++i) {
    const auto a = static_cast<Eigen::Index>(basis_[static_cast<std::size_t>(i + 1)]);
    Eigen::JacobiRotation<double> G;
    G.makeGivens(Zr(i, a), Zr(i + 1, a));
    Zr.applyOnTheLeft(i, i + 1, G.adjoint());
    V.applyOnTheLeft(i, i + 1, G.adjoint());
    V.applyOnTheRight(i, i + 1, G);
    b_.head(r).applyOnTheLeft(i, i + 1, G.adjoint());
    c_.head(r).applyOnTheLeft(i, i + 1, G.adjoint());
  }
  // Drop the last coordinate e: ||z'||^2 = ||z||^2 - z_e^2 and
  // z'^T V'^-1 z' = z^T V^-1 z - (e^T V^-1 z)^2 / (e^T V^-1 e), V' the leading block of V.
  const Eigen::LLT<Matrix> llt(V);
  if (llt.info() != Eigen::Success) throw NumericalError("bkb: Cholesky of V_t failed");
  Vector e = Vector::Zero(r);
  e[r - 1] = 1.0;
  const Vector w = llt.solve(e);
  Vector& p = work_a_;
  p.resize(A);
  p.noalias() = Zr.transpose() * w;
  q_ = (q_.array() - p.array().square() / w[r - 1]).max(0.0).matrix();
  zz_ -= Zr.row(r - 1).transpose().cwiseAbs2();
  zz_ = zz_.cwiseMax(0.0);
  Lbuf_.topLeftCorner(r - 1, r - 1) = Matrix(llt.matrixL()).topLeftCorner(r - 1, r - 1);
  basis_.erase(basis_.begin() + k);
  member_[arm] = 0;
  for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(r); ++i)  // exact zeros below the diagonal
    Zbuf_.col(static_cast<Eigen::Index>(basis_[i])).segment(static_cast<Eigen::Index>(i) + 1, r - 1 - static_cast<Eigen::Index>(i)).setZero();
  var_valid_ = false;
  ++updates_;
  retry_dependent(arms, pulls);
}

void NystromPosterior::retry_dependent(const Matrix& arms, const PullStats& pulls) {
  // A member that was in the span of the removed arm's direction may now add a coordinate.
  std::vector<std::size_t> dep;
  dep.swap(dependent_);
  for (std::size_t a : dep) member_[a] = 0;
  for (std::size_t a : dep) add_member(a, arms, pulls);
}

void NystromPosterior::add_arms(const Matrix& arms) {
  settle();
  const auto old = static_cast<Eigen::Index>(num_arms());
  const Eigen::Index A = arms.cols();
  if (A <= old) return;
  reserve_arms(static_cast<std::size_t>(A));
  member_.resize(static_cast<std::size_t>(A), 0);
  zz_.conservativeResize(A);
  q_.conservativeResize(A);
  const auto r = static_cast<Eigen::Index>(rank());
  if (r == 0) {
    zz_.tail(A - old).setZero();
    q_.tail(A - old).setZero();
  } else {
    // z(x) = R^-T k_B(x), R the embedding of the basis arms (upper triangular).
    const Matrix R = basis_factor();
    Matrix Xb(arms.rows(), r);
    for (Eigen::Index i = 0; i < r; ++i) Xb.col(i) = arms.col(static_cast<Eigen::Index>(basis_[static_cast<std::size_t>(i)]));
    Matrix Znew = kernel_.cross(Xb, arms.rightCols(A - old));
    R.transpose().triangularView<Eigen::Lower>().solveInPlace(Znew);
    Zbuf_.block(0, old, r, A - old) = Znew;
    zz_.tail(A - old) = Znew.colwise().squaredNorm().transpose();
    q_.tail(A - old) = L().triangularView<Eigen::Lower>().solve(Znew).colwise().squaredNorm().transpose();
  }
  var_valid_ = false;
}

// ---------------------------------------------------------------- queries

const Vector& NystromPosterior::variance() const {
  settle();
  if (!var_valid_) {
    // eq. (4), DTC: sigma~^2 = (k(x,x) - z^T z) / lambda + z^T V^-1 z (uses k(x,x), not ||z||^2).
    var_ = ((kernel_.variance() - zz_.array()).max(0.0) / lambda_ + q_.array()).matrix();
    var_valid_ = true;
  }
  return var_;
}

Vector NystromPosterior::mean_weights(double y0, double s) const {
  const auto r = static_cast<Eigen::Index>(rank());
  if (r == 0) return Vector::Zero(0);
  return solve_v((b_.head(r) - y0 * c_.head(r)) / s);
}

void NystromPosterior::mean(double y0, double s, Vector& out) const {
  // eq. (4): mu~ = z^T V^-1 Z^T y, on the centred and scaled rewards.
  const auto r = static_cast<Eigen::Index>(rank());
  if (r == 0) {
    out = Vector::Zero(static_cast<Eigen::Index>(num_arms()));
    return;
  }
  out.noalias() = embedding().transpose() * mean_weights(y0, s);
}

Matrix NystromPosterior::basis_factor() const {
  const auto r = static_cast<Eigen::Index>(rank());
  Matrix R(r, r);
  for (Eigen::Index i = 0; i < r; ++i) R.col(i) = Zbuf_.col(static_cast<Eigen::Index>(basis_[static_cast<std::size_t>(i)])).head(r);
  return R.triangularView<Eigen::Upper>();
}

Matrix NystromPosterior::v_inverse() const {
  const auto r = static_cast<Eigen::Index>(rank());
  Matrix I = Matrix::Identity(r, r);
  L().triangularView<Eigen::Lower>().solveInPlace(I);
  L().transpose().triangularView<Eigen::Upper>().solveInPlace(I);
  return I;
}

Vector NystromPosterior::leave_one_out_variance() const {
  const auto r = static_cast<Eigen::Index>(rank());
  Vector out(r);
  if (r == 0) return out;
  const Matrix R = basis_factor();
  // W = R^-T: column i is w_i, with w_i^T z_j = delta_ij for the basis arms j (z_j = R e_j).
  Matrix W = Matrix::Identity(r, r);
  R.transpose().triangularView<Eigen::Lower>().solveInPlace(W);
  Matrix Y = W;  // V^-1 W
  L().triangularView<Eigen::Lower>().solveInPlace(Y);
  L().transpose().triangularView<Eigen::Upper>().solveInPlace(Y);
  const Vector& var = variance();
  for (Eigen::Index i = 0; i < r; ++i) {
    const double wz = Y.col(i).dot(R.col(i));   // w_i^T V^-1 z_i
    const double ww = Y.col(i).dot(W.col(i));   // w_i^T V^-1 w_i
    const double res = 1.0 / W.col(i).squaredNorm();  // (w^T z_i)^2 / ||w||^2: the residual of x_i off S \ i
    out[i] = var[static_cast<Eigen::Index>(basis_[static_cast<std::size_t>(i)])] + res / lambda_ - wz * wz / ww;
  }
  return out;
}

double NystromPosterior::leave_one_out_variance(std::size_t arm) const {
  const auto r = static_cast<Eigen::Index>(rank());
  const auto i = static_cast<Eigen::Index>(std::find(basis_.begin(), basis_.end(), arm) - basis_.begin());
  if (i >= r) return variance()[static_cast<Eigen::Index>(arm)];  // not a basis arm: S \ i spans the same
  const Matrix R = basis_factor();
  Vector w = Vector::Zero(r);  // R^T w = e_i
  w[i] = 1.0;
  R.transpose().triangularView<Eigen::Lower>().solveInPlace(w);
  const Vector zi = R.col(i);
  const Vector Vw = solve_v(w);
  const double wz = Vw.dot(zi), ww = Vw.dot(w);
  return variance()[static_cast<Eigen::Index>(arm)] + 1.0 / (lambda_ * w.squaredNorm()) - wz * wz / ww;
}

Vector NystromPosterior::variance_after(const std::vector<std::size_t>& extra) const {
  Vector var = variance();
  const auto r = static_cast<Eigen::Index>(rank());
  if (r == 0 || extra.empty()) return var;
  const auto A = static_cast<Eigen::Index>(num_arms());
  Matrix L = this->L();
  for (std::size_t arm : extra) {
    const Vector z = Zbuf_.col(static_cast<Eigen::Index>(arm)).head(r);
    Vector w = L.triangularView<Eigen::Lower>().solve(z);
    L.transpose().triangularView<Eigen::Upper>().solveInPlace(w);
    const double denom = 1.0 + z.dot(w);
    const Vector p = Zbuf_.topLeftCorner(r, A).transpose() * w;
    var = (var.array() - p.array().square() / denom).max(0.0).matrix();
    cholesky_rank_one_update(L.topLeftCorner(r, r), z);
  }
  return var;
}

}  // namespace optimist
