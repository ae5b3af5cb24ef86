// The machinery BKB, BBKB and exact GP-UCB on arms share: options and presets, arm matching, pull
// counts, reward standardization, kernel refits, the UCB argmax and the beta_t schedules.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/models/gp/gaussian_process.hpp"

namespace optimist {

namespace {

[[noreturn]] void bad_option(const std::string& key, double value, const char* allowed) {
  std::ostringstream os;
  os << key << " = " << value << " is invalid (" << allowed << ")";
  throw InvalidArgument(os.str());
}

void check_choice(const std::string& key, const std::string& value, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (value == a) return;
    list += list.empty() ? "" : ", ";
    list += a;
  }
  throw InvalidArgument(key + ": unknown value '" + value + "' (allowed: " + list + ")");
}

void validate(const ArmBanditOptions& o, bool bkb) {
  check_choice("preset", o.preset, {"default", "paper"});
  if (!(o.lengthscale > 0) || !std::isfinite(o.lengthscale)) bad_option("lengthscale", o.lengthscale, "must be > 0");
  if (!(o.outputscale > 0) || !std::isfinite(o.outputscale)) bad_option("outputscale", o.outputscale, "must be > 0");
  if (!(o.lambda > 0) || !std::isfinite(o.lambda)) bad_option("lambda", o.lambda, "must be > 0");
  if (!(o.xi >= 0) || !std::isfinite(o.xi)) bad_option("xi", o.xi, "must be >= 0");
  if (!(o.F >= 0) || !std::isfinite(o.F)) bad_option("F", o.F, "must be >= 0");
  if (!(o.delta > 0 && o.delta < 1)) bad_option("delta", o.delta, "must be in (0, 1)");
  if (!(o.beta_scale >= 0) || !std::isfinite(o.beta_scale)) bad_option("beta_scale", o.beta_scale, "must be >= 0");
  if (!(o.beta_sd >= 0) || !std::isfinite(o.beta_sd)) bad_option("beta_sd", o.beta_sd, "must be >= 0");
  check_choice("beta", o.beta, {"practical", "theorem4", "scaled", "fixed"});
  check_choice("refit", o.refit, {"ml", "none"});
  if (o.refit_every == 0) bad_option("refit_every", 0.0, "must be >= 1");
  if (bkb) {
    if (!(o.eps > 0 && o.eps < 1)) bad_option("eps", o.eps, "must be in (0, 1)");
    if (!(o.qbar > 0) || !std::isfinite(o.qbar)) bad_option("qbar", o.qbar, "must be > 0");
    check_choice("dictionary", o.dictionary, {"sampled", "all"});
    check_choice("sampling", o.sampling, {"coordinated", "fresh"});
    if (!(o.exact_above > 0) || !std::isfinite(o.exact_above)) bad_option("exact_above", o.exact_above, "must be > 0");
    check_choice("mode", o.mode, {"arms", "continuous"});
    if (o.continuous_starts == 0) bad_option("continuous_starts", 0.0, "must be >= 1");
  }
}

// preset = "paper": Fig. 1 and Thm. 4 as stated (docs/bkb.md lists what it sets).
ArmBanditOptions resolve_preset(ArmBanditOptions o, const RunContext& context) {
  if (o.preset != "paper") return o;
  o.beta = "theorem4";
  o.refit = "none";
  o.standardize = false;
  o.sampling = "fresh";
  o.exact_above = 2.0;  // never
  if (context.horizon) o.qbar = bkb_theory_qbar(o.eps, o.delta, *context.horizon);
  return o;
}

Kernel make_kernel(const Space& space, const ArmBanditOptions& o) {
  return Kernel(parse_kernel_type(o.kernel), Vector::Constant(static_cast<Eigen::Index>(space.dim()), o.lengthscale),
                o.outputscale);
}

constexpr std::uint64_t kFitStream = 0x424b42464954ULL;  // "BKBFIT"

}  // namespace

double bkb_theory_qbar(double eps, double delta, std::size_t horizon) {
  const double alpha = (1.0 + eps) / (1.0 - eps);
  return 6.0 * alpha * std::log(4.0 * static_cast<double>(std::max<std::size_t>(horizon, 1)) / delta) / (eps * eps);
}

