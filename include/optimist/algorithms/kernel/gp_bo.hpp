// Gaussian-process Bayesian optimization as an ask/tell Optimizer: GP-UCB (Srinivas et al. 2010),
// log-EI (Ament et al. 2023) and log-PI, with a scrambled-Sobol or uniform initial design,
// hyperparameters refit (warm-started) on a schedule, and Kriging-believer batches.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "optimist/core/optimizer.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/algorithms/bo/initial_design.hpp"
#include "optimist/algorithms/kernel/acquisition.hpp"
#include "optimist/models/gp/gaussian_process.hpp"

namespace optimist {

/// The acquisition function, which also names the algorithm: gp-ucb, gp-ei, gp-pi.
enum class Acquisition {
  Ucb,  ///< GP-UCB: mean + sqrt(beta_t) sd
  Ei,   ///< expected improvement, maximized as log-EI
  Pi,   ///< probability of improvement, maximized as log-PI
};
inline constexpr EnumNames<Acquisition, 3> kAcquisitionNames{
    {{{Acquisition::Ucb, "ucb"}, {Acquisition::Ei, "ei"}, {Acquisition::Pi, "pi"}}}};

/// gp-ucb's beta_t when no number is given (option `beta`: "auto" or "theorem").
enum class UcbBetaRule {
  /// Srinivas et al. Theorem 1 on finite spaces; kPracticalUcbBeta when a parameter is continuous.
  Auto,
  /// Srinivas et al. Theorem 1 on finite spaces, Theorem 2 (a = b = r = 1) otherwise: the recipe
  /// before stop 87, whose beta_t grows as 2 d log t^2 (docs/gp-bo.md, "GP-UCB's beta").
  Theorem,
};
/// beta = 4: the mean plus two posterior standard deviations (GPyOpt's exploration weight 2,
/// scikit-optimize's kappa 1.96, BKB's beta_sd 2).
inline constexpr double kPracticalUcbBeta = 4.0;
/// gp-pi's xi when none is given ("auto"): this fraction of the largest posterior sd over
/// kPiXiProbes fixed Sobol points, i.e. a target above the best value scaled to what the model
/// still does not know (Lizotte 2008 and Brochu et al. 2010, sec. 2.3.1, advise a small positive
/// xi scaled to the data). xi = 0 (Kushner 1964) is greedy: PI then prefers a sure sliver of
/// improvement next to the best point. Measured in docs/gp-bo.md, "GP-PI's xi".
inline constexpr double kPiXiSdFraction = 0.1;
inline constexpr std::size_t kPiXiProbes = 64;

/// Hyperparameter priors of GP-BO's model.
enum class GpPrior {
  /// gp-ei from 2 to kBotorchNoisePriorUpTo parameters: Botorch; otherwise (gp-ucb, gp-pi, 1 or more
  /// parameters): Gamma (docs/gp-bo.md, "The noise prior in low dimensions").
  Auto,
  /// BoTorch 0.8 SingleTaskGP's lengthscale ~ Gamma(3, 6) and outputscale ~ Gamma(2, 0.15), the
  /// GP's noise prior LogNormal(-4, 1).
  Gamma,
  Botorch,          ///< all of BoTorch 0.8's, noise ~ Gamma(1.1, 0.05) >= 1e-4 included
  Classic,          ///< the two gammas as log-normals
  DimensionScaled,  ///< Hvarfner et al. 2024, the GP default
};
inline constexpr EnumNames<GpPrior, 5> kGpPriorNames{{{{GpPrior::Auto, "auto"},
                                                       {GpPrior::Gamma, "gamma"},
                                                       {GpPrior::Botorch, "botorch"},
                                                       {GpPrior::Classic, "classic"},
                                                       {GpPrior::DimensionScaled, "dimension-scaled"}}}};

/// When the hyperparameters are fitted.
enum class FitSchedule {
  /// A multi-start fit whenever the data has doubled, warm 10-iteration refits in between (on the
  /// refit_every schedule).
  Warm,
  /// BoTorch's loop: a new model every step, started at the prior modes, one L-BFGS-B run to
  /// convergence.
  Fresh,
};
inline constexpr EnumNames<FitSchedule, 2> kFitScheduleNames{{{{FitSchedule::Warm, "warm"}, {FitSchedule::Fresh, "fresh"}}}};

/// The axes the GP's lengthscales follow (Kernel::set_rotation).
enum class GpRotation {
  /// gp-ei with 2 continuous parameters: Angles; otherwise None.
  Auto,
  None,  ///< the parameters' axes
  /// 2 continuous parameters only: every thorough fit (each step up to kRefitEveryStepUpTo points,
  /// then when the data has doubled) also fits the model in the frames rotated by 15, 30, 45, 60
  /// and 75 degrees and keeps the best log posterior, a rotated frame paying BIC's price of its
  /// angle, log(n) / 2 (a ridge along a diagonal, as C and gamma of an SVM: docs/gp-bo.md,
  /// "Rotated frames").
  Angles,
};
inline constexpr EnumNames<GpRotation, 3> kGpRotationNames{
    {{{GpRotation::Auto, "auto"}, {GpRotation::None, "none"}, {GpRotation::Angles, "angles"}}}};

/// The constant prior mean of the gp-* model (the GP's ConstantMean, and when to use which).
enum class GpMean {
  /// gp-ei and gp-pi with at most kWorstMeanUpTo parameters: WorstUnwarped; otherwise (gp-ucb,
  /// more parameters) Learned (docs/gp-bo.md, "The prior mean").
  Auto,
  Learned,  ///< fitted with the other hyperparameters (the recipe before stop 77)
  Sample,   ///< the sample mean of the model's outputs
  Worst,    ///< the lowest output: De Ath et al. (2020)'s pessimistic mean
  /// Worst while the model sees the raw values, Learned while it sees warped ones (the compress
  /// steps of output_warp alternate; every step of compress, half-rank and power), unless the
  /// warp moved none of them (compress on a plateau at the worst value: raw values, Worst).
  WorstUnwarped,
};
inline constexpr EnumNames<GpMean, 5> kGpMeanNames{{{{GpMean::Auto, "auto"},
                                                      {GpMean::Learned, "learned"},
                                                      {GpMean::Sample, "sample"},
                                                      {GpMean::Worst, "worst"},
                                                      {GpMean::WorstUnwarped, "worst-unwarped"}}}};

/// When the design ends on a noisy objective (RunContext::noisy).
enum class NoisyDesign {
  /// With up to 3 parameters, from 8 to 100 points, the design also continues while the model
  /// shows no skill: its leave-one-out predictions (with the values' mean as the prior mean) are
  /// no closer to the values than their mean is (Q^2 <= 0) and the fit puts at least a tenth of
  /// the variance in noise. Such a model's log-EI follows its variance to the box's corners
  /// (docs/gp-bo.md, "A noisy start").
  UntilSkill,
  Fixed,  ///< n_init points, then the model (the recipe before stop 83)
};
inline constexpr EnumNames<NoisyDesign, 2> kNoisyDesignNames{
    {{{NoisyDesign::UntilSkill, "until-skill"}, {NoisyDesign::Fixed, "fixed"}}}};

/// A deterministic objective whose values are mostly a plateau.
enum class PlateauDesign {
  /// With up to 3 parameters, from 8 to 100 points, while at least half of the values are
  /// bit-equal to the worst one and the model shows no skill (the Q^2 test of
  /// NoisyDesign::UntilSkill), a step onto the box's faces farther than 0.2 (unit cube) from
  /// every value above the plateau is replaced by the next design point. Fitted to a few isolated
  /// values on a plateau, the GP's log-EI follows its variance to the faces, where a ridge inside
  /// the box is not (docs/gp-bo.md, "A plateau's faces").
  Faces,
  Fixed,  ///< every step from the model (the recipe before stop 84)
};
inline constexpr EnumNames<PlateauDesign, 2> kPlateauDesignNames{
    {{{PlateauDesign::Faces, "faces"}, {PlateauDesign::Fixed, "fixed"}}}};

/// recommend(): the best observed point, or the evaluated point the GP's posterior mean rates best
/// (a noisy objective's best observed value is often a lucky draw). Not the default: better on
/// noisy branin, worse on noisy rosenbrock, where the GP fits poorly (docs/gp-bo.md, "Noisy objectives").
enum class GpOutput { BestObserved, Model };
inline constexpr EnumNames<GpOutput, 2> kGpOutputNames{{{{GpOutput::BestObserved, "best-observed"}, {GpOutput::Model, "model"}}}};

struct GpBoOptions {
  Acquisition acquisition = Acquisition::Ei;
  KernelType kernel = KernelType::Matern52;
  /// A categorical's distance in the kernel: matched (a change of category as far as a
  /// continuous parameter's average move), or overlap (as far as a move across its whole range:
  /// the recipe before stop 86; docs/discrete.md, "Categoricals in the models").
  CategoryDistance categorical_distance = CategoryDistance::Matched;
  GpPrior prior = GpPrior::Auto;
  FitSchedule fit = FitSchedule::Warm;
  /// Initial design size; 0: max(2, min(d + 1, 10)).
  std::size_t n_init = 0;
  InitialDesign init = InitialDesign::Sobol;  ///< Sobol (scrambled) or uniform
  NoisyDesign noisy_design = NoisyDesign::UntilSkill;  ///< see NoisyDesign
  PlateauDesign plateau_design = PlateauDesign::Faces;  ///< see PlateauDesign
  std::size_t raw_samples = 512;  ///< acquisition: Sobol candidates scored in one batch
  std::size_t restarts = 10;      ///< acquisition: L-BFGS-B runs from the best candidates
  /// acquisition: an L-BFGS-B run stops when an iteration changes the acquisition value by less
  /// than this (relative to max(1, |value|)); 1e-9 (scipy's and BoTorch's) before issue 20, 1e-6
  /// needs a fifth fewer evaluations at equal regret (docs/gp-bo.md, "Speed as the history grows").
  double acquisition_tolerance = 1e-6;
  /// acquisition: once the model holds more than 100 points, an L-BFGS-B run stops where it comes
  /// within half the shortest lengthscale of a point an earlier run climbed through, no higher
  /// (BoxMaximizerOptions::merge_radius): it would end where that run did. false: every run to its
  /// end, the earlier recipe (docs/gp-bo.md, "Merged restarts").
  bool merge_restarts = true;
  /// Integer and categorical spaces: with at most this many combinations (and no continuous
  /// parameter) the acquisition is maximized by enumerating every free point (maximize_mixed).
  std::size_t enumerate_limit = 2048;
  /// gp-ucb: a fixed beta, or unset: beta_t by `beta_rule`.
  std::optional<double> beta{};
  UcbBetaRule beta_rule = UcbBetaRule::Auto;  ///< gp-ucb without a fixed beta
  double delta = 0.1;  ///< gp-ucb: confidence parameter of beta_t
  /// gp-ei / gp-pi: improvement over best + xi (objective units); unset: GpBo::pi_threshold.
  std::optional<double> xi = 0.0;
  /// Refit the hyperparameters every this many observations after the design (O(n^2) add_point
  /// with fixed hyperparameters in between); 1: every step (the recipe before issue 20); 0 (auto):
  /// every step up to 100 points, then whenever the data has grown by 5% (refit_due, src/algorithms/refit_schedule.hpp).
  std::size_t refit_every = 0;
  /// Past this many observations the GP conditions on a subset of them, chosen at each refit (the
  /// half nearest the best point, the rest uniformly at random; kernel_detail::subset_indices),
  /// plus every point told since; 0: always all of them (exact GP).
  std::size_t max_model_points = 1000;
  /// Known observation-noise sd in the objective's units (BoTorch's FixedNoiseGP); unset: the
  /// noise variance is a hyperparameter fitted with the others (MAP, the standard recipe). 0 is
  /// allowed (deterministic objective; the Cholesky's adaptive jitter keeps it factorizable).
  std::optional<double> noise_sd{};
  /// A monotone warp of the observed values before the GP sees them (models/outcome_transform.hpp):
  /// none, half-rank (the worse half mapped to normal quantiles, against outliers), compress (the
  /// worse half pulled halfway to the median, no further out than half-rank), power (HEBO's
  /// Yeo-Johnson), or alternate (compress at two steps of three, none at the third). auto:
  /// alternate for gp-ei and gp-pi with 2 to kAlternateWarpUpTo parameters and no categorical
  /// one, none otherwise.
  OutputWarp output_warp = OutputWarp::Auto;
  /// The GP's constant prior mean; see GpMean.
  GpMean mean = GpMean::Auto;
  /// Where the worst-value mean sits (mean worst, and the raw steps of worst-unwarped): this many
  /// sample sds of the outputs below the worst value seen, >= 0. Unset (auto): 1 with
  /// kMarginFromDim to kWorstMeanUpTo parameters, else 0 (docs/gp-bo.md, "The mean's margin").
  std::optional<double> mean_margin{};
  /// The axes of the GP's lengthscales; see GpRotation.
  GpRotation rotation = GpRotation::Auto;
  /// Failed evaluations in the model: at the worst successful value so far (the default since
  /// stop 55), or left out (the recipe before, which kept sampling a failing region:
  /// docs/gp-bo.md, "Failed evaluations").
  FailedPoints failed_points = FailedPoints::Worst;
  GpOutput output = GpOutput::BestObserved;  ///< recommend() (docs/gp-bo.md, "Noisy objectives")
};

class GpBo : public Optimizer {
 public:
  /// Throws InvalidArgument naming a bad option.
  GpBo(const Space& space, Direction direction, GpBoOptions options = {}, const RunContext& context = {});

