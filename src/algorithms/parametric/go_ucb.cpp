// GO-UCB (Liu & Wang, ICML 2023, Algorithm 1): the run's state, Phase I, the oracle fits and the
// trust region. The acquisition (step 5's optimistic maximization): go_ucb_acquisition.cpp.
#include "optimist/algorithms/parametric/go_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "algorithms/refit_schedule.hpp"
#include "optimist/algorithms/option_table.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/models/parametric/additive_mlp.hpp"
#include "optimist/models/parametric/radial_net.hpp"
#include "optimist/models/parametric/gradient_check.hpp"
#include "optimist/models/parametric/input_encodings.hpp"
#include "optimist/models/parametric/mlp.hpp"
#include "optimist/solvers/space_filling.hpp"

namespace optimist {

namespace {
constexpr std::uint64_t kOracleStream = 0x6f7261636c65;  // "oracle"
constexpr std::uint64_t kModelCheckStream = 0x636865636b;   // "check"
constexpr std::uint64_t kCoverStream = 0x636f766572;       // "cover"

// The registry name of each variant.
std::string variant_name(GoUcbVariant v) {
  if (!kGoUcbAlgorithmNames.contains(v))
    throw InvalidArgument("go-ucb: variant " + std::to_string(static_cast<int>(v)) + " is none of " + kGoUcbVariantNames.joined());
  return kGoUcbAlgorithmNames.name(v);
}

// A value of `o` outside its enum's table (a cast integer in C++): its option's name; else null.
const char* enum_outside_its_table(const GoUcbOptions& o) {
  if (!kUniformOrSobolNames.contains(o.init)) return "init";
  if (!kGoUcbModelKindNames.contains(o.model)) return "model";
  if (!kActivationNames.contains(o.activation)) return "activation";
  if (!kGoUcbPresetNames.contains(o.preset)) return "preset";
  if (!kBetaScheduleNames.contains(o.beta_schedule)) return "beta_schedule";
  if (!kModelInputsNames.contains(o.inputs)) return "inputs";
  if (!kTrustShapeNames.contains(o.trust_shape)) return "trust_shape";
  if (!kOpeningBoundsNames.contains(o.opening_bounds)) return "opening_bounds";
  if (!kTrustRuleNames.contains(o.trust_rule)) return "trust_rule";
  if (!kDiscreteStepNames.contains(o.discrete_step)) return "discrete_step";
  if (!kGoUcbAcquisitionNames.contains(o.acquisition)) return "acquisition";
  if (!kGoUcbOutputNames.contains(o.output)) return "output";
  if (!kOracleMethodNames.contains(o.oracle.method)) return "oracle";
  if (!kFailedPointsNames.contains(o.failed_points)) return "failed_points";
  return nullptr;
}

using option_table_detail::number_text;

std::string sizes_text(const std::vector<std::size_t>& sizes) {
  std::string text = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(sizes[i]);
  }
  return text + "]";
}

// The built-in network's size, checked before it is built (kMaxModelUnits, kMaxModelWeights):
// options set in C++ bypass the option tables' limits. Counted in doubles: no overflow.
void check_built_in_model_size(const std::string& algorithm, const GoUcbOptions& o, std::size_t inputs) {
  double weights = 0;
  std::string what;
  if (o.model == GoUcbModel::Additive) {
    if (o.units_per_input > kMaxModelUnits)
      throw InvalidArgument(algorithm + ": option 'units_per_input' must be at most " + std::to_string(kMaxModelUnits) +
                            ", got " + std::to_string(o.units_per_input));
    weights = 3.0 * static_cast<double>(inputs) * static_cast<double>(o.units_per_input) + 1.0;  // d_w = 3 d_x units + 1
    what = "model=additive, units_per_input=" + std::to_string(o.units_per_input);
  } else {
    if (std::any_of(o.hidden.begin(), o.hidden.end(), [](std::size_t h) { return h > kMaxModelUnits; }))
      throw InvalidArgument(algorithm + ": option 'hidden' must be a non-empty list of layer sizes from 1 to " +
                            std::to_string(kMaxModelUnits) + ", got " + sizes_text(o.hidden));
    double in = static_cast<double>(inputs);
    for (std::size_t h : o.hidden) {
      weights += (in + 1.0) * static_cast<double>(h);  // a layer's weights and biases
      in = static_cast<double>(h);
    }
    weights += in + 1.0;  // the output unit
    what = "model=mlp, hidden=" + sizes_text(o.hidden);
  }
  if (weights > static_cast<double>(kMaxModelWeights))
    throw InvalidArgument(algorithm + ": the built-in network (" + what + ", " + std::to_string(inputs) + " inputs) would have " +
                          number_text(weights) + " weights d_w, more than " + std::to_string(kMaxModelWeights) +
                          "; choose a smaller network");
}

// The bytes of a model's largest matrices over n data points: the oracle's Jacobian (n x d_w) and,
// when the ellipsoid is dense, Sigma_t's Cholesky factor (d_w x d_w).
double model_bytes(double d_w, double n, bool dense) { return 8.0 * (n * d_w + (dense ? d_w * d_w : 0.0)); }
}  // namespace

