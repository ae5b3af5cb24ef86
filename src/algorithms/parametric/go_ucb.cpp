#include "optimist/algorithms/parametric/go_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "optimist/models/parametric/additive_mlp.hpp"
#include "optimist/models/parametric/gradient_check.hpp"
#include "optimist/models/parametric/mlp.hpp"
#include "optimist/solvers/box_maximizer.hpp"
#include "optimist/solvers/space_filling.hpp"
#include "optimist/solvers/mixed_maximizer.hpp"

namespace optimist {

namespace {
constexpr std::uint64_t kOracleStream = 0x6f7261636c65;  // "oracle"
constexpr std::uint64_t kModelCheckStream = 0x636865636b;   // "check"

// Deviation inputs=centered: the network sees 2u - 1 in [-1,1]^d instead of the unit-cube point u.
// Every derivative in x picks up the factor 2 of the affine map; derivatives in w are unchanged.
class CenteredInputModel : public ParametricModel {
 public:
  explicit CenteredInputModel(std::shared_ptr<const ParametricModel> inner) : inner_(std::move(inner)) {}
  std::size_t input_dim() const override { return inner_->input_dim(); }
  std::size_t num_params() const override { return inner_->num_params(); }
  std::string describe() const override { return "centered-inputs(" + inner_->describe() + ")"; }
  double value(const Vector& w, const Vector& x) const override { return inner_->value(w, map(x)); }
  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override { return inner_->gradient_w(w, map(x), grad); }
  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override {
    const double f = inner_->gradient_x(w, map(x), grad);
    grad *= 2.0;
    return f;
  }
  Vector values(const Vector& w, const Matrix& X) const override { return inner_->values(w, map(X)); }
  Matrix jacobian_w(const Vector& w, const Matrix& X) const override { return inner_->jacobian_w(w, map(X)); }
  double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const override {
    const double s = inner_->mixed_product(w, map(x), v, grad_x);
    grad_x *= 2.0;
    return s;
  }
  Vector sample_params(Rng& rng) const override { return inner_->sample_params(rng); }

 private:
  static Vector map(const Vector& x) { return (2.0 * x.array() - 1.0).matrix(); }
  static Matrix map(const Matrix& X) { return (2.0 * X.array() - 1.0).matrix(); }
  std::shared_ptr<const ParametricModel> inner_;
};

// Categorical parameters as one-hot inputs (docs/discrete.md): the network sees, for a categorical
// with k choices, k inputs (1 for its choice, 0 otherwise) instead of one unit-cube coordinate whose
// order means nothing; continuous and integer parameters keep their unit-cube coordinate. The
// derivative in x of a categorical coordinate is 0 (the encoding is piecewise constant: the
// acquisition's maximizer changes categories by discrete moves, maximize_mixed).
class OneHotInputModel : public ParametricModel {
 public:
  OneHotInputModel(std::shared_ptr<const ParametricModel> inner, std::vector<std::size_t> categories)
      : inner_(std::move(inner)), categories_(std::move(categories)) {}
  static std::size_t encoded_dim(const std::vector<std::size_t>& categories) {
    std::size_t n = 0;
    for (std::size_t k : categories) n += k > 0 ? k : 1;
    return n;
  }
  std::size_t input_dim() const override { return categories_.size(); }
  std::size_t num_params() const override { return inner_->num_params(); }
  std::string describe() const override { return "one-hot(" + inner_->describe() + ")"; }
  double value(const Vector& w, const Vector& x) const override { return inner_->value(w, map(x)); }
  double gradient_w(const Vector& w, const Vector& x, Vector& grad) const override { return inner_->gradient_w(w, map(x), grad); }
  double gradient_x(const Vector& w, const Vector& x, Vector& grad) const override {
    Vector g;
    const double f = inner_->gradient_x(w, map(x), g);
    grad = back(g);
    return f;
  }
  Vector values(const Vector& w, const Matrix& X) const override { return inner_->values(w, map(X)); }
  Matrix jacobian_w(const Vector& w, const Matrix& X) const override { return inner_->jacobian_w(w, map(X)); }
  double mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const override {
    Vector g;
    const double s = inner_->mixed_product(w, map(x), v, g);
    grad_x = back(g);
    return s;
  }
  Vector sample_params(Rng& rng) const override { return inner_->sample_params(rng); }

