// BBKB, batched BKB (Calandriello, Carratino, Lazaric, Valko, Rosasco, "Near-linear time Gaussian
// process optimization with adaptive batching and resparsification", ICML 2020), on the arm set
// and Nystrom/DTC estimator of BKB (bkb.hpp).
//
// A batch starts at step fb with a fresh model: the dictionary is resampled (resparsification,
// p = min(1, qbar sigma^2) as in BKB) and the mean mu_fb and beta_fb are computed from every
// observation. Within the batch the mean, beta and the dictionary stay fixed and only the
// variance moves: each selected point enters V_t with a rank-one update (its value is not
// needed, as in GP-BUCB), so one step costs O(A m) instead of O(A m^2 + m^3). The batch goes on
// while 1 + sum_{s in batch} sigma_fb^2(x_s) <= C~ (`batch_ratio`), which keeps
// sigma_fb^2(x) / sigma_t^2(x) <= C~ for every x; when the sum passes C~ the batch ends.
//
// In the ask/tell core: the batch rule runs on the told sequence (a point counts when it is
// told), so a replayed history rebuilds the same batches. ask() returns the next point of the
// current batch; ask(q) returns q points, each hallucinated into the variance before the next
// one is chosen, and pending points are hallucinated too. A batch end is acted on at the tell
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
  const Vector& tracked_variance() const { return var_; }
  nlohmann::json diagnostics() const override;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void before_update(std::size_t arm) override;
  void observe(const Observation& obs, double y) override;

 private:
  void start_batch();
  /// V <- V + z_a z_a^T (Sherman-Morrison on Vinv) and the variances of all arms accordingly.
  void add_to_variance(std::size_t arm, Matrix& Vinv, Vector& var) const;

  Matrix Z_;          ///< r x A: z(x) of every arm under the batch's dictionary
  Matrix Vinv_;       ///< V^-1 with the told points of the batch
  Vector mean_;       ///< mu_fb over the arms
  Vector var_fb_;     ///< sigma_fb^2 over the arms
  Vector var_;        ///< tracked variance (told points included)
  double batch_sum_ = 0.0;
  std::size_t last_arm_ = 0;
  bool model_ready_ = false;
  std::vector<std::uint64_t> batch_starts_;
};

AlgorithmInfo bbkb_info();

}  // namespace optimist
