// BKB (Calandriello et al., COLT 2019, Fig. 1) and exact GP-UCB on the same finite arm set.
#include "optimist/algorithms/bandit/bkb.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace optimist {

namespace {

[[noreturn]] void bad_option(const std::string& key, double value, const char* allowed) {
  std::string msg = key;
  msg += " = ";
  std::ostringstream os;
  os << value;
  msg += os.str();
  msg += " is invalid (";
  msg += allowed;
  msg += ")";
  throw InvalidArgument(msg);
}

void validate(const ArmBanditOptions& o, bool bkb) {
  if (!(o.lengthscale > 0) || !std::isfinite(o.lengthscale)) bad_option("lengthscale", o.lengthscale, "must be > 0");
  if (!(o.outputscale > 0) || !std::isfinite(o.outputscale)) bad_option("outputscale", o.outputscale, "must be > 0");
  if (!(o.lambda > 0) || !std::isfinite(o.lambda)) bad_option("lambda", o.lambda, "must be > 0");
  if (!(o.xi >= 0) || !std::isfinite(o.xi)) bad_option("xi", o.xi, "must be >= 0");
  if (!(o.F >= 0) || !std::isfinite(o.F)) bad_option("F", o.F, "must be >= 0");
  if (!(o.delta > 0 && o.delta < 1)) bad_option("delta", o.delta, "must be in (0, 1)");
  if (!(o.beta_scale >= 0) || !std::isfinite(o.beta_scale)) bad_option("beta_scale", o.beta_scale, "must be >= 0");
  if (o.beta != "theorem4" && o.beta != "scaled" && o.beta != "fixed") {
    std::string msg = "beta: unknown value '";
    msg += o.beta;
    msg += "' (allowed: theorem4, scaled, fixed)";
    throw InvalidArgument(msg);
  }
  if (bkb) {
    if (!(o.eps > 0 && o.eps < 1)) bad_option("eps", o.eps, "must be in (0, 1)");
    if (!(o.qbar > 0) || !std::isfinite(o.qbar)) bad_option("qbar", o.qbar, "must be > 0");
    if (o.dictionary != "sampled" && o.dictionary != "all") {
      std::string msg = "dictionary: unknown value '";
      msg += o.dictionary;
      msg += "' (allowed: sampled, all)";
      throw InvalidArgument(msg);
    }
    if (o.mode != "arms" && o.mode != "continuous") {
      std::string msg = "mode: unknown value '";
      msg += o.mode;
      msg += "' (allowed: arms, continuous)";
      throw InvalidArgument(msg);
    }
    if (o.continuous_starts == 0) bad_option("continuous_starts", 0.0, "must be >= 1");
  }
}

Kernel make_kernel(const Space& space, const ArmBanditOptions& o) {
  return Kernel(parse_kernel_type(o.kernel), Vector::Constant(static_cast<Eigen::Index>(space.dim()), o.lengthscale),
                o.outputscale);
}

Matrix gather(const Matrix& arms, const std::vector<std::size_t>& idx) {
  Matrix out(arms.rows(), static_cast<Eigen::Index>(idx.size()));
  for (std::size_t j = 0; j < idx.size(); ++j) out.col(static_cast<Eigen::Index>(j)) = arms.col(static_cast<Eigen::Index>(idx[j]));
  return out;
}

constexpr std::uint64_t kDictionaryStream = 0x424b42444943ULL;  // "BKBDIC"

}  // namespace

double bkb_theory_qbar(double eps, double delta, std::size_t horizon) {
  const double alpha = (1.0 + eps) / (1.0 - eps);
  return 6.0 * alpha * std::log(4.0 * static_cast<double>(std::max<std::size_t>(horizon, 1)) / delta) / (eps * eps);
}

// ---------------------------------------------------------------- ArmBandit

ArmBandit::ArmBandit(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
                     const RunContext& context)
    : Optimizer(std::move(name), space, direction, context), kernel_(make_kernel(space, options)), opt_(options) {
  validate(opt_, this->name() != "gp-ucb-arms");
  if (!opt_.arms_file.empty())
    init(space, read_arms_file(space, opt_.arms_file));
  else
    init(space, generate_arms(space, parse_arm_set(opt_.arm_set), opt_.arms, seed()));
}