 private:
  std::size_t category(std::size_t i, double u) const {
    const std::size_t k = categories_[i];
    return std::min(static_cast<std::size_t>(std::floor(std::clamp(u, 0.0, 1.0) * static_cast<double>(k))), k - 1);
  }
  Vector map(const Vector& x) const {
    Vector z = Vector::Zero(static_cast<Eigen::Index>(encoded_dim(categories_)));
    Eigen::Index r = 0;
    for (std::size_t i = 0; i < categories_.size(); ++i) {
      const double u = x[static_cast<Eigen::Index>(i)];
      if (categories_[i] == 0) {
        z[r++] = u;
      } else {
        z[r + static_cast<Eigen::Index>(category(i, u))] = 1.0;
        r += static_cast<Eigen::Index>(categories_[i]);
      }
    }
    return z;
  }
  Matrix map(const Matrix& X) const {
    Matrix Z(static_cast<Eigen::Index>(encoded_dim(categories_)), X.cols());
    for (Eigen::Index j = 0; j < X.cols(); ++j) Z.col(j) = map(Vector(X.col(j)));
    return Z;
  }
  Vector back(const Vector& g) const {
    Vector out = Vector::Zero(static_cast<Eigen::Index>(categories_.size()));
    Eigen::Index r = 0;
    for (std::size_t i = 0; i < categories_.size(); ++i) {
      if (categories_[i] == 0) out[static_cast<Eigen::Index>(i)] = g[r++];
      else r += static_cast<Eigen::Index>(categories_[i]);
    }
    return out;
  }
  std::shared_ptr<const ParametricModel> inner_;
  std::vector<std::size_t> categories_;
};

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
  if (!kTrustRuleNames.contains(o.trust_rule)) return "trust_rule";
  if (!kDiscreteStepNames.contains(o.discrete_step)) return "discrete_step";
  if (!kGoUcbAcquisitionNames.contains(o.acquisition)) return "acquisition";
  if (!kGoUcbOutputNames.contains(o.output)) return "output";
  if (!kOracleMethodNames.contains(o.oracle.method)) return "oracle";
  return nullptr;
}

// The shortest text that reads back as x (as the config wrote it: 0.3, not 0.29999999999999999).
std::string number_text(double x) { return nlohmann::json(x).dump(); }
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
  check("refit_every", refit_every == d.refit_every, refit_every == 0, std::to_string(refit_every), "0");
  check("trust_region", trust_region == d.trust_region, trust_region == 0.0, number_text(trust_region), "0");
  check("global_candidate", global_candidate == d.global_candidate, !global_candidate, global_candidate ? "true" : "false", "false");
  check("stall_steps", stall_steps == d.stall_steps, stall_steps == 0, std::to_string(stall_steps), "0");
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
  beta_schedule = BetaSchedule::Constant;
}

std::size_t GoUcb::default_n_init(std::size_t budget) {
  std::size_t n = 1;
  while (n < budget && static_cast<double>(n) < std::sqrt(static_cast<double>(budget - n))) ++n;
  return n;
}