  bool supports_batch() const override { return true; }
  nlohmann::json diagnostics() const override;
  /// {"resolved": {"prior": ...}} when `prior` is auto: what it resolved to for this space.
  nlohmann::json decisions() const override;

  const GpBoOptions& options() const { return options_; }
  std::size_t n_init() const { return n_init_; }
  /// The GP on the observations (failed ones at the worst value, see failed_points), or on the
  /// subset of them max_model_points allows (brings the model up to date first).
  const GaussianProcess& model() const;
  /// The UCB weight beta_t for the t-th point (t >= 1).
  double beta(double t) const;
  /// gp-pi's xi when none is given: kPiXiSdFraction of the largest posterior sd of `gp` over
  /// kPiXiProbes fixed Sobol points of the unit cube (O(n^2) per probe).
  double pi_threshold(const GaussianProcess& gp) const;

  /// max(2, min(d + 1, 10)).
  static std::size_t default_n_init(std::size_t dim);
  /// `prior: auto` resolved: Botorch for gp-ei from 2 to kBotorchNoisePriorUpTo parameters, else Gamma.
  static GpPrior resolved_prior(const GpBoOptions& options, std::size_t dim);
  /// options.output_warp, with auto resolved (see GpBoOptions::output_warp).
  static OutputWarp resolved_output_warp(const GpBoOptions& options, const Space& space);
  /// options.rotation, with auto resolved (see GpRotation::Auto).
  static GpRotation resolved_rotation(const GpBoOptions& options, const Space& space);
  /// options.mean, with auto resolved (see GpMean::Auto).
  static GpMean resolved_mean(const GpBoOptions& options, std::size_t dim);
  /// options.mean_margin, with auto resolved (see GpBoOptions::mean_margin).
  static double resolved_mean_margin(const GpBoOptions& options, std::size_t dim);
  static constexpr std::size_t kBotorchNoisePriorUpTo = 12;
  static constexpr std::size_t kAlternateWarpUpTo = 12;
  static constexpr std::size_t kWorstMeanUpTo = 12;
  static constexpr std::size_t kMarginFromDim = 6;
  static constexpr Eigen::Index kAlternatePeriod = 3;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;
  void observe_failure(const Observation& obs) override;
  /// options().output: by the posterior mean among the evaluated points, or the base class's best observed.
  Vector recommend_unit() const override;

