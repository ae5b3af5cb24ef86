// BKB, the budgeted kernelized bandit (Calandriello, Carratino, Lazaric, Valko, Rosasco,
// "Gaussian Process Optimization with Adaptive Sketching: Scalable and No Regret", COLT 2019),
// and exact GP-UCB on the same finite arm set (the paper's reference, eqs. 1-3 / 8).
//
// Both work on a finite set of A arms (unit-cube points, columns of a d x A matrix), given by the
// user or generated over the Space (scrambled Sobol, uniform, grid). Kernel hyperparameters are
// refitted on a schedule by default (fixed in the paper). Variances use the scaling of eqs. (4)
// and (8):
//   sigma_t^2(x) = phi(x)^T A_t^-1 phi(x) = (k(x,x) - k_t(x)^T (K_t + lambda I)^-1 k_t(x)) / lambda,
// i.e. the lambda-ridge leverage score, so p = qbar sigma_t^2 is RLS sampling (Sec. 3.2).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "optimist/core/enum_names.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/algorithms/bandit/nystrom_posterior.hpp"
#include "optimist/models/gp/kernel.hpp"
#include "optimist/models/outcome_transform.hpp"

namespace optimist {

/// How arms are generated when the user gives none.
enum class ArmSetKind { Sobol, Uniform, Grid };
inline constexpr EnumNames<ArmSetKind, 3> kArmSetKindNames{
    {{{ArmSetKind::Sobol, "sobol"}, {ArmSetKind::Uniform, "uniform"}, {ArmSetKind::Grid, "grid"}}}};

/// ArmBanditOptions::preset: the practical defaults, or Fig. 1 and Thm. 4 as stated.
enum class ArmBanditPreset { Default, Paper };
inline constexpr EnumNames<ArmBanditPreset, 2> kArmBanditPresetNames{
    {{{ArmBanditPreset::Default, "default"}, {ArmBanditPreset::Paper, "paper"}}}};

/// The schedule of beta_t (ArmBanditOptions::beta). (GO-UCB has its own BetaSchedule.)
enum class BkbBeta {
  Practical,  ///< beta_sd posterior standard deviations: beta_t = beta_sd sqrt(lambda)
  Theorem4,   ///< Thm. 4's beta_t
  Scaled,     ///< beta_scale x Thm. 4's
  Fixed,      ///< the constant beta_scale
};
inline constexpr EnumNames<BkbBeta, 4> kBkbBetaNames{{{{BkbBeta::Practical, "practical"},
                                                       {BkbBeta::Theorem4, "theorem4"},
                                                       {BkbBeta::Scaled, "scaled"},
                                                       {BkbBeta::Fixed, "fixed"}}}};

/// Kernel hyperparameters (ArmBanditOptions::refit): maximum marginal likelihood on a schedule, or fixed.
enum class KernelRefit { Ml, None };
inline constexpr EnumNames<KernelRefit, 2> kKernelRefitNames{{{{KernelRefit::Ml, "ml"}, {KernelRefit::None, "none"}}}};

/// BKB's dictionary (ArmBanditOptions::dictionary): sampled (Fig. 1) or every pulled arm (exact).
enum class DictionaryKind { Sampled, All };
inline constexpr EnumNames<DictionaryKind, 2> kDictionaryKindNames{
    {{{DictionaryKind::Sampled, "sampled"}, {DictionaryKind::All, "all"}}}};

/// How BKB draws S_{t+1} (ArmBanditOptions::sampling).
enum class DictionarySampling { Coordinated, Fresh };
inline constexpr EnumNames<DictionarySampling, 2> kDictionarySamplingNames{
    {{{DictionarySampling::Coordinated, "coordinated"}, {DictionarySampling::Fresh, "fresh"}}}};

/// What BKB maximizes its score over (ArmBanditOptions::mode).
enum class BkbMode { Arms, Continuous };
inline constexpr EnumNames<BkbMode, 2> kBkbModeNames{{{{BkbMode::Arms, "arms"}, {BkbMode::Continuous, "continuous"}}}};

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

/// Options shared by BKB and exact GP-UCB. The defaults are the practical setting measured in
/// docs/bkb.md; preset = "paper" runs Fig. 1 and Thm. 4 as stated.
struct ArmBanditOptions {
  /// Paper: beta = theorem4, fixed kernel, raw (unstandardized) rewards, Fig. 1's fresh
  /// resampling, no switch to the exact formulas, and qbar = 6 alpha log(4T/delta)/eps^2 (Thm. 4)
  /// when the run has a horizon T; every other option as given.
  ArmBanditPreset preset = ArmBanditPreset::Default;
  // Arm set (ignored when user arms are passed to the constructor).
  std::size_t arms = 1024;
  ArmSetKind arm_set = ArmSetKind::Sobol;
  std::string arms_file{};  ///< if non-empty, the arms are read from this file
  // Kernel.
  KernelType kernel = KernelType::Matern52;
  double lengthscale = 0.2;  ///< on unit-cube inputs, every dimension: fixed, or the start of the refits
  double outputscale = 1.0;  ///< kappa^2 = k(x, x) (standardized units when standardize = true)
  /// Ml: lengthscales (ARD) and outputscale refitted by maximum marginal likelihood (the shared
  /// GP's MAP fit) on the dictionary's arms, on the schedule of refit_every; None: fixed, as in
  /// the paper.
  KernelRefit refit = KernelRefit::Ml;
  /// Refits at t = d + 1, then at doubling t, at most refit_every steps apart.
  std::size_t refit_every = 100;
  /// Rewards centred on their mean and divided by their standard deviation (running), so lambda,
  /// kappa^2 and the UCB are in units of the data's spread; false: the paper's zero-mean model.
  bool standardize = true;
  // Regularization and confidence width.
  double lambda = 0.01;  ///< ridge lambda (= xi^2 in the Bayesian reading, Sec. 2)
  double xi = 0.1;       ///< noise scale (sub-Gaussian R) in beta_t of Thm. 4
  double F = 1.0;        ///< bound on ||f||_H (Thm. 4)
  double delta = 0.1;    ///< confidence (Thm. 4)
  double eps = 0.5;      ///< accuracy epsilon in (0, 1); alpha = (1 + eps) / (1 - eps)  (BKB only)
  /// Practical: beta_t = beta_sd sqrt(lambda), i.e. mu + beta_sd posterior standard deviations;
  /// Theorem4; Scaled (beta_scale x Theorem4); Fixed (beta_scale).
  BkbBeta beta = BkbBeta::Practical;
  double beta_sd = 2.0;
  double beta_scale = 1.0;
  // BKB only.
  double qbar = 4.0;                   ///< oversampling qbar > 0 of Fig. 1; see bkb_theory_qbar
  DictionaryKind dictionary = DictionaryKind::Sampled;  ///< Sampled (Fig. 1) or All (every pulled arm: exact)
  /// How S_{t+1} is drawn with Fig. 1's probabilities p~: Fresh Bernoulli draws each step
  /// (Fig. 1), or Coordinated: one uniform number per arm kept for the whole run (the same
  /// inclusion probability at each step, but S changes only when p~ crosses that number).
  DictionarySampling sampling = DictionarySampling::Coordinated;
  /// S_t is every distinct pulled arm (the exact formulas) while the expected size of the sampled
  /// dictionary, the sum of the inclusion probabilities, is at least this fraction of the distinct
  /// pulled arms (it leaves that mode below the fraction minus 0.1); > 1 disables the switch.
  double exact_above = 0.8;
  /// Arms (Fig. 1) or Continuous: maximize the same score over the box with multi-start
  /// L-BFGS-B started from the `continuous_starts` best arms (BKB only).
  BkbMode mode = BkbMode::Arms;
  std::size_t continuous_starts = 5;
  /// BBKB only: C~ > 1, a batch goes on while 1 + sum of the batch-start variances of its points
  /// stays <= C~ (then sigma_fb^2 / sigma_t^2 <= C~ within the batch).
  double batch_ratio = 2.0;
  /// Failed evaluations: a pull at the worst value observed when it failed (the default since
  /// stop 55: the failing region is not pulled again and again), or ignore (left out, as before
  /// and as preset=paper). docs/bkb.md, "Failed evaluations".
  FailedPoints failed_points = FailedPoints::Worst;
};

/// The constructors' check (the C++ API; the registry's options are checked by their tables, with
/// the same ranges): throws InvalidArgument naming `algorithm`, the option and its value when a
/// number is outside its option's range or an enum outside its names.
void check_options(const ArmBanditOptions& options, const std::string& algorithm);

/// The qbar of Thm. 3.2 / Thm. 4: 6 alpha log(4T / delta) / eps^2.
double bkb_theory_qbar(double eps, double delta, std::size_t horizon);

/// Shared machinery: the arm set, pull counts and reward sums per arm (repeated pulls are counted,
/// never stored twice), arm matching of told points, reward standardization, kernel refits, UCB
/// selection and the beta_t schedule.
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
  /// The current kernel (refitted on the schedule when refit = "ml").
  const Kernel& kernel() const { return kernel_; }
  double lambda() const { return opt_.lambda; }
  /// The options in force (after the preset).
  const ArmBanditOptions& options() const { return opt_; }
  /// Pull counts per arm.
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  /// Distinct pulled arms, in order of first pull.
  const std::vector<std::size_t>& pulled() const { return pulled_; }
  std::uint64_t steps() const { return t_; }
  /// Prior mean and scale of the rewards: mean and standard deviation of the told values
  /// (standardize = true; scale 1 until two values differ), else 0 and 1.
  double reward_offset() const;
  double reward_scale() const;

