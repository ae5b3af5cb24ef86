#include "optimist/algorithms/kernel/gp_bo.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <numbers>
#include <optional>

#include "algorithms/kernel/model_fit.hpp"
#include "optimist/algorithms/bo/pending_points.hpp"
#include "optimist/algorithms/kernel/acquisition.hpp"
#include "optimist/solvers/space_filling.hpp"
#include "optimist/core/sobol.hpp"
#include "optimist/solvers/mixed_maximizer.hpp"

namespace optimist {

namespace {

// Independent random streams under the optimizer's seed.
constexpr std::uint64_t kFitStream = 0x6670'6669'7400'0001ULL;
constexpr std::uint64_t kDesignStream = 0x6670'6465'7300'0002ULL;
// Best observed points added as local-search starts of the acquisition maximizer.
constexpr std::size_t kObservedStarts = 5;

// Restarts of the acquisition's L-BFGS-B that reach the basin of an earlier one stop there
// (merge_restarts, BoxMaximizerOptions::merge_radius) once the model holds more than
// kRefitEveryStepUpTo points: there each evaluation is an O(n^2) product and most restarts climb
// to one of two or three optima (docs/gp-bo.md, "Merged restarts"); smaller runs stay as they
// were. The radius, half the shortest lengthscale, keeps merged points within half a lengthscale
// of each other in the kernel's metric, where the posterior barely changes. Continuous spaces
// only: the mixed maximizer runs one local search per call.
double merge_radius(const GaussianProcess& gp, bool merge) {
  if (!merge || static_cast<std::size_t>(gp.size()) <= kRefitEveryStepUpTo) return 0.0;
  return 0.5 * gp.hyperparameters().lengthscales.minCoeff();
}

GpOptions model_options(GpBoOptions o, const Space& space) {
  o.prior = GpBo::resolved_prior(o, space.dim());
  GpOptions g;
  g.kernel = o.kernel;
  g.worst_margin = GpBo::resolved_mean_margin(o, space.dim());
  // Categorical parameters get their distance (Kernel::set_categories); integers keep their
  // order on the unit cube. A space without categoricals keeps the plain ARD kernel.
  const DiscreteDomain domain(space);
  for (std::size_t k : domain.categories())
    if (k > 0) {
      g.categories = domain.categories();
      break;
    }
  g.category_distance = o.categorical_distance;
  g.fit = kernel_detail::warm_fit_options();
  if (o.prior == GpPrior::Classic) {
    // The previous default: BoTorch's Gamma(3, 6) lengthscale and Gamma(2, 0.15) outputscale priors
    // approximated by the log-normals with the same mean and variance of log theta (E log =
    // digamma(k) - log(rate), Var log = trigamma(k)), with the GP's default noise prior
    // LogNormal(-4, 1) in [1e-6, 1]. Heavier upper tails than the gammas (measured: docs/gp-bo.md,
    // step 4, priors).
    g.lengthscale_prior = LogNormalPrior{-0.869, 0.628};
    g.outputscale_prior = LogNormalPrior{2.320, 0.803};
  } else if (o.prior == GpPrior::Gamma || o.prior == GpPrior::Botorch) {
    // BoTorch 0.8's SingleTaskGP priors exactly: Gamma(3, 6) lengthscales, Gamma(2, 0.15)
    // outputscale (lighter upper tails than the log-normal approximation of "classic").
    g.lengthscale_prior = GammaPrior{3.0, 6.0};
    g.outputscale_prior = GammaPrior{2.0, 0.15};
    g.min_outputscale = 1e-3;
    g.max_outputscale = 1e3;
    if (o.prior == GpPrior::Botorch) {
      // And its noise prior, Gamma(1.1, 0.05) with the lower bound 1e-4 (mode 2 in standardized
      // units). "gamma" keeps the GP's LogNormal(-4, 1) (BoTorch >= 0.12), which measured better
      // on 20-D Rastrigin (docs/gp-bo.md, step 4, priors).
      g.noise_prior = GammaPrior{1.1, 0.05};
      g.min_noise_variance = 1e-4;
      g.max_noise_variance = 1e2;
    }
  }
  // Checked here, before the GP is made from it: the sd is squared into the GP's noise variance,
  // which overflows above ~1.3e154.
  if (o.noise_sd && !(*o.noise_sd >= 0.0 && std::isfinite(*o.noise_sd * *o.noise_sd)))
    throw InvalidArgument(std::string(gp_bo_name(o.acquisition)) + ": option 'noise_sd' must be \"learn\" or a number >= 0 whose square "
                          "is finite, got " + format_double(*o.noise_sd));
  if (o.noise_sd) g.fixed_noise_variance = *o.noise_sd * *o.noise_sd;
  if (o.fit == FitSchedule::Fresh) {
    g.fit.random_starts = 0;
    g.fit.restarts = 1;
    g.fit.max_iterations = 200;
  }
  return g;
}

}  // namespace

void GpBo::fit_model(GaussianProcess& gp, bool thorough, Rng& rng) const {
  if (options_.fit == FitSchedule::Warm) {
    if (rotates_ && thorough)
      fit_in_best_frame(gp, rng);
    else
      kernel_detail::fit_hyperparameters(gp, thorough, rng);  // warm refits keep the frame
    return;
  }
  // "fresh": a new model at the prior modes, one local search (BoTorch's fit_gpytorch_mll).
  GaussianProcess fresh(gp.dim(), gp.options());
  fresh.set_data(gp.inputs(), gp.outputs());
  fresh.fit(rng);
  gp = std::move(fresh);
}

void GpBo::fit_in_best_frame(GaussianProcess& gp, Rng& rng) const {
  // An ARD kernel resolves a ridge along a parameter's axis with a short lengthscale across it and
  // a long one along it; along a diagonal it needs both short, which the lengthscale prior
  // penalizes, and the fit explained the ridge as noise (plateau_ridge: a lengthscale of a third
  // of the box). The frame is chosen by the log posterior (type-II MAP over the angle too), a
  // rotated frame paying BIC's price of one more parameter, log(n) / 2 (Schwarz 1978).
  constexpr int kFrames = 6;  // 0, 15, ..., 75 degrees; 90 only swaps the axes
  gp.set_input_rotation(Matrix());
  kernel_detail::fit_hyperparameters(gp, true, rng);
  double best = gp.log_marginal_likelihood(gp.parameters(), nullptr, true);
  const double price = 0.5 * std::log(static_cast<double>(gp.size()));
  std::optional<GaussianProcess> chosen;
  for (int k = 1; k < kFrames; ++k) {
    const double angle = k * std::numbers::pi / (2.0 * kFrames);
    Matrix q(2, 2);
    q << std::cos(angle), std::sin(angle), -std::sin(angle), std::cos(angle);
    GaussianProcess rotated = gp;
    rotated.set_input_rotation(q);
    kernel_detail::fit_hyperparameters(rotated, true, rng);
    const double lp = rotated.log_marginal_likelihood(rotated.parameters(), nullptr, true) - price;
    if (lp > best) {
      best = lp;
      chosen = std::move(rotated);
    }
  }
  if (chosen) gp = std::move(*chosen);
}

const char* gp_bo_name(Acquisition acquisition) {
  switch (acquisition) {
    case Acquisition::Ucb: return "gp-ucb";
    case Acquisition::Ei: return "gp-ei";
    case Acquisition::Pi: return "gp-pi";
  }
  return "gp-?";
}

GpPrior GpBo::resolved_prior(const GpBoOptions& options, std::size_t dim) {
  if (options.prior != GpPrior::Auto) return options.prior;
  // BoTorch 0.8's noise prior lets the GP take a rugged landscape's small-scale variation for
  // noise and follow its trend: gp-ei better on 18 of 90 rows of 2-12 parameters, worse on none;
  // in 1-D it costs precision on smooth functions, on 20-D Rastrigin regret, and it is mixed for
  // gp-ucb and gp-pi (docs/gp-bo.md, "The noise prior in low dimensions").
  const bool botorch = options.acquisition == Acquisition::Ei && dim >= 2 && dim <= kBotorchNoisePriorUpTo;
  return botorch ? GpPrior::Botorch : GpPrior::Gamma;
}

OutputWarp GpBo::resolved_output_warp(const GpBoOptions& options, const Space& space) {
  if (options.output_warp != OutputWarp::Auto) return options.output_warp;
  // Two models in turn: the compressed values resolve the good region of a misfit spanning decades
  // (a calibration, where unwarped gp-ei was level with random search), the raw ones keep the
  // global trend compress alone loses on long runs (10-D Levy). Not in 1-D (the workshop tasks'
  // regret), nor with a categorical (a choice between landscapes: conditional_mixed); measured in
  // docs/gp-bo.md, "Outliers". gp-ucb's optimism is not EI's or PI's improvement over the
  // incumbent, and the portfolio measured mixed there (5 better, 2 worse).
  const std::size_t dim = space.dim();
  const bool categorical = std::any_of(space.parameters().begin(), space.parameters().end(),
                                       [](const Parameter& p) { return p.kind == ParameterKind::Categorical; });
  const bool improvement = options.acquisition == Acquisition::Ei || options.acquisition == Acquisition::Pi;
  const bool alternate = improvement && dim >= 2 && dim <= kAlternateWarpUpTo && !categorical;
  return alternate ? OutputWarp::Alternate : OutputWarp::None;
}

GpRotation GpBo::resolved_rotation(const GpBoOptions& options, const Space& space) {
  const bool two_continuous = space.dim() == 2 && !space.has_discrete();
  if (options.rotation == GpRotation::Angles && !two_continuous)
    throw InvalidArgument(std::string(gp_bo_name(options.acquisition)) +
                          ": option 'rotation' = \"angles\" needs 2 continuous parameters, the space has " +
                          std::to_string(space.dim()) + (space.has_discrete() ? " (some integer or categorical)" : ""));
  if (options.rotation != GpRotation::Auto) return options.rotation;
  // Measured for gp-ei only (docs/gp-bo.md, "Rotated frames").
  return options.acquisition == Acquisition::Ei && two_continuous ? GpRotation::Angles : GpRotation::None;
}

GpMean GpBo::resolved_mean(const GpBoOptions& options, std::size_t dim) {
  if (options.mean != GpMean::Auto) return options.mean;
  // The worst value as the prior mean: away from the data the model expects nothing better than
  // the worst seen, so log-EI values unexplored space (the box's faces first) less for its
  // variance alone and refines the basins it found more (De Ath et al. 2020: the best of eight
  // means on their synthetic tasks of 5+ dimensions). Not on the compress steps: the warp already
  // pulls the bad values in, and the two together lost on sharp_ridge. Measured in docs/gp-bo.md,
  // "The prior mean": gp-ei better on 47 of 135 rows of 1-12 parameters, worse on 2, gp-pi better
  // on 15 of 120, worse on 1; mixed on the papers' 20-D tasks (styblinski_tang worse, ackley
  // better). gp-ucb: worse on 4 rows of 30, better on 2 (its optimism is not an improvement).
  const bool improvement = options.acquisition == Acquisition::Ei || options.acquisition == Acquisition::Pi;
  const bool worst = improvement && dim <= kWorstMeanUpTo;
  return worst ? GpMean::WorstUnwarped : GpMean::Learned;
}

double GpBo::resolved_mean_margin(const GpBoOptions& options, std::size_t dim) {
  if (options.mean_margin) return *options.mean_margin;
  // From 6 parameters on, one sd below the worst value: with most of the box out of the budget's
  // reach, the further below the data the model reverts, the more log-EI refines the basins it
  // found (Levy-10 at T = 50: 3.85 -> 1.40). Measured in docs/gp-bo.md, "The mean's margin":
  // better on 42 of 123 rows of 6-12 parameters, worse on 5 (styblinski_tang, illcond_ellipsoid);
  // below 6 it cost (sharp_ridge, rosenbrock-4, plateau_ridge).
  return dim >= kMarginFromDim && dim <= kWorstMeanUpTo ? 1.0 : 0.0;
}

ConstantMean GpBo::mean_now(bool raw_outputs) const {
  switch (mean_) {
    case GpMean::Sample: return ConstantMean::Sample;
    case GpMean::Worst: return ConstantMean::Worst;
    case GpMean::WorstUnwarped: return raw_outputs ? ConstantMean::Worst : ConstantMean::Learned;
    default: return ConstantMean::Learned;
  }
}

OutputWarp GpBo::warp_now() const {
  if (output_warp_ != OutputWarp::Alternate) return output_warp_;
  return data_y_.size() % kAlternatePeriod == 0 ? OutputWarp::None : OutputWarp::Compress;
}

std::size_t GpBo::default_n_init(std::size_t dim) { return std::max<std::size_t>(2, std::min<std::size_t>(dim + 1, 10)); }

GpBo::GpBo(const Space& space, Direction direction, GpBoOptions options, const RunContext& context)
    : Optimizer(gp_bo_name(options.acquisition), space, direction, context),
      options_(std::move(options)),
      n_init_(options_.n_init > 0 ? options_.n_init : default_n_init(space.dim())),
      design_(options_.init, space.dim(), n_init_, derive_seed(context.seed, kDesignStream)),
      output_warp_(resolved_output_warp(options_, space)),
      mean_(resolved_mean(options_, space.dim())),
      rotates_(resolved_rotation(options_, space) == GpRotation::Angles),
      gp_(static_cast<Eigen::Index>(space.dim()), model_options(options_, space)),
      data_X_(static_cast<Eigen::Index>(space.dim()), 0) {
  // The enums are checked for values outside their tables (a cast integer): IsValid of Ceres.
  if (!kAcquisitionNames.contains(options_.acquisition) || !kKernelTypeNames.contains(options_.kernel) ||
      !kGpPriorNames.contains(options_.prior) || !kFitScheduleNames.contains(options_.fit) ||
      !kSobolOrUniformNames.contains(options_.init) || !kOutputWarpNames.contains(options_.output_warp) ||
      !kFailedPointsNames.contains(options_.failed_points) || !kGpOutputNames.contains(options_.output) ||
      !kGpMeanNames.contains(options_.mean) || !kGpRotationNames.contains(options_.rotation) ||
      !kCategoryDistanceNames.contains(options_.categorical_distance))
    throw InvalidArgument(name() + ": an option holds a value outside its enum (acquisition, kernel, prior, fit, init, "
                                   "output_warp, failed_points, output, mean, rotation or categorical_distance)");
  if (!(options_.delta > 0.0 && options_.delta < 1.0))
    throw InvalidArgument(name() + ": option 'delta' must be in (0, 1), got " + std::to_string(options_.delta));
  if (options_.beta && !(*options_.beta >= 0.0 && std::isfinite(*options_.beta)))
    throw InvalidArgument(name() + ": option 'beta' must be \"auto\", \"theorem\" or a finite number >= 0, got " +
                          std::to_string(*options_.beta));
  if (options_.beta_rule != UcbBetaRule::Auto && options_.beta_rule != UcbBetaRule::Theorem)
    throw InvalidArgument(name() + ": option 'beta_rule' holds a value outside its enum");
  if (options_.xi && !std::isfinite(*options_.xi)) throw InvalidArgument(name() + ": option 'xi' must be finite");
  if (options_.max_model_points != 0 && options_.max_model_points < 2)
    throw InvalidArgument(name() + ": option 'max_model_points' must be 0 (no cap) or >= 2, got " +
                          std::to_string(options_.max_model_points));
  check_search_sizes(name(), options_.raw_samples, options_.restarts);
  // Srinivas et al. Theorem 1 applies when every parameter is discrete: |D| = prod of cardinalities.
  finite_domain_ = true;
  for (const auto& p : space.parameters()) {
    if (p.kind == ParameterKind::Continuous) {
      finite_domain_ = false;
      break;
    }
    log_domain_size_ += std::log(static_cast<double>(p.cardinality()));
  }
}

double GpBo::pi_threshold(const GaussianProcess& gp) const {
  // xi = kPiXiSdFraction * the largest posterior sd over fixed Sobol probes of the unit cube: a
  // tenth of the prior sd while much of the space is unexplored, shrinking toward greedy PI as the
  // data cover it (docs/gp-bo.md, "GP-PI's xi"). Unscrambled: no draw from the run's stream.
  const auto d = static_cast<std::size_t>(gp.dim());
  if (d > SobolSequence::max_dimension()) return kPiXiSdFraction * std::sqrt(gp.prior_variance());
  const Matrix probes = SobolSequence(d, false, 0).points(1, kPiXiProbes);
  Vector mean, variance;
  gp.predict(probes, mean, variance);
  return kPiXiSdFraction * std::sqrt(std::max(variance.maxCoeff(), 0.0));
}

double GpBo::beta(double t) const {
  if (options_.beta) return *options_.beta;
  if (finite_domain_) return srinivas_beta_finite(t, log_domain_size_, options_.delta);  // Theorem 1
  if (options_.beta_rule == UcbBetaRule::Auto) return kPracticalUcbBeta;
  return srinivas_beta_continuous(t, static_cast<double>(space().dim()), options_.delta);  // Theorem 2, a = b = r = 1
}

Vector GpBo::design_point(std::uint64_t index, Rng& rng) const { return design_.point(index, rng); }

nlohmann::json GpBo::decisions() const {
  nlohmann::json resolved = nlohmann::json::object();
  if (options_.prior == GpPrior::Auto) resolved["prior"] = kGpPriorNames.name(resolved_prior(options_, space().dim()));
  if (options_.output_warp == OutputWarp::Auto) resolved["output_warp"] = kOutputWarpNames.name(output_warp_);
  if (options_.mean == GpMean::Auto) resolved["mean"] = kGpMeanNames.name(mean_);
  if (!options_.mean_margin && uses_worst_mean()) resolved["mean_margin"] = resolved_mean_margin(options_, space().dim());
  if (options_.rotation == GpRotation::Auto) resolved["rotation"] = kGpRotationNames.name(rotates_ ? GpRotation::Angles : GpRotation::None);
  if (options_.acquisition == Acquisition::Ucb && !options_.beta && options_.beta_rule == UcbBetaRule::Auto)
    resolved["beta"] = finite_domain_ ? nlohmann::json("theorem") : nlohmann::json(kPracticalUcbBeta);
  if (resolved.empty()) return nlohmann::json::object();
  return {{"resolved", resolved}};
}

nlohmann::json GpBo::diagnostics() const {
  // The model as of the last ask (not synced here: the fit's cost belongs to the next ask).
  nlohmann::json j = nlohmann::json::object();
  if (!fitted_) return j;
  const GpHyperparameters& h = gp_.hyperparameters();
  j["gp_noise_variance"] = h.noise_variance * gp_.output_scale() * gp_.output_scale();
  j["gp_lengthscale_geomean"] = std::exp(h.lengthscales.array().log().mean());
  // Where the model reverts away from the data, in the objective's units (of a warped step's values).
  j["gp_prior_mean"] = direction_sign(direction()) * (gp_.output_mean() + gp_.output_scale() * gp_.prior_mean());
  if (output_warp_ == OutputWarp::Alternate) j["output_warp"] = kOutputWarpNames.name(warp_now());  // the last ask's model
  if (options_.acquisition == Acquisition::Ucb) j["beta"] = beta(static_cast<double>(gp_.size() + 1));
  // Only when some were merged: the traces of runs whose model stays within 100 points keep their fields.
  if (merged_restarts_ > 0) j["acquisition_merged_restarts"] = merged_restarts_;
  if (refit_stretch_ > 1) j["refit_stretch"] = refit_stretch_;
  if (flat_start_) j["flat_start"] = true;  // the last ask continued the design: every value so far equal
  if (no_skill_start_) j["no_skill_start"] = true;  // ... a model without skill (Noisy/PlateauDesign)
  // The frame's angle in degrees (rotation: angles), 0 for the parameters' axes.
  if (rotates_) {
    const Matrix& q = gp_.kernel().rotation();
    j["gp_frame_degrees"] = q.size() > 0 ? std::round(std::atan2(q(0, 1), q(0, 0)) * 180.0 / std::numbers::pi) : 0.0;
  }
  return j;
}

void GpBo::observe(const Observation& obs, double y) {
  // trial.unit is the base class's to_unit(user point): a history replayed by user points gives identical data.
  unsynced_.emplace_back(obs.trial.unit, y);
}

void GpBo::observe_failure(const Observation& obs) {
  if (options_.failed_points == FailedPoints::Worst) unsynced_.emplace_back(obs.trial.unit, std::numeric_limits<double>::quiet_NaN());
}

Vector GpBo::recommend_unit() const {
  if (options_.output != GpOutput::Model || n_successful() == 0) return Optimizer::recommend_unit();
  const GaussianProcess& gp = model();
  if (!fitted_) return Optimizer::recommend_unit();  // still in the design: no fitted model yet
  // The posterior mean of the (maximized, possibly warped: a monotone map) objective at each
  // successfully evaluated point; the first of equal means, as best() takes the first of equal values.
  std::vector<const Observation*> evaluated;
  for (const Observation& obs : history())
    if (!obs.failed) evaluated.push_back(&obs);
  Matrix X(static_cast<Eigen::Index>(space().dim()), static_cast<Eigen::Index>(evaluated.size()));
  for (std::size_t k = 0; k < evaluated.size(); ++k) X.col(static_cast<Eigen::Index>(k)) = evaluated[k]->trial.unit;
  Vector mean;
  gp.predict_mean(X, mean);
  Eigen::Index best = 0;
  for (Eigen::Index k = 1; k < mean.size(); ++k)
    if (mean[k] > mean[best]) best = k;
  return evaluated[static_cast<std::size_t>(best)]->trial.unit;
}

const GaussianProcess& GpBo::model() const {
  sync();
  return gp_;
}

void GpBo::sync() const {
  for (const auto& [u, y] : unsynced_) {
    if (std::isnan(y)) {  // a failure: at the worst successful value, once there is one
      if (worst_) append(u, *worst_, true);
      else deferred_failures_.push_back(u);
      continue;
    }
    if (!worst_ || y < *worst_) {
      imputed_stale_ = imputed_stale_ || (worst_ && !failed_indices_.empty());
      worst_ = y;
    }
    append(u, y, false);
    for (const Vector& f : deferred_failures_) append(f, *worst_, true);
    deferred_failures_.clear();
  }
  if (!unsynced_.empty()) {
    update_imputed();
    apply_output_warp();
  }
  unsynced_.clear();
  // The factor, once: the refits above only recorded theirs, and the points told since them are
  // added to it now (GaussianProcess::update), not one by one before the next refit replaced them.
  gp_.update();
}

void GpBo::update_imputed() const {
  if (!imputed_stale_) return;
  imputed_stale_ = false;
  for (const Eigen::Index k : failed_indices_) data_y_[k] = *worst_;
  if (output_warp_ == OutputWarp::None) gp_.set_outputs(data_y_(model_points_));  // else: apply_output_warp
}

void GpBo::append(const Vector& u, double y, bool failed) const {
  const Eigen::Index k = data_X_.cols();
  data_X_.conservativeResize(u.size(), k + 1);
  data_X_.col(k) = u;
  data_y_.conservativeResize(k + 1);
  data_y_[k] = y;
  if (failed) failed_indices_.push_back(k);
  model_points_.push_back(k);
  gp_.add_point(u, y);  // the factor is extended (O(n^2)) at the end of sync, hyperparameters kept (a warp's value: below)
  const auto n = static_cast<std::size_t>(k + 1);
  if (n < n_init_) return;  // no model needed during the design
  const std::size_t cap = options_.max_model_points;
  // A capped model grows by the points told between refits (5% of n): past 20 x the cap that is
  // more than the cap, so a refit is also due once it holds twice the cap; its size stays bounded
  // however long the run (runs up to 20 x the cap are unchanged).
  const bool model_full = cap > 0 && model_points_.size() >= 2 * cap;
  if (fitted_ && !model_full && !refit_due(n, last_fit_n_, options_.refit_every, kRefitEveryStepUpTo, refit_stretch_)) return;
  // Warm start from the last hyperparameters; the seed depends only on the number of
  // observations, so a replayed history runs the same chain of fits (determinism and replay).
  // A multi-start fit at the first fit and whenever the data has doubled, warm refits otherwise.
  Rng rng(derive_seed(derive_seed(seed(), kFitStream), n));
  update_imputed();
  if (cap > 0 && n > cap) {
    // The capped model: a subset chosen around the best point, refitted from the current
    // hyperparameters (set before the data: one factorization).
    Eigen::Index best = 0;
    data_y_.maxCoeff(&best);
    const std::vector<Eigen::Index> idx =
        kernel_detail::subset_indices(data_X_, data_X_.col(best), gp_.hyperparameters().lengthscales, cap, cap / 2, rng);
    GaussianProcess sub(gp_.dim(), gp_.options());
    sub.set_hyperparameters(gp_.hyperparameters());
    sub.set_data(data_X_(Eigen::all, idx), warp_outputs(data_y_, warp_now())(idx));
    gp_ = std::move(sub);
    model_points_ = idx;
  }
  apply_output_warp();
  // Choosing the frame (rotates_) takes thorough fits: each step up to kRefitEveryStepUpTo points.
  const bool thorough = last_thorough_fit_ == 0 || n >= 2 * last_thorough_fit_ || (rotates_ && n <= kRefitEveryStepUpTo);
  fit_model(gp_, thorough, rng);
  if (thorough) last_thorough_fit_ = n;
  // Past 100 points, warm refits that gain less than a nat stretch the period (refit_schedule.hpp);
  // not for a capped model, whose refits also choose its subset again.
  // Only the automatic schedule stretches (a fixed refit_every ignores it; no misleading diagnostic).
  const bool settles = options_.refit_every == 0 && !thorough && n > kRefitEveryStepUpTo &&
                       options_.fit == FitSchedule::Warm && !(cap > 0 && n > cap);
  refit_stretch_ = settles ? next_refit_stretch(refit_stretch_, gp_.last_fit().log_posterior - gp_.last_fit().start_log_posterior) : 1;
  fitted_ = true;
  last_fit_n_ = n;
}

void GpBo::apply_output_warp() const {
  // A rank warp moves earlier values too when a new one arrives: the model's outputs are replaced
  // before each fit and once per sync, O(n^2) with the same factor.
  if (output_warp_ == OutputWarp::None) {
    gp_.set_constant_mean(mean_now(true));
    return;
  }
  Vector warped = warp_outputs(data_y_, warp_now())(model_points_);
  // The mean follows the values the model sees: a warp that moved none of them leaves raw values,
  // so the raw steps' mean (compress on a plateau: more than half the values tie at the worst, or
  // the better half all tie, and half_rank_warp returns the values).
  gp_.set_constant_mean(mean_now(warped == data_y_(model_points_)));
  gp_.set_outputs(warped);
}

Vector GpBo::maximize(const GaussianProcess& gp, Rng& rng, const PointSet& chosen) const {
  // Starts: the best points of the model's data (observations and fantasies).
  const Vector& y = gp.outputs();
  std::vector<Eigen::Index> order(static_cast<std::size_t>(y.size()));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  const std::size_t k = std::min(kObservedStarts, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](Eigen::Index a, Eigen::Index b) { return y[a] > y[b] || (y[a] == y[b] && a < b); });
  std::vector<Vector> starts;
  for (std::size_t i = 0; i < k; ++i) starts.push_back(gp.inputs().col(order[i]));