ArmBandit::ArmBandit(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
                     const RunContext& context)
    : Optimizer(std::move(name), space, direction, context), kernel_(make_kernel(space, options)), opt_(options) {
  validate(opt_, this->name() != "gp-ucb-arms");
  opt_ = resolve_preset(opt_, context);
  if (!opt_.arms_file.empty())
    init(read_arms_file(space, opt_.arms_file));
  else
    init(generate_arms(space, parse_arm_set(opt_.arm_set), opt_.arms, seed()));
}

ArmBandit::ArmBandit(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
                     const Matrix& user_arms, const RunContext& context)
    : Optimizer(std::move(name), space, direction, context), kernel_(make_kernel(space, options)), opt_(options) {
  validate(opt_, this->name() != "gp-ucb-arms");
  opt_ = resolve_preset(opt_, context);
  init(arms_from_user_points(space, user_arms));
}

void ArmBandit::init(const Matrix& unit_arms) {
  arms_ = unit_arms;
  counts_.assign(num_arms(), 0);
  sums_ = Vector::Zero(arms_.cols());
  next_refit_ = space().dim() + 1;
  // top_arms' A-sized work vectors, allocated and touched here: fresh memory at a step costs page
  // faults, more than the arithmetic of the first steps.
  mean_buf_.setZero(arms_.cols());
  var_buf_.setZero(arms_.cols());
  score_buf_.setZero(arms_.cols());
  order_buf_.assign(num_arms(), 0);
  pending_buf_.assign(num_arms(), 0);
}

std::size_t ArmBandit::match_arm(const Vector& unit) {
  // Nearest arm in the max-norm; a point farther than 1e-9 from every arm becomes a new arm.
  std::size_t best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (Eigen::Index j = 0; j < arms_.cols(); ++j) {
    const double dist = (arms_.col(j) - unit).cwiseAbs().maxCoeff();
    if (dist < best_d) {
      best_d = dist;
      best = static_cast<std::size_t>(j);
      if (dist == 0.0) break;
    }
  }
  if (best_d <= 1e-9) return best;
  arms_.conservativeResize(Eigen::NoChange, arms_.cols() + 1);
  arms_.col(arms_.cols() - 1) = space().snap_unit(unit);
  counts_.push_back(0);
  sums_.conservativeResize(sums_.size() + 1);
  sums_[sums_.size() - 1] = 0.0;
  on_new_arms();
  return num_arms() - 1;
}

double ArmBandit::reward_offset() const {
  return opt_.standardize && t_ > 0 ? sum_y_ / static_cast<double>(t_) : 0.0;
}

double ArmBandit::reward_scale() const {
  if (!opt_.standardize || t_ < 2) return 1.0;
  const double n = static_cast<double>(t_);
  const double var = std::max(0.0, sum_y2_ / n - (sum_y_ / n) * (sum_y_ / n));
  const double sd = std::sqrt(var);
  return sd > 1e-12 * std::max(1.0, std::abs(sum_y_ / n)) ? sd : 1.0;
}

void ArmBandit::posterior(Vector& mean, Vector& variance) const {
  model(mean, variance);
  mean = (reward_offset() + reward_scale() * mean.array()).matrix();
}

double ArmBandit::beta_t(double sum_sigma2_pulled) const {
  // Practical: mu + beta_sd posterior standard deviations, sigma_t = sd / sqrt(lambda) (eq. 8 scaling).
  if (opt_.beta == "practical") return opt_.beta_sd * std::sqrt(opt_.lambda);
  if (opt_.beta == "fixed") return opt_.beta_scale;
  // Thm. 4: beta_t = 2 xi sqrt(alpha log(kappa^2 t) sum_s sigma_t^2(x_s) + log(1/delta))
  //                  + (1 + 1/sqrt(1 - eps)) sqrt(lambda) F.
  const double kappa2 = kernel_.variance();
  const double logk = std::max(0.0, std::log(kappa2 * static_cast<double>(std::max<std::uint64_t>(t_, 1))));
  const double b = 2.0 * opt_.xi * std::sqrt(alpha() * logk * sum_sigma2_pulled + std::log(1.0 / opt_.delta)) +
                   (1.0 + 1.0 / std::sqrt(1.0 - eps())) * std::sqrt(opt_.lambda) * opt_.F;
  return opt_.beta == "scaled" ? opt_.beta_scale * b : b;
}