GoUcbModel GoUcb::auto_model(std::size_t dim, const GoUcbOptions& o, bool categorical) {
  // Why (docs/go-ucb.md, seventh round): from 3 inputs up the additive family was never
  // significantly worse than the paper's network; in 2-D branin needs interactions, and a
  // categorical parameter usually changes what the others do (docs/discrete.md).
  // The options describe the network when they differ from the defaults: configs reach GoUcb fully
  // resolved (a trace replays from them), so an explicit default cannot be told from an absent one.
  const GoUcbOptions defaults;
  const bool network_asked =
      o.hidden != defaults.hidden || o.activation != defaults.activation || o.preset == GoUcbPreset::Paper;
  return dim >= 3 && !network_asked && !categorical ? GoUcbModel::Additive : GoUcbModel::Mlp;
}

void GoUcbOptions::apply_paper_preset(const std::string& algorithm) {
  // Each option the preset sets must be at its default or at the preset's value: anything else is
  // a config asking for two things. (A default given explicitly cannot be told from an absent one.)
  const GoUcbOptions d;
  auto check = [&](const char* key, bool at_default, bool at_paper, const std::string& value, const char* paper) {
    if (at_default || at_paper) return;
    throw InvalidArgument(algorithm + ": preset=paper sets option '" + key + "' to " + paper + " (Algorithm 1 as stated), got " +
                          value + "; drop '" + key + "' or use preset=default");
  };
  check("inputs", inputs == d.inputs, inputs == ModelInputs::Unit, kModelInputsNames.name(inputs), "unit");
  check("weight_decay", weight_decay == d.weight_decay, weight_decay == 0.0, number_text(weight_decay), "0");
  check("refit_every", refit_every == d.refit_every, refit_every == 0u, refit_every ? std::to_string(*refit_every) : "auto", "0");
  check("trust_region", trust_region == d.trust_region, trust_region == 0.0, number_text(trust_region.value_or(0.0)), "0");
  check("global_candidate", global_candidate == d.global_candidate, !global_candidate, global_candidate ? "true" : "false", "false");
  check("stall_steps", stall_steps == d.stall_steps, stall_steps == 0, std::to_string(stall_steps), "0");
  check("opening_steps", opening_steps == d.opening_steps, opening_steps == 0u, opening_steps ? std::to_string(*opening_steps) : "auto", "0");
  check("beta_schedule", beta_schedule == d.beta_schedule, beta_schedule == BetaSchedule::Constant,
        kBetaScheduleNames.name(beta_schedule), "constant");
  check("lambda", lambda == d.lambda, false, number_text(lambda), "sqrt(T) log^2 T (appendix D.1)");
  check("beta", beta == d.beta, false, number_text(beta), "d_w^3 F^4 t / T (appendix D.1)");
  inputs = ModelInputs::Unit;
  weight_decay = 0.0;
  refit_every = 0;
  trust_region = 0.0;
  global_candidate = false;
  stall_steps = 0;
  opening_steps = 0;
  beta_schedule = BetaSchedule::Constant;
  design_categories = DesignCategories::Independent;  // (two values: the other is the default, never a conflict)
}

std::size_t GoUcb::default_n_init(std::size_t budget) {
  std::size_t n = 1;
  while (n < budget && static_cast<double>(n) < std::sqrt(static_cast<double>(budget - n))) ++n;
  return n;
}

