// BKB (Calandriello et al., COLT 2019, Fig. 1): the dictionary draws and the state kept between
// steps (NystromPosterior), and eq. (4) from scratch as the reference.
#include "optimist/algorithms/bandit/bkb.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>

namespace optimist {

namespace {

constexpr std::uint64_t kDictionaryStream = 0x424b42444943ULL;  // "BKBDIC"
constexpr std::uint64_t kPermanentStream = 0x424b42505256ULL;   // "BKBPRV"
// Largest dictionary whose rebuild after a refit is split with the next read (fold_pull, docs/bkb.md).
constexpr std::size_t kSplitRebuildMax = 12;

Matrix gather(const Matrix& arms, const std::vector<std::size_t>& idx) {
  Matrix out(arms.rows(), static_cast<Eigen::Index>(idx.size()));
  for (std::size_t j = 0; j < idx.size(); ++j) out.col(static_cast<Eigen::Index>(j)) = arms.col(static_cast<Eigen::Index>(idx[j]));
  return out;
}

}  // namespace

Bkb::Bkb(const Space& space, Direction direction, const ArmBanditOptions& options, const RunContext& context)
    : Bkb("bkb", space, direction, options, context) {}
Bkb::Bkb(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
         const RunContext& context)
    : Bkb("bkb", space, direction, options, user_arms, context) {}
Bkb::Bkb(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
         const RunContext& context)
    : ArmBandit(std::move(name), space, direction, options, context), engine_(kernel_, opt_.lambda) {
  init_state();
}
Bkb::Bkb(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
         const Matrix& user_arms, const RunContext& context)
    : ArmBandit(std::move(name), space, direction, options, user_arms, context), engine_(kernel_, opt_.lambda) {
  init_state();
}

void Bkb::init_state() {
  engine_.rebuild(arms_, {}, pull_stats());
  exact_ = opt_.dictionary == DictionaryKind::All;
  // A-sized buffers allocated (and touched) here, not at the first steps: fresh memory costs page
  // faults, more than a whole step at small t.
  prn_.assign(num_arms(), -1.0);
  in_next_.assign(num_arms(), 0);
}

void Bkb::model(Vector& mean, Vector& variance) const {
  fold_deferred();
  engine_.mean(reward_offset(), reward_scale(), mean);
  variance = engine_.variance();
}

void Bkb::on_new_arms() {
  fold_deferred();
  engine_.add_arms(arms_);
  score_model_valid_ = false;
}

void Bkb::before_update(std::size_t) {
  fold_deferred();  // the previous pull first: the draw below sees the state of every earlier one
  score_model_valid_ = false;
}

void Bkb::after_update(std::size_t arm, double y) {
  if (!refit_due()) {  // folded by the next ask (or tell, or read of the state)
    deferred_ = true;
    deferred_arm_ = arm;
    deferred_y_ = y;
    return;
  }
  fold_pull(arm, y);
}

void Bkb::fold_deferred() const {
  if (!deferred_ && !engine_.rebuild_pending()) return;
  auto* self = const_cast<Bkb*>(this);  // logically const (see the header)
  self->engine_.finish_rebuild(arms_);  // the rest of a refit's rebuild (fold_pull), if any
  if (deferred_) {
    self->deferred_ = false;
    self->fold_pull(deferred_arm_, deferred_y_);
  }
}

void Bkb::fold_pull(std::size_t arm, double y) {
  score_model_valid_ = false;
  // Fig. 1: S_{t+1} drawn from the distinct pulled arms with the state before this pull (counts_
  // include it already: extra = none), from the stream of step t (t_ counts this pull).
  next_dict_ = sample_dictionary(pulled_, static_cast<std::size_t>(-1), kDictionaryStream, t_ - 1);
  if (refit_due() && next_dict_.size() >= 3) {
    // The refit rebuilds the state from the pull counts: no in-place update before it.
    dict_ = next_dict_;
    if (refit_kernel(dict_)) {  // marginal likelihood on the dictionary's arms
      // The state for the new kernel. A small one is mostly kernel rows, which exact GP-UCB
      // computes in its next ask: a third of it now, the rest at the next read (fold_deferred), so
      // that neither step pays the fit and all of it. A larger one is built now but for its
      // second solve, left to the next reader (docs/bkb.md, refit steps).
      const bool small = dict_.size() <= kSplitRebuildMax;
      engine_.set_kernel(kernel_, arms_, dict_, pull_stats(), small ? RebuildCache::Split : RebuildCache::Later);
      ++rebuilds_;
      return;
    }
  }
  engine_.add_pull(arm, y);  // V_{t+1} = V_t + z z^T (Sec. 3.2: V from all pulls)
  set_dictionary(next_dict_);
  maybe_refit();
}

std::vector<std::size_t> Bkb::sample_dictionary(const std::vector<std::size_t>& cand, std::size_t extra,
                                                std::uint64_t stream, std::uint64_t step) {
  // Fig. 1: p~_{t+1,i} = qbar sigma~_t^2(x_i) from the current state (before the new pull); an arm
  // pulled n times (n pulls i in [t+1]) joins with 1 - (1 - p~)^n and is stored once.
  const Vector& var = engine_.variance();
  const auto include = [&](std::size_t a, double sigma2) {
    const double p = std::min(1.0, opt_.qbar * sigma2);
    return 1.0 - std::pow(1.0 - p, static_cast<double>(counts_[a] + (a == extra ? 1 : 0)));
  };
  std::vector<std::size_t> next;
  double size = 0.0;  // fresh: expected size of the draw; coordinated: its size
  if (opt_.sampling == DictionarySampling::Fresh) {  // Fig. 1: q_{t+1,i} ~ Bernoulli(p~), new draws at every step
    std::vector<double> incl(cand.size());
    for (std::size_t j = 0; j < cand.size(); ++j) size += incl[j] = include(cand[j], var[static_cast<Eigen::Index>(cand[j])]);
    Rng rng(derive_seed(derive_seed(seed(), stream), step));
    for (std::size_t j = 0; j < cand.size(); ++j)
      if (rng.uniform() < incl[j]) next.push_back(cand[j]);
  } else {
    // Coordinated: one permanent uniform number u_a per arm, a in S_{t+1} iff u_a < its inclusion
    // probability. A member's probability comes from the dictionary without it (leave-one-out:
    // its in-S variance is lower, and would make it leave and rejoin at every other step); that
    // variance is >= the in-S one, so it is computed only when the in-S one would drop the arm.
    if (prn_.size() < num_arms()) prn_.resize(num_arms(), -1.0);
    for (std::size_t a : cand) {
      if (prn_[a] < 0.0) prn_[a] = Rng(derive_seed(derive_seed(seed(), kPermanentStream), a)).uniform();
      bool in = prn_[a] < include(a, var[static_cast<Eigen::Index>(a)]);
      if (!in && engine_.in_basis(a)) in = prn_[a] < include(a, engine_.leave_one_out_variance(a));
      if (in) next.push_back(a);
    }
    size = static_cast<double>(next.size());
  }
  // Exact formulas while the sampled dictionary would hold nearly every pulled arm (hysteresis 0.1).
  const double threshold = exact_ ? opt_.exact_above - 0.1 : opt_.exact_above;
  exact_ = opt_.dictionary == DictionaryKind::All || size >= threshold * static_cast<double>(cand.size());
  return exact_ ? cand : next;
}

void Bkb::set_dictionary(const std::vector<std::size_t>& next) {
  std::vector<char>& in_next = in_next_;  // all zero between calls
  if (in_next.size() < num_arms()) in_next.resize(num_arms(), 0);
  for (std::size_t a : next) in_next[a] = 1;
  std::vector<std::size_t> removed, added;
  for (std::size_t a : dict_)
    if (!in_next[a]) removed.push_back(a);
  for (std::size_t a : next) {
    if (!engine_.contains(a)) added.push_back(a);
    in_next[a] = 0;
  }
  dict_ = next;
  if (removed.empty() && added.empty()) return;
  // Each change costs about A (50 + 5 m) operations (a kernel row, two products with Z); a
  // rebuild about A (50 m + 2 m^2 + 10) (the kernel block, two triangular solves, and the passes
  // that zero and recompute ||z||^2, q and the variance).
  const double m = static_cast<double>(next.size());
  const double k = static_cast<double>(removed.size() + added.size());
  score_model_valid_ = false;
  if (k * (50.0 + 5.0 * m) > m * (50.0 + 2.0 * m) + 10.0) {
    engine_.rebuild(arms_, dict_, pull_stats());
    ++rebuilds_;
    return;
  }
  for (std::size_t a : removed) engine_.remove_member(a, arms_, pull_stats());
  for (std::size_t a : added) engine_.add_member(a, arms_, pull_stats());
  joins_ += added.size();
  leaves_ += removed.size();
}

void Bkb::maybe_refit() {
  if (!refit_due()) return;
  if (refit_kernel(dict_)) {  // marginal likelihood on the dictionary's arms
    engine_.set_kernel(kernel_, arms_, pull_stats());
    ++rebuilds_;
    score_model_valid_ = false;
  }
}

void Bkb::reference_posterior(Vector& mean, Vector& variance) const {
  fold_deferred();
  const Eigen::Index n = arms_.cols();
  const double lam = opt_.lambda, kxx = kernel_.variance();
  const double y0 = reward_offset(), s = reward_scale();
  if (dict_.empty()) {  // z = 0: mu = 0, sigma^2 = k(x,x) / lambda
    mean = Vector::Constant(n, y0);
    variance = Vector::Constant(n, kxx / lam);
    return;
  }
  // z(x) = (K_S^1/2)^+ k_S(x) = Lambda_r^-1/2 Q_r^T k_S(x) for K_S = Q Lambda Q^T, eigenvalues above
  // a relative 1e-12 (the pseudo-inverse; the rotation Q drops out of eq. 4).
  const Matrix S = gather(arms_, dict_);
  Eigen::SelfAdjointEigenSolver<Matrix> es(kernel_.gram(S));
  const Vector& ev = es.eigenvalues();
  const double tol = 1e-12 * std::max(ev.maxCoeff(), std::numeric_limits<double>::min());
  Eigen::Index r = 0;
  for (Eigen::Index i = 0; i < ev.size(); ++i) r += ev[i] > tol ? 1 : 0;
  Matrix W(r, S.cols());
  Eigen::Index row = 0;
  for (Eigen::Index i = 0; i < ev.size(); ++i)
    if (ev[i] > tol) W.row(row++) = es.eigenvectors().col(i).transpose() / std::sqrt(ev[i]);
  // V_t = sum_a n_a z_a z_a^T + lambda I and Z^T y = sum_a s_a z_a over the distinct pulled arms (Sec. 3.2).
  const Matrix Zp = W * kernel_.cross(S, gather(arms_, pulled_));
  Vector w(static_cast<Eigen::Index>(pulled_.size())), sy(w.size());
  for (std::size_t j = 0; j < pulled_.size(); ++j) {
    const auto i = static_cast<Eigen::Index>(j);
    w[i] = static_cast<double>(counts_[pulled_[j]]);
    sy[i] = (sums_[static_cast<Eigen::Index>(pulled_[j])] - w[i] * y0) / s;
  }
  Matrix V = Zp * w.asDiagonal() * Zp.transpose();
  V.diagonal().array() += lam;
  const Eigen::LLT<Matrix> llt(V);
  if (llt.info() != Eigen::Success) throw NumericalError("bkb: Cholesky of V_t failed");
  const Matrix Z = W * kernel_.cross(S, arms_);
  const Matrix LiZ = llt.matrixL().solve(Z);
  // eq. (4): mu = z^T V^-1 Z^T y; sigma^2 = (k(x,x) - ||z||^2) / lambda + ||L^-1 z||^2.
  mean = (y0 + s * (Z.transpose() * llt.solve(Zp * sy)).array()).matrix();
  variance = ((kxx - Z.colwise().squaredNorm().transpose().array()).max(0.0) / lam +
              LiZ.colwise().squaredNorm().transpose().array())
                 .matrix();
}

nlohmann::json Bkb::diagnostics() const {
  nlohmann::json j = ArmBandit::diagnostics();
  j["dictionary_size"] = dict_.size();
  j["rank"] = engine_.rank();
  j["exact"] = exact_;
  j["rebuilds"] = rebuilds_;
  j["joins"] = joins_;
  j["leaves"] = leaves_;
  return j;
}

}  // namespace optimist
