// Registry entries of go-ucb, go-ucb-workshop and exploration-first: options as JSON.
#include "optimist/algorithms/parametric/go_ucb.hpp"

namespace optimist {

namespace {

std::vector<OptionSpec> common_options(const GoUcbOptions& d) {
  return {
      {"n_init", d.n_init, "Phase I length n; 0: smallest n with n >= sqrt(N - n) (Theorem 4.1)", {}},
      {"init", d.init, "Phase I design", {"uniform", "sobol"}},
      {"model", d.model,
       "built-in family f_w(x): the paper's MLP, an additive network c + sum_i g_i(x_i), or auto (additive from 3 inputs up "
       "unless hidden or activation differ from their defaults, or preset=paper: then the MLP)",
       {"auto", "mlp", "additive"}},
      {"hidden", d.hidden, "model=mlp: hidden layer sizes", {}},
      {"activation", d.activation, "model=mlp: activation", {"sigmoid", "tanh", "relu", "softplus"}},
      {"units_per_input", d.units_per_input, "model=additive: sigmoid units of each g_i (d_w = 3 d_x units + 1)", {}},
      {"standardize", true, "fit standardized outputs (Phase I mean and sd)", {}},
      {"restandardize", d.restandardize, "each refit standardizes with the mean and sd of all data so far (false: Phase I's)", {}},
      {"inputs", d.inputs, "what the built-in model sees: the unit-cube point (paper) or 2u-1 in [-1,1]^d (centered)",
       {"unit", "centered"}},
      {"weight_decay", d.weight_decay, "oracle (lm): + weight_decay ||w||^2 in eq. (2) (paper: 0)", {}},
      {"oracle", d.oracle.method, "regression oracle, eq. (2): Levenberg-Marquardt, or appendix D.1's SGD", {"lm", "sgd"}},
      {"oracle_restarts", d.oracle.restarts, "oracle: random starts", {}},
      {"oracle_iterations", d.oracle.max_iterations, "oracle (lm): iterations per start", {}},
      {"oracle_ridge", d.oracle.ridge, "oracle (lm): ridge toward the start", {}},
      {"sgd_iterations", d.oracle.sgd_iterations, "oracle (sgd): iterations (appendix D.1: 2000)", {}},
      {"sgd_learning_rate", d.oracle.sgd_learning_rate, "oracle (sgd): learning rate (appendix D.1: 1e-11)", {}},
      {"raw_samples", d.raw_samples, "acquisition: quasi-random candidates", {}},
      {"restarts", d.restarts, "acquisition: local searches from the best candidates", {}},
      {"output", d.output, "recommend(): best evaluated point under the model, best observed, or the paper's uniform draw",
       {"model", "best-observed", "uniform"}},
  };
}

GoUcbOptions read_common(const OptionValues& v, const std::string& variant) {
  GoUcbOptions o;
  o.variant = variant;
  o.n_init = v.get<std::size_t>("n_init");
  o.init = v.get<std::string>("init");
  o.hidden = v.json().at("hidden").get<std::vector<std::size_t>>();
  o.activation = v.get<std::string>("activation");
  o.model = v.get<std::string>("model");
  o.units_per_input = v.get<std::size_t>("units_per_input");
  o.standardize = v.get<bool>("standardize");
  o.restandardize = v.get<bool>("restandardize");
  o.inputs = v.get<std::string>("inputs");
  o.weight_decay = v.get<double>("weight_decay");
  // Deviations specific to go-ucb take their paper values in the other variants.
  o.refit_every = 0;
  o.trust_region = 0.0;
  o.beta_schedule = "constant";
  o.oracle.method = v.get<std::string>("oracle");
  o.oracle.restarts = v.get<std::size_t>("oracle_restarts");
  o.oracle.max_iterations = v.get<int>("oracle_iterations");
  o.oracle.ridge = v.get<double>("oracle_ridge");
  o.oracle.sgd_iterations = v.get<int>("sgd_iterations");
  o.oracle.sgd_learning_rate = v.get<double>("sgd_learning_rate");
  o.raw_samples = v.get<std::size_t>("raw_samples");
  o.restarts = v.get<std::size_t>("restarts");
  o.output = v.get<std::string>("output");
  return o;
}

// The options of the algorithm v.json()["name"]: go-ucb, go-ucb-workshop or exploration-first.
GoUcbOptions read_options(const OptionValues& v) {
  const std::string name = v.get<std::string>("name");
  if (name == "go-ucb-workshop") {
    GoUcbOptions o = read_common(v, "workshop");
    o.workshop_sigma = v.get<double>("sigma");
    o.workshop_u = v.get<double>("u");
    return o;
  }
  if (name == "exploration-first") return read_common(v, "exploration-first");
  if (name != "go-ucb") throw InvalidArgument("a parametric model of your own needs go-ucb, go-ucb-workshop or exploration-first, got '" + name + "'");
  GoUcbOptions o = read_common(v, "go-ucb");
  o.preset = v.get<std::string>("preset");
  o.lambda = v.get<double>("lambda");
  o.beta = v.get<double>("beta");
  o.acquisition = v.get<std::string>("acquisition");
  o.beta_schedule = v.get<std::string>("beta_schedule");
  o.refit_every = v.get<std::size_t>("refit_every");
  o.refit_restarts = v.get<std::size_t>("refit_restarts");
  o.trust_region = v.get<double>("trust_region");
  o.trust_shape = v.get<std::string>("trust_shape");
  o.trust_adapt = v.get<bool>("trust_adapt");
  o.trust_max = v.get<double>("trust_max");
  o.trust_rule = v.get<std::string>("trust_rule");
  o.global_candidate = v.get<bool>("global_candidate");
  o.stall_steps = v.get<std::size_t>("stall_steps");
  if (v.json().contains("discrete_step")) o.discrete_step = v.get<std::string>("discrete_step");
  return o;
}

// The workshop variant and exploration-first keep the paper's network, model inputs and oracle by default.
GoUcbOptions paper_model_defaults() {
  GoUcbOptions d;
  d.model = "mlp";
  d.inputs = "unit";
  d.weight_decay = 0.0;
  return d;
}

}  // namespace

AlgorithmInfo go_ucb_info() {
  const GoUcbOptions d;
  AlgorithmInfo info;
  info.name = "go-ucb";
  info.family = "parametric";
  info.horizon = HorizonUse::Required;
  info.horizon_help = "N = n + T, the total number of evaluations: sets the Phase I length n (and T)";
  info.summary = "GO-UCB (Liu & Wang, ICML 2023): fit f_w, explore optimistically in a gradient-shaped ellipsoid over w";
  info.options = common_options(d);
  info.options.push_back({"preset", d.preset, "'paper': lambda = sqrt(T) log^2 T and beta_t = d_w^3 F^4 t/T (appendix D.1)", {"default", "paper"}});
  info.options.push_back({"lambda", d.lambda, "regularization lambda of eqs. (3)-(5) (preset default)", {}});
  info.options.push_back({"beta", d.beta, "confidence radius beta_t of eq. (6) (preset default)", {}});
  info.options.push_back({"beta_schedule", d.beta_schedule, "beta_t (preset default): constant beta, or beta (1 + ln t) (radius ~ sqrt(log t))", {"constant", "log"}});
  info.options.push_back({"acquisition", d.acquisition, "step 5: first-order bonus (Lemma 5.4) or joint ascent over (x, w)", {"linearized", "joint"}});
  info.options.push_back({"refit_every", d.refit_every,
                          "every k Phase II steps re-run eq. (2) on all data (warm start w_t), reset w_0 and rebuild Sigma_t, w_t; 0: never (paper)", {}});
  info.options.push_back({"refit_restarts", d.refit_restarts, "extra random oracle starts at each refit", {}});
  info.options.push_back({"trust_region", d.trust_region,
                          "step 5 over a box of this side (fraction of the domain) centred at the best observed point; 0: whole domain (paper)", {}});
  info.options.push_back({"trust_shape", d.trust_shape,
                          "trust region shape: box (trust_region = side) or ball (trust_region = Euclidean radius), unit-cube coordinates", {"box", "ball"}});
  info.options.push_back({"trust_adapt", d.trust_adapt, "trust region size x1.5 after an improving step, x0.7 otherwise, within [trust_region/4, trust_max or trust_region]", {}});
  info.options.push_back({"trust_max", d.trust_max, "upper limit of the adapted trust region size; 0: trust_region", {}});
  info.options.push_back({"trust_rule", d.trust_rule,
                          "grow the trust region after any improvement (success) or only when it reaches half the model's prediction (ratio)", {"success", "ratio"}});
  info.options.push_back({"global_candidate", d.global_candidate,
                          "also maximize over the whole domain; take that point when its lower bound beats the incumbent's upper bound", {}});
  info.options.push_back({"stall_steps", d.stall_steps,
                          "after this many steps in a row that neither improve nor leave the evaluated points' neighbourhood, one space-filling step (the point farthest from the data), then the region restarts; 0: never", {}});
  info.options.push_back({"discrete_step", d.discrete_step,
                          "integer/categorical spaces: step 5 over every value of the integers on odd Phase II steps and in the trust "
                          "region on even ones (alternate), always over every value (global, the paper's step 5), or always in the "
                          "trust region (trust-region); continuous coordinates keep the trust region",
                          {"alternate", "global", "trust-region"}});
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<GoUcb>(space, direction, read_options(v), context);
  };
  return info;
}