GoUcb::GoUcb(const Space& space, Direction direction, GoUcbOptions options, const RunContext& context,
             std::shared_ptr<const ParametricModel> model)
    : GoUcb(space, direction, std::move(options), context, std::move(model), GoUcbVariant::GoUcb) {}

GoUcb::GoUcb(const Space& space, Direction direction, GoUcbOptions options, const RunContext& context,
             std::shared_ptr<const ParametricModel> model, GoUcbVariant built)
    : Optimizer(variant_name(options.variant), space, direction, context), options_(std::move(options)), model_(std::move(model)) {
  if (options_.variant != built)
    throw InvalidArgument(name() + ": options.variant is " + kGoUcbVariantNames.name(options_.variant) + " but a " +
                          kGoUcbVariantNames.name(built) + " is being built; make_go_ucb_variant builds the type of each variant");
  const std::size_t budget = required_horizon(name(), context);
  // Options set in C++ bypass the registry's option tables: their checks here (configs pass them).
  if (const char* key = enum_outside_its_table(options_))
    throw InvalidArgument(name() + ": option '" + std::string(key) + "' holds a value outside its enum");
  if (!(options_.weight_decay >= 0) || !std::isfinite(options_.weight_decay))
    throw InvalidArgument(name() + ": option 'weight_decay' must be >= 0, got " + number_text(options_.weight_decay));
  if (options_.trust_region && !(*options_.trust_region >= 0 && *options_.trust_region <= 1))
    throw InvalidArgument(name() + ": option 'trust_region' must be in [0, 1] (0: the whole domain), got " + number_text(*options_.trust_region));
  if (!(options_.lambda > 0) || !(options_.beta >= 0)) throw InvalidArgument(name() + ": need lambda > 0 and beta >= 0");
  if (options_.preset == GoUcbPreset::Paper) options_.apply_paper_preset(name());
  // "auto" sizes: from here on both hold a value.
  if (!options_.trust_region) resolved_["trust_region"] = *(options_.trust_region = auto_trust_region(space.dim()));
  if (!options_.trust_max) resolved_["trust_max"] = *(options_.trust_max = auto_trust_max(space.dim(), *options_.trust_region));
  const bool user_model = model_ != nullptr;
  if (options_.model == GoUcbModel::Custom && !user_model)
    throw InvalidArgument(name() + ": option 'model' is custom but no model was given; valid values: " + kGoUcbModelNames.joined());
  if (options_.model == GoUcbModel::Auto) {
    const std::vector<std::size_t> cats = domain().categories();
    const bool categorical = std::any_of(cats.begin(), cats.end(), [](std::size_t k) { return k > 0; });
    options_.model = user_model ? GoUcbModel::Custom : auto_model(space.dim(), options_, categorical);
    resolved_["model"] = kGoUcbModelKindNames.name(options_.model);
  }
  const GoUcbOptions& o = options_;
  check_search_sizes(name(), options_.raw_samples, options_.restarts);
  if (budget < 2) throw InvalidArgument(name() + ": the horizon (the total number of evaluations N, --budget) must be >= 2, got " + std::to_string(budget));
  // Checks of several options together.
  if (!(*o.trust_max == 0 || (*o.trust_max >= *o.trust_region && std::isfinite(*o.trust_max))))
    throw InvalidArgument(name() + ": option 'trust_max' must be 0 or >= trust_region (" + number_text(*o.trust_region) + "), got " +
                          number_text(*o.trust_max));
  trust_ = TrustRegion::steps(*o.trust_region, *o.trust_max > 0 ? *o.trust_max : *o.trust_region);
  if (o.model == GoUcbModel::Additive && o.units_per_input == 0) throw InvalidArgument(name() + ": option 'units_per_input' must be >= 1, got 0");
  if (o.model == GoUcbModel::Additive && o.activation != Activation::Sigmoid)
    throw InvalidArgument(name() + ": option 'activation' applies to model=mlp; model=additive has sigmoid units, got activation '" +
                          kActivationNames.name(o.activation) + "'");
  if (o.model == GoUcbModel::Additive && o.hidden != GoUcbOptions{}.hidden)
    throw InvalidArgument(name() + ": option 'hidden' applies to model=mlp; model=additive is sized by 'units_per_input'");
  if (!options_.standardize) options_.standardize = !user_model;
  // Deviation opening_steps "auto" (fifteenth round): the additive family's first steps need it.
  if (!options_.opening_steps)
    resolved_["opening_steps"] = *(options_.opening_steps = o.model == GoUcbModel::Additive && !space.has_discrete() ? kAutoOpeningSteps : 0);
  if (!model_) {
    // Categorical parameters enter the built-in network one-hot encoded (one_hot_inputs).
    const std::vector<std::size_t> categories = domain().categories();
    const bool one_hot = std::any_of(categories.begin(), categories.end(), [](std::size_t k) { return k > 0; });
    const std::size_t inputs = one_hot ? one_hot_dim(categories) : space.dim();
    check_built_in_model_size(name(), o, inputs);
    if (o.model == GoUcbModel::Additive)
      model_ = std::make_shared<AdditiveMlp>(inputs, o.units_per_input);
    else
      model_ = std::make_shared<Mlp>(inputs, o.hidden, o.activation);
    if (o.inputs == ModelInputs::Centered) model_ = centered_inputs(model_);
    if (one_hot) model_ = one_hot_inputs(model_, categories);
  }
  if (model_->input_dim() != space.dim())
    throw InvalidArgument(name() + ": the model takes " + std::to_string(model_->input_dim()) + " inputs, the space has " + std::to_string(space.dim()));
  if (user_model && o.check_model) {
    Rng rng(derive_seed(seed(), kModelCheckStream));
    try {
      check_model_gradients(*model_, rng);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(name() + ": " + e.what());
    }
  }
  if (o.variant == GoUcbVariant::ExplorationFirst && o.n_init == 0)
    n_init_ = static_cast<std::size_t>(std::ceil(std::pow(static_cast<double>(budget), 2.0 / 3.0)));  // Lemma 15: n = Theta(T^{2/3})
  else
    n_init_ = o.n_init ? o.n_init : default_n_init(budget);
  if (n_init_ >= budget) {
    // The user may not have set n_init: say where it came from and what budget works.
    std::string origin = o.n_init ? "n_init" : "its default Phase I, n_init";
    throw InvalidArgument(name() + ": " + origin + " = " + std::to_string(n_init_) + ", leaves no Phase II in a budget of " +
                          std::to_string(budget) + (o.n_init ? "; give n_init below the budget" : "; give a larger budget (4 or more) or n_init below it"));
  }
  horizon_ = budget - n_init_;
  check_model_memory(budget, user_model);
  if (o.init == InitialDesign::Sobol) sobol_design_.emplace(InitialDesign::Sobol, space.dim(), n_init_, seed());
  const double T = static_cast<double>(horizon_);
  lambda_ = o.preset == GoUcbPreset::Paper ? std::sqrt(T) * std::pow(std::log(T), 2) : o.lambda;  // appendix D.1
  if (!(lambda_ > 0)) lambda_ = 1.0;  // T = 1: log T = 0
}

