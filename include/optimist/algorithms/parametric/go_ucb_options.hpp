// GO-UCB's options: the choice options as enums with their name tables, and GoUcbOptions, whose
// default-constructed value holds the defaults of `go-ucb` (go_ucb_registration.cpp's option tables
// read configs into it; docs/go-ucb.md lists every option with its paper value).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "optimist/algorithms/bo/initial_design.hpp"
#include "optimist/core/enum_names.hpp"
#include "optimist/models/outcome_transform.hpp"
#include "optimist/models/parametric/mlp.hpp"
#include "optimist/models/parametric/radial_net.hpp"
#include "optimist/models/parametric/regression_oracle.hpp"

namespace optimist {

/// Which algorithm a GoUcb runs: set by the registry name, not an option.
enum class GoUcbVariant {
  GoUcb,             ///< Algorithm 1 (go-ucb)
  Workshop,          ///< workshop Algorithm 1 with its section-4 surrogate (go-ucb-workshop)
  ExplorationFirst,  ///< workshop Lemma 15 (exploration-first)
};
inline constexpr EnumNames<GoUcbVariant, 3> kGoUcbVariantNames{{{{GoUcbVariant::GoUcb, "go-ucb"},
                                                                  {GoUcbVariant::Workshop, "workshop"},
                                                                  {GoUcbVariant::ExplorationFirst, "exploration-first"}}}};

/// The registry name of each variant's algorithm.
inline constexpr EnumNames<GoUcbVariant, 3> kGoUcbAlgorithmNames{{{{GoUcbVariant::GoUcb, "go-ucb"},
                                                                    {GoUcbVariant::Workshop, "go-ucb-workshop"},
                                                                    {GoUcbVariant::ExplorationFirst, "exploration-first"}}}};

/// The family f_w. Auto and the built-in ones are option values; the constructor replaces Auto by
/// its choice, and by Custom when a model is passed to it.
enum class GoUcbModel { Auto, Mlp, Additive, Custom };
/// The option's values.
inline constexpr EnumNames<GoUcbModel, 3> kGoUcbModelNames{
    {{{GoUcbModel::Auto, "auto"}, {GoUcbModel::Mlp, "mlp"}, {GoUcbModel::Additive, "additive"}}}};
/// Every value, for diagnostics ("custom": a model given in C++).
inline constexpr EnumNames<GoUcbModel, 4> kGoUcbModelKindNames{{{{GoUcbModel::Auto, "auto"},
                                                                  {GoUcbModel::Mlp, "mlp"},
                                                                  {GoUcbModel::Additive, "additive"},
                                                                  {GoUcbModel::Custom, "custom"}}}};

/// Paper: Algorithm 1 as stated (appendix D.1's lambda and beta_t, no deviation; GoUcbOptions::
/// apply_paper_preset lists what it sets).
enum class GoUcbPreset { Default, Paper };
inline constexpr EnumNames<GoUcbPreset, 2> kGoUcbPresetNames{{{{GoUcbPreset::Default, "default"}, {GoUcbPreset::Paper, "paper"}}}};

/// beta_t = beta, or beta (1 + ln t): the radius grows like sqrt(log t) as in GP-UCB's bounds.
enum class BetaSchedule { Constant, Log };
inline constexpr EnumNames<BetaSchedule, 2> kBetaScheduleNames{{{{BetaSchedule::Constant, "constant"}, {BetaSchedule::Log, "log"}}}};

/// What the built-in model sees: the unit-cube point u (paper) or 2u - 1 in [-1,1]^d, so a
/// zero-centred network is symmetric about the box centre.
enum class ModelInputs { Unit, Centered };
inline constexpr EnumNames<ModelInputs, 2> kModelInputsNames{{{{ModelInputs::Unit, "unit"}, {ModelInputs::Centered, "centered"}}}};

/// The trust region: trust_region is the side of a box or the radius of a Euclidean ball (unit-cube
/// coordinates, intersected with the domain).
enum class TrustShape { Box, Ball };
inline constexpr EnumNames<TrustShape, 2> kTrustShapeNames{{{{TrustShape::Box, "box"}, {TrustShape::Ball, "ball"}}}};

/// Where the opening's steps may go: anywhere in the domain (box, stop 56's recipe), or within the
/// evaluated points' range in each coordinate (data, the default since stop 81: no opening step onto
/// a face the data has not come near; docs/go-ucb.md, "The opening on the paper's tuning tasks").
enum class OpeningBounds { Box, Data };
inline constexpr EnumNames<OpeningBounds, 2> kOpeningBoundsNames{{{{OpeningBounds::Box, "box"}, {OpeningBounds::Data, "data"}}}};

/// Up to this many parameters the automatic trust region starts larger and may grow (0.2, up to
/// 0.5): the 0.1 region chosen on the papers' 20-parameter tasks stays on a secondary ridge of the
/// robustness suite's 1-5-parameter tasks and crawls on the flat or multimodal 6-10-parameter ones
/// (docs/robust.md, "GO-UCB in low dimensions" and "... up to 10 parameters").
inline constexpr std::size_t kLowDimension = 10;
/// opening_steps = "auto" with the additive family on a continuous space.
inline constexpr std::size_t kAutoOpeningSteps = 4;
/// The built-in models' size limits: units of a hidden layer (model=mlp) or of each input
/// (model=additive), and weights d_w of the whole network. The docs' largest network has 5,101
/// weights; a typo such as hidden=[1000000000] is an error naming it, not an allocation failure.
/// GoUcb also refuses a run whose model matrices (the oracle's n x d_w Jacobian, a dense d_w x d_w
/// Sigma_t, the opening's radial network) would not fit in memory (available_memory_bytes()).
inline constexpr std::size_t kMaxModelUnits = 100000;
inline constexpr std::size_t kMaxModelWeights = 10000000;
/// trust_region = "auto": 0.2 up to kLowDimension parameters, 0.1 above.
inline double auto_trust_region(std::size_t dimension) { return dimension <= kLowDimension ? 0.2 : 0.1; }
/// trust_max = "auto": 0.5 (at least trust_region) up to kLowDimension parameters, trust_region above.
inline double auto_trust_max(std::size_t dimension, double trust_region) {
  return dimension <= kLowDimension ? std::max(0.5, trust_region) : trust_region;
}

/// refit_every = "auto" refits eq. (2) after every step up to this many data points, then once
/// the data has grown by 5% (refit_due). Later than the GP methods' 100: a GP's hyperparameters
/// change slowly, GO-UCB's fit is its model, and from 100 to 300 points the 5% schedule cost
/// regret (docs/go-ucb.md, "A growing history").
inline constexpr std::size_t kGoUcbRefitEveryStepUpTo = 300;

/// Success: grow after any improvement. Ratio: grow only when the improvement is at least half the
/// one f_{w_t} predicted (the classical ratio test), keep the size after a smaller one, else shrink.
enum class TrustRule { Success, Ratio };
inline constexpr EnumNames<TrustRule, 2> kTrustRuleNames{{{{TrustRule::Success, "success"}, {TrustRule::Ratio, "ratio"}}}};

/// Step 5 on integer parameters (docs/discrete.md): every value on odd Phase II steps and within the
/// trust region on even ones, always every value (the paper's step 5), or always the trust region.
enum class DiscreteStep { Alternate, Global, TrustRegion };
inline constexpr EnumNames<DiscreteStep, 3> kDiscreteStepNames{
    {{{DiscreteStep::Alternate, "alternate"}, {DiscreteStep::Global, "global"}, {DiscreteStep::TrustRegion, "trust-region"}}}};

/// Step 5: the first-order bonus of Lemma 5.4, or that point improved by joint ascent over (x, w).
enum class GoUcbAcquisition { Linearized, Joint };
inline constexpr EnumNames<GoUcbAcquisition, 2> kGoUcbAcquisitionNames{
    {{{GoUcbAcquisition::Linearized, "linearized"}, {GoUcbAcquisition::Joint, "joint"}}}};

/// recommend(): the evaluated point f_{w_t} rates best, the best observed one, or Algorithm 1's
/// draw among the Phase II points.
enum class GoUcbOutput { Model, BestObserved, Uniform };
inline constexpr EnumNames<GoUcbOutput, 3> kGoUcbOutputNames{
    {{{GoUcbOutput::Model, "model"}, {GoUcbOutput::BestObserved, "best-observed"}, {GoUcbOutput::Uniform, "uniform"}}}};

struct GoUcbOptions {
  GoUcbVariant variant = GoUcbVariant::GoUcb;
  std::size_t n_init = 0;  ///< Phase I length; 0: smallest n with n >= sqrt(N - n) (Theorem 4.1)
  InitialDesign init = InitialDesign::Uniform;  ///< Phase I design (kUniformOrSobolNames)
  /// Phase I's categorical choices: covered (every choice within each block of k points; each point
  /// still uniform over them) or independent (the paper's x ~ U(X) in every coordinate).
  DesignCategories design_categories = DesignCategories::Cover;
  /// Auto: additive from 3 inputs up, the paper's network below, on a categorical space, or when
  /// hidden or activation differ from their defaults or preset=paper (GoUcb::auto_model).
  GoUcbModel model = GoUcbModel::Auto;
  std::vector<std::size_t> hidden = {25};          ///< model=mlp: hidden layer sizes (the paper's: {25})
  Activation activation = Activation::Sigmoid;     ///< model=mlp: activation
  std::size_t units_per_input = 9;                 ///< model=additive: sigmoid units per input (d_w = 3 d_x units + 1)
  /// Fit standardized outputs (Phase I mean and sd; the paper does not). Unset: yes for the built-in
  /// models (their output layer absorbs any shift and scale), no for a model passed to the constructor,
  /// whose family describes the objective's own values (a physics law cannot fit (y - mean) / sd).
  /// Without it lambda, beta and the oracle's ridge are in the objective's units.
  std::optional<bool> standardize{};
  /// Deviation: each refit re-standardizes with the mean and sd of all data so far (false: Phase I's
  /// stay). After a flat Phase I its sd is the noise, and later values would be thousands of sds.
  bool restandardize = true;
  GoUcbPreset preset = GoUcbPreset::Default;
  double lambda = 1.0;  ///< regularization of eqs. (3)-(5) (preset=paper: sqrt(T) log^2 T)
  double beta = 0.1;    ///< confidence radius beta_t (preset=paper: d_w^3 F^4 t / T)
  BetaSchedule beta_schedule = BetaSchedule::Constant;
  /// Deviations from Algorithm 1 (each paper value available):
  /// What the built-in model sees; a model passed to the constructor always sees unit-cube points.
  ModelInputs inputs = ModelInputs::Unit;
  /// Oracle (eq. 2) weight decay: + weight_decay ||w||^2 on top of the oracle's own ridge toward
  /// the start (paper: 0).
  double weight_decay = 0.0;
  /// Every refit_every Phase II observations, re-run the oracle (eq. 2) on all data warm-started
  /// at w_t, make the fit the new w_0 and rebuild Sigma_t / w_t (eqs. 3-5) from the Phase II
  /// points' gradients at it (paper: 0, never). Unset ("auto"): after every observation up to
  /// kGoUcbRefitEveryStepUpTo (300) data points, then once the data has grown by 5% since the
  /// last fit (refit_due); eq. (5)'s rank-one updates carry w_t in between.
  std::optional<std::size_t> refit_every{};
  std::size_t refit_restarts = 0;  ///< extra random oracle starts at each refit
  /// Step 5 over a region of this size (fraction of the domain) centred at the best observed
  /// point, clipped to the domain (paper: 0, the whole domain). Unset ("auto"):
  /// auto_trust_region(dimension), 0.2 up to kLowDimension parameters, 0.1 above.
  std::optional<double> trust_region{};
  TrustShape trust_shape = TrustShape::Ball;
  /// Adapt the trust region's size: x1.5 after a Phase II step that improves the best value, x0.7
  /// after one that does not, within [trust_region / 4, trust_max (0: trust_region)].
  bool trust_adapt = true;
  /// Upper limit of the adapted size (0: trust_region, i.e. the region never grows past its
  /// start). Unset ("auto"): 0.5 up to kLowDimension parameters, trust_region above.
  std::optional<double> trust_max{};
  TrustRule trust_rule = TrustRule::Success;
  /// Integer and categorical spaces: categorical parameters are never restricted; continuous ones
  /// keep the trust region.
  DiscreteStep discrete_step = DiscreteStep::Alternate;
  /// Also maximize the acquisition over the whole domain and take that point when its pessimistic
  /// value f_{w_t}(x) - sqrt(beta_t) ||g||_{Sigma_t^-1} beats the incumbent's optimistic value
  /// (the model is confident the far point is better than anything near the incumbent).
  bool global_candidate = false;
  /// Failed evaluations in the fits and the ellipsoid: left out (the default), or at the worst
  /// successful value so far, which helps gp-ei and BKB but measured level or worse here
  /// (docs/go-ucb.md, "Failed evaluations").
  FailedPoints failed_points = FailedPoints::Ignore;
  /// Stall rule (docs/robust.md): this many Phase II steps in a row without improvement, each at a
  /// point next to one already evaluated (closer than 5% of the smallest trust region on the
  /// continuous coordinates, at most one value away on the integers, in the same categories; the
  /// alternate whole-domain steps of discrete_step neither count nor break the run), make the
  /// next point the one farthest from every evaluated point (a space-filling step), after which
  /// the region restarts at trust_region. Keeps the search from re-evaluating a local optimum for
  /// the rest of the budget; 0: never.
  std::size_t stall_steps = 3;
  /// The opening (fifteenth round, docs/go-ucb.md): the first opening_steps Phase II steps are chosen
  /// by a network of radial units (RadialNet, one unit per data point, width opening_width) fitted
  /// to all data, with its own Sigma_t from the Phase II gradients, beta opening_beta, in a ball of
  /// radius opening_region; the model family keeps being fitted to every point and takes over after
  /// them. nullopt ("auto"): kAutoOpeningSteps with the additive family on a continuous space (whose
  /// first steps read per-coordinate trends and point outward), else 0.
  std::optional<std::size_t> opening_steps{};
  double opening_width = 0.5;
  double opening_region = 0.3;
  double opening_beta = 1.0;
  RadialProfile opening_profile = RadialProfile::Gaussian;
  OpeningBounds opening_bounds = OpeningBounds::Data;
  GoUcbAcquisition acquisition = GoUcbAcquisition::Linearized;
  std::size_t raw_samples = 512;  ///< acquisition: quasi-random candidates
  std::size_t restarts = 8;       ///< acquisition: local searches from the best candidates
  GoUcbOutput output = GoUcbOutput::Model;
  RegressionOracleOptions oracle{};  ///< eq. (2)
  double workshop_sigma = 0.01;    ///< workshop surrogate: sigma ||grad||_2 sqrt(U/t) + U/t
  double workshop_u = 10.0;
  /// A model given to the constructor is first checked against finite differences of its own
  /// values (check_model_gradients: 3 random points, tolerance 1e-4); wrong derivatives would make
  /// the fit, Sigma_t and the acquisition silently wrong. The built-in MLP is not checked.
  bool check_model = true;

  /// preset=paper, Algorithm 1 as stated: sets inputs=unit, weight_decay=0, refit_every=0,
  /// trust_region=0 (no trust region, so trust_shape/trust_adapt/trust_max/trust_rule/
  /// discrete_step do nothing), global_candidate=false, stall_steps=0, opening_steps=0,
  /// beta_schedule=constant, design_categories=independent (x ~ U(X)), and
  /// GoUcb replaces lambda and beta by appendix D.1's sqrt(T) log^2 T and d_w^3 F^4 t / T. Throws
  /// InvalidArgument naming the option when one of these holds a value that is neither its default
  /// nor the preset's (a config that asks for both); `algorithm` prefixes the message.
  void apply_paper_preset(const std::string& algorithm);
};

}  // namespace optimist
