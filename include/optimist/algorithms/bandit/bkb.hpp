// BKB, the budgeted kernelized bandit (Calandriello, Carratino, Lazaric, Valko, Rosasco,
// "Gaussian Process Optimization with Adaptive Sketching: Scalable and No Regret", COLT 2019),
// and exact GP-UCB on the same finite arm set (the paper's reference, eqs. 1-3 / 8).
//
// Both work on a finite set of A arms (unit-cube points, columns of a d x A matrix), given by the
// user or generated over the Space (scrambled Sobol, uniform, grid). Kernel hyperparameters are
// fixed options, as in the paper. Variances use the scaling of eqs. (4) and (8):
//   sigma_t^2(x) = phi(x)^T A_t^-1 phi(x) = (k(x,x) - k_t(x)^T (K_t + lambda I)^-1 k_t(x)) / lambda,
// i.e. the lambda-ridge leverage score, so p = qbar sigma_t^2 is RLS sampling (Sec. 3.2).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "optimist/core/optimizer.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/models/gp/kernel.hpp"

namespace optimist {

/// How arms are generated when the user gives none.
enum class ArmSetKind { Sobol, Uniform, Grid };
/// "sobol", "uniform", "grid"; throws InvalidArgument naming the value.
ArmSetKind parse_arm_set(const std::string& name);

/// A generated arm set in the unit cube (columns), snapped to the Space's cells. Sobol: the first
/// `count` scrambled Sobol points; uniform: `count` i.i.d. uniform points; grid: k^d cell centers
/// with k = floor(count^(1/d)) (at least 1), so at most `count` arms. Throws InvalidArgument on
/// count == 0.
Matrix generate_arms(const Space& space, ArmSetKind kind, std::size_t count, std::uint64_t seed);
/// User points (columns, space.dim() rows) -> unit-cube arms. Throws InvalidArgument on an empty
/// matrix, a wrong number of rows, or a point outside the space (naming the value).
Matrix arms_from_user_points(const Space& space, const Matrix& user_points);
/// Reads user points from a JSON file (an array of points, or {"arms": [...]}; each point as in
/// Space::point_from_json) or a CSV file (one point per line, optional header line).
Matrix read_arms_file(const Space& space, const std::string& path);

/// Options shared by BKB and exact GP-UCB on arms.
struct ArmBanditOptions {
  // Arm set (ignored when user arms are passed to the constructor).
  std::size_t arms = 1024;
  std::string arm_set = "sobol";
  std::string arms_file;  ///< if non-empty, the arms are read from this file
  // Fixed kernel (not fitted, as in the paper).
  std::string kernel = "matern52";
  double lengthscale = 0.2;  ///< on unit-cube inputs, same for every dimension
  double outputscale = 1.0;  ///< kappa^2 = k(x, x)
  // Regularization and confidence width (Thm. 4).
  double lambda = 0.01;  ///< ridge lambda (= xi^2 in the Bayesian reading, Sec. 2)
  double xi = 0.1;       ///< noise scale (sub-Gaussian R) in beta_t
  double F = 1.0;        ///< bound on ||f||_H
  double delta = 0.1;    ///< confidence
  double eps = 0.5;      ///< accuracy epsilon in (0, 1); alpha = (1 + eps) / (1 - eps)  (BKB only)
  std::string beta = "theorem4";  ///< "theorem4", "scaled" (beta_scale * theorem4), "fixed" (beta_scale)
  double beta_scale = 1.0;
  // BKB only.
  double qbar = 2.0;                   ///< oversampling qbar > 0 of Fig. 1; see bkb_theory_qbar
  std::string dictionary = "sampled";  ///< "sampled" (Fig. 1) or "all" (every pulled arm: exact)
  /// "arms" (Fig. 1) or "continuous": maximize the same score over the box with multi-start
  /// L-BFGS-B started from the `continuous_starts` best arms (BKB only).
  std::string mode = "arms";
  std::size_t continuous_starts = 5;
  /// BBKB only: C~ > 1, a batch goes on while 1 + sum of the batch-start variances of its points
  /// stays <= C~ (then sigma_fb^2 / sigma_t^2 <= C~ within the batch).
  double batch_ratio = 2.0;
};

/// The qbar of Thm. 3.2 / Thm. 4: 6 alpha log(4T / delta) / eps^2.
double bkb_theory_qbar(double eps, double delta, std::size_t horizon);

/// Shared machinery: the arm set, pull counts and reward sums per arm (repeated pulls are counted,
/// never stored twice), arm matching of told points, UCB selection and the beta_t schedule.
class ArmBandit : public Optimizer {
 public:
  /// Arms generated or read from the file named in the options.
  ArmBandit(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
            const RunContext& context);
  /// Arms given as user points (columns).
  ArmBandit(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
            const Matrix& user_arms, const RunContext& context);

  /// Arms in the unit cube (d x A). A told point that is not an arm is appended as a new arm.
  const Matrix& arms() const { return arms_; }
  std::size_t num_arms() const { return static_cast<std::size_t>(arms_.cols()); }
  const Kernel& kernel() const { return kernel_; }
  double lambda() const { return opt_.lambda; }
  /// Pull counts per arm.
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  /// Distinct pulled arms, in order of first pull.
  const std::vector<std::size_t>& pulled() const { return pulled_; }
  std::uint64_t steps() const { return t_; }

  /// Posterior mean and variance (eq. 4 / 8 scaling) of every arm under the current state.
  virtual void posterior(Vector& mean, Vector& variance) const = 0;
  /// Last beta_t used by propose (0 before the first model step).
  double last_beta() const { return last_beta_; }

