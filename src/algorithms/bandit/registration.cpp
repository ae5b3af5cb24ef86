// Registry entries of gp-ucb-arms, bkb and bbkb: one option table each (option_table.hpp), built
// from the options they share, and the range check of ArmBanditOptions for the C++ API.
#include <limits>

#include "optimist/algorithms/bandit/bbkb.hpp"
#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/algorithms/option_table.hpp"

namespace optimist {

namespace {

using Table = OptionTable<ArmBanditOptions>;
constexpr std::int64_t kNoLimit = Table::kNoUpperLimit;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The ranges of the number options (finite: the upper end is open).
const NumberRange kPositive = NumberRange::open(0.0, kInf);
const NumberRange kNonNegative{0.0, kInf, false, true};
const NumberRange kUnitOpen = NumberRange::open(0.0, 1.0);
const NumberRange kAboveOne = NumberRange::open(1.0, kInf);

// Generated arms are kept as points with per-arm state: beyond a million a run is out of memory
// (std::bad_alloc, or killed) rather than slow; larger arm sets come from arms_file.
constexpr std::int64_t kMaxArms = 1000000;

// The options every arm bandit has (gp-ucb-arms' whole table).
Table shared_table() {
  Table t;
  t.choice("preset", &ArmBanditOptions::preset, kArmBanditPresetNames,
           "paper: Fig. 1 and Thm. 4 as stated (beta theorem4, fixed kernel, raw rewards, fresh sampling, no exact "
           "switch, qbar of Thm. 4 from the horizon)")
      .integer("arms", &ArmBanditOptions::arms, 1, kMaxArms, "number of generated arms A (grid: at most A)")
      .choice("arm_set", &ArmBanditOptions::arm_set, kArmSetKindNames, "how arms are generated over the space")
      .custom({"arms_file", ArmBanditOptions{}.arms_file,
               "JSON or CSV file of user points used as the arms (overrides arms/arm_set)", {}},
              [](const OptionValues& v, ArmBanditOptions& o) { o.arms_file = v.get<std::string>("arms_file"); })
      .choice("kernel", &ArmBanditOptions::kernel, kKernelTypeNames, "kernel type")
      .real("lengthscale", &ArmBanditOptions::lengthscale, kPositive,
            "kernel lengthscale on unit-cube inputs: fixed (refit=none) or the first guess")
      .real("outputscale", &ArmBanditOptions::outputscale, kPositive,
            "kernel variance kappa^2 = k(x,x): fixed (refit=none) or the first guess")
      .choice("refit", &ArmBanditOptions::refit, kKernelRefitNames,
              "ml: lengthscales and outputscale by maximum marginal likelihood on the dictionary, on a schedule")
      .integer("refit_every", &ArmBanditOptions::refit_every, 1, kNoLimit,
               "refits at t = d+1 and doubling t, at most this many steps apart")
      .choice("failed_points", &ArmBanditOptions::failed_points, kFailedPointsNames,
              "failed evaluations: worst (a pull at the worst value seen so far, so a failing region is not pulled "
              "again and again), or ignore (left out: the recipe before, and preset=paper's)")
      .flag("standardize", &ArmBanditOptions::standardize,
            "centre the rewards on their mean and scale them by their sd (false: zero-mean model)")
      .real("lambda", &ArmBanditOptions::lambda, kPositive, "ridge regularization lambda (noise variance, standardized units)")
      .real("xi", &ArmBanditOptions::xi, kNonNegative, "noise scale xi in beta_t (Thm. 4)")
      .real("F", &ArmBanditOptions::F, kNonNegative, "bound F on the RKHS norm of f (Thm. 4)")
      .real("delta", &ArmBanditOptions::delta, kUnitOpen, "confidence delta (Thm. 4)")
      .choice("beta", &ArmBanditOptions::beta, kBkbBetaNames,
              "beta_t: practical (beta_sd posterior sds), Thm. 4, beta_scale x Thm. 4, or the constant beta_scale")
      .real("beta_sd", &ArmBanditOptions::beta_sd, kNonNegative, "beta=practical: posterior standard deviations added to the mean")
      .real("beta_scale", &ArmBanditOptions::beta_scale, kNonNegative, "factor (scaled) or value (fixed) of beta_t");
  return t;
}

// shared_table() and the sketch's options (bkb and bbkb).
Table sketch_table() {
  Table t = shared_table();
  t.real("eps", &ArmBanditOptions::eps, kUnitOpen, "accuracy epsilon in (0,1); alpha = (1+eps)/(1-eps) (Thm. 3.2, 4)")
      .real("qbar", &ArmBanditOptions::qbar, kPositive,
            "oversampling qbar > 0: p = min(1, qbar sigma_t^2) (Fig. 1); theory: 6 alpha log(4T/delta)/eps^2")
      .choice("dictionary", &ArmBanditOptions::dictionary, kDictionaryKindNames, "sampled (Fig. 1) or all pulled arms (exact)")
      .choice("sampling", &ArmBanditOptions::sampling, kDictionarySamplingNames,
              "fresh Bernoulli draws each step (Fig. 1) or coordinated (one uniform per arm)")
      .real("exact_above", &ArmBanditOptions::exact_above, kPositive,
            "use every pulled arm (exact) while the expected sampled dictionary is at least this fraction of them (> 1: never)");
  return t;
}

const Table& gp_ucb_arms_options() {
  static const Table table = shared_table();
  return table;
}

const Table& bkb_options() {
  static const Table table =
      sketch_table()
          .choice("mode", &ArmBanditOptions::mode, kBkbModeNames,
                  "arms: best arm (Fig. 1); continuous: maximize the score over the box from the best arms")
          .integer("continuous_starts", &ArmBanditOptions::continuous_starts, 1, kNoLimit,
                   "continuous mode: L-BFGS-B starts (the best arms)");
  return table;
}

const Table& bbkb_options() {
  static const Table table = sketch_table().real(
      "batch_ratio", &ArmBanditOptions::batch_ratio, kAboveOne,
      "C~ > 1: a batch goes on while 1 + the sum of its points' batch-start variances <= C~");
  return table;
}

/// The registration shared by the three arm bandits: Algorithm is built from its table's options.
template <class Algorithm>
AlgorithmInfo arm_bandit_info(const char* name, const char* summary, bool batch, const Table& (*table)()) {
  AlgorithmInfo info;
  info.name = name;
  info.family = "kernel";
  info.summary = summary;
  info.batch = batch;
  info.options = table().specs();
  info.create = [table](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<Algorithm>(space, direction, table().read(v), context);
  };
  return info;
}

/// BKB and BBKB take the horizon when they get one: preset=paper reads T (qbar of Thm. 4).
AlgorithmInfo with_paper_horizon(AlgorithmInfo info) {
  info.horizon = HorizonUse::Optional;
  info.horizon_help = "preset=paper: T in the qbar of Thm. 4";
  return info;
}

}  // namespace

void check_options(const ArmBanditOptions& o, const std::string& algorithm) {
  // The enums are checked for values outside their tables (a cast integer): IsValid of Ceres.
  if (!kArmBanditPresetNames.contains(o.preset) || !kArmSetKindNames.contains(o.arm_set) ||
      !kKernelTypeNames.contains(o.kernel) || !kKernelRefitNames.contains(o.refit) ||
      !kBkbBetaNames.contains(o.beta) || !kDictionaryKindNames.contains(o.dictionary) ||
      !kDictionarySamplingNames.contains(o.sampling) || !kBkbModeNames.contains(o.mode) ||
      !kFailedPointsNames.contains(o.failed_points))
    throw InvalidArgument(algorithm +
                          ": an option holds a value outside its enum (preset, arm_set, kernel, refit, beta, "
                          "dictionary, sampling, mode or failed_points)");
  const auto check = [&](const char* key, double x, const NumberRange& range) {
    if (!range.contains(x))
      option_table_detail::out_of_range(algorithm, key, option_table_detail::number_text(x), range.describe());
  };
  check("lengthscale", o.lengthscale, kPositive);
  check("outputscale", o.outputscale, kPositive);
  check("lambda", o.lambda, kPositive);
  check("xi", o.xi, kNonNegative);
  check("F", o.F, kNonNegative);
  check("delta", o.delta, kUnitOpen);
  check("beta_sd", o.beta_sd, kNonNegative);
  check("beta_scale", o.beta_scale, kNonNegative);
  check("eps", o.eps, kUnitOpen);
  check("qbar", o.qbar, kPositive);
  check("exact_above", o.exact_above, kPositive);
  check("batch_ratio", o.batch_ratio, kAboveOne);
  if (o.refit_every == 0) option_table_detail::out_of_range(algorithm, "refit_every", "0", ">= 1");
  if (o.continuous_starts == 0) option_table_detail::out_of_range(algorithm, "continuous_starts", "0", ">= 1");
}

AlgorithmInfo gp_ucb_arms_info() {
  return arm_bandit_info<GpUcbArms>(
      "gp-ucb-arms", "exact GP-UCB on a finite arm set (the reference of BKB: same kernel, lambda and beta)", false,
      gp_ucb_arms_options);
}

AlgorithmInfo bkb_info() {
  return with_paper_horizon(arm_bandit_info<Bkb>(
      "bkb", "BKB: GP-UCB on a finite arm set with an adaptively sampled Nystrom dictionary (Calandriello et al., COLT 2019)",
      false, bkb_options));
}

AlgorithmInfo bbkb_info() {
  return with_paper_horizon(arm_bandit_info<Bbkb>(
      "bbkb",
      "BBKB: batched BKB with adaptive batches and resparsification at batch ends (Calandriello et al., ICML 2020)",
      true, bbkb_options));
}

}  // namespace optimist