const std::vector<char>& ArmBandit::pending_mask() const {
  std::vector<char>& is_pending = pending_buf_;
  is_pending.assign(num_arms(), 0);
  for (const auto& p : pending())
    for (Eigen::Index j = 0; j < arms_.cols(); ++j)
      if ((arms_.col(j) - p.unit).cwiseAbs().maxCoeff() <= 1e-9) {
        is_pending[static_cast<std::size_t>(j)] = 1;
        break;
      }
  return is_pending;
}

std::vector<Vector> ArmBandit::propose(std::size_t) {
  if (t_ == 0) {  // Fig. 1: x_1 uniformly at random (skipping pending arms)
    const std::vector<char>& is_pending = pending_mask();
    Rng rng = rng_for_ask();
    std::size_t a = static_cast<std::size_t>(rng.below(num_arms()));
    for (std::size_t k = 0; k < num_arms() && is_pending[a]; ++k) a = (a + 1) % num_arms();
    return {arms_.col(static_cast<Eigen::Index>(a))};
  }
  return {arms_.col(static_cast<Eigen::Index>(top_arms(1).front()))};
}

std::vector<std::size_t> ArmBandit::top_arms(std::size_t k, Vector* scores) {
  pending_mask();
  std::vector<char>& is_pending = pending_buf_;
  // A deterministic objective (RunContext::noisy false): an arm whose point has been evaluated is
  // not pulled again, as a pending one (docs/discrete.md).
  if (avoids_repeats())
    for (std::size_t a = 0; a < num_arms(); ++a)
      if (!is_pending[a] && is_taken(arms_.col(static_cast<Eigen::Index>(a)))) is_pending[a] = 1;
  const bool all_pending = std::all_of(is_pending.begin(), is_pending.end(), [](char c) { return c != 0; });
  Vector& mean = mean_buf_;
  Vector& var = var_buf_;
  model(mean, var);
  double sum = 0.0;  // sum_{s <= t} sigma_t^2(x_s), repeated pulls counted
  for (std::size_t a : pulled_) sum += static_cast<double>(counts_[a]) * var[static_cast<Eigen::Index>(a)];
  last_beta_ = beta_t(sum);
  last_deff_ = sum;
  // eq. (4): u_t(x) = mu_t(x) + beta_t sigma_t(x); argmax over the arms (lowest index on ties).
  Vector& u = score_buf_;
  u = mean + last_beta_ * var.cwiseMax(0.0).cwiseSqrt();
  std::vector<std::size_t>& order = order_buf_;
  order.clear();
  for (std::size_t a = 0; a < num_arms(); ++a)
    if (!is_pending[a] || all_pending) order.push_back(a);
  k = std::min(k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      const double ua = u[static_cast<Eigen::Index>(a)], ub = u[static_cast<Eigen::Index>(b)];
                      return ua > ub || (ua == ub && a < b);
                    });
  if (scores) *scores = u;
  return {order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k)};
}

void ArmBandit::observe(const Observation& obs, double y) {
  const std::size_t a = match_arm(space().to_unit(obs.trial.x));
  before_update(a);
  if (counts_[a] == 0) pulled_.push_back(a);
  ++counts_[a];
  sums_[static_cast<Eigen::Index>(a)] += y;
  sum_y_ += y;
  sum_y2_ += y * y;
  ++t_;
  after_update(a, y);
}

Vector ArmBandit::recommend_unit() const {
  if (t_ == 0) return Optimizer::recommend_unit();
  // The pulled arm with the highest posterior mean.
  Vector mean, var;
  model(mean, var);
  std::size_t best = pulled_.front();
  for (std::size_t a : pulled_)
    if (mean[static_cast<Eigen::Index>(a)] > mean[static_cast<Eigen::Index>(best)]) best = a;
  return arms_.col(static_cast<Eigen::Index>(best));
}

bool ArmBandit::refit_due() const { return opt_.refit == "ml" && t_ >= next_refit_; }