GoUcb::GoUcb(const Space& space, Direction direction, GoUcbOptions options, const RunContext& context,
             std::shared_ptr<const ParametricModel> model)
    : Optimizer(variant_name(options.variant), space, direction, context), options_(std::move(options)), model_(std::move(model)) {
  const std::size_t budget = required_horizon(name(), context);
  // Options set in C++ bypass the registry's option tables: their checks here (configs pass them).
  if (const char* key = enum_outside_its_table(options_))
    throw InvalidArgument(name() + ": option '" + std::string(key) + "' holds a value outside its enum");
  if (!(options_.weight_decay >= 0) || !std::isfinite(options_.weight_decay))
    throw InvalidArgument(name() + ": option 'weight_decay' must be >= 0, got " + number_text(options_.weight_decay));
  if (!(options_.trust_region >= 0 && options_.trust_region <= 1))
    throw InvalidArgument(name() + ": option 'trust_region' must be in [0, 1] (0: the whole domain), got " + number_text(options_.trust_region));
  if (!(options_.lambda > 0) || !(options_.beta >= 0)) throw InvalidArgument(name() + ": need lambda > 0 and beta >= 0");
  if (options_.preset == GoUcbPreset::Paper) options_.apply_paper_preset(name());
  const bool user_model = model_ != nullptr;
  if (options_.model == GoUcbModel::Custom && !user_model)
    throw InvalidArgument(name() + ": option 'model' is custom but no model was given; valid values: " + kGoUcbModelNames.joined());
  if (options_.model == GoUcbModel::Auto) {
    const std::vector<std::size_t> cats = domain().categories();
    const bool categorical = std::any_of(cats.begin(), cats.end(), [](std::size_t k) { return k > 0; });
    options_.model = user_model ? GoUcbModel::Custom : auto_model(space.dim(), options_, categorical);
  }
  const GoUcbOptions& o = options_;
  check_search_sizes(name(), options_.raw_samples, options_.restarts);
  if (budget < 2) throw InvalidArgument(name() + ": the horizon (the total number of evaluations N, --budget) must be >= 2, got " + std::to_string(budget));
  // Checks of several options together.
  if (!(o.trust_max == 0 || (o.trust_max >= o.trust_region && std::isfinite(o.trust_max))))
    throw InvalidArgument(name() + ": option 'trust_max' must be 0 or >= trust_region (" + number_text(o.trust_region) + "), got " + number_text(o.trust_max));
  trust_ = TrustRegion::steps(o.trust_region, o.trust_max > 0 ? o.trust_max : o.trust_region);
  if (o.model == GoUcbModel::Additive && o.units_per_input == 0) throw InvalidArgument(name() + ": option 'units_per_input' must be >= 1, got 0");
  if (o.model == GoUcbModel::Additive && o.activation != Activation::Sigmoid)
    throw InvalidArgument(name() + ": option 'activation' applies to model=mlp; model=additive has sigmoid units, got activation '" +
                          kActivationNames.name(o.activation) + "'");
  if (o.model == GoUcbModel::Additive && o.hidden != GoUcbOptions{}.hidden)
    throw InvalidArgument(name() + ": option 'hidden' applies to model=mlp; model=additive is sized by 'units_per_input'");
  if (!options_.standardize) options_.standardize = !user_model;
  if (!model_) {
    // Categorical parameters enter the built-in network one-hot encoded (OneHotInputModel).
    const std::vector<std::size_t> categories = domain().categories();
    const bool one_hot = std::any_of(categories.begin(), categories.end(), [](std::size_t k) { return k > 0; });
    const std::size_t inputs = one_hot ? OneHotInputModel::encoded_dim(categories) : space.dim();
    if (o.model == GoUcbModel::Additive)
      model_ = std::make_shared<AdditiveMlp>(inputs, o.units_per_input);
    else
      model_ = std::make_shared<Mlp>(inputs, o.hidden, o.activation);
    if (o.inputs == ModelInputs::Centered) model_ = std::make_shared<CenteredInputModel>(model_);
    if (one_hot) model_ = std::make_shared<OneHotInputModel>(model_, categories);
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
  if (n_init_ >= budget) throw InvalidArgument(name() + ": n_init " + std::to_string(n_init_) + " leaves no Phase II in a budget of " + std::to_string(budget));
  horizon_ = budget - n_init_;
  if (o.init == InitialDesign::Sobol) sobol_design_.emplace(InitialDesign::Sobol, space.dim(), n_init_, seed());
  const double T = static_cast<double>(horizon_);
  lambda_ = o.preset == GoUcbPreset::Paper ? std::sqrt(T) * std::pow(std::log(T), 2) : o.lambda;  // appendix D.1
  if (!(lambda_ > 0)) lambda_ = 1.0;  // T = 1: log T = 0
}

double GoUcb::beta(std::size_t t) const {
  if (options_.preset == GoUcbPreset::Paper) {  // appendix D.1: beta_t = d_w^3 F^4 t / T
    const double dw = static_cast<double>(model_->num_params());
    return dw * dw * dw * std::pow(f_bound_, 4) * static_cast<double>(t) / static_cast<double>(horizon_);
  }
  if (options_.beta_schedule == BetaSchedule::Log) return options_.beta * (1.0 + std::log(static_cast<double>(std::max<std::size_t>(t, 1))));
  return options_.beta;
}

Vector GoUcb::phase_one_point(std::uint64_t index) const {
  if (sobol_design_) {
    Rng rng = rng_for_ask();  // (unused by a Sobol design)
    const Vector u = sobol_design_->point(index, rng);
    if (!space().has_discrete() || !avoids_repeats()) return u;
    return free_point_near(u).value_or(u);  // integer/categorical spaces: no repeated point
  }
  Rng rng = rng_for_ask();
  return free_uniform_point(rng);  // Phase I step 2: x ~ U(X) (over the points not yet evaluated)
}

Vector GoUcb::current_parameters() const {
  if (options_.variant == GoUcbVariant::Workshop && w_latest_.size()) return w_latest_;
  if (ellipsoid_) return ellipsoid_->center();
  return w0_;
}

void GoUcb::run_oracle() {
  Matrix X;
  Vector y;
  successful_data(X, y);
  if (*options_.standardize) standardize_with(y);
  f_bound_ = std::max(1e-12, y.cwiseAbs().maxCoeff());  // F of assumption 3.2, estimated from Phase I
  Rng rng(derive_seed(seed(), kOracleStream));
  const Vector ys = outcome_.apply(y);
  RegressionFit fit = oracle_fit(X, ys, Vector(), options_.oracle.restarts, rng);  // Phase I step 5, eq. (2)
  w0_ = fit.w;
  last_fit_sse_ = fit.sse;
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

void GoUcb::refit() {
  // Deviation refit_every: eq. (2) on all data so far, warm-started at w_t; the fit becomes w_0 and
  // Sigma_t = lambda I + sum_i g_i g_i^T (eq. 3) and w_t (eq. 5) are rebuilt with g_i the gradients
  // of the Phase II points at the new w_0 (targets c_i = g_i^T w_0 + y_i - f_{x_i}(w_0)).
  Matrix X;
  Vector y;
  successful_data(X, y);
  if (*options_.standardize && options_.restandardize) standardize_with(y);  // deviation restandardize
  Rng rng(derive_seed(seed(), kOracleStream + history().size()));
  const Vector ys = outcome_.apply(y);
  RegressionFit fit = oracle_fit(X, ys, ellipsoid_->center(), 1 + options_.refit_restarts, rng);
  w0_ = fit.w;
  last_fit_sse_ = fit.sse;
  ++refits_;
  ellipsoid_.emplace(w0_, lambda_, ellipsoid_->representation());
  for (std::size_t idx : phase_two_indices_) {
    const Observation& obs = history()[idx];
    if (obs.failed) continue;
    Vector g;
    const double f = model_->gradient_w(w0_, obs.trial.unit, g);
    ellipsoid_->add(g, g.dot(w0_) + standardized(maximized(obs)) - f);
  }
}

void GoUcb::observe(const Observation& obs, double y) {
  if (ellipsoid_ && options_.trust_adapt && options_.trust_region > 0) {
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
      stalled_ = !improved && revisits(obs) ? stalled_ + 1 : 0;
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
  const double ys = standardized(y);
  if (options_.variant == GoUcbVariant::GoUcb) {
    // Phase II steps 2-3: the rank-one update of Sigma_t (3) and w_t (5) with the gradient at the
    // center w_i that selected x_i.
    const Vector w_i = ellipsoid_->center();
    Vector g;
    const double f = model_->gradient_w(w_i, obs.trial.unit, g);
    ellipsoid_->add(g, g.dot(w_i) + ys - f);
    if (options_.refit_every > 0 && phase_two_count_ % options_.refit_every == 0) refit();
  } else if (options_.variant == GoUcbVariant::Workshop) {
    // Workshop Algorithm 1, step 2: re-fit the oracle on all data, warm-started at the last fit.
    Matrix X;
    Vector yy;
    successful_data(X, yy);
    Rng rng(derive_seed(seed(), kOracleStream + history().size()));
    RegressionFit fit = oracle_fit(X, outcome_.apply(yy), w_latest_.size() ? w_latest_ : w0_, options_.oracle.restarts, rng);
    w_latest_ = fit.w;
    last_fit_sse_ = fit.sse;
  }
  // exploration-first (Lemma 15): w stays at w_0.
}

double GoUcb::acquisition_value(const Vector& x, Vector* grad) const {
  const Vector w = current_parameters();
  Vector gw, gx;
  const double f = model_->gradient_w(w, x, gw);
  if (options_.variant == GoUcbVariant::ExplorationFirst) {
    if (grad) model_->gradient_x(w, x, *grad);
    return f;
  }
  if (options_.variant == GoUcbVariant::Workshop) {
    // sigma ||grad_w f_x(w_t)||_2 sqrt(U/t) + U/t; the last term is constant in x.
    const double t = static_cast<double>(n_successful());
    const double scale = options_.workshop_sigma * std::sqrt(options_.workshop_u / t);
    const double norm = gw.norm();
    if (grad) {
      model_->gradient_x(w, x, *grad);
      if (norm > 0) {
        model_->mixed_product(w, x, gw, gx);  // d/dx ||g||^2 / 2 = (dg/dx)^T g
        *grad += scale * gx / norm;
      }
    }
    return f + scale * norm + options_.workshop_u / t;
  }
  // Lemma 5.4: f_x(w_t) + sqrt(beta_t) ||grad_w f_x(w_t)||_{Sigma_t^{-1}}.
  const double rb = std::sqrt(beta(phase_two_count_ + 1));
  const Vector v = ellipsoid_->inverse_apply(gw);
  const double norm = std::sqrt(std::max(0.0, gw.dot(v)));
  if (grad) {
    model_->gradient_x(w, x, *grad);
    if (norm > 0) {
      model_->mixed_product(w, x, v, gx);  // (dg/dx)^T Sigma^{-1} g
      *grad += rb * gx / norm;
    }
  }
  return f + rb * norm;
}

std::pair<double, double> GoUcb::mean_and_bonus(const Vector& x) const {
  Vector gw;
  const double f = model_->gradient_w(ellipsoid_->center(), x, gw);
  const double norm = std::sqrt(std::max(0.0, gw.dot(ellipsoid_->inverse_apply(gw))));
  return {f, std::sqrt(beta(phase_two_count_ + 1)) * norm};
}

Vector GoUcb::joint_ascent(const Vector& x_start, const Vector& lower, const Vector& upper) const {
  // Step 5 jointly over (x, u): maximize f_x(w_t + sqrt(beta) S^{-T} u), x in the box, ||u|| <= 1,
  // by projected gradient ascent with backtracking. Starts at the linearization's optimal u.
  const double beta_t = beta(phase_two_count_ + 1);
  Vector x = x_start, g;
  model_->gradient_w(ellipsoid_->center(), x, g);
  Vector u = ellipsoid_->ball_gradient(g, beta_t);
  u = u.norm() > 0 ? Vector(u / u.norm()) : Vector(Vector::Zero(u.size()));
  auto value = [&](const Vector& xx, const Vector& uu) { return model_->value(ellipsoid_->from_ball(uu, beta_t), xx); };
  double current = value(x, u);
  double step = 0.1;
  for (int it = 0; it < 100 && step > 1e-8; ++it) {
    const Vector w = ellipsoid_->from_ball(u, beta_t);
    Vector gx, gwv;
    model_->gradient_x(w, x, gx);
    model_->gradient_w(w, x, gwv);
    const Vector gu = ellipsoid_->ball_gradient(gwv, beta_t);
    const double gnorm = std::sqrt(gx.squaredNorm() + gu.squaredNorm());
    if (gnorm < 1e-12) break;
    bool improved = false;
    while (step > 1e-8) {
      Vector x_new = (x + step * gx / gnorm).cwiseMax(lower).cwiseMin(upper);
      Vector u_new = u + step * gu / gnorm;
      if (u_new.norm() > 1.0) u_new /= u_new.norm();  // exact projection in whitened coordinates
      const double v_new = value(x_new, u_new);
      if (v_new > current) {
        x = std::move(x_new);
        u = std::move(u_new);
        current = v_new;
        step *= 1.5;
        improved = true;
        break;
      }
      step *= 0.5;
    }
    if (!improved) break;
  }
  return x;
}

Vector GoUcb::acquire() {
  const std::size_t d = space().dim();
  std::vector<Vector> starts;
  if (const Observation* b = best()) starts.push_back(b->trial.unit);
  // The last Phase II query (from the told history, so that a replayed optimizer starts alike).
  if (!phase_two_indices_.empty()) starts.push_back(history()[phase_two_indices_.back()].trial.unit);
  for (const auto& t : pending()) starts.push_back(t.unit);
  BoxMaximizerOptions bo;
  bo.raw_samples = options_.raw_samples;
  bo.restarts = options_.restarts;
  Rng rng = rng_for_ask();
  // A model that overflows somewhere scores -inf there instead of aborting the ask.
  const auto fn = [this](const Vector& x, Vector* grad) -> double {
    try {
      return acquisition_value(x, grad);
    } catch (const NumericalError&) {
      return -std::numeric_limits<double>::infinity();
    }
  };
  Vector lower = Vector::Zero(d), upper = Vector::Ones(d);
  const Observation* incumbent = best();
  bool ball = options_.trust_region > 0 && incumbent && options_.trust_shape == TrustShape::Ball;
  Vector center;
  if (options_.trust_region > 0 && incumbent) {  // deviation trust_region: step 5 near the incumbent
    center = incumbent->trial.unit;
    const double half = ball ? trust_size() : 0.5 * trust_size();
    lower = (center.array() - half).max(0.0).matrix();
    upper = (center.array() + half).min(1.0).matrix();
  }
  const double r2 = trust_size() * trust_size();
  // Ball: a smooth penalty outside ||x - c|| <= r (kappa makes a 1% overshoot of r^2 cost ~1
  // standardized unit), then the exact radial projection of the result.
  const auto ball_fn = [&](const Vector& x, Vector* grad) -> double {
    double v = fn(x, grad);
    const double excess = (x - center).squaredNorm() - r2;
    if (excess > 0) {
      const double kappa = 1e4 / (r2 * r2);
      v -= kappa * excess * excess;
      if (grad) *grad -= 4.0 * kappa * excess * (x - center);
    }
    return v;
  };
  if (space().has_discrete()) return acquire_discrete(fn, starts, lower, upper, rng);
  BoxMaximizerResult r = ball ? maximize_in_box(ball_fn, lower, upper, starts, bo, rng) : maximize_in_box(fn, lower, upper, starts, bo, rng);
  if (ball && r.found()) {
    const double dist = (r.x - center).norm();
    if (dist > trust_size()) r.x = center + (r.x - center) * (trust_size() / dist);
  }
  // Documented recovery: if the model is non-finite everywhere, sample uniformly.
  Vector x = r.found() ? r.x : (lower.array() + (upper - lower).array() * rng.uniform_vector(static_cast<Eigen::Index>(d)).array()).matrix();
  if (options_.variant == GoUcbVariant::GoUcb && options_.global_candidate && options_.trust_region > 0 && incumbent) {
    // Deviation global_candidate: the unrestricted step 5 wins only when even its pessimistic value
    // (Ball_t's lower end, first order) exceeds the optimistic value at the incumbent.
    BoxMaximizerResult g = maximize_in_box(fn, Vector::Zero(d), Vector::Ones(d), starts, bo, rng);
    if (g.found()) {
      try {
        const auto [fg, bg] = mean_and_bonus(g.x);
        const auto [fc, bc] = mean_and_bonus(center);
        if (fg - bg > fc + bc) {
          ++global_steps_;
          ball = false;
          x = g.x;
          lower = Vector::Zero(d);
          upper = Vector::Ones(d);
        }
      } catch (const NumericalError&) {
      }
    }
  }
  if (options_.variant == GoUcbVariant::GoUcb && options_.acquisition == GoUcbAcquisition::Joint) {
    x = joint_ascent(x, lower, upper);  // ascends in the ball's bounding box; back into the ball
    const double dist = ball ? (x - center).norm() : 0.0;
    if (dist > trust_size()) x = center + (x - center) * (trust_size() / dist);
  }
  return x;
}

Vector GoUcb::acquire_discrete(const BoxObjective& fn, const std::vector<Vector>& starts, Vector lower, Vector upper,
                               Rng& rng) const {
  // Step 5 over the valid integer and categorical values, excluding evaluated and pending points
  // (maximize_mixed). The trust region (deviation trust_region) is a box here: its side on the
  // continuous coordinates, at least one value either side of the incumbent on an integer, every
  // category of a categorical; when it holds no free point, the whole domain.
  const DiscreteDomain& dom = domain();
  // discrete_step: every value of the integers on odd Phase II steps (alternate) or always (global).
  const bool whole = options_.discrete_step == DiscreteStep::Global || (options_.discrete_step == DiscreteStep::Alternate && phase_two_count_ % 2 == 1);
  if (options_.trust_region > 0 && best()) {
    const Vector& c = best()->trial.unit;
    for (std::size_t i : dom.discrete_dims()) {
      const auto ii = static_cast<Eigen::Index>(i);
      const double step = (dom.is_categorical(i) || whole) ? 1.0 : 1.0 / static_cast<double>(dom.cardinality(i));
      lower[ii] = std::max(0.0, std::min(lower[ii], c[ii] - step));
      upper[ii] = std::min(1.0, std::max(upper[ii], c[ii] + step));
    }
  }
  MixedMaximizerOptions mo;
  mo.box.raw_samples = options_.raw_samples;
  mo.box.restarts = options_.restarts;
  const auto excluded = [&](const Vector& u) { return avoids_repeats() && is_taken(u); };
  const auto d = static_cast<Eigen::Index>(space().dim());
  // Lemma 5.4's optimistic value of many candidates at once: the network's values and Jacobian in
  // w, and ||g||_{Sigma^-1} by one triangular solve with Sigma_t's factor, in blocks of kBlock
  // points (small temporaries: allocating large ones cost more than the products).
  BoxBatchObjective batch;
  if (options_.variant == GoUcbVariant::GoUcb && options_.acquisition == GoUcbAcquisition::Linearized)
    batch = [this, &fn](const Matrix& X) -> Vector {
      constexpr Eigen::Index kBlock = 32;
      Vector v(X.cols());
      const Vector w = current_parameters();
      const double rb = std::sqrt(beta(phase_two_count_ + 1));
      for (Eigen::Index j0 = 0; j0 < X.cols(); j0 += kBlock) {
        const Eigen::Index n = std::min(kBlock, X.cols() - j0);
        const Matrix Xb = X.middleCols(j0, n);
        try {
          v.segment(j0, n) = model_->values(w, Xb) + rb * ellipsoid_->inverse_norms(model_->jacobian_w(w, Xb));
        } catch (const NumericalError&) {  // non-finite somewhere in the block: point by point (fn gives -inf)
          for (Eigen::Index j = 0; j < n; ++j) v[j0 + j] = fn(Xb.col(j), nullptr);
        }
      }
      return v;
    };
  MixedMaximizerResult r = maximize_mixed(dom, fn, batch, lower, upper, starts, excluded, mo, rng);
  if (!r.x && ((lower.array() > 0.0).any() || (upper.array() < 1.0).any()))
    r = maximize_mixed(dom, fn, batch, Vector::Zero(d), Vector::Ones(d), starts, excluded, mo, rng);
  if (r.x) return *r.x;
  return free_uniform_point(rng);  // the model is non-finite everywhere (documented recovery)
}

bool GoUcb::revisits(const Observation& obs) const {
  // Closer to an earlier point than 5% of the smallest trust region: a step of no consequence.
  const double near = 0.05 * 0.25 * options_.trust_region;
  const std::size_t n = history().size() - 1;  // obs is the last entry
  for (std::size_t i = 0; i < n; ++i)
    if ((history()[i].trial.unit - obs.trial.unit).norm() < near) return true;
  return false;
}

bool GoUcb::stalled() const {
  return avoids_repeats() && options_.stall_steps > 0 && options_.trust_adapt && options_.trust_region > 0 && ellipsoid_ &&
         stalled_ >= options_.stall_steps;
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
  return {acquire()};
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

nlohmann::json GoUcb::diagnostics() const {
  nlohmann::json j = {{"phase", ellipsoid_ ? 2 : 1}};
  if (!ellipsoid_) j["model"] = kGoUcbModelKindNames.name(options_.model);  // the family "auto" chose ("custom": a model given in C++)
  if (ellipsoid_) {
    j["beta"] = beta(phase_two_count_ + 1);
    j["fit_sse"] = last_fit_sse_;
    j["refits"] = refits_;
    if (options_.trust_region > 0) j["trust_size"] = trust_size();
    if (options_.stall_steps > 0) j["explorations"] = trust_.restarts;
    if (options_.global_candidate) j["global_steps"] = global_steps_;
  }
  return j;
}

}  // namespace optimist