  BoxMaximizerOptions opt;
  opt.raw_samples = options_.raw_samples;
  opt.restarts = options_.restarts;
  opt.value_tolerance = options_.acquisition_tolerance;
  opt.merge_radius = merge_radius(gp, options_.merge_restarts);
  const double best = y.size() > 0 ? y.maxCoeff() : 0.0;
  const double xi = options_.xi ? *options_.xi : pi_threshold(gp);
  std::unique_ptr<AcquisitionFunction> acq;
  switch (options_.acquisition) {
    case Acquisition::Ucb:
      acq = std::make_unique<UpperConfidenceBound>(gp, beta(static_cast<double>(gp.size() + 1)));
      break;
    case Acquisition::Ei:
      acq = std::make_unique<LogExpectedImprovement>(gp, best, xi);
      break;
    case Acquisition::Pi:
      acq = std::make_unique<LogProbabilityOfImprovement>(gp, best, xi);
      break;
  }
  if (!space().has_discrete()) {
    BoxMaximizerResult r = maximize_acquisition(*acq, starts, opt, rng);
    merged_restarts_ += r.merged_searches;
    return std::move(r.x);
  }
  // Integer and categorical parameters: the acquisition over their valid values only, excluding
  // points evaluated, pending or chosen earlier in this batch (docs/discrete.md).
  return maximize_discrete_acquisition(*acq, starts, chosen, rng);
}