  nlohmann::json diagnostics() const override;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;
  Vector recommend_unit() const override;

  /// Up to k arms with the highest score mu + beta_t sigma (best first, lowest index on ties),
  /// skipping pending arms unless all are pending; sets last_beta(). Requires t > 0. If scores is
  /// non-null it receives the score of every arm.
  std::vector<std::size_t> top_arms(std::size_t k, Vector* scores = nullptr);
  /// Hook run in observe() before the counts include the new pull (BKB resamples S_{t+1} here).
  virtual void before_update(std::size_t arm) { (void)arm; }
  /// alpha and (1 + 1/sqrt(1 - eps)) of Thm. 4 (exact GP-UCB: eps = 0, alpha = 1).
  virtual double alpha() const = 0;
  virtual double eps() const = 0;
  double beta_t(double sum_sigma2_pulled) const;

  Matrix arms_;
  Kernel kernel_;
  ArmBanditOptions opt_;
  std::vector<std::uint64_t> counts_;
  Vector sums_;  ///< sum of maximized values per arm
  std::vector<std::size_t> pulled_;
  std::uint64_t t_ = 0;
  double last_beta_ = 0.0;

 private:
  void init(const Space& space, const Matrix& unit_arms);
  std::size_t match_arm(const Vector& unit);
};

/// BKB (Fig. 1). Dictionary S_t (distinct pulled arms), Nystrom embedding
/// z_t(x) = (K_S^1/2)^+ k_S(x), V_t = sum_a n_a z_a z_a^T + lambda I from pull counts, and
///   mu_t(x)      = z(x)^T V^-1 sum_a s_a z_a                       (eq. 4, s_a = sum of rewards)
///   sigma_t^2(x) = (k(x,x) - z^T Z^T Z V^-1 z) / lambda            (eq. 4, DTC: uses k(x,x))
///                = (k(x,x) - ||z||^2) / lambda + ||L^-1 z||^2,     V = L L^T.
/// After each pull S_{t+1} is resampled: each pull i joins with probability
/// min(1, qbar sigma_t^2(x_i)) (an arm pulled n times joins with 1 - (1 - p)^n), with a random
/// stream derived from (seed, t), so a replayed history rebuilds the same dictionaries.
///
/// mode = "continuous": the next point maximizes the same score u_t = mu_t + beta_t sigma_t over the
/// unit box (shared multi-start L-BFGS-B, analytic gradients), started from the best arms; a told
/// point that is no arm joins the arm set (bkb_continuous.cpp).
class Bkb : public ArmBandit {
 public:
  Bkb(const Space& space, Direction direction, const ArmBanditOptions& options, const RunContext& context = {});
  Bkb(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
      const RunContext& context = {});

  void posterior(Vector& mean, Vector& variance) const override;
  /// Current dictionary S_t (arm indices).
  const std::vector<std::size_t>& dictionary() const { return dict_; }
  nlohmann::json diagnostics() const override;
  /// u_t(x) = mu_t(x) + last_beta() sigma_t(x) of eq. (4) at any unit-cube point, and its gradient
  /// in x if grad is non-null (sized here).
  double score(const Vector& unit, Vector* grad = nullptr) const;

 protected:
  Bkb(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
      const RunContext& context);
  Bkb(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
      const Matrix& user_arms, const RunContext& context);
  std::vector<Vector> propose(std::size_t n) override;
  void before_update(std::size_t arm) override;
  double alpha() const override { return (1.0 + opt_.eps) / (1.0 - opt_.eps); }
  double eps() const override { return opt_.eps; }

  struct Embedding {
    Matrix W;  ///< r x m: z(x) = W k_S(x)  ((K_S^1/2)^+ up to a rotation)
  };
  Embedding embed() const;
  /// Mean and variance of the arms in `idx` (all arms if null).
  void model(const std::vector<std::size_t>* idx, Vector& mean, Vector& variance) const;

  std::vector<std::size_t> dict_;

  /// eq. (4) in kernel form for the continuous score: mu = k_S(x)^T w,
  /// sigma^2 = kappa^2/lambda + k_S(x)^T G k_S(x), G = W^T (V^-1 - I/lambda) W.
  struct ScoreModel {
    Matrix S;
    Vector w;
    Matrix G;
  };
  const ScoreModel& score_model() const;
  mutable ScoreModel score_model_;
  mutable bool score_model_valid_ = false;
};

/// Exact GP-UCB on the arm set, eqs. (1)-(3) with the eq. (8) variance scaling, computed over the
/// distinct pulled arms U with counts N: (K_U + lambda N^-1)^-1 on the per-arm mean rewards (the
/// exact posterior: n noisy pulls of an arm equal one pull of their mean with noise lambda/n).
class GpUcbArms : public ArmBandit {
 public:
  GpUcbArms(const Space& space, Direction direction, const ArmBanditOptions& options, const RunContext& context = {});
  GpUcbArms(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
            const RunContext& context = {});
  void posterior(Vector& mean, Vector& variance) const override;

 protected:
  double alpha() const override { return 1.0; }
  double eps() const override { return 0.0; }
};

/// Options of both algorithms as an OptionSpec list (bkb_only adds eps, qbar, dictionary, mode).
std::vector<OptionSpec> arm_bandit_option_specs(bool bkb_only);
ArmBanditOptions arm_bandit_options(const OptionValues& v, bool bkb_only);

AlgorithmInfo bkb_info();
AlgorithmInfo gp_ucb_arms_info();

}  // namespace optimist