 private:
  Vector design_point(std::uint64_t index, Rng& rng) const;
  Vector maximize(const GaussianProcess& gp, Rng& rng, const PointSet& chosen) const;
  /// The acquisition over the valid integer and categorical values (maximize_mixed), excluding
  /// evaluated, pending and `chosen` points.
  Vector maximize_discrete_acquisition(const AcquisitionFunction& acq, const std::vector<Vector>& starts,
                                       const PointSet& chosen, Rng& rng) const;
  /// The stall rule (docs/robust.md): x itself, unless the acquisition returned to a point of the
  /// data (closer than 0.001 lengthscales); then the point farthest from the model's data, a
  /// space-filling step.
  Vector unless_stalled(const GaussianProcess& gp, Vector x, Rng& rng) const;
  /// The point farthest from the model's data (every observation when the model is capped), or
  /// `otherwise` if there is none.
  Vector space_filling(const GaussianProcess& gp, const Vector& otherwise, Rng& rng) const;
  /// The value stall rule (docs/robust.md): on a space with a categorical (pending points or not),
  /// the last three values told are bit-equal to the incumbent's.
  bool repeats_incumbent_value() const;
  /// The test of NoisyDesign::UntilSkill (a noisy objective) or PlateauDesign::Faces (a
  /// deterministic one) on the model as of the last sync (false when it does not apply).
  bool model_lacks_skill() const;
  /// At least half of the successful values are bit-equal to the worst one (worst_, as of the
  /// last sync).
  bool plateau_dominates() const;
  /// Unit point u is on a face of the box and farther than kFaceStepNear from every successful
  /// value above worst_ (PlateauDesign::Faces).
  bool explores_a_face(const Vector& u) const;
  /// The hyperparameter fit of options().fit ("warm": kernel_detail::fit_hyperparameters; a
  /// thorough one also chooses the frame when rotates_).
  void fit_model(GaussianProcess& gp, bool thorough, Rng& rng) const;
  /// A thorough fit in each of the frames of GpRotation::Angles; gp gets the best.
  void fit_in_best_frame(GaussianProcess& gp, Rng& rng) const;
  /// Applies the observations told since the last sync, in order, exactly as if each had been
  /// applied at its tell (add_point, then the fit due at that size with that size's seed): the
  /// model is a function of the told history, but its cost is paid in ask() (and counted in the
  /// driver's suggest time) rather than in tell().
  void sync() const;