void GoUcb::check_model_memory(std::size_t budget, bool user_model) const {
  const double have = available_memory_bytes(), n = static_cast<double>(budget);
  const std::size_t d_w = model_->num_params();
  // The ellipsoid starts dense when d_w <= T, else becomes dense at dense_from(d_w) observations.
  const bool dense = d_w <= horizon_ || horizon_ >= GradientEllipsoid::dense_from(d_w);
  const double need = model_bytes(static_cast<double>(d_w), n, dense);
  if (need > have)
    throw InvalidArgument(name() + ": a run of " + std::to_string(budget) + " evaluations with " +
                          (user_model ? "this model" : "the built-in network") + " of " + std::to_string(d_w) +
                          " weights d_w would need about " + gigabytes(need) + " of memory, more than the " + gigabytes(have) +
                          " here; choose a smaller network (hidden, units_per_input) or a smaller budget");
  if (*options_.opening_steps == 0 || space().has_discrete()) return;
  // The opening's radial network: one unit of d_x + 1 weights per data point, a dense Sigma.
  const std::size_t steps = std::min(*options_.opening_steps, budget);
  const double units = static_cast<double>(std::min(budget, n_init_ + steps));
  const double radial = units * (static_cast<double>(space().dim()) + 1.0) + 1.0;
  const double opening = model_bytes(radial, units, true);
  if (opening > have)
    throw InvalidArgument(name() + ": the opening's radial network (opening_steps = " + std::to_string(*options_.opening_steps) +
                          ": up to " + std::to_string(std::min(budget, n_init_ + steps)) + " units on " + std::to_string(space().dim()) +
                          " parameters) would need about " + gigabytes(opening) + " of memory, more than the " + gigabytes(have) +
                          " here; lower opening_steps (0: no opening)");
}

