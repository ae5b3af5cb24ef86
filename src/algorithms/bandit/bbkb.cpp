// BBKB (Calandriello et al., ICML 2020): adaptive batches over BKB's sketched posterior,
// resparsification only at batch ends.
#include "optimist/algorithms/bandit/bbkb.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace optimist {

namespace {
constexpr std::uint64_t kBatchDictionaryStream = 0x42424b42444943ULL;  // "BBKBDIC"
}  // namespace

Bbkb::Bbkb(const Space& space, Direction direction, const ArmBanditOptions& options, const RunContext& context)
    : Bkb("bbkb", space, direction, options, context) {}
Bbkb::Bbkb(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
           const RunContext& context)
    : Bkb("bbkb", space, direction, options, user_arms, context) {}

void Bbkb::before_update(std::size_t) {
  score_model_valid_ = false;  // resparsification waits for the batch end (after_update)
}

void Bbkb::on_new_arms() {
  Bkb::on_new_arms();
  arms_grew_ = true;
}

void Bbkb::after_update(std::size_t arm, double y) {
  engine_.add_pull(arm, y);  // V += z z^T: the tracked variance moves with every told point
  if (!model_ready_ || arms_grew_) {  // first tell, or a told point that is no arm
    arms_grew_ = false;
    start_batch();
    return;
  }
  // Batch rule: the batch goes on while 1 + sum_{s in batch} sigma_fb^2(x_s) <= C~.
  batch_sum_ += var_fb_[static_cast<Eigen::Index>(arm)];
  if (1.0 + batch_sum_ > opt_.batch_ratio) start_batch();
}

void Bbkb::start_batch() {
  // Resparsification (BKB's Fig. 1 draw, at batch ends only): each distinct pulled arm joins with
  // 1 - (1 - p)^n, p = min(1, qbar sigma_t^2), sigma_t^2 the current variance under the old
  // dictionary with every told point.
  set_dictionary(sample_dictionary(pulled_, std::numeric_limits<std::size_t>::max(), kBatchDictionaryStream, t_));
  maybe_refit();
  // The batch-start model: mu_fb, sigma_fb^2 (eq. 4) and beta_fb.
  engine_.mean(reward_offset(), reward_scale(), mean_fb_);
  var_fb_ = engine_.variance();
  double sum = 0.0;  // sum_{s <= t} sigma_t^2(x_s) for beta_t of Thm. 4
  for (std::size_t a : pulled_) sum += static_cast<double>(counts_[a]) * var_fb_[static_cast<Eigen::Index>(a)];
  last_beta_ = beta_t(sum);
  last_deff_ = sum;
  batch_sum_ = 0.0;
  batch_starts_.push_back(t_);
  model_ready_ = true;
}

std::vector<Vector> Bbkb::propose(std::size_t n) {
  if (!model_ready_) return ArmBandit::propose(1);  // Fig. 1: x_1 at random (no model to batch with)
  // x = argmax mu_fb + beta_fb sigma_{t-1}, sigma_{t-1} with the pending and already chosen
  // points of this ask hallucinated (rank-one updates; lowest index on ties).
  std::vector<std::size_t> hallucinated;
  const std::vector<char> is_pending = pending_mask();
  for (std::size_t a = 0; a < is_pending.size(); ++a)
    if (is_pending[a]) hallucinated.push_back(a);
  Vector var = engine_.variance_after(hallucinated);
  std::vector<Vector> out;
  for (std::size_t i = 0; i < n; ++i) {
    Eigen::Index best = 0;
    (mean_fb_ + last_beta_ * var.cwiseMax(0.0).cwiseSqrt()).maxCoeff(&best);
    out.push_back(arms_.col(best));
    if (i + 1 < n) {
      hallucinated.push_back(static_cast<std::size_t>(best));
      var = engine_.variance_after(hallucinated);
    }
  }
  return out;
}

nlohmann::json Bbkb::diagnostics() const {
  nlohmann::json j = Bkb::diagnostics();
  j["batches"] = batch_starts_.size();
  j["batch_size"] = batch_starts_.empty() ? 0 : t_ - batch_starts_.back();
  return j;
}

}  // namespace optimist