  GpBoOptions options_;
  std::size_t n_init_;
  double log_domain_size_ = 0.0;  // log |D| when every parameter is discrete
  bool finite_domain_ = false;
  DesignSequence design_;
  OutputWarp output_warp_;  // options_.output_warp resolved
  GpMean mean_;              // options_.mean resolved
  bool rotates_;             // options_.rotation resolved to Angles
  void apply_output_warp() const;  // gp_'s outputs = the warped values of its points (warp_now())
  /// The warp of this step: output_warp_, or for alternate compress unless the number of values
  /// applied is a multiple of kAlternatePeriod.
  OutputWarp warp_now() const;
  /// The GP's mean this step (mean_ resolved): raw_outputs when the model sees unwarped values.
  ConstantMean mean_now(bool raw_outputs) const;
  bool uses_worst_mean() const { return mean_ == GpMean::Worst || mean_ == GpMean::WorstUnwarped; }
  /// Appends one observation to the data and the model (a failed one at the worst value), then
  /// fits when the schedule says so.
  void append(const Vector& u, double y, bool failed) const;
  /// Failed points' values follow the worst successful value: reset them and the model's outputs.
  void update_imputed() const;
  // The model state is a cache of the told history, brought up to date by sync().
  mutable GaussianProcess gp_;
  mutable std::vector<std::pair<Vector, double>> unsynced_;  // (unit point, value; NaN: failed) told, not yet applied
  mutable std::vector<Vector> deferred_failures_;  // failed points told before any success (no worst value yet)
  mutable std::vector<Eigen::Index> failed_indices_;  // data_y_ entries holding an imputed value
  mutable std::optional<double> worst_;              // the worst successful value so far
  mutable bool imputed_stale_ = false;               // worst_ moved since the imputed values were set
  mutable bool fitted_ = false;
  mutable std::size_t last_fit_n_ = 0;  // observations at the last hyperparameter fit
  mutable std::size_t merged_restarts_ = 0;  // acquisition local searches merged in the last ask (diagnostics)
  bool flat_start_ = false;                   // the last ask continued the design past n_init (diagnostics)
  bool no_skill_start_ = false;               // ... because the model showed no skill (Noisy/PlateauDesign; diagnostics)
  // Every observation applied so far (unit points, values); gp_ holds a subset of them when it is
  // capped by max_model_points.
  mutable Matrix data_X_;
  mutable Vector data_y_;
  mutable std::vector<Eigen::Index> model_points_;  // gp_'s points as indices into data_X_ / data_y_
  mutable std::size_t last_thorough_fit_ = 0;  // model size at the last multi-start fit (see model_fit.hpp)
  mutable std::size_t refit_stretch_ = 1;      // the automatic schedule's stretch (next_refit_stretch)
};

/// "gp-ucb", "gp-ei" or "gp-pi".
const char* gp_bo_name(Acquisition acquisition);

AlgorithmInfo gp_ucb_info();
AlgorithmInfo gp_ei_info();
AlgorithmInfo gp_pi_info();

}  // namespace optimist