double GoUcb::beta(std::size_t t) const {
  if (beta_override_) return *beta_override_;
  if (options_.preset == GoUcbPreset::Paper) {  // appendix D.1: beta_t = d_w^3 F^4 t / T
    const double dw = static_cast<double>(model_->num_params());
    return dw * dw * dw * std::pow(f_bound_, 4) * static_cast<double>(t) / static_cast<double>(horizon_);
  }
  if (options_.beta_schedule == BetaSchedule::Log) return options_.beta * (1.0 + std::log(static_cast<double>(std::max<std::size_t>(t, 1))));
  return options_.beta;
}

Vector GoUcb::phase_one_point(std::uint64_t index) const {
  Rng rng = rng_for_ask();  // (unused by a Sobol design)
  const bool cover = options_.design_categories == DesignCategories::Cover && covers_categories(space(), n_init_);
  if (!sobol_design_ && !cover) return free_uniform_point(rng);  // Phase I step 2: x ~ U(X) (over the points not yet evaluated)
  // Step 2 with the categoricals' choices covered (each point still uniform over them), or Sobol.
  Vector u = sobol_design_ ? sobol_design_->point(index, rng) : rng.uniform_vector(static_cast<Eigen::Index>(space().dim()));
  if (cover) cover_categories(space(), derive_seed(seed(), kCoverStream), n_init_, index, u);
  if (!space().has_discrete() || !avoids_repeats()) return u;
  return free_point_near(u).value_or(u);  // integer/categorical spaces: no repeated point
}

Vector GoUcb::current_parameters() const {
  if (ellipsoid_) return ellipsoid_->center();
  return w0_;
}

void GoUcb::run_oracle() {
  Matrix X;
  Vector y;
  model_data(X, y, failed_value());
  if (*options_.standardize) standardize_with(y);
  f_bound_ = std::max(1e-12, y.cwiseAbs().maxCoeff());  // F of assumption 3.2, estimated from Phase I
  Rng rng(derive_seed(seed(), kOracleStream));
  const Vector ys = outcome_.apply(y);
  RegressionFit fit = oracle_fit(X, ys, Vector(), options_.oracle.restarts, rng);  // Phase I step 5, eq. (2)
  w0_ = fit.w;
  last_fit_sse_ = fit.sse;
  last_fit_n_ = n_successful();
  const auto rep = model_->num_params() <= horizon_ ? GradientEllipsoid::Representation::Dense
                                                    : GradientEllipsoid::Representation::LowRank;
  ellipsoid_.emplace(w0_, lambda_, rep);
}

RegressionFit GoUcb::oracle_fit(const Matrix& X, const Vector& ys, const Vector& warm_start, std::size_t restarts, Rng& rng) const {
  RegressionOracleOptions o = options_.oracle;
  o.restarts = restarts;
  o.weight_decay = options_.weight_decay;  // deviation weight_decay (0 in the paper)
  return fit_regression(*model_, X, ys, warm_start, o, rng);
}

RegressionFit GoUcb::fit_on_all_data(const Vector& warm_start, std::size_t restarts, bool restandardize) {
  Matrix X;
  Vector y;
  model_data(X, y, failed_value());
  if (restandardize) standardize_with(y);
  Rng rng(derive_seed(seed(), kOracleStream + history().size()));
  return oracle_fit(X, outcome_.apply(y), warm_start, restarts, rng);
}

// Standardized values beyond this many sds trigger a refit (observe): far more than any regular
// step's (the figures of docs/go-ucb.md, "Sentinel values").
constexpr double kOutOfScaleSds = 1e3;