Vector GpBo::maximize_discrete_acquisition(const AcquisitionFunction& acq, const std::vector<Vector>& starts,
                                           const PointSet& chosen, Rng& rng) const {
  MixedMaximizerOptions mo;
  mo.box.raw_samples = options_.raw_samples;
  mo.box.restarts = options_.restarts;
  mo.box.value_tolerance = options_.acquisition_tolerance;
  mo.enumerate_limit = options_.enumerate_limit;
  const auto excluded = [&](const Vector& u) {
    if (!avoids_repeats()) return false;
    const Vector x = user_point(u);
    return is_taken_user(x) || chosen.contains(x);
  };
  const BoxObjective f = [&acq](const Vector& x, Vector* grad) { return acq.value(x, grad); };
  const BoxBatchObjective batch = [&acq](const Matrix& X) { return acq.values(X); };
  const auto d = static_cast<Eigen::Index>(space().dim());
  const MixedMaximizerResult r = maximize_mixed(domain(), f, batch, Vector::Zero(d), Vector::Ones(d), starts, excluded, mo, rng);
  if (r.x) return *r.x;
  // Nothing free was found (the base class then picks the nearest free point).
  return starts.empty() ? Vector(Vector::Constant(d, 0.5)) : starts.front();
}

Vector GpBo::unless_stalled(const GaussianProcess& gp, Vector x, Rng& rng) const {
  // A plateau makes the GP certain that nothing far away beats the incumbent, and log-EI then
  // prefers the noise-sized uncertainty next to the incumbent to any exploration: the search
  // re-evaluates one point for the rest of the budget (docs/robust.md). Such a point teaches the
  // model nothing; spend the evaluation where the data is thinnest instead.
  // Returned: within 0.001 lengthscales of a point of the data (a refinement near an optimum moves
  // by hundredths of a lengthscale or more).
  // A noisy objective may rightly evaluate a point again (RunContext::noisy).
  if (!avoids_repeats()) return x;
  // The model's data (observations and fantasies), and every observation when the model is capped.
  const bool capped = gp_.size() < data_X_.cols();
  bool returned = false;
  for (const Matrix* data : {&gp.inputs(), capped ? &data_X_ : static_cast<const Matrix*>(nullptr)})
    for (Eigen::Index j = 0; data && j < data->cols() && !returned; ++j)
      returned = gp.kernel().scaled_distance(data->col(j), x) < 1e-3;
  if (!returned) return x;
  return space_filling(gp, x, rng);
}