ArmBandit::ArmBandit(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
                     const Matrix& user_arms, const RunContext& context)
    : Optimizer(std::move(name), space, direction, context), kernel_(make_kernel(space, options)), opt_(options) {
  validate(opt_, this->name() != "gp-ucb-arms");
  init(space, arms_from_user_points(space, user_arms));
}

void ArmBandit::init(const Space&, const Matrix& unit_arms) {
  arms_ = unit_arms;
  counts_.assign(num_arms(), 0);
  sums_ = Vector::Zero(arms_.cols());
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
  return num_arms() - 1;
}

double ArmBandit::beta_t(double sum_sigma2_pulled) const {
  // Thm. 4: beta_t = 2 xi sqrt(alpha log(kappa^2 t) sum_s sigma_t^2(x_s) + log(1/delta))
  //                  + (1 + 1/sqrt(1 - eps)) sqrt(lambda) F.
  if (opt_.beta == "fixed") return opt_.beta_scale;
  const double kappa2 = kernel_.variance();
  const double logk = std::max(0.0, std::log(kappa2 * static_cast<double>(std::max<std::uint64_t>(t_, 1))));
  const double b = 2.0 * opt_.xi * std::sqrt(alpha() * logk * sum_sigma2_pulled + std::log(1.0 / opt_.delta)) +
                   (1.0 + 1.0 / std::sqrt(1.0 - eps())) * std::sqrt(opt_.lambda) * opt_.F;
  return opt_.beta == "scaled" ? opt_.beta_scale * b : b;
}

std::vector<Vector> ArmBandit::propose(std::size_t) {
  if (t_ == 0) {  // Fig. 1: x_1 uniformly at random (skipping pending arms)
    std::vector<char> is_pending(num_arms(), 0);
    for (const auto& p : pending())
      for (Eigen::Index j = 0; j < arms_.cols(); ++j)
        if ((arms_.col(j) - p.unit).cwiseAbs().maxCoeff() <= 1e-9) is_pending[static_cast<std::size_t>(j)] = 1;
    Rng rng = rng_for_ask();
    std::size_t a = static_cast<std::size_t>(rng.below(num_arms()));
    for (std::size_t k = 0; k < num_arms() && is_pending[a]; ++k) a = (a + 1) % num_arms();
    return {arms_.col(static_cast<Eigen::Index>(a))};
  }
  return {arms_.col(static_cast<Eigen::Index>(top_arms(1).front()))};
}

std::vector<std::size_t> ArmBandit::top_arms(std::size_t k, Vector* scores) {
  std::vector<char> is_pending(num_arms(), 0);
  for (const auto& p : pending()) {
    for (Eigen::Index j = 0; j < arms_.cols(); ++j)
      if ((arms_.col(j) - p.unit).cwiseAbs().maxCoeff() <= 1e-9) {
        is_pending[static_cast<std::size_t>(j)] = 1;
        break;
      }
  }
  // A deterministic objective (RunContext::noisy false): an arm whose point has been evaluated is
  // not pulled again, as a pending one (docs/discrete.md).
  if (avoids_repeats())
    for (std::size_t a = 0; a < num_arms(); ++a)
      if (!is_pending[a] && is_taken(arms_.col(static_cast<Eigen::Index>(a)))) is_pending[a] = 1;
  const bool all_pending = std::all_of(is_pending.begin(), is_pending.end(), [](char c) { return c != 0; });
  Vector mean, var;
  posterior(mean, var);
  double sum = 0.0;  // sum_{s <= t} sigma_t^2(x_s), repeated pulls counted
  for (std::size_t a : pulled_) sum += static_cast<double>(counts_[a]) * var[static_cast<Eigen::Index>(a)];
  last_beta_ = beta_t(sum);
  // eq. (4): u_t(x) = mu_t(x) + beta_t sigma_t(x); argmax over the arms (lowest index on ties).
  Vector u = mean + last_beta_ * var.cwiseMax(0.0).cwiseSqrt();
  std::vector<std::size_t> order;
  for (std::size_t a = 0; a < num_arms(); ++a)
    if (!is_pending[a] || all_pending) order.push_back(a);
  k = std::min(k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      const double ua = u[static_cast<Eigen::Index>(a)], ub = u[static_cast<Eigen::Index>(b)];
                      return ua > ub || (ua == ub && a < b);
                    });
  order.resize(k);
  if (scores) *scores = std::move(u);
  return order;
}