  /// Posterior of every arm under the current state: the mean in the told units (maximized
  /// direction) and sigma_t^2 of eqs. (4) / (8) (posterior variance / lambda, standardized units).
  void posterior(Vector& mean, Vector& variance) const;
  /// Last beta_t used by propose (0 before the first model step).
  double last_beta() const { return last_beta_; }
  /// Number of kernel refits so far.
  std::size_t refits() const { return refits_; }

  nlohmann::json diagnostics() const override;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;
  void observe_failure(const Observation& obs) override;
  /// One pull of the arm at obs's point with reward y (an observation, or a failure's imputed value).
  void pull(const Observation& obs, double y);
  Vector recommend_unit() const override;

  /// Mean in standardized units ((mu - reward_offset()) / reward_scale()) and sigma_t^2 of every arm.
  virtual void model(Vector& mean, Vector& variance) const = 0;
  /// Up to k arms with the highest score mu + beta_t sigma (best first, lowest index on ties),
  /// skipping pending arms unless all are pending; sets last_beta(). Requires t > 0. If scores is
  /// non-null it receives the score of every arm.
  std::vector<std::size_t> top_arms(std::size_t k, Vector* scores = nullptr);
  /// Hooks of observe(): arms were appended (a told point that is no arm); before the counts
  /// include the new pull (BKB draws S_{t+1} here, from sigma~_t); after they do.
  virtual void on_new_arms() {}
  virtual void before_update(std::size_t arm) { (void)arm; }
  virtual void after_update(std::size_t arm, double y) {
    (void)arm;
    (void)y;
  }
  /// alpha and (1 + 1/sqrt(1 - eps)) of Thm. 4 (exact GP-UCB: eps = 0, alpha = 1).
  virtual double alpha() const = 0;
  virtual double eps() const = 0;
  double beta_t(double sum_sigma2_pulled) const;
  /// True when the refit schedule asks for a refit now.
  bool refit_due() const;
  /// Refits the kernel by maximum marginal likelihood on the mean rewards of `fit_arms` (the
  /// shared GP's MAP fit, on at most 256 of them) and schedules the next refit. Returns false
  /// (kernel unchanged) with fewer than 3 arms.
  bool refit_kernel(const std::vector<std::size_t>& fit_arms);
  PullStats pull_stats() const { return {pulled_, counts_, sums_}; }
  /// 1 for the arms of pending trials (a kept buffer, valid until the next call).
  const std::vector<char>& pending_mask() const;