Vector GpBo::space_filling(const GaussianProcess& gp, const Vector& otherwise, Rng& rng) const {
  SpaceFillingOptions sf;
  sf.snap = [this](const Vector& u) { return space().snap_unit(u); };
  Vector far = farthest_point(gp_.size() < data_X_.cols() ? data_X_ : gp.inputs(), space().dim(), rng, sf);
  return far.size() > 0 ? far : otherwise;
}

bool GpBo::repeats_incumbent_value() const {
  // A categorical whose landscape is flat: the kernel's lengthscales, shared by every category, are
  // set by the categories that vary, so in the flat one each new point still looks uncertain and
  // log-EI keeps exploring it without ever returning to a point (docs/robust.md, "A stall in a
  // flat category"). The sign: the last kValueStallSteps values told equal the incumbent's, bit
  // for bit. Only on spaces with a categorical: on continuous plateaus the positional rule above
  // is enough, and this one measured worse there. Pending points do not hold it back: in an
  // asynchronous study something is always pending (docs/gp-bo.md, step 5).
  constexpr int kValueStallSteps = 3;
  if (!avoids_repeats()) return false;
  const DiscreteDomain& dom = domain();
  if (std::none_of(dom.discrete_dims().begin(), dom.discrete_dims().end(), [&](std::size_t i) { return dom.is_categorical(i); }))
    return false;
  const Observation* incumbent = best();
  if (!incumbent) return false;
  int equal = 0;
  for (auto it = history().rbegin(); it != history().rend() && equal < kValueStallSteps; ++it) {
    if (it->failed) continue;
    if (it->value != incumbent->value) return false;
    ++equal;
  }
  return equal == kValueStallSteps;
}

