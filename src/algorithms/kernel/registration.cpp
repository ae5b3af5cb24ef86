// Registry entries of gp-ucb, gp-ei, gp-pi and turbo: one option table each (option_table.hpp).
#include <cmath>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "optimist/algorithms/kernel/gp_bo.hpp"
#include "optimist/algorithms/kernel/turbo.hpp"
#include "optimist/algorithms/option_table.hpp"

namespace optimist {

namespace {

constexpr std::int64_t kNoLimit = OptionTable<GpBoOptions>::kNoUpperLimit;
constexpr double kInf = std::numeric_limits<double>::infinity();
// Shared by the gp-* and turbo tables (one kernel, one meaning).
constexpr const char* kCategoricalDistanceHelp =
    "a categorical's distance in the kernel: matched (two random choices as far apart as two random values of a "
    "continuous parameter), or overlap (a change of choice as far as a continuous parameter's whole range: the recipe "
    "before stop 86)";

// The options every gp-* shares, then `extra` (the acquisition's own).
OptionTable<GpBoOptions> gp_bo_table() {
  OptionTable<GpBoOptions> t;
  t.choice("kernel", &GpBoOptions::kernel, kKernelTypeNames, "GP covariance (ARD)")
      .choice("prior", &GpBoOptions::prior, kGpPriorNames,
              "GP hyperparameter priors: BoTorch 0.8's gamma lengthscale/outputscale priors (gamma), all of BoTorch 0.8's incl. its "
              "Gamma(1.1, 0.05) noise prior (botorch), the gammas as log-normals (classic) or Hvarfner et al. 2024 (dimension-scaled); auto: "
              "botorch for gp-ei with 2 to 12 parameters, else gamma")
      .choice("fit", &GpBoOptions::fit, kFitScheduleNames,
              "hyperparameter fits: warm refits + multi-start when the data doubles, or fresh from the prior modes every step (BoTorch)")
      .integer("n_init", &GpBoOptions::n_init, 0, kNoLimit, "initial design size; 0: max(2, min(d + 1, 10))")
      .choice("init", &GpBoOptions::init, kSobolOrUniformNames, "initial design: scrambled Sobol or uniform random")
      .choice("noisy_design", &GpBoOptions::noisy_design, kNoisyDesignNames,
              "on a noisy objective: until-skill (with up to 3 parameters, from 8 to 100 points, the design also continues "
              "while the model's leave-one-out predictions are no better than the values' mean and the fit puts a tenth "
              "of the variance or more in noise: such a model's log-EI follows its variance to the box's corners), or "
              "fixed (n_init points, the recipe before)")
      .choice("plateau_design", &GpBoOptions::plateau_design, kPlateauDesignNames,
              "on a deterministic objective: faces (with up to 3 parameters, from 8 to 100 points, while at least half of "
              "the values are bit-equal to the worst one and the model's leave-one-out predictions are no better than the "
              "values' mean, a step onto the box's faces farther than 0.2 from every value above the plateau is replaced "
              "by the next design point: such a model's log-EI follows its variance to the faces), or fixed (every step "
              "from the model, the recipe before)")
      .integer("raw_samples", &GpBoOptions::raw_samples, 0, static_cast<std::int64_t>(kMaxRawSamples),
               "acquisition: Sobol candidates scored before the local searches")
      .integer("restarts", &GpBoOptions::restarts, 0, static_cast<std::int64_t>(kMaxRestarts),
               "acquisition: L-BFGS-B local searches from the best candidates")
      .real("acquisition_tolerance", &GpBoOptions::acquisition_tolerance, NumberRange::at_least(0.0),
            "acquisition: a local search stops when an iteration changes the value by less than this (relative); "
            "1e-9: scipy's and BoTorch's, the default before issue 20")
      .flag("merge_restarts", &GpBoOptions::merge_restarts,
            "acquisition: past 100 observations a local search stops where it meets the climb of an earlier one (within "
            "half the shortest lengthscale, no higher); false: every search runs to its end, the earlier recipe");
  t.number_or_keyword("noise_sd", &GpBoOptions::noise_sd, "learn", NumberRange::at_least(0.0),
                      "known observation-noise sd in the objective's units (a fixed-noise GP); \"learn\"/null: fitted (MAP)");
  t.integer("refit_every", &GpBoOptions::refit_every, 0, kNoLimit,
            "refit the GP hyperparameters every this many observations (1: every step); 0: auto, every step up to 100 "
            "points, then each time the data grows by 5% (10%, 20% while refits gain less than a nat)")
      .integer("max_model_points", &GpBoOptions::max_model_points, 0, kNoLimit,
               "past this many observations the GP conditions on a subset (half nearest the best point, half random) "
               "chosen at each refit; 0: all")
      .choice("output_warp", &GpBoOptions::output_warp, kOutputWarpNames,
              "warp of the observed values before the GP: auto (alternate for gp-ei and gp-pi with 2-12 parameters, none categorical; else none); "
              "alternate (compress at two steps of three, none at the third: the good region of a misfit spanning "
              "decades is resolved, the global trend kept); none; compress (the worse half pulled halfway to the "
              "median, none further out than half-rank puts it: a calibration's sum of squares, or a few catastrophic "
              "values, do not flatten the good values); half-rank (Vizier's: the worse half mapped to normal quantiles); "
              "power (HEBO's: a Yeo-Johnson transform fitted by maximum likelihood)")
      .choice("mean", &GpBoOptions::mean, kGpMeanNames,
              "the GP's constant prior mean: auto (worst-unwarped for gp-ei and gp-pi with up to 12 parameters, else learned); learned (fitted, "
              "the recipe before); sample (the sample mean); worst (the worst value seen: away from the data the model "
              "expects nothing better, so log-EI refines the basins it found rather than exploring for variance alone, "
              "the box's faces first; De Ath et al. 2020); worst-unwarped (worst while the model sees the raw values, "
              "learned while it sees warped ones; a warp that moved no value leaves raw ones)")
      .number_or_keyword("mean_margin", &GpBoOptions::mean_margin, "auto", NumberRange::at_least(0.0),
                         "where the worst-value mean sits: this many sds of the outputs below the worst value seen; "
                         "\"auto\"/null: 1 with 6 to 12 parameters, else 0")
      .choice("rotation", &GpBoOptions::rotation, kGpRotationNames,
              "the axes of the GP's lengthscales: auto (angles for gp-ei with 2 continuous parameters, else none); none (the "
              "parameters' axes); angles (2 continuous parameters: each thorough fit also tries the frames rotated by 15 to 75 "
              "degrees and keeps the best log posterior, a rotated one paying log(n)/2, so a ridge along a diagonal, as an "
              "SVM's C and gamma, gets a long lengthscale along it)")
      .choice("failed_points", &GpBoOptions::failed_points, kFailedPointsNames,
              "failed evaluations in the model: worst (at the worst successful value so far, as Vizier does, so a "
              "failing region is not sampled again and again), or ignore (left out: the recipe before)")
      .choice("output", &GpBoOptions::output, kGpOutputNames,
              "recommendation: the best observed point (best-observed), or the evaluated point with the best posterior "
              "mean (model: better when the noise is large against the differences the GP fits well, worse when it fits "
              "poorly; docs/gp-bo.md, \"Noisy objectives\")")
      .choice("categorical_distance", &GpBoOptions::categorical_distance, kCategoryDistanceNames,
              kCategoricalDistanceHelp);
  return t;
}

const OptionTable<GpBoOptions>& gp_ucb_options() {
  static const auto table = [] {
    OptionTable<GpBoOptions> t = gp_bo_table();
    // "auto" / null, "theorem" or a number (number_or_keyword takes one keyword only).
    t.custom({"beta", nullptr,
              "UCB weight beta_t (mean + sqrt(beta_t) sd): \"auto\"/null = Srinivas et al. 2010's Theorem 1 on discrete "
              "spaces, 4 (two sds) when a parameter is continuous; \"theorem\" = Theorem 1 on discrete spaces, Theorem 2 "
              "with a = b = r = 1 otherwise (the recipe before stop 87); or a number",
              {}},
             [](const OptionValues& v, GpBoOptions& o) {
               const nlohmann::json& j = v.json().at("beta");
               o.beta = std::nullopt;
               o.beta_rule = UcbBetaRule::Auto;
               if (j.is_null() || j == "auto") return;
               if (j == "theorem") {
                 o.beta_rule = UcbBetaRule::Theorem;
                 return;
               }
               if (!j.is_number() || !(j.get<double>() >= 0.0) || !std::isfinite(j.get<double>()))
                 throw InvalidArgument(v.algorithm() + ": option 'beta' must be \"auto\", \"theorem\" or a finite number >= 0, got " +
                                       j.dump());
               o.beta = j.get<double>();
             });
    t.real("delta", &GpBoOptions::delta, NumberRange::open(0.0, 1.0), "confidence parameter delta of the Srinivas beta_t, in (0, 1)");
    return t;
  }();
  return table;
}

const OptionTable<GpBoOptions>& gp_ei_options() {
  static const auto table = gp_bo_table().custom({"xi", 0.0, "improvement threshold: improvement over best + xi (objective units)", {}},
                                                 [](const OptionValues& v, GpBoOptions& o) {
                                                   const nlohmann::json& j = v.json().at("xi");
                                                   if (!j.is_number() || !std::isfinite(j.get<double>()))
                                                     throw InvalidArgument(v.algorithm() + ": option 'xi' must be a finite number, got " + j.dump());
                                                   o.xi = j.get<double>();
                                                 });
  return table;
}

const OptionTable<GpBoOptions>& gp_pi_options() {
  static const auto table = gp_bo_table().number_or_keyword(
      "xi", &GpBoOptions::xi, "auto", NumberRange::open(-kInf, kInf),
      "improvement threshold: improvement over best + xi; \"auto\"/null = 0.1 of the largest posterior sd over 64 "
      "fixed points (the default since stop 88); a number is in the objective's units (0: Kushner's greedy PI, the default before)");
  return table;
}

AlgorithmInfo gp_bo_info(const char* name, Acquisition acquisition, const OptionTable<GpBoOptions>& table,
                         const char* summary) {
  AlgorithmInfo info;
  info.name = name;
  info.family = "kernel";
  info.summary = summary;
  info.batch = true;
  info.options = table.specs();
  info.create = [acquisition, &table](const Space& space, Direction direction, const OptionValues& v,
                                      const RunContext& context) {
    GpBoOptions o = table.read(v);
    o.acquisition = acquisition;
    return std::make_unique<GpBo>(space, direction, o, context);
  };
  return info;
}

const OptionTable<TurboOptions>& turbo_options() {
  static const auto table =
      OptionTable<TurboOptions>()
          .choice("kernel", &TurboOptions::kernel, kKernelTypeNames, "GP covariance (ARD)")
          .choice("categorical_distance", &TurboOptions::categorical_distance, kCategoryDistanceNames,
                  kCategoricalDistanceHelp)
          .integer("n_init", &TurboOptions::n_init, 0, kNoLimit, "design size of each run; 0: min(2 d, 50)")
          .choice("init", &TurboOptions::init, kInitialDesignNames,
                  "design: scrambled Sobol, uniform random or Latin hypercube (the reference's)")
          .choice("recipe", &TurboOptions::recipe, kTurboRecipeNames,
                  "GP fit and sampling: L-BFGS-B fits, warm between multi-start ones (ml, samples of f), or the "
                  "reference code's (a fresh fit by 50 Adam steps every step, samples of y)")
          .choice("prior", &TurboOptions::prior, kTurboPriorNames,
                  "ml recipe's GP: gp-ei's gamma priors (gamma, MAP) or maximum likelihood (none)")
          .integer("batch_size", &TurboOptions::batch_size, 1, kNoLimit,
                   "q: told values per trust-region update (set to the ask batch size)")
          .integer("trust_regions", &TurboOptions::trust_regions, 1, 100,
                   "m: 1 is TuRBO-1, m > 1 TuRBO-m (m runs, each with its own design of n_init points and GP)")
          .integer("n_candidates", &TurboOptions::n_candidates, 0, static_cast<std::int64_t>(kMaxRawSamples),
                   "Thompson-sampling candidates; 0: min(100 d, 5000)")
          .choice("sampler", &TurboOptions::sampler, kThompsonSamplerNames,
                  "posterior draws: random-Fourier-feature pathwise (O(m)) or exact joint Cholesky (O(m^3))")
          .integer("rff_features", &TurboOptions::rff_features, 0, kNoLimit,
                   "random Fourier features of the rff sampler; 0: 1024 below 300 points, 512 from then")
          .real("length_init", &TurboOptions::length_init, NumberRange::above(0.0), "initial trust-region side L")
          .real("length_min", &TurboOptions::length_min, NumberRange::above(0.0), "restart when L falls below this (2^-7)")
          .real("length_max", &TurboOptions::length_max, NumberRange::above(0.0), "largest L")
          .integer("success_tolerance", &TurboOptions::success_tolerance, 1, kNoLimit,
                   "consecutive successes before L doubles")
          .integer("failure_tolerance", &TurboOptions::failure_tolerance, 0, kNoLimit,
                   "consecutive failures before L halves; 0: ceil(max(4/q, d/q))")
          .integer("refit_every", &TurboOptions::refit_every, 0, kNoLimit,
                   "ml recipe: refit the run's GP hyperparameters every this many observations (1: every step); 0: "
                   "auto, every step up to 100 points, then each time the run grows by 5%")
          .integer("max_model_points", &TurboOptions::max_model_points, 0, kNoLimit,
                   "past this many points in a run its GP conditions on the ones nearest the trust-region centre, "
                   "chosen at each refit; 0: all");
  return table;
}

}  // namespace

AlgorithmInfo gp_ucb_info() {
  return gp_bo_info("gp-ucb", Acquisition::Ucb, gp_ucb_options(),
                    "GP-UCB (Srinivas et al. 2010): GP posterior mean + sqrt(beta_t) sd, Kriging-believer batches");
}

AlgorithmInfo gp_ei_info() {
  return gp_bo_info("gp-ei", Acquisition::Ei, gp_ei_options(),
                    "GP expected improvement, maximized as log-EI (Ament et al. 2023), Kriging-believer batches");
}

AlgorithmInfo gp_pi_info() {
  return gp_bo_info("gp-pi", Acquisition::Pi, gp_pi_options(),
                    "GP probability of improvement, maximized as log-PI, Kriging-believer batches");
}

AlgorithmInfo turbo_info() {
  AlgorithmInfo info;
  info.name = "turbo";
  info.family = "kernel";
  info.summary = "TuRBO-1 (Eriksson et al. 2019): Thompson sampling in a GP trust region that expands, shrinks and restarts; trust_regions > 1: TuRBO-m";
  info.batch = true;
  info.options = turbo_options().specs();
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<Turbo>(space, direction, turbo_options().read(v), context);
  };
  return info;
}

}  // namespace optimist