  Matrix arms_;
  Kernel kernel_;
  ArmBanditOptions opt_;
  std::vector<std::uint64_t> counts_;
  Vector sums_;  ///< sum of maximized values per arm
  std::vector<std::size_t> pulled_;
  std::uint64_t t_ = 0;
  double last_beta_ = 0.0;
  double last_deff_ = 0.0;  ///< sum_{s <= t} sigma_t^2(x_s) at the last beta_t: d_eff's estimate (Thm. 3.2)
  RunningMoments rewards_;  ///< all observed values: the standardization of `standardize`
  std::optional<double> worst_;  ///< the worst successful value (maximized units), for failed pulls
  std::uint64_t next_refit_ = 0;
  std::size_t refits_ = 0;

 private:
  void init(const Matrix& unit_arms);
  Vector mean_buf_, var_buf_, score_buf_;  ///< top_arms' work vectors (kept: no fresh memory per step)
  std::vector<std::size_t> order_buf_;
  mutable std::vector<char> pending_buf_;  ///< pending_mask's result
  std::size_t match_arm(const Vector& unit);
};

/// BKB (Fig. 1). Dictionary S_t (distinct pulled arms), Nystrom embedding
/// z_t(x) = (K_S^1/2)^+ k_S(x), V_t = sum_a n_a z_a z_a^T + lambda I from pull counts, and
///   mu_t(x)      = z(x)^T V^-1 sum_a s_a z_a                       (eq. 4, s_a = sum of rewards)
///   sigma_t^2(x) = (k(x,x) - z^T Z^T Z V^-1 z) / lambda            (eq. 4, DTC: uses k(x,x))
///                = (k(x,x) - ||z||^2) / lambda + z^T V^-1 z.
/// The state is kept between steps and updated in place (NystromPosterior). After each pull
/// S_{t+1} is drawn: each pull i joins with probability min(1, qbar sigma_t^2(x_i)) (an arm pulled
/// n times joins with 1 - (1 - p)^n), with fresh draws from a stream derived from (seed, t) (Fig. 1)
/// or one uniform number per arm (sampling = "coordinated"), so a replayed history rebuilds the
/// same dictionaries. While the sampled dictionary would hold nearly every pulled arm
/// (exact_above), S_t is every pulled arm: the exact GP-UCB posterior, updated in O(A m) per step.
///
/// mode = "continuous": the next point maximizes the same score u_t = mu_t + beta_t sigma_t over the
/// unit box (shared multi-start L-BFGS-B, analytic gradients), started from the best arms; a told
/// point that is no arm joins the arm set (bkb_continuous.cpp).
class Bkb : public ArmBandit {
 public:
  Bkb(const Space& space, Direction direction, const ArmBanditOptions& options, const RunContext& context = {});
  Bkb(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
      const RunContext& context = {});