bool ArmBandit::refit_kernel(const std::vector<std::size_t>& fit_arms) {
  // Next refit: doubling t, at most refit_every steps later.
  next_refit_ = t_ + std::min<std::uint64_t>(std::max<std::uint64_t>(t_, 1), opt_.refit_every);
  if (fit_arms.size() < 3) return false;
  // Maximum marginal likelihood (MAP with the shared GP's priors) of the mean rewards of the arms,
  // standardized as the bandit sees them; the GP's noise is learned and not used afterwards.
  const auto d = arms_.rows();
  Matrix X(d, static_cast<Eigen::Index>(fit_arms.size()));
  Vector y(X.cols());
  const double y0 = reward_offset(), s = reward_scale();
  for (std::size_t j = 0; j < fit_arms.size(); ++j) {
    const auto a = static_cast<Eigen::Index>(fit_arms[j]);
    X.col(static_cast<Eigen::Index>(j)) = arms_.col(a);
    y[static_cast<Eigen::Index>(j)] = (sums_[a] / static_cast<double>(counts_[fit_arms[j]]) - y0) / s;
  }
  GpOptions go;
  go.kernel = kernel_.type();
  go.fit.max_points = 256;
  GaussianProcess gp(d, go);
  gp.set_data(X, y);
  GpHyperparameters h = gp.hyperparameters();
  h.lengthscales = kernel_.lengthscales().cwiseMax(go.min_lengthscale).cwiseMin(go.max_lengthscale);  // warm start
  gp.set_hyperparameters(h);
  Rng rng(derive_seed(derive_seed(seed(), kFitStream), t_));
  gp.fit(rng);
  const double gp_scale = gp.output_scale();
  kernel_ = Kernel(kernel_.type(), gp.hyperparameters().lengthscales, gp.hyperparameters().outputscale * gp_scale * gp_scale);
  ++refits_;
  return true;
}

nlohmann::json ArmBandit::diagnostics() const {
  nlohmann::json j = {{"beta", last_beta_}, {"d_eff", last_deff_}, {"distinct_pulled", pulled_.size()}, {"arms", num_arms()}};
  if (opt_.refit == "ml") {
    j["lengthscale"] = std::exp(kernel_.lengthscales().array().log().mean());  // geometric mean
    j["outputscale"] = kernel_.variance();
  }
  return j;
}

// ---------------------------------------------------------------- registration

std::vector<OptionSpec> arm_bandit_option_specs(bool bkb_only) {
  const ArmBanditOptions d;
  std::vector<OptionSpec> o = {
      {"preset", d.preset,
       "paper: Fig. 1 and Thm. 4 as stated (beta theorem4, fixed kernel, raw rewards, fresh sampling, no exact switch, "
       "qbar of Thm. 4 from the horizon)",
       {"default", "paper"}},
      {"arms", d.arms, "number of generated arms A (grid: at most A)", {}},
      {"arm_set", d.arm_set, "how arms are generated over the space", {"sobol", "uniform", "grid"}},
      {"arms_file", d.arms_file, "JSON or CSV file of user points used as the arms (overrides arms/arm_set)", {}},
      {"kernel", d.kernel, "kernel type", {"matern52", "matern32", "rbf"}},
      {"lengthscale", d.lengthscale, "kernel lengthscale on unit-cube inputs: fixed (refit=none) or the first guess", {}},
      {"outputscale", d.outputscale, "kernel variance kappa^2 = k(x,x): fixed (refit=none) or the first guess", {}},
      {"refit", d.refit, "ml: lengthscales and outputscale by maximum marginal likelihood on the dictionary, on a schedule",
       {"ml", "none"}},
      {"refit_every", d.refit_every, "refits at t = d+1 and doubling t, at most this many steps apart", {}},
      {"standardize", d.standardize, "centre the rewards on their mean and scale them by their sd (false: zero-mean model)", {}},
      {"lambda", d.lambda, "ridge regularization lambda (noise variance, standardized units)", {}},
      {"xi", d.xi, "noise scale xi in beta_t (Thm. 4)", {}},
      {"F", d.F, "bound F on the RKHS norm of f (Thm. 4)", {}},
      {"delta", d.delta, "confidence delta (Thm. 4)", {}},
      {"beta", d.beta, "beta_t: practical (beta_sd posterior sds), Thm. 4, beta_scale x Thm. 4, or the constant beta_scale",
       {"practical", "theorem4", "scaled", "fixed"}},
      {"beta_sd", d.beta_sd, "beta=practical: posterior standard deviations added to the mean", {}},
      {"beta_scale", d.beta_scale, "factor (scaled) or value (fixed) of beta_t", {}},
  };
  if (bkb_only) {
    o.push_back({"eps", d.eps, "accuracy epsilon in (0,1); alpha = (1+eps)/(1-eps) (Thm. 3.2, 4)", {}});
    o.push_back({"qbar", d.qbar, "oversampling qbar > 0: p = min(1, qbar sigma_t^2) (Fig. 1); theory: 6 alpha log(4T/delta)/eps^2", {}});
    o.push_back({"dictionary", d.dictionary, "sampled (Fig. 1) or all pulled arms (exact)", {"sampled", "all"}});
    o.push_back({"sampling", d.sampling, "fresh Bernoulli draws each step (Fig. 1) or coordinated (one uniform per arm)",
                 {"coordinated", "fresh"}});
    o.push_back({"exact_above", d.exact_above,
                 "use every pulled arm (exact) while the expected sampled dictionary is at least this fraction of them (> 1: never)", {}});
    o.push_back({"mode", d.mode, "arms: best arm (Fig. 1); continuous: maximize the score over the box from the best arms",
                 {"arms", "continuous"}});
    o.push_back({"continuous_starts", d.continuous_starts, "continuous mode: L-BFGS-B starts (the best arms)", {}});
  }
  return o;
}