void ArmBandit::observe(const Observation& obs, double y) {
  const std::size_t a = match_arm(space().to_unit(obs.trial.x));
  before_update(a);
  if (counts_[a] == 0) pulled_.push_back(a);
  ++counts_[a];
  sums_[static_cast<Eigen::Index>(a)] += y;
  ++t_;
}

Vector ArmBandit::recommend_unit() const {
  if (t_ == 0) return Optimizer::recommend_unit();
  // The pulled arm with the highest posterior mean.
  Vector mean, var;
  posterior(mean, var);
  std::size_t best = pulled_.front();
  for (std::size_t a : pulled_)
    if (mean[static_cast<Eigen::Index>(a)] > mean[static_cast<Eigen::Index>(best)]) best = a;
  return arms_.col(static_cast<Eigen::Index>(best));
}

nlohmann::json ArmBandit::diagnostics() const {
  return {{"beta", last_beta_}, {"distinct_pulled", pulled_.size()}, {"arms", num_arms()}};
}

// ---------------------------------------------------------------- BKB

Bkb::Bkb(const Space& space, Direction direction, const ArmBanditOptions& options, const RunContext& context)
    : Bkb("bkb", space, direction, options, context) {}
Bkb::Bkb(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
         const RunContext& context)
    : Bkb("bkb", space, direction, options, user_arms, context) {}
Bkb::Bkb(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
         const RunContext& context)
    : ArmBandit(std::move(name), space, direction, options, context) {}
Bkb::Bkb(std::string name, const Space& space, Direction direction, const ArmBanditOptions& options,
         const Matrix& user_arms, const RunContext& context)
    : ArmBandit(std::move(name), space, direction, options, user_arms, context) {}

Bkb::Embedding Bkb::embed() const {
  // z(x) = (K_S^1/2)^+ k_S(x) = Lambda_r^-1/2 Q_r^T k_S(x) for K_S = Q Lambda Q^T, keeping the
  // eigenvalues above a relative 1e-12 (the pseudo-inverse; the rotation Q drops out of eq. 4).
  Embedding e;
  const Matrix S = gather(arms_, dict_);
  if (S.cols() == 0) {
    e.W.resize(0, 0);
    return e;
  }
  Eigen::SelfAdjointEigenSolver<Matrix> es(kernel_.gram(S));
  const Vector& ev = es.eigenvalues();
  const double tol = 1e-12 * std::max(ev.maxCoeff(), std::numeric_limits<double>::min());
  Eigen::Index r = 0;
  for (Eigen::Index i = 0; i < ev.size(); ++i) r += ev[i] > tol ? 1 : 0;
  e.W.resize(r, S.cols());
  Eigen::Index row = 0;
  for (Eigen::Index i = 0; i < ev.size(); ++i)
    if (ev[i] > tol) e.W.row(row++) = es.eigenvectors().col(i).transpose() / std::sqrt(ev[i]);
  return e;
}