// NoisyDesign::UntilSkill's thresholds, each set by a measured cost (docs/gp-bo.md, "A noisy
// start"; PlateauDesign::Faces shares all but the first): the least share of the variance the fit
// must put in noise (a smooth task's first fits can predict badly too, but call little of it
// noise); the most parameters (from 5 on, a model's steps beat a continued design even without
// skill); the fewest points judged (with fewer, the first fits of smooth tasks often show no skill
// either). It is a rule for the start: past kNoSkillUpToPoints its O(n^3) cross-validation would
// cost more than a step.
constexpr double kNoiseShareNoSkill = 0.1;
constexpr std::size_t kNoSkillDesignUpTo = 3;
constexpr Eigen::Index kNoSkillFromPoints = 8;
constexpr Eigen::Index kNoSkillUpToPoints = 100;

bool GpBo::plateau_dominates() const {
  if (!worst_) return false;
  std::size_t successful = 0, at_worst = 0;
  for (const Observation& o : history()) {
    if (o.failed) continue;
    ++successful;
    at_worst += maximized(o) == *worst_;
  }
  return 2 * at_worst >= successful;
}

// PlateauDesign::Faces: a face step within this distance (unit cube) of a value above the plateau
// follows what was found there (an optimum on the box's edge) and is kept.
constexpr double kFaceStepNear = 0.2;