  /// eq. (4) computed from scratch for the current dictionary (eigendecomposition of K_S, V_t from
  /// the pull counts, Sec. 3.2): the reference the incremental state is tested against. Same units
  /// as posterior().
  void reference_posterior(Vector& mean, Vector& variance) const;
  /// Current dictionary S_t (arm indices).
  const std::vector<std::size_t>& dictionary() const {
    fold_deferred();
    return dict_;
  }
  /// True while S_t is every pulled arm (exact_above, or dictionary = "all").
  bool exact_mode() const {
    fold_deferred();
    return exact_;
  }
  /// Times the state was rebuilt from scratch (refits, most of the dictionary changing at once).
  std::size_t rebuilds() const {
    fold_deferred();
    return rebuilds_;
  }
  const NystromPosterior& state() const {
    fold_deferred();
    return engine_;
  }
  nlohmann::json diagnostics() const override;
  /// u_t(x) = mu_t(x) + last_beta() sigma_t(x) of eq. (4) at any unit-cube point (mean in
  /// standardized units), and its gradient in x if grad is non-null (sized here).
  double score(const Vector& unit, Vector* grad = nullptr) const;

 protected:
  Bkb(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
      const RunContext& context);
  Bkb(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
      const Matrix& user_arms, const RunContext& context);
  std::vector<Vector> propose(std::size_t n) override;
  void model(Vector& mean, Vector& variance) const override;
  void on_new_arms() override;
  void before_update(std::size_t arm) override;
  void after_update(std::size_t arm, double y) override;
  // Thm. 4's alpha and eps bound the sketch's error (Thm. 1); in exact mode (S_t = every pulled arm)
  // the variances are exact, so eps = 0 and beta_t is exact GP-UCB's (docs/bkb.md, beta_t).
  double alpha() const override { return exact_ ? 1.0 : (1.0 + opt_.eps) / (1.0 - opt_.eps); }
  double eps() const override { return exact_ ? 0.0 : opt_.eps; }