void Bkb::model(const std::vector<std::size_t>* idx, Vector& mean, Vector& variance) const {
  const Eigen::Index n = idx ? static_cast<Eigen::Index>(idx->size()) : arms_.cols();
  const double lam = opt_.lambda, kxx = kernel_.variance();
  if (dict_.empty()) {  // z = 0: mu = 0, sigma^2 = k(x,x) / lambda
    mean = Vector::Zero(n);
    variance = Vector::Constant(n, kxx / lam);
    return;
  }
  const Embedding e = embed();
  const Matrix S = gather(arms_, dict_);
  const Eigen::Index r = e.W.rows();
  // V_t = sum_a n_a z_a z_a^T + lambda I and Z^T y = sum_a s_a z_a over the distinct pulled arms.
  const Matrix Zp = e.W * kernel_.cross(S, gather(arms_, pulled_));
  Vector w(static_cast<Eigen::Index>(pulled_.size()));
  Vector s(w.size());
  for (std::size_t j = 0; j < pulled_.size(); ++j) {
    w[static_cast<Eigen::Index>(j)] = static_cast<double>(counts_[pulled_[j]]);
    s[static_cast<Eigen::Index>(j)] = sums_[static_cast<Eigen::Index>(pulled_[j])];
  }
  Matrix V = Zp * w.asDiagonal() * Zp.transpose();
  V.diagonal().array() += lam;
  const Eigen::LLT<Matrix> llt(V);
  if (llt.info() != Eigen::Success) throw NumericalError("bkb: Cholesky of V_t failed");
  // M = [W; L^-1 W], so one product with k_S(x) gives z(x) and L^-1 z(x).
  Matrix M(2 * r, e.W.cols());
  M.topRows(r) = e.W;
  M.bottomRows(r) = llt.matrixL().solve(e.W);
  const Vector c = llt.matrixL().solve(Zp * s);  // L^-1 Z^T y
  const Matrix X = idx ? gather(arms_, *idx) : arms_;
  const Matrix P = M * kernel_.cross(S, X);  // 2r x n
  // eq. (4): mu = z^T V^-1 Z^T y; sigma^2 = (k(x,x) - z^T Z^T Z V^-1 z) / lambda
  //        = (k(x,x) - ||z||^2) / lambda + ||L^-1 z||^2  (since Z^T Z V^-1 = I - lambda V^-1).
  mean = P.bottomRows(r).transpose() * c;
  variance.resize(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    const double nystrom = P.col(j).head(r).squaredNorm();
    variance[j] = std::max(0.0, kxx - nystrom) / lam + P.col(j).tail(r).squaredNorm();
  }
}

void Bkb::posterior(Vector& mean, Vector& variance) const { model(nullptr, mean, variance); }

void Bkb::before_update(std::size_t arm) {
  // Fig. 1: S_{t+1} from the pulls i in [t+1], each included with p = min(1, qbar sigma_t^2(x_i)),
  // sigma_t^2 from the current model (S_t, t pulls). An arm pulled n times (counting this pull)
  // joins with probability 1 - (1 - p)^n; it is stored once.
  score_model_valid_ = false;
  std::vector<std::size_t> cand = pulled_;
  if (counts_[arm] == 0) cand.push_back(arm);
  if (opt_.dictionary == "all") {
    dict_ = cand;
    return;
  }
  Vector mean, var;
  model(&cand, mean, var);
  Rng rng(derive_seed(derive_seed(seed(), kDictionaryStream), t_));
  std::vector<std::size_t> next;
  for (std::size_t j = 0; j < cand.size(); ++j) {
    const std::size_t a = cand[j];
    const double p = std::min(1.0, opt_.qbar * var[static_cast<Eigen::Index>(j)]);
    const double n = static_cast<double>(counts_[a] + (a == arm ? 1 : 0));
    const double include = 1.0 - std::pow(1.0 - p, n);
    if (rng.uniform() < include) next.push_back(a);
  }
  dict_ = std::move(next);
}

nlohmann::json Bkb::diagnostics() const {
  nlohmann::json j = ArmBandit::diagnostics();
  j["dictionary_size"] = dict_.size();
  return j;
}

// ---------------------------------------------------------------- exact GP-UCB on arms

GpUcbArms::GpUcbArms(const Space& space, Direction direction, const ArmBanditOptions& options,
                     const RunContext& context)
    : ArmBandit("gp-ucb-arms", space, direction, options, context) {}
GpUcbArms::GpUcbArms(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
                     const RunContext& context)
    : ArmBandit("gp-ucb-arms", space, direction, options, user_arms, context) {}

void GpUcbArms::posterior(Vector& mean, Vector& variance) const {
  const Eigen::Index n = arms_.cols();
  const double lam = opt_.lambda, kxx = kernel_.variance();
  if (pulled_.empty()) {
    mean = Vector::Zero(n);
    variance = Vector::Constant(n, kxx / lam);
    return;
  }
  // eqs. (1)-(2) over the distinct pulled arms U: (K_U + lambda N^-1)^-1 applied to the mean
  // rewards; variance scaled by 1/lambda as in eq. (8).
  const Matrix U = gather(arms_, pulled_);
  Matrix K = kernel_.gram(U);
  Vector ybar(U.cols());
  for (std::size_t j = 0; j < pulled_.size(); ++j) {
    const auto i = static_cast<Eigen::Index>(j);
    const double nj = static_cast<double>(counts_[pulled_[j]]);
    K(i, i) += lam / nj;
    ybar[i] = sums_[static_cast<Eigen::Index>(pulled_[j])] / nj;
  }
  const Eigen::LLT<Matrix> llt(K);
  if (llt.info() != Eigen::Success) throw NumericalError("gp-ucb-arms: Cholesky failed");
  const Matrix B = llt.matrixL().solve(kernel_.cross(U, arms_));
  const Vector c = llt.matrixL().solve(ybar);
  mean = B.transpose() * c;
  variance = ((kxx - B.colwise().squaredNorm().transpose().array()).max(0.0) / lam).matrix();
}