bool GpBo::explores_a_face(const Vector& u) const {
  if (!worst_ || (!(u.array() <= 1e-12).any() && !(u.array() >= 1.0 - 1e-12).any())) return false;
  return std::none_of(history().begin(), history().end(), [&](const Observation& o) {
    return !o.failed && maximized(o) > *worst_ && (o.trial.unit - u).norm() <= kFaceStepNear;
  });
}

bool GpBo::model_lacks_skill() const {
  if (!fitted_ || space().dim() > kNoSkillDesignUpTo) return false;
  if (gp_.size() < kNoSkillFromPoints || gp_.size() > kNoSkillUpToPoints)
    return false;
  if (avoids_repeats()) {
    // A deterministic objective: only on a plateau (values bit-equal), never on a smooth task.
    if (options_.plateau_design != PlateauDesign::Faces || !plateau_dominates()) return false;
  } else {
    if (options_.noisy_design != NoisyDesign::UntilSkill) return false;
    const GpHyperparameters& h = gp_.hyperparameters();
    if (h.noise_variance < kNoiseShareNoSkill * (h.noise_variance + h.outputscale)) return false;
  }
  // Q^2 = 1 - sum r_i^2 / sum c_i^2: r the model's leave-one-out residuals with the values' mean
  // as the prior mean (a fixed worst-value mean would fail far points for a reason other than
  // skill), c the residuals of the mean of the other values, (y_i - mean) n / (n - 1).
  const Vector& y = gp_.standardized_outputs();
  const Eigen::Index n = y.size();
  const double mean = y.mean();
  const double model = gp_.leave_one_out_residuals(mean).squaredNorm();
  const double scale = static_cast<double>(n) / static_cast<double>(n - 1);
  const double constant = (y.array() - mean).matrix().squaredNorm() * scale * scale;
  return model >= constant;
}