ArmBanditOptions arm_bandit_options(const OptionValues& v, bool bkb_only) {
  ArmBanditOptions o;
  o.preset = v.get<std::string>("preset");
  o.arms = v.get<std::size_t>("arms");
  o.arm_set = v.get<std::string>("arm_set");
  o.arms_file = v.get<std::string>("arms_file");
  o.kernel = v.get<std::string>("kernel");
  o.lengthscale = v.get<double>("lengthscale");
  o.outputscale = v.get<double>("outputscale");
  o.refit = v.get<std::string>("refit");
  o.refit_every = v.get<std::size_t>("refit_every");
  o.standardize = v.get<bool>("standardize");
  o.lambda = v.get<double>("lambda");
  o.xi = v.get<double>("xi");
  o.F = v.get<double>("F");
  o.delta = v.get<double>("delta");
  o.beta = v.get<std::string>("beta");
  o.beta_sd = v.get<double>("beta_sd");
  o.beta_scale = v.get<double>("beta_scale");
  if (bkb_only) {
    o.eps = v.get<double>("eps");
    o.qbar = v.get<double>("qbar");
    o.dictionary = v.get<std::string>("dictionary");
    o.sampling = v.get<std::string>("sampling");
    o.exact_above = v.get<double>("exact_above");
    if (v.json().contains("mode")) o.mode = v.get<std::string>("mode");
    if (v.json().contains("continuous_starts")) o.continuous_starts = v.get<std::size_t>("continuous_starts");
    if (v.json().contains("batch_ratio")) o.batch_ratio = v.get<double>("batch_ratio");
  }
  return o;
}

AlgorithmInfo bkb_info() {
  AlgorithmInfo info;
  info.name = "bkb";
  info.family = "kernel";
  info.summary = "BKB: GP-UCB on a finite arm set with an adaptively sampled Nystrom dictionary (Calandriello et al., COLT 2019)";
  info.batch = false;
  info.horizon = HorizonUse::Optional;
  info.horizon_help = "preset=paper: T in the qbar of Thm. 4";
  info.options = arm_bandit_option_specs(true);
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<Bkb>(space, direction, arm_bandit_options(v, true), context);
  };
  return info;
}

AlgorithmInfo gp_ucb_arms_info() {
  AlgorithmInfo info;
  info.name = "gp-ucb-arms";
  info.family = "kernel";
  info.summary = "exact GP-UCB on a finite arm set (the reference of BKB: same kernel, lambda and beta)";
  info.batch = false;
  info.options = arm_bandit_option_specs(false);
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<GpUcbArms>(space, direction, arm_bandit_options(v, false), context);
  };
  return info;
}

}  // namespace optimist
