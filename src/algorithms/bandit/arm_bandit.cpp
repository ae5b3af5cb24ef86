// The machinery BKB, BBKB and exact GP-UCB on arms share: options and presets, arm matching, pull
// counts, reward standardization, kernel refits, the UCB argmax and the beta_t schedules.
#include <algorithm>
#include <cmath>
#include <limits>

#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/models/gp/gaussian_process.hpp"

namespace optimist {

namespace {

// preset = paper: Fig. 1 and Thm. 4 as stated (docs/bkb.md lists what it sets).
ArmBanditOptions resolve_preset(ArmBanditOptions o, const RunContext& context) {
  if (o.preset != ArmBanditPreset::Paper) return o;
  o.beta = BkbBeta::Theorem4;
  o.refit = KernelRefit::None;
  o.standardize = false;
  o.sampling = DictionarySampling::Fresh;
  o.exact_above = 2.0;  // never
  o.failed_points = FailedPoints::Ignore;
  if (context.horizon) o.qbar = bkb_theory_qbar(o.eps, o.delta, *context.horizon);
  return o;
}

// The kernel of checked options (check_options first: the kernel_ member is built before opt_).
Kernel make_kernel(const Space& space, const ArmBanditOptions& o, const std::string& algorithm) {
  check_options(o, algorithm);
  return Kernel(o.kernel, Vector::Constant(static_cast<Eigen::Index>(space.dim()), o.lengthscale),
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
    : Optimizer(std::move(name), space, direction, context), kernel_(make_kernel(space, options, this->name())),
      opt_(resolve_preset(options, context)) {
  if (!opt_.arms_file.empty())
    init(read_arms_file(space, opt_.arms_file));
  else
    init(generate_arms(space, opt_.arm_set, opt_.arms, seed()));
}

ArmBandit::ArmBandit(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
                     const Matrix& user_arms, const RunContext& context)
    : Optimizer(std::move(name), space, direction, context), kernel_(make_kernel(space, options, this->name())),
      opt_(resolve_preset(options, context)) {
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
  return opt_.standardize && t_ > 0 ? rewards_.mean() : 0.0;
}

double ArmBandit::reward_scale() const {
  if (!opt_.standardize || t_ < 2) return 1.0;
  const double sd = rewards_.population_sd();
  // Relative to the values' size, as Standardization: values of 1e-300 (a likelihood, a p-value)
  // that differ are standardized, not left at 1e-300 for the kernel's refit to underflow on.
  return sd > 1e-12 * rewards_.max_abs() && std::isfinite(sd) ? sd : 1.0;
}

void ArmBandit::posterior(Vector& mean, Vector& variance) const {
  model(mean, variance);
  mean = (reward_offset() + reward_scale() * mean.array()).matrix();
}

double ArmBandit::beta_t(double sum_sigma2_pulled) const {
  // Practical: mu + beta_sd posterior standard deviations, sigma_t = sd / sqrt(lambda) (eq. 8 scaling).
  if (opt_.beta == BkbBeta::Practical) return opt_.beta_sd * std::sqrt(opt_.lambda);
  if (opt_.beta == BkbBeta::Fixed) return opt_.beta_scale;
  // Thm. 4: beta_t = 2 xi sqrt(alpha log(kappa^2 t) sum_s sigma_t^2(x_s) + log(1/delta))
  //                  + (1 + 1/sqrt(1 - eps)) sqrt(lambda) F.
  const double kappa2 = kernel_.variance();
  const double logk = std::max(0.0, std::log(kappa2 * static_cast<double>(std::max<std::uint64_t>(t_, 1))));
  const double b = 2.0 * opt_.xi * std::sqrt(alpha() * logk * sum_sigma2_pulled + std::log(1.0 / opt_.delta)) +
                   (1.0 + 1.0 / std::sqrt(1.0 - eps())) * std::sqrt(opt_.lambda) * opt_.F;
  return opt_.beta == BkbBeta::Scaled ? opt_.beta_scale * b : b;
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

void ArmBandit::observe_failure(const Observation& obs) {
  // A failed pull counts as the worst value seen so far (frozen: later worse values do not move
  // it, since the Nystrom state holds it). Before any success there is nothing to count it as.
  if (opt_.failed_points == FailedPoints::Worst && worst_) pull(obs, *worst_);
}

void ArmBandit::observe(const Observation& obs, double y) {
  worst_ = worst_ ? std::min(*worst_, y) : y;
  pull(obs, y);
}

void ArmBandit::pull(const Observation& obs, double y) {
  const std::size_t a = match_arm(obs.trial.unit);
  before_update(a);
  if (counts_[a] == 0) pulled_.push_back(a);
  ++counts_[a];
  sums_[static_cast<Eigen::Index>(a)] += y;
  rewards_.add(y);
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

bool ArmBandit::refit_due() const { return opt_.refit == KernelRefit::Ml && t_ >= next_refit_; }

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
  const double variance = gp.hyperparameters().outputscale * gp_scale * gp_scale;
  // Values that barely differ (sd below 1e-12 of their size) can leave no variance to learn: the
  // kernel stays as it was.
  if (!(variance > 0.0) || !std::isfinite(variance)) return false;
  kernel_ = Kernel(kernel_.type(), gp.hyperparameters().lengthscales, variance);
  ++refits_;
  return true;
}

nlohmann::json ArmBandit::diagnostics() const {
  nlohmann::json j = {{"beta", last_beta_}, {"d_eff", last_deff_}, {"distinct_pulled", pulled_.size()}, {"arms", num_arms()}};
  if (opt_.refit == KernelRefit::Ml) {
    j["lengthscale"] = std::exp(kernel_.lengthscales().array().log().mean());  // geometric mean
    j["outputscale"] = kernel_.variance();
  }
  return j;
}

}  // namespace optimist