void GoUcb::refit() {
  // Deviation refit_every: eq. (2) on all data so far, warm-started at w_t; the fit becomes w_0 and
  // Sigma_t = lambda I + sum_i g_i g_i^T (eq. 3) and w_t (eq. 5) are rebuilt with g_i the gradients
  // of the Phase II points at the new w_0 (targets c_i = g_i^T w_0 + y_i - f_{x_i}(w_0)).
  // (deviation restandardize: the outcome transform refitted too)
  RegressionFit fit = fit_on_all_data(ellipsoid_->center(), 1 + options_.refit_restarts, *options_.standardize && options_.restandardize);
  w0_ = fit.w;
  last_fit_sse_ = fit.sse;
  last_fit_n_ = n_successful();
  ++refits_;
  ellipsoid_.emplace(w0_, lambda_, ellipsoid_->representation());
  add_phase_two_points(*model_, outcome_, *ellipsoid_);
}

void GoUcb::add_phase_two_points(const ParametricModel& model, const Standardization& outcome, GradientEllipsoid& ellipsoid) const {
  // Eqs. (3)-(5) at w_0 = the ellipsoid's centre: Sigma_t = lambda I + sum_i g_i g_i^T, targets
  // c_i = g_i^T w_0 + y_i - f_{x_i}(w_0), g_i the gradients of the Phase II points.
  const Vector w0 = ellipsoid.center();
  Matrix G(static_cast<Eigen::Index>(phase_two_indices_.size()), static_cast<Eigen::Index>(model.num_params()));
  Vector targets(G.rows());
  Eigen::Index rows = 0;
  for (std::size_t idx : phase_two_indices_) {
    const Observation& obs = history()[idx];
    if (obs.failed && !failed_value()) continue;
    Vector g;
    const double f = model.gradient_w(w0, obs.trial.unit, g);
    targets[rows] = g.dot(w0) + outcome.apply(obs.failed ? *failed_value() : maximized(obs)) - f;
    G.row(rows++) = g.transpose();
  }
  ellipsoid.add_many(G.topRows(rows), targets.head(rows));
}

bool GoUcb::refit_due_now() const {
  if (!options_.refit_every) return refit_due(n_successful(), last_fit_n_, 0, kGoUcbRefitEveryStepUpTo);  // "auto"
  return *options_.refit_every > 0 && phase_two_count_ % *options_.refit_every == 0;
}

std::optional<double> GoUcb::failed_value() const {
  return options_.failed_points == FailedPoints::Worst ? worst_ : std::nullopt;
}

void GoUcb::observe_failure(const Observation& obs) {
  // Option failed_points=worst (not the default): a failed point is a Phase II step at the worst successful value
  // so far (the fits take it through model_data; Phase I's oracle does too). Before any success
  // there is no such value, and in Phase I the oracle will see it: nothing to do now.
  if (!ellipsoid_ || !failed_value()) return;
  phase_two_indices_.push_back(history().size() - 1);
  ++phase_two_count_;
  update_phase_two(obs, standardized(*failed_value()));
}

void GoUcb::observe(const Observation& obs, double y) {
  worst_ = worst_ ? std::min(*worst_, y) : y;
  if (ellipsoid_ && options_.trust_adapt && trust_region() > 0) {
    // Deviation trust_adapt (in the spirit of TuRBO's success/failure rule, Eriksson et al. 2019):
    // TrustRegion's Steps rule, x1.5 after a Phase II improvement of the best value, x0.7 after
    // any other step, within [trust_region / 4, trust_max]. The factors: docs/go-ucb.md, second round.
    const bool improved = y > best_seen_ + 1e-3 * outcome_.scale;
    double ratio = 1.0;
    if (improved && options_.trust_rule == TrustRule::Ratio && best_unit_.size()) {
      // actual / predicted improvement, both under the w_t that chose x_t (standardized units)
      const Vector& w = ellipsoid_->center();
      const double predicted = (model_->value(w, obs.trial.unit) - model_->value(w, best_unit_)) * outcome_.scale;
      ratio = predicted > 0 ? (y - best_seen_) / predicted : 1.0;
    }
    if (stalled()) {
      // This observation is the stall rule's space-filling step: the region starts afresh (around
      // this point if it is the new best). Centring a new region on the exploration point itself,
      // as TuRBO restarts, measured worse (docs/robust.md).
      trust_.restart();
      stalled_ = 0;
    } else {
      trust_.update(improved, ratio);
      // A stalled step: no improvement, at a point next to one already evaluated (the acquisition
      // keeps returning to the incumbent: the region has nothing left to offer the model).
      // The alternate whole-domain steps of integer spaces (discrete_step) are not region steps:
      // unless they improve or revisit, they leave the count as it is. (A flat history makes every
      // step a space-filling one: stalled().)
      if (improved) stalled_ = 0;
      else if (revisits(obs)) ++stalled_;
      else if (!whole_domain_step()) stalled_ = 0;
    }
  }
  if (y > best_seen_) best_unit_ = obs.trial.unit;
  best_seen_ = std::max(best_seen_, y);
  if (!ellipsoid_) {
    if (n_successful() >= n_init_) run_oracle();
    return;
  }
  phase_two_indices_.push_back(history().size() - 1);
  ++phase_two_count_;
  // Deviation: a value far outside the standardization in use (a sentinel such as 1e300 returned
  // for a failed simulation) would throw w_t far out through eq. (5) and every later fit with
  // it; the outcome transform and the fit are redone on all data, this value included, instead.
  if (*options_.standardize && options_.restandardize && std::abs(standardized(y)) > kOutOfScaleSds) {
    refit();
    return;
  }
  update_phase_two(obs, standardized(y));
}