// ---------------------------------------------------------------- registration

std::vector<OptionSpec> arm_bandit_option_specs(bool bkb_only) {
  const ArmBanditOptions d;
  std::vector<OptionSpec> o = {
      {"arms", d.arms, "number of generated arms A (grid: at most A)", {}},
      {"arm_set", d.arm_set, "how arms are generated over the space", {"sobol", "uniform", "grid"}},
      {"arms_file", d.arms_file, "JSON or CSV file of user points used as the arms (overrides arms/arm_set)", {}},
      {"kernel", d.kernel, "fixed kernel type", {"matern52", "matern32", "rbf"}},
      {"lengthscale", d.lengthscale, "fixed kernel lengthscale on unit-cube inputs", {}},
      {"outputscale", d.outputscale, "kernel variance kappa^2 = k(x,x)", {}},
      {"lambda", d.lambda, "ridge regularization lambda (xi^2 for Gaussian noise)", {}},
      {"xi", d.xi, "noise scale xi in beta_t (Thm. 4)", {}},
      {"F", d.F, "bound F on the RKHS norm of f (Thm. 4)", {}},
      {"delta", d.delta, "confidence delta (Thm. 4)", {}},
      {"beta", d.beta, "beta_t: Thm. 4, beta_scale x Thm. 4, or the constant beta_scale", {"theorem4", "scaled", "fixed"}},
      {"beta_scale", d.beta_scale, "factor (scaled) or value (fixed) of beta_t", {}},
  };
  if (bkb_only) {
    o.push_back({"eps", d.eps, "accuracy epsilon in (0,1); alpha = (1+eps)/(1-eps) (Thm. 3.2, 4)", {}});
    o.push_back({"qbar", d.qbar, "oversampling qbar > 0: p = min(1, qbar sigma_t^2) (Fig. 1); theory: 6 alpha log(4T/delta)/eps^2", {}});
    o.push_back({"dictionary", d.dictionary, "sampled (Fig. 1) or all pulled arms (exact)", {"sampled", "all"}});
    o.push_back({"mode", d.mode, "arms: best arm (Fig. 1); continuous: maximize the score over the box from the best arms",
                 {"arms", "continuous"}});
    o.push_back({"continuous_starts", d.continuous_starts, "continuous mode: L-BFGS-B starts (the best arms)", {}});
  }
  return o;
}

ArmBanditOptions arm_bandit_options(const OptionValues& v, bool bkb_only) {
  ArmBanditOptions o;
  o.arms = v.get<std::size_t>("arms");
  o.arm_set = v.get<std::string>("arm_set");
  o.arms_file = v.get<std::string>("arms_file");
  o.kernel = v.get<std::string>("kernel");
  o.lengthscale = v.get<double>("lengthscale");
  o.outputscale = v.get<double>("outputscale");
  o.lambda = v.get<double>("lambda");
  o.xi = v.get<double>("xi");
  o.F = v.get<double>("F");
  o.delta = v.get<double>("delta");
  o.beta = v.get<std::string>("beta");
  o.beta_scale = v.get<double>("beta_scale");
  if (bkb_only) {
    o.eps = v.get<double>("eps");
    o.qbar = v.get<double>("qbar");
    o.dictionary = v.get<std::string>("dictionary");
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
  info.summary = "exact GP-UCB on a finite arm set, fixed kernel (the reference of BKB)";
  info.batch = false;
  info.options = arm_bandit_option_specs(false);
  info.create = [](const Space& space, Direction direction, const OptionValues& v, const RunContext& context) {
    return std::make_unique<GpUcbArms>(space, direction, arm_bandit_options(v, false), context);
  };
  return info;
}

}  // namespace optimist
