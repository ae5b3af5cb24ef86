// Registry entries of go-ucb, go-ucb-workshop and exploration-first: one option table each
// (option_table.hpp), sharing the options of the common part.
#include <climits>
#include <string>

#include <nlohmann/json.hpp>

#include "optimist/algorithms/option_table.hpp"
#include "optimist/algorithms/parametric/go_ucb_variants.hpp"

namespace optimist {

namespace {

constexpr std::int64_t kNoLimit = OptionTable<GoUcbOptions>::kNoUpperLimit;

const OptionTable<RegressionOracleOptions>& oracle_options() {
  static const auto table =
      OptionTable<RegressionOracleOptions>()
          .choice("oracle", &RegressionOracleOptions::method, kOracleMethodNames,
                  "regression oracle, eq. (2): Levenberg-Marquardt, or appendix D.1's SGD")
          .integer("oracle_restarts", &RegressionOracleOptions::restarts, 0, static_cast<std::int64_t>(kMaxRestarts),
                   "oracle: random starts")
          .integer("oracle_iterations", &RegressionOracleOptions::max_iterations, 0, INT_MAX,
                   "oracle (lm): iterations per start")
          .real("oracle_ridge", &RegressionOracleOptions::ridge, NumberRange::at_least(0.0), "oracle (lm): ridge toward the start")
          .integer("sgd_iterations", &RegressionOracleOptions::sgd_iterations, 0, INT_MAX,
                   "oracle (sgd): iterations (appendix D.1: 2000)")
          .real("sgd_learning_rate", &RegressionOracleOptions::sgd_learning_rate, NumberRange::at_least(0.0),
                "oracle (sgd): learning rate (appendix D.1: 1e-11)");
  return table;
}

// hidden: a list of layer sizes, each an integer from 1 to kMaxModelUnits.
void read_hidden(const OptionValues& v, GoUcbOptions& o) {
  const nlohmann::json& j = v.json().at("hidden");
  bool valid = j.is_array() && !j.empty();
  for (const auto& n : j)
    valid = valid && n.is_number_integer() && n.get<std::int64_t>() >= 1 &&
            n.get<std::int64_t>() <= static_cast<std::int64_t>(kMaxModelUnits);
  if (!valid)
    throw InvalidArgument(v.algorithm() + ": option 'hidden' must be a non-empty list of layer sizes from 1 to " +
                          std::to_string(kMaxModelUnits) + ", got " + j.dump());
  o.hidden = j.get<std::vector<std::size_t>>();
}

// "auto" or null (nullopt: the algorithm's own choice), or an integer k >= 0.
std::optional<std::size_t> auto_or_count(const OptionValues& v, const char* key) {
  const nlohmann::json& j = v.json().at(key);
  if (j.is_null() || (j.is_string() && j.get<std::string>() == "auto")) return std::nullopt;
  if (!j.is_number_integer() || j.get<std::int64_t>() < 0)
    throw InvalidArgument(v.algorithm() + ": option '" + key + "' must be \"auto\" or an integer >= 0, got " + j.dump());
  return j.get<std::size_t>();
}

void read_refit_every(const OptionValues& v, GoUcbOptions& o) { o.refit_every = auto_or_count(v, "refit_every"); }
void read_opening_steps(const OptionValues& v, GoUcbOptions& o) { o.opening_steps = auto_or_count(v, "opening_steps"); }

// The options every variant has, with the defaults of `defaults`.
OptionTable<GoUcbOptions> common_table(const GoUcbOptions& defaults, const std::string& n_init_help) {
  OptionTable<GoUcbOptions> t(defaults);
  t.integer("n_init", &GoUcbOptions::n_init, 0, kNoLimit, n_init_help)
      .choice("init", &GoUcbOptions::init, kUniformOrSobolNames, "Phase I design")
      .choice("design_categories", &GoUcbOptions::design_categories, kDesignCategoriesNames,
              "Phase I on a space with categoricals: every choice of each categorical within each block of as many points "
              "(cover; each point still uniform over the choices) or each point's choice drawn independently (independent, "
              "the paper's x ~ U(X) and the recipe before stop 85)")
      .choice("model", &GoUcbOptions::model, kGoUcbModelNames,
              "built-in family f_w(x): the paper's MLP, an additive network c + sum_i g_i(x_i), or auto (additive from 3 inputs "
              "up unless hidden or activation differ from their defaults, or preset=paper: then the MLP)")
      .custom({"hidden", defaults.hidden, "model=mlp: hidden layer sizes", {}}, read_hidden)
      .choice("activation", &GoUcbOptions::activation, kActivationNames, "model=mlp: activation")
      .integer("units_per_input", &GoUcbOptions::units_per_input, 1, static_cast<std::int64_t>(kMaxModelUnits),
               "model=additive: sigmoid units of each g_i (d_w = 3 d_x units + 1)")
      // Unset in C++ (see GoUcbOptions); a config always gives a value, true by default.
      .custom({"standardize", true, "fit standardized outputs (Phase I mean and sd)", {}},
              [](const OptionValues& v, GoUcbOptions& o) { o.standardize = v.get<bool>("standardize"); })
      .choice("failed_points", &GoUcbOptions::failed_points, kFailedPointsNames,
              "failed evaluations in the fits: ignore (left out), or worst (at the worst successful value so far; "
              "level or worse than ignore for GO-UCB on the tasks of docs/go-ucb.md, unlike gp-ei and bkb)")
      .flag("restandardize", &GoUcbOptions::restandardize,
            "each refit standardizes with the mean and sd of all data so far (false: Phase I's)")
      .choice("inputs", &GoUcbOptions::inputs, kModelInputsNames,
              "what the built-in model sees: the unit-cube point (paper) or 2u-1 in [-1,1]^d (centered)")
      .real("weight_decay", &GoUcbOptions::weight_decay, NumberRange::at_least(0.0), "oracle (lm): + weight_decay ||w||^2 in eq. (2) (paper: 0)")
      .include(oracle_options(), &GoUcbOptions::oracle)
      .integer("raw_samples", &GoUcbOptions::raw_samples, 0, static_cast<std::int64_t>(kMaxRawSamples),
               "acquisition: quasi-random candidates")
      .integer("restarts", &GoUcbOptions::restarts, 0, static_cast<std::int64_t>(kMaxRestarts),
               "acquisition: local searches from the best candidates")
      .choice("output", &GoUcbOptions::output, kGoUcbOutputNames,
              "recommend(): best evaluated point under the model, best observed, or the paper's uniform draw");
  return t;
}

const OptionTable<GoUcbOptions>& go_ucb_options() {
  static const auto table = [] {
    OptionTable<GoUcbOptions> t = common_table(GoUcbOptions{}, "Phase I length n; 0: smallest n with n >= sqrt(N - n) (Theorem 4.1)");
    t.choice("preset", &GoUcbOptions::preset, kGoUcbPresetNames,
             "'paper': Algorithm 1 as stated: lambda = sqrt(T) log^2 T and beta_t = d_w^3 F^4 t/T (appendix D.1), and "
             "inputs=unit, weight_decay=0, refit_every=0, trust_region=0, global_candidate=false, stall_steps=0, opening_steps=0, "
             "beta_schedule=constant (docs/go-ucb.md); a value of one of these other than its default or the preset's is an error")
        .real("lambda", &GoUcbOptions::lambda, NumberRange::above(0.0), "regularization lambda of eqs. (3)-(5) (preset default)")
        .real("beta", &GoUcbOptions::beta, NumberRange::at_least(0.0), "confidence radius beta_t of eq. (6) (preset default)")
        .choice("beta_schedule", &GoUcbOptions::beta_schedule, kBetaScheduleNames,
                "beta_t (preset default): constant beta, or beta (1 + ln t) (radius ~ sqrt(log t))")
        .choice("acquisition", &GoUcbOptions::acquisition, kGoUcbAcquisitionNames,
                "step 5: first-order bonus (Lemma 5.4) or joint ascent over (x, w)")
        .custom({"refit_every", nullptr,
                 "every k Phase II steps re-run eq. (2) on all data (warm start w_t), reset w_0 and rebuild Sigma_t, w_t; 0: never "
                 "(paper); \"auto\"/null: every step up to " + std::to_string(kGoUcbRefitEveryStepUpTo) +
                     " points, then once the data has grown by 5%",
                 {}},
                read_refit_every)
        .integer("refit_restarts", &GoUcbOptions::refit_restarts, 0, static_cast<std::int64_t>(kMaxRestarts), "extra random oracle starts at each refit")
        .number_or_keyword("trust_region", &GoUcbOptions::trust_region, "auto", NumberRange::closed(0.0, 1.0),
                           "step 5 over a region of this size (unit-cube coordinates) centred at the best observed point; 0: "
                           "whole domain (paper); \"auto\"/null: 0.2 up to " + std::to_string(kLowDimension) + " parameters, 0.1 above")
        .choice("trust_shape", &GoUcbOptions::trust_shape, kTrustShapeNames,
                "trust region shape: box (trust_region = side) or ball (trust_region = Euclidean radius), unit-cube coordinates")
        .flag("trust_adapt", &GoUcbOptions::trust_adapt,
              "trust region size x1.5 after an improving step, x0.7 otherwise, within [trust_region/4, trust_max or trust_region]")
        .number_or_keyword("trust_max", &GoUcbOptions::trust_max, "auto", NumberRange::at_least(0.0),
                           "upper limit of the adapted trust region size; 0: trust_region; \"auto\"/null: 0.5 up to " +
                               std::to_string(kLowDimension) + " parameters, trust_region above")
        .choice("trust_rule", &GoUcbOptions::trust_rule, kTrustRuleNames,
                "grow the trust region after any improvement (success) or only when it reaches half the model's prediction (ratio)")
        .flag("global_candidate", &GoUcbOptions::global_candidate,
              "also maximize over the whole domain; take that point when its lower bound beats the incumbent's upper bound")
        .integer("stall_steps", &GoUcbOptions::stall_steps, 0, kNoLimit,
                 "after this many steps in a row that neither improve nor leave the evaluated points' neighbourhood, one "
                 "space-filling step (the point farthest from the data), then the region restarts; every step while all values "
                 "are equal; 0: never")
        .custom({"opening_steps", nullptr,
                 "the first k Phase II steps by a network of radial units (one per data point), then the model family; 0: "
                 "off; \"auto\"/null: " + std::to_string(kAutoOpeningSteps) + " with the additive family on a continuous space, else 0",
                 {}},
                read_opening_steps)
        .real("opening_width", &GoUcbOptions::opening_width, NumberRange::above(0.0), "the opening's radial units' width (unit cube)")
        .real("opening_region", &GoUcbOptions::opening_region, NumberRange::closed(0.0, 1.0),
              "the opening steps' ball radius (unit cube)")
        .real("opening_beta", &GoUcbOptions::opening_beta, NumberRange::at_least(0.0), "the opening steps' beta")
        .choice("opening_profile", &GoUcbOptions::opening_profile, kRadialProfileNames, "the opening's radial units' profile")
        .choice("opening_bounds", &GoUcbOptions::opening_bounds, kOpeningBoundsNames,
                "where the opening's steps may go: within the evaluated points' range in each coordinate (data: no step "
                "onto a face the data has not come near) or anywhere in the domain (box, the recipe before stop 81)")
        .choice("discrete_step", &GoUcbOptions::discrete_step, kDiscreteStepNames,
                "integer/categorical spaces: step 5 over every value of the integers on odd Phase II steps and in the trust "
                "region on even ones (alternate), always over every value (global, the paper's step 5), or always in the "
                "trust region (trust-region); continuous coordinates keep the trust region");
    return t;
  }();
  return table;
}

// The workshop variant and exploration-first keep the paper's network, model inputs and oracle by
// default, and the deviations specific to go-ucb (no option of theirs) their paper values.
GoUcbOptions paper_model_defaults(GoUcbVariant variant) {
  GoUcbOptions d;
  d.variant = variant;
  d.model = GoUcbModel::Mlp;
  d.inputs = ModelInputs::Unit;
  d.weight_decay = 0.0;
  d.refit_every = 0;
  d.trust_region = 0.0;
  d.beta_schedule = BetaSchedule::Constant;
  return d;
}

const OptionTable<GoUcbOptions>& go_ucb_workshop_options() {
  static const auto table =
      common_table(paper_model_defaults(GoUcbVariant::Workshop),
                   "Phase I length n; 0: smallest n with n >= sqrt(N - n) (Theorem 4.1)")
          .real("sigma", &GoUcbOptions::workshop_sigma, NumberRange::at_least(0.0), "noise scale sigma of the bonus")
          .real("u", &GoUcbOptions::workshop_u, NumberRange::at_least(0.0), "constant U of the bonus (workshop section 4: 10)");
  return table;
}

const OptionTable<GoUcbOptions>& exploration_first_options() {
  static const auto table =
      common_table(paper_model_defaults(GoUcbVariant::ExplorationFirst), "Phase I length n; 0: ceil(N^(2/3)) (Lemma 15)");
  return table;
}

// The table of go-ucb, go-ucb-workshop or exploration-first.
const OptionTable<GoUcbOptions>& options_of(const std::string& name) {
  switch (kGoUcbAlgorithmNames.parse(name, "a parametric model of your own needs go-ucb, go-ucb-workshop or exploration-first: the algorithm")) {
    case GoUcbVariant::GoUcb: return go_ucb_options();
    case GoUcbVariant::Workshop: return go_ucb_workshop_options();
    case GoUcbVariant::ExplorationFirst: return exploration_first_options();
  }
  throw InvalidArgument("unreachable: a GO-UCB variant without an option table");
}

AlgorithmInfo go_ucb_family_info(const char* name, const char* summary) {
  AlgorithmInfo info;
  info.name = name;
  info.family = "parametric";
  info.horizon = HorizonUse::Required;
  info.horizon_help = "N = n + T, the total number of evaluations: sets the Phase I length n (and T)";
  info.summary = summary;
  const OptionTable<GoUcbOptions>& table = options_of(name);
  info.options = table.specs();
  info.create = [&table](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return make_go_ucb_variant(space, direction, table.read(v), context);
  };
  return info;
}

}  // namespace

AlgorithmInfo go_ucb_info() {
  return go_ucb_family_info(
      "go-ucb", "GO-UCB (Liu & Wang, ICML 2023): fit f_w, explore optimistically in a gradient-shaped ellipsoid over w");
}

AlgorithmInfo go_ucb_workshop_info() {
  return go_ucb_family_info("go-ucb-workshop",
                            "GO-UCB workshop version: re-fit each round, bonus sigma ||grad_w f||_2 sqrt(U/t) + U/t");
}

AlgorithmInfo exploration_first_info() {
  return go_ucb_family_info("exploration-first",
                            "explore uniformly for n = ceil(N^(2/3)) steps, fit w once, then exploit (workshop Lemma 15)");
}

std::unique_ptr<GoUcb> make_go_ucb(const nlohmann::json& spec, const Space& space, Direction direction,
                                   const RunContext& context, std::shared_ptr<const ParametricModel> model) {
  const nlohmann::json resolved = resolve_options(spec);
  const std::string name = resolved.at("name").get<std::string>();
  GoUcbOptions o = options_of(name).read(OptionValues(name, resolved));
  // Unset unless asked for: GoUcb then standardizes for its built-in models only (see GoUcbOptions).
  if (!spec.contains("standardize")) o.standardize.reset();
  return make_go_ucb_variant(space, direction, std::move(o), context, std::move(model));
}

}  // namespace optimist