std::vector<Vector> GpBo::propose(std::size_t n) {
  sync();
  merged_restarts_ = 0;
  Rng rng = rng_for_ask();
  const std::uint64_t asked = history().size() + pending().size();
  std::vector<Vector> out;
  PointSet chosen;  // user points of this batch (no repeats within a batch either)
  const bool discrete = space().has_discrete() && avoids_repeats();
  const auto take = [&](Vector u) {
    // On integer and categorical spaces a design point already evaluated, pending or chosen moves
    // to the nearest free point (docs/discrete.md).
    if (discrete)
      if (auto v = free_point_near(u, &chosen)) u = *v;
    chosen.insert(user_point(u));
    out.push_back(std::move(u));
  };
  // The design, continued while nothing has succeeded or every value is bit-equal: fitted to a
  // plateau's equal values, the GP knows only its own variance, largest at the box's corners, and
  // log-EI spent the next steps there (docs/robust.md, "Small budgets"). On a noisy objective also
  // while the model shows no skill (NoisyDesign): the same corners, for the same reason.
  flat_start_ = false;
  no_skill_start_ = false;
  const bool no_skill = asked >= n_init_ && !values_all_equal() && model_lacks_skill();
  // On a deterministic plateau only the steps that explore a face are replaced (PlateauDesign).
  const bool faces_only = no_skill && avoids_repeats();
  while (out.size() < n && (asked + out.size() < n_init_ || values_all_equal() || (no_skill && !faces_only))) {
    flat_start_ = flat_start_ || (asked + out.size() >= n_init_ && values_all_equal());
    no_skill_start_ = no_skill;
    take(design_point(asked + out.size(), rng));
  }
  if (out.size() == n) return out;

  // Kriging believer: pending points, design points of this batch and the points already chosen
  // are added with their posterior mean as value, so the next choice avoids them. The stored
  // model is copied only when something must be added.
  std::optional<GaussianProcess> local;
  auto writable = [&]() -> GaussianProcess& {
    if (!local) local.emplace(gp_);
    return *local;
  };
  auto fantasize = [&](const Vector& unit_point) { add_believed_point(writable(), unit_point); };
  if (!fitted_) {
    // Only when the design is not complete (a batch reaching past it, or failed design points).
    Rng fit_rng(derive_seed(derive_seed(seed(), kFitStream), n_successful()));
    fit_model(writable(), true, fit_rng);
  }
  for (const Trial& t : pending()) fantasize(t.unit);
  for (const Vector& u : out) fantasize(stored_unit(u));
  // The value stall rule: one space-filling point, the first of the batch (the stall rule above
  // handles the points that return to the data).
  bool value_stalled = out.empty() && repeats_incumbent_value();
  while (out.size() < n) {
    const GaussianProcess& model = local ? *local : gp_;
    Vector x = maximize(model, rng, chosen);
    x = value_stalled ? space_filling(model, x, rng) : unless_stalled(model, std::move(x), rng);
    value_stalled = false;
    if (faces_only && explores_a_face(x)) {
      x = design_point(asked + out.size(), rng);
      no_skill_start_ = true;
    }
    take(x);
    if (out.size() < n) fantasize(stored_unit(out.back()));
  }
  return out;
}

}  // namespace optimist