void GoUcb::update_phase_two(const Observation& obs, double ys) {
  // Phase II steps 2-3: the rank-one update of Sigma_t (3) and w_t (5) with the gradient at the
  // center w_i that selected x_i.
  const Vector w_i = ellipsoid_->center();
  Vector g;
  const double f = model_->gradient_w(w_i, obs.trial.unit, g);
  ellipsoid_->add(g, g.dot(w_i) + ys - f);
  if (refit_due_now()) refit();
}

bool GoUcb::revisits(const Observation& obs) const {
  // Next to an earlier point: closer than 5% of the smallest trust region on the continuous
  // coordinates, at most one value away on the integers and the same category on the categoricals
  // (no point is evaluated twice, and the smallest region on an integer is one value either side).
  const double near = 0.05 * 0.25 * trust_region();
  const DiscreteDomain& dom = domain();
  const std::size_t n = history().size() - 1;  // obs is the last entry
  for (std::size_t i = 0; i < n; ++i) {
    Vector diff = history()[i].trial.unit - obs.trial.unit;
    bool adjacent = true;
    for (std::size_t k : dom.discrete_dims()) {
      const auto kk = static_cast<Eigen::Index>(k);
      const auto a = static_cast<long long>(dom.index(k, history()[i].trial.unit[kk]));
      const auto b = static_cast<long long>(dom.index(k, obs.trial.unit[kk]));
      adjacent = adjacent && std::llabs(a - b) <= (dom.is_categorical(k) ? 0 : 1);
      diff[kk] = 0.0;
    }
    if (adjacent && diff.norm() < near) return true;
  }
  return false;
}

bool GoUcb::whole_domain_step() const {
  return space().has_discrete() && (options_.discrete_step == DiscreteStep::Global ||
                                    (options_.discrete_step == DiscreteStep::Alternate && phase_two_count_ % 2 == 1));
}

bool GoUcb::stalled() const {
  // While the history is flat, every Phase II step is space-filling: the model has nothing to fit.
  return avoids_repeats() && options_.stall_steps > 0 && options_.trust_adapt && trust_region() > 0 && ellipsoid_ &&
         (stalled_ >= options_.stall_steps || values_all_equal());
}

std::vector<Vector> GoUcb::propose(std::size_t) {
  const std::size_t asked = history().size() + pending().size();
  if (!ellipsoid_) {
    // Phase I (steps 1-4); while Phase I values are still pending, keep exploring uniformly.
    return {phase_one_point(asked)};
  }
  if (stalled()) {
    // Deviation stall_steps: the region has circled one point long enough; spend this step on the
    // point farthest from everything evaluated or pending (a state of observe(), so replays agree).
    Matrix taken(static_cast<Eigen::Index>(space().dim()), static_cast<Eigen::Index>(asked));
    Eigen::Index j = 0;
    for (const auto& obs : history()) taken.col(j++) = obs.trial.unit;
    for (const auto& t : pending()) taken.col(j++) = t.unit;
    Rng rng = rng_for_ask();
    SpaceFillingOptions sf;
    sf.snap = [this](const Vector& u) { return space().snap_unit(u); };
    Vector x = farthest_point(taken, space().dim(), rng, sf);
    if (x.size() > 0) return {x};
  }
  if (phase_two_count_ < *options_.opening_steps && !space().has_discrete()) return {opening_acquire()};
  return {acquire()};
}

