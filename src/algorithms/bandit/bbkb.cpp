// BBKB (Calandriello et al., ICML 2020): adaptive batches over BKB's sketched posterior,
// resparsification only at batch ends.
#include "optimist/algorithms/bandit/bbkb.hpp"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace optimist {

namespace {
constexpr std::uint64_t kBatchDictionaryStream = 0x42424b42444943ULL;  // "BBKBDIC"

void check_batch_ratio(double c) {
  if (!(c > 1.0) || !std::isfinite(c)) {
    std::ostringstream os;
    os << "batch_ratio = " << c << " is invalid (must be > 1)";
    throw InvalidArgument(os.str());
  }
}
}  // namespace

Bbkb::Bbkb(const Space& space, Direction direction, const ArmBanditOptions& options, const RunContext& context)
    : Bkb("bbkb", space, direction, options, context) {
  check_batch_ratio(opt_.batch_ratio);
}
Bbkb::Bbkb(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
           const RunContext& context)
    : Bkb("bbkb", space, direction, options, user_arms, context) {
  check_batch_ratio(opt_.batch_ratio);
}

void Bbkb::before_update(std::size_t arm) {
  score_model_valid_ = false;
  last_arm_ = arm;  // resparsification waits for the batch end (observe)
}

void Bbkb::add_to_variance(std::size_t arm, Matrix& Vinv, Vector& var) const {
  if (Z_.rows() == 0) return;  // empty dictionary: z = 0, nothing moves
  const Vector z = Z_.col(static_cast<Eigen::Index>(arm));
  const Vector u = Vinv * z;
  const double denom = 1.0 + z.dot(u);
  // z_x^T (V + z z^T)^-1 z_x = z_x^T V^-1 z_x - (z_x^T V^-1 z)^2 / (1 + z^T V^-1 z)
  const Vector proj = Z_.transpose() * u;
  var = (var.array() - proj.array().square() / denom).max(0.0).matrix();
  Vinv.noalias() -= (u * u.transpose()) / denom;
}

void Bbkb::observe(const Observation& obs, double y) {
  const std::size_t arms_before = num_arms();
  ArmBandit::observe(obs, y);
  const std::size_t a = last_arm_;
  if (!model_ready_ || num_arms() != arms_before) {  // first tell, or a told point that is no arm
    start_batch();
    return;
  }
  // Batch rule: the batch goes on while 1 + sum_{s in batch} sigma_fb^2(x_s) <= C~.
  batch_sum_ += var_fb_[static_cast<Eigen::Index>(a)];
  if (1.0 + batch_sum_ > opt_.batch_ratio) {
    start_batch();
  } else {
    add_to_variance(a, Vinv_, var_);
  }
}