  /// Fig. 1: S_{t+1} drawn from `cand` with p~ = min(1, qbar sigma~_t^2) from the current state (an
  /// arm pulled n times, counting `extra` once more, joins with 1 - (1 - p~)^n), or every candidate
  /// in exact mode (entered or left here). Fresh draws come from (stream, step).
  std::vector<std::size_t> sample_dictionary(const std::vector<std::size_t>& cand, std::size_t extra,
                                             std::uint64_t stream, std::uint64_t step);
  /// Folds the pull of `arm` (already counted in counts_, pulled_ and t_) into the state: Fig. 1's
  /// draw of S_{t+1} from the state before it, V += z z^T, the new dictionary, a refit when due.
  void fold_pull(std::size_t arm, double y);
  /// A tell is folded lazily, at the next ask, tell or read of the state (the work of step t+1's
  /// model, as exact GP-UCB builds its model in ask), except when a refit is due: then the refit
  /// runs at once (in tell, as exact GP-UCB's), and a small state's rebuild for the new kernel is
  /// finished at the next read. Logically const: the state a reader sees is the same either way.
  void fold_deferred() const;
  /// Makes `next` the dictionary: in-place updates, or a rebuild when most of it changes.
  void set_dictionary(const std::vector<std::size_t>& next);
  /// The empty state and the A-sized buffers, at construction.
  void init_state();
  /// Refits when due (on the dictionary's arms) and rebuilds the state with the new kernel.
  void maybe_refit();

  NystromPosterior engine_;
  std::vector<std::size_t> dict_;
  std::vector<std::size_t> next_dict_;
  std::vector<double> prn_;  ///< coordinated sampling: each arm's permanent uniform number
  std::vector<char> in_next_;  ///< set_dictionary's membership marks (all zero between calls)
  bool exact_ = false;
  bool deferred_ = false;  ///< a told pull not folded into the state yet (fold_deferred)
  std::size_t deferred_arm_ = 0;
  double deferred_y_ = 0.0;
  std::size_t rebuilds_ = 0;
  std::size_t joins_ = 0, leaves_ = 0;  ///< in-place dictionary changes

  /// eq. (4) in kernel form for the continuous score: mu = k_B(x)^T w,
  /// sigma^2 = kappa^2/lambda + k_B(x)^T G k_B(x), G = W^T (V^-1 - I/lambda) W, W = R^-T.
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
/// exact posterior: n noisy pulls of an arm equal one pull of their mean with noise lambda/n),
/// from scratch at every step. Kernel refits (refit = "ml") use the distinct pulled arms.
class GpUcbArms : public ArmBandit {
 public:
  GpUcbArms(const Space& space, Direction direction, const ArmBanditOptions& options, const RunContext& context = {});
  GpUcbArms(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
            const RunContext& context = {});

 protected:
  void model(Vector& mean, Vector& variance) const override;
  void after_update(std::size_t arm, double y) override;
  double alpha() const override { return 1.0; }
  double eps() const override { return 0.0; }
};

AlgorithmInfo bkb_info();
AlgorithmInfo gp_ucb_arms_info();

}  // namespace optimist
