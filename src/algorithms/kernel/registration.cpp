// Registry entries of gp-ucb, gp-ei, gp-pi and turbo: options as JSON.
#include <optional>

#include <nlohmann/json.hpp>

#include "optimist/algorithms/kernel/gp_bo.hpp"
#include "optimist/algorithms/kernel/turbo.hpp"

namespace optimist {

namespace {

std::vector<OptionSpec> gp_bo_common_options(const GpBoOptions& d) {
  return {
      {"kernel", d.kernel, "GP covariance (ARD)", {"matern52", "matern32", "rbf"}},
      {"prior", d.prior, "GP hyperparameter priors: BoTorch 0.8's gamma lengthscale/outputscale priors (gamma), all of BoTorch 0.8's incl. its "
       "Gamma(1.1, 0.05) noise prior (botorch), the gammas as log-normals (classic) or Hvarfner et al. 2024",
       {"gamma", "botorch", "classic", "dimension-scaled"}},
      {"fit", d.fit, "hyperparameter fits: warm refits + multi-start when the data doubles, or fresh from the prior modes every step (BoTorch)",
       {"warm", "fresh"}},
      {"n_init", d.n_init, "initial design size; 0: max(2, min(d + 1, 10))", {}},
      {"init", d.init, "initial design: scrambled Sobol or uniform random", {"sobol", "uniform"}},
      {"raw_samples", d.raw_samples, "acquisition: Sobol candidates scored before the local searches", {}},
      {"restarts", d.restarts, "acquisition: L-BFGS-B local searches from the best candidates", {}},
      {"noise_sd", nullptr, "known observation-noise sd in the objective's units (a fixed-noise GP); \"learn\"/null: fitted (MAP)", {}},
      {"refit_every", d.refit_every, "refit the GP hyperparameters every this many observations (1: every step); 0: auto, every step up to 100 points, then each time the data grows by 5%", {}},
      {"max_model_points", d.max_model_points, "past this many observations the GP conditions on a subset (half nearest the best point, half random) chosen at each refit; 0: all", {}},
  };
}

// An option whose null default accepts any JSON type: a number, or null / `keyword` for "unset".
std::optional<double> number_or_keyword(const OptionValues& v, const std::string& key, const std::string& keyword,
                                        const std::string& algorithm) {
  const nlohmann::json& j = v.json().at(key);
  if (j.is_number()) return j.get<double>();
  if (j.is_null() || (j.is_string() && j.get<std::string>() == keyword)) return std::nullopt;
  throw InvalidArgument(algorithm + ": option '" + key + "' must be \"" + keyword + "\" or a number, got " + j.dump());
}

GpBoOptions read_gp_bo(const OptionValues& v, const std::string& acquisition) {
  GpBoOptions o;
  o.acquisition = acquisition;
  o.kernel = v.get<std::string>("kernel");
  o.prior = v.get<std::string>("prior");
  o.fit = v.get<std::string>("fit");
  o.n_init = v.get<std::size_t>("n_init");
  o.init = v.get<std::string>("init");
  o.raw_samples = v.get<std::size_t>("raw_samples");
  o.restarts = v.get<std::size_t>("restarts");
  o.refit_every = v.get<std::size_t>("refit_every");
  o.max_model_points = v.get<std::size_t>("max_model_points");
  o.noise_sd = number_or_keyword(v, "noise_sd", "learn", "gp-" + acquisition);
  return o;
}

AlgorithmInfo gp_bo_info(const std::string& acquisition, const std::string& summary) {
  const GpBoOptions d;
  AlgorithmInfo info;
  info.name = "gp-" + acquisition;
  info.family = "kernel";
  info.summary = summary;
  info.batch = true;
  info.options = gp_bo_common_options(d);
  if (acquisition == "ucb") {
    // A null default accepts any JSON type: "auto" (or null) or a number.
    info.options.push_back({"beta", nullptr,
                            "UCB weight beta_t (mean + sqrt(beta_t) sd): \"auto\"/null = Srinivas et al. 2010 "
                            "(Theorem 1 on discrete spaces, Theorem 2 with a = b = r = 1 otherwise), or a number",
                            {}});
    info.options.push_back({"delta", d.delta, "confidence parameter delta of the auto beta_t, in (0, 1)", {}});
  } else {
    info.options.push_back({"xi", d.xi, "improvement threshold: improvement over best + xi", {}});
  }
  info.create = [acquisition](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    GpBoOptions o = read_gp_bo(v, acquisition);
    if (acquisition == "ucb") {
      o.beta = number_or_keyword(v, "beta", "auto", "gp-ucb");
      o.delta = v.get<double>("delta");
    } else {
      o.xi = v.get<double>("xi");
    }
    return std::make_unique<GpBo>(space, direction, o, context);
  };
  return info;
}

}  // namespace

AlgorithmInfo gp_ucb_info() {
  return gp_bo_info("ucb", "GP-UCB (Srinivas et al. 2010): GP posterior mean + sqrt(beta_t) sd, Kriging-believer batches");
}

AlgorithmInfo gp_ei_info() {
  return gp_bo_info("ei", "GP expected improvement, maximized as log-EI (Ament et al. 2023), Kriging-believer batches");
}

AlgorithmInfo gp_pi_info() {
  return gp_bo_info("pi", "GP probability of improvement, maximized as log-PI, Kriging-believer batches");
}

AlgorithmInfo turbo_info() {
  const TurboOptions d;
  AlgorithmInfo info;
  info.name = "turbo";
  info.family = "kernel";
  info.summary = "TuRBO-1 (Eriksson et al. 2019): Thompson sampling in a GP trust region that expands, shrinks and restarts; trust_regions > 1: TuRBO-m";
  info.batch = true;
  info.options = {
      {"kernel", d.kernel, "GP covariance (ARD)", {"matern52", "matern32", "rbf"}},
      {"n_init", d.n_init, "design size of each run; 0: min(2 d, 50)", {}},
      {"init", d.init, "design: scrambled Sobol, uniform random or Latin hypercube (the reference's)", {"sobol", "uniform", "lhs"}},
      {"recipe", d.recipe, "GP fit and sampling: L-BFGS-B fits, warm between multi-start ones (ml, samples of f), or the reference code's (a fresh fit by 50 Adam steps every step, samples of y)",
       {"ml", "reference"}},
      {"prior", d.prior, "ml recipe's GP: gp-ei's gamma priors (gamma, MAP) or maximum likelihood (none)", {"gamma", "none"}},
      {"batch_size", d.batch_size, "q: told values per trust-region update (set to the ask batch size)", {}},
      {"trust_regions", d.trust_regions, "m: 1 is TuRBO-1, m > 1 TuRBO-m (m runs, each with its own design of n_init points and GP)", {}},
      {"n_candidates", d.n_candidates, "Thompson-sampling candidates; 0: min(100 d, 5000)", {}},
      {"sampler", d.sampler, "posterior draws: random-Fourier-feature pathwise (O(m)) or exact joint Cholesky (O(m^3))",
       {"rff", "exact"}},
      {"rff_features", d.rff_features, "random Fourier features of the rff sampler", {}},
      {"length_init", d.length_init, "initial trust-region side L", {}},
      {"length_min", d.length_min, "restart when L falls below this (2^-7)", {}},
      {"length_max", d.length_max, "largest L", {}},
      {"success_tolerance", d.success_tolerance, "consecutive successes before L doubles", {}},
      {"failure_tolerance", d.failure_tolerance, "consecutive failures before L halves; 0: ceil(max(4/q, d/q))", {}},
      {"refit_every", d.refit_every, "ml recipe: refit the run's GP hyperparameters every this many observations (1: every step); 0: auto, every step up to 100 points, then each time the run grows by 5%", {}},
      {"max_model_points", d.max_model_points, "past this many points in a run its GP conditions on the ones nearest the trust-region centre, chosen at each refit; 0: all", {}},
  };
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    TurboOptions o;
      o.kernel = v.get<std::string>("kernel");
    o.n_init = v.get<std::size_t>("n_init");
    o.init = v.get<std::string>("init");
    o.recipe = v.get<std::string>("recipe");
    o.prior = v.get<std::string>("prior");
    o.batch_size = v.get<std::size_t>("batch_size");
    o.trust_regions = v.get<std::size_t>("trust_regions");
    o.n_candidates = v.get<std::size_t>("n_candidates");
    o.sampler = v.get<std::string>("sampler");
    o.rff_features = v.get<std::size_t>("rff_features");
    o.length_init = v.get<double>("length_init");
    o.length_min = v.get<double>("length_min");
    o.length_max = v.get<double>("length_max");
    o.success_tolerance = v.get<std::size_t>("success_tolerance");
    o.failure_tolerance = v.get<std::size_t>("failure_tolerance");
    o.refit_every = v.get<std::size_t>("refit_every");
    o.max_model_points = v.get<std::size_t>("max_model_points");
    return std::make_unique<Turbo>(space, direction, o, context);
  };
  return info;
}

}  // namespace optimist