void Bbkb::start_batch() {
  // Resparsification (as BKB's Fig. 1, at batch ends only): each distinct pulled arm joins with
  // 1 - (1 - p)^n, p = min(1, qbar sigma_t^2), sigma_t^2 the current variance under the old
  // dictionary with every told point (tracked exactly by var_, which does not depend on y).
  std::vector<std::size_t> next;
  if (opt_.dictionary == "all") {
    next = pulled_;
  } else {
    Vector var_now;
    if (model_ready_ && static_cast<std::size_t>(var_.size()) == num_arms()) {
      var_now = var_;
    } else {
      Vector mean_now;
      model(nullptr, mean_now, var_now);
    }
    Rng rng(derive_seed(derive_seed(seed(), kBatchDictionaryStream), t_));
    for (std::size_t a : pulled_) {
      const double p = std::min(1.0, opt_.qbar * var_now[static_cast<Eigen::Index>(a)]);
      const double include = 1.0 - std::pow(1.0 - p, static_cast<double>(counts_[a]));
      if (rng.uniform() < include) next.push_back(a);
    }
  }
  dict_ = std::move(next);
  // The batch-start model: z of every arm, V^-1, mu_fb, sigma_fb^2 (eq. 4), beta_fb.
  const double lam = opt_.lambda, kxx = kernel_.variance();
  const Eigen::Index A = arms_.cols();
  if (dict_.empty()) {
    Z_.resize(0, A);
    Vinv_.resize(0, 0);
    mean_ = Vector::Zero(A);
    var_fb_ = Vector::Constant(A, kxx / lam);
  } else {
    const Embedding e = embed();
    const Eigen::Index r = e.W.rows();
    Matrix S(arms_.rows(), static_cast<Eigen::Index>(dict_.size()));
    for (std::size_t j = 0; j < dict_.size(); ++j)
      S.col(static_cast<Eigen::Index>(j)) = arms_.col(static_cast<Eigen::Index>(dict_[j]));
    Z_ = e.W * kernel_.cross(S, arms_);
    Matrix V = Matrix::Identity(r, r) * lam;
    Vector zy = Vector::Zero(r);
    for (std::size_t a : pulled_) {
      const auto i = static_cast<Eigen::Index>(a);
      V.noalias() += static_cast<double>(counts_[a]) * Z_.col(i) * Z_.col(i).transpose();
      zy += sums_[i] * Z_.col(i);
    }
    const Eigen::LLT<Matrix> llt(V);
    if (llt.info() != Eigen::Success) throw NumericalError("bbkb: Cholesky of V_t failed");
    Vinv_ = llt.solve(Matrix::Identity(r, r));
    mean_ = Z_.transpose() * (Vinv_ * zy);
    const Matrix LiZ = llt.matrixL().solve(Z_);
    var_fb_.resize(A);
    for (Eigen::Index j = 0; j < A; ++j)
      var_fb_[j] = std::max(0.0, kxx - Z_.col(j).squaredNorm()) / lam + LiZ.col(j).squaredNorm();
  }
  var_ = var_fb_;
  double sum = 0.0;  // sum_{s <= t} sigma_t^2(x_s) for beta_t of Thm. 4
  for (std::size_t a : pulled_) sum += static_cast<double>(counts_[a]) * var_fb_[static_cast<Eigen::Index>(a)];
  last_beta_ = beta_t(sum);
  batch_sum_ = 0.0;
  batch_starts_.push_back(t_);
  model_ready_ = true;
}

std::vector<Vector> Bbkb::propose(std::size_t n) {
  if (!model_ready_) return ArmBandit::propose(1);  // Fig. 1: x_1 at random (no model to batch with)
  // x = argmax mu_fb + beta_fb sigma_{t-1}, sigma_{t-1} with the pending and already chosen
  // points of this ask hallucinated (rank-one updates; lowest index on ties).
  Matrix Vinv = Vinv_;
  Vector var = var_;
  for (const auto& p : pending())
    for (Eigen::Index j = 0; j < arms_.cols(); ++j)
      if ((arms_.col(j) - p.unit).cwiseAbs().maxCoeff() <= 1e-9) {
        add_to_variance(static_cast<std::size_t>(j), Vinv, var);
        break;
      }
  std::vector<Vector> out;
  for (std::size_t i = 0; i < n; ++i) {
    Eigen::Index best = 0;
    (mean_ + last_beta_ * var.cwiseSqrt()).maxCoeff(&best);
    out.push_back(arms_.col(best));
    if (i + 1 < n) add_to_variance(static_cast<std::size_t>(best), Vinv, var);
  }
  return out;
}

nlohmann::json Bbkb::diagnostics() const {
  nlohmann::json j = Bkb::diagnostics();
  j["batches"] = batch_starts_.size();
  j["batch_size"] = batch_starts_.empty() ? 0 : t_ - batch_starts_.back();
  return j;
}

AlgorithmInfo bbkb_info() {
  AlgorithmInfo info;
  info.name = "bbkb";
  info.family = "kernel";
  info.summary = "BBKB: batched BKB with adaptive batches and resparsification at batch ends (Calandriello et al., ICML 2020)";
  info.batch = true;
  info.options = arm_bandit_option_specs(true);
  std::erase_if(info.options, [](const OptionSpec& s) { return s.key == "mode" || s.key == "continuous_starts"; });
  info.options.push_back({"batch_ratio", ArmBanditOptions{}.batch_ratio,
                          "C~ > 1: a batch goes on while 1 + the sum of its points' batch-start variances <= C~", {}});
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<Bbkb>(space, direction, arm_bandit_options(v, true), context);
  };
  return info;
}

}  // namespace optimist