Vector GoUcb::opening_acquire() {
  // Deviation opening_steps (fifteenth round): a network of radial units, one per data point, fitted by eq. (2)
  // to all data (standardized); Sigma_t from the Phase II gradients at the fit (as refit()); step 5
  // in a ball of radius opening_region with beta opening_beta, within the data's range in each coordinate
  // (opening_bounds data, stop 81). The default family is untouched.
  Matrix X;
  Vector y;
  model_data(X, y, failed_value());
  const Standardization st = Standardization::fit(y);
  const Vector ys = st.apply(y);
  std::shared_ptr<const ParametricModel> radial =
      std::make_shared<RadialNet>(X, options_.opening_width, options_.opening_profile);
  Rng rng(derive_seed(seed(), kOracleStream + 0x52414449 + history().size()));
  const RegressionFit fit = fit_regression(*radial, X, ys, Vector(), options_.oracle, rng);
  std::optional<GradientEllipsoid> ell;
  ell.emplace(fit.w, lambda_, GradientEllipsoid::Representation::Dense);
  add_phase_two_points(*radial, st, *ell);
  // acquire() under the opening's model, ellipsoid, region and beta; the default family's are back
  // on any exit.
  struct Restore {
    GoUcb& g;
    std::shared_ptr<const ParametricModel>& model;
    std::optional<GradientEllipsoid>& ellipsoid;
    ~Restore() {
      std::swap(g.model_, model);
      std::swap(g.ellipsoid_, ellipsoid);
      g.size_override_.reset();
      g.beta_override_.reset();
      g.bounds_override_.reset();
    }
  };
  std::swap(model_, radial);
  std::swap(ellipsoid_, ell);
  size_override_ = options_.opening_region;
  beta_override_ = options_.opening_beta;
  if (options_.opening_bounds == OpeningBounds::Data)
    bounds_override_.emplace(X.rowwise().minCoeff(), X.rowwise().maxCoeff());
  const Restore restore{*this, radial, ell};
  return acquire();
}

Vector GoUcb::recommend_unit() const {
  if (!ellipsoid_ || options_.output == GoUcbOutput::BestObserved) return Optimizer::recommend_unit();
  if (options_.output == GoUcbOutput::Uniform) {  // Algorithm 1 output: x ~ U({x_1, ..., x_T})
    if (phase_two_indices_.empty()) return Optimizer::recommend_unit();
    Rng rng(derive_seed(seed(), 0x6f7574 + phase_two_indices_.size()));
    return history()[phase_two_indices_[rng.below(phase_two_indices_.size())]].trial.unit;
  }
  // The evaluated point the fitted model rates best: denoises the observations.
  const Vector w = current_parameters();
  double best_value = -std::numeric_limits<double>::infinity();
  Vector best_x;
  for (const auto& obs : history()) {
    if (obs.failed) continue;
    const double v = model_->value(w, obs.trial.unit);
    if (v > best_value) {
      best_value = v;
      best_x = obs.trial.unit;
    }
  }
  return best_x.size() ? best_x : Optimizer::recommend_unit();
}

nlohmann::json GoUcb::decisions() const {
  if (resolved_.empty()) return nlohmann::json::object();
  return {{"resolved", resolved_}};
}

nlohmann::json GoUcb::diagnostics() const {
  nlohmann::json j = {{"phase", ellipsoid_ ? 2 : 1}};
  if (!ellipsoid_) j["model"] = kGoUcbModelKindNames.name(options_.model);  // the family "auto" chose ("custom": a model given in C++)
  if (ellipsoid_) {
    j["beta"] = beta(phase_two_count_ + 1);
    j["fit_sse"] = last_fit_sse_;
    j["refits"] = refits_;
    if (trust_region() > 0) j["trust_size"] = trust_size();
    if (options_.stall_steps > 0) j["explorations"] = trust_.restarts;
    if (options_.global_candidate) j["global_steps"] = global_steps_;
  }
  return j;
}

}  // namespace optimist