AlgorithmInfo go_ucb_workshop_info() {
  const GoUcbOptions d = paper_model_defaults();
  AlgorithmInfo info;
  info.name = "go-ucb-workshop";
  info.family = "parametric";
  info.horizon = HorizonUse::Required;
  info.horizon_help = "N = n + T, the total number of evaluations: sets the Phase I length n (and T)";
  info.summary = "GO-UCB workshop version: re-fit each round, bonus sigma ||grad_w f||_2 sqrt(U/t) + U/t";
  info.options = common_options(d);
  info.options.push_back({"sigma", d.workshop_sigma, "noise scale sigma of the bonus", {}});
  info.options.push_back({"u", d.workshop_u, "constant U of the bonus (workshop section 4: 10)", {}});
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<GoUcb>(space, direction, read_options(v), context);
  };
  return info;
}

AlgorithmInfo exploration_first_info() {
  const GoUcbOptions d = paper_model_defaults();
  AlgorithmInfo info;
  info.name = "exploration-first";
  info.family = "parametric";
  info.horizon = HorizonUse::Required;
  info.horizon_help = "N = n + T, the total number of evaluations: sets the Phase I length n (and T)";
  info.summary = "explore uniformly for n = ceil(N^(2/3)) steps, fit w once, then exploit (workshop Lemma 15)";
  info.options = common_options(d);
  info.options[0].help = "Phase I length n; 0: ceil(N^(2/3)) (Lemma 15)";
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<GoUcb>(space, direction, read_options(v), context);
  };
  return info;
}

std::unique_ptr<GoUcb> make_go_ucb(const nlohmann::json& spec, const Space& space, Direction direction,
                                   const RunContext& context, std::shared_ptr<const ParametricModel> model) {
  const nlohmann::json resolved = resolve_options(spec);
  const std::string name = resolved.at("name").get<std::string>();
  GoUcbOptions o = read_options(OptionValues(name, resolved));
  // Unset unless asked for: GoUcb then standardizes for its built-in models only (see GoUcbOptions).
  if (!spec.contains("standardize")) o.standardize.reset();
  return std::make_unique<GoUcb>(space, direction, std::move(o), context, std::move(model));
}

}  // namespace optimist
