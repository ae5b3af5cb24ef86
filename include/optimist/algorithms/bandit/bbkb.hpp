// BBKB, batched BKB (Calandriello, Carratino, Lazaric, Valko, Rosasco, "Near-linear time Gaussian
// process optimization with adaptive batching and resparsification", ICML 2020), on the arm set
// and Nystrom/DTC estimator of BKB (bkb.hpp).
//
// A batch starts at step fb with a fresh model: the dictionary is resampled (resparsification,
// p = min(1, qbar sigma^2) as in BKB) and the mean mu_fb and beta_fb are computed from every
// observation. Within the batch the mean, beta and the dictionary stay fixed and only the
// variance moves: each selected point enters V_t with a rank-one update (its value is not
// needed, as in GP-BUCB), so one step costs O(A m). The dictionary changes only at batch starts,
// in place (NystromPosterior) like BKB's, with the same sampling and exact-formula options. The batch goes on
// while 1 + sum_{s in batch} sigma_fb^2(x_s) <= C~ (`batch_ratio`), which keeps
// sigma_fb^2(x) / sigma_t^2(x) <= C~ for every x; when the sum passes C~ the batch ends.
//
// In the ask/tell core: the batch rule runs on the told sequence (a point counts when it is
// told), so a replayed history rebuilds the same batches. ask() returns the next point of the
// current batch; ask(q) returns q points, each hallucinated into the variance before the next
// one is chosen, and pending points are hallucinated too, except the very first ask, which
// returns one point (Fig. 1's x_1 at random: no model to batch with yet). A batch end is acted on at the tell
// that crosses the threshold: points asked before it stay valid and are simply told later.
#pragma once

#include <vector>

#include "optimist/algorithms/bandit/bkb.hpp"

namespace optimist {

class Bbkb : public Bkb {
 public:
  Bbkb(const Space& space, Direction direction, const ArmBanditOptions& options, const RunContext& context = {});
  Bbkb(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
       const RunContext& context = {});

  bool supports_batch() const override { return true; }
  /// Step (number of told points before it) at which each batch started, in order.
  const std::vector<std::uint64_t>& batch_starts() const { return batch_starts_; }
  /// sum over the told points of the current batch of sigma_fb^2 (the batch-start variance).
  double batch_variance_sum() const { return batch_sum_; }
  /// Tracked variance of every arm: batch-start model plus the told points of the batch.
  const Vector& tracked_variance() const { return engine_.variance(); }
  nlohmann::json diagnostics() const override;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void before_update(std::size_t arm) override;
  void after_update(std::size_t arm, double y) override;
  void on_new_arms() override;

 private:
  void start_batch();

  Vector mean_fb_;    ///< mu_fb over the arms (standardized units)
  Vector var_fb_;     ///< sigma_fb^2 over the arms
  double batch_sum_ = 0.0;
  bool model_ready_ = false;
  bool arms_grew_ = false;
  std::vector<std::uint64_t> batch_starts_;
};

AlgorithmInfo bbkb_info();

}  // namespace optimist
