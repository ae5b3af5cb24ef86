#include "optimist/algorithms/kernel/turbo.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "algorithms/kernel/model_fit.hpp"
#include "optimist/core/sobol.hpp"
#include "optimist/models/gp/adam_fit.hpp"
#include "optimist/models/gp/linalg.hpp"

namespace optimist {

namespace {

constexpr std::uint64_t kFitStream = 0x7475'7262'6f00'0001ULL;
constexpr std::uint64_t kDesignStream = 0x7475'7262'6f00'0002ULL;

// The reference implementation's GP (turbo_1.py / gp.py): Matern-5/2 ARD, lengthscales in
// [0.005, 2], outputscale in [0.05, 20], noise in [5e-4, 0.2] on standardized outputs, fitted by
// maximum likelihood (no priors).
GpOptions turbo_model_options(const TurboOptions& o) {
  GpOptions g;
  g.kernel = parse_kernel_type(o.kernel);
  g.use_priors = false;
  g.min_lengthscale = 0.005;
  g.max_lengthscale = 2.0;
  g.min_outputscale = 0.05;
  g.max_outputscale = 20.0;
  g.min_noise_variance = 5e-4;
  g.max_noise_variance = 0.2;
  g.fit = kernel_detail::warm_fit_options();
  if (o.recipe == "ml" && o.prior == "gamma") {
    g.use_priors = true;
    g.lengthscale_prior = GammaPrior{3.0, 6.0};
    g.outputscale_prior = GammaPrior{2.0, 0.15};
  }
  return g;
}

}  // namespace

// ---- TrustRegion ----

std::size_t TrustRegion::default_failure_tolerance(std::size_t dim, std::size_t batch_size) {
  const double q = static_cast<double>(std::max<std::size_t>(batch_size, 1));
  return static_cast<std::size_t>(std::ceil(std::max(4.0 / q, static_cast<double>(dim) / q)));
}

TrustRegion::Event TrustRegion::update(bool success) {
  if (success) {
    ++successes;
    failures = 0;
  } else {
    ++failures;
    successes = 0;
  }
  if (successes >= success_tolerance) {
    length = std::min(2.0 * length, length_max);
    successes = 0;
    return Event::Expanded;
  }
  if (failures >= failure_tolerance) {
    length /= 2.0;
    failures = 0;
    return length < length_min ? Event::Collapsed : Event::Shrunk;
  }
  return Event::None;
}

void TrustRegion::restart() {
  length = length_init;
  successes = 0;
  failures = 0;
  ++restarts;
}

// ---- pathwise Thompson sampling ----

Matrix pathwise_thompson_samples(const GaussianProcess& gp, const Matrix& C, std::size_t q, std::size_t n_features, Rng& rng) {
  const Eigen::Index d = gp.dim(), n = gp.size();
  const auto Q = static_cast<Eigen::Index>(q), D = static_cast<Eigen::Index>(n_features);
  if (C.rows() != d) throw InvalidArgument("pathwise_thompson_samples: candidates of dimension " + std::to_string(C.rows()));
  if (D < 1 || Q < 1) throw InvalidArgument("pathwise_thompson_samples: need at least one feature and one sample");
  const Kernel& kernel = gp.kernel();
  const GpHyperparameters& h = gp.hyperparameters();

  // Spectral frequencies: N(0, diag(1/l^2)) for the squared exponential; for Matern-nu a
  // multivariate Student-t with 2 nu degrees of freedom (the normal divided by sqrt(chi2_2nu / 2nu)).
  int dof = 0;
  if (kernel.type() == KernelType::Matern52) dof = 5;
  if (kernel.type() == KernelType::Matern32) dof = 3;
  const double c = std::sqrt(2.0 * kernel.outputscale() / static_cast<double>(D));
  Matrix omega(D, d);
  Vector phase(D), w(D);
  // Each sample gets its own features, so that over the feature draw every sample's prior has
  // exactly the kernel's covariance (shared features would bias all q samples the same way).
  auto draw_prior = [&]() {
    for (Eigen::Index r = 0; r < D; ++r) {
      double scale = 1.0;
      if (dof > 0) {
        double chi2 = 0.0;
        for (int k = 0; k < dof; ++k) {
          const double z = rng.normal();
          chi2 += z * z;
        }
        scale = std::sqrt(dof / chi2);
      }
      for (Eigen::Index i = 0; i < d; ++i) omega(r, i) = scale * rng.normal() / kernel.lengthscales()[i];
      phase[r] = 2.0 * std::numbers::pi * rng.uniform();
      w[r] = rng.normal();
    }
  };
  // Prior draw f(x) = sqrt(2 s / D) cos(omega x + b)^T w (Rahimi & Recht 2007).
  auto prior = [&](const Matrix& P) -> Vector {
    Matrix arg = omega * P;
    arg.colwise() += phase;
    return c * (arg.array().cos().matrix().transpose() * w);
  };

  Matrix out(C.cols(), Q);  // standardized units around the constant mean
  Matrix r(n, Q);
  for (Eigen::Index j = 0; j < Q; ++j) {
    draw_prior();
    out.col(j) = prior(C);
    if (n > 0) r.col(j) = -prior(gp.inputs());
  }
  if (n > 0) {
    // Matheron's rule: add k(., X) (K + s2 I)^-1 (y_s - mean - prior(X) - eps), eps ~ N(0, s2 I).
    const Matrix& X = gp.inputs();
    const Vector ys = (gp.outputs().array() - gp.output_mean()) / gp.output_scale() - h.mean;
    const double sd_noise = std::sqrt(h.noise_variance);
    for (Eigen::Index j = 0; j < Q; ++j)
      for (Eigen::Index i = 0; i < n; ++i) r(i, j) += ys[i] - sd_noise * rng.normal();
    Matrix K = kernel.gram(X);
    K.diagonal().array() += h.noise_variance;
    Matrix L;
    cholesky_with_jitter(K, L);
    L.triangularView<Eigen::Lower>().solveInPlace(r);
    L.triangularView<Eigen::Lower>().transpose().solveInPlace(r);
    out.noalias() += kernel.cross(C, X) * r;
  }
  out.array() += h.mean;
  return (gp.output_mean() + gp.output_scale() * out.array()).matrix();
}

// ---- Turbo ----

void Turbo::fit_run_model(GaussianProcess& gp, bool thorough, Rng& rng) const {
  if (options_.recipe == "ml") {
    kernel_detail::fit_hyperparameters(gp, thorough, rng);
    return;
  }
  // Reference (gp.py, train_gp with hypers = {}): a new model every step, initialized at
  // lengthscale 0.5, outputscale 1, noise 0.005 and a zero mean in the reference's units, which
  // centre y at its median (ours at its mean), then 50 Adam steps of lr 0.1.
  GaussianProcess fresh(gp.dim(), gp.options());
  fresh.set_data(gp.inputs(), gp.outputs());
  std::vector<double> y(gp.outputs().data(), gp.outputs().data() + gp.outputs().size());
  std::nth_element(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(y.size() / 2), y.end());
  double median = y[y.size() / 2];
  if (y.size() % 2 == 0) median = 0.5 * (median + *std::max_element(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(y.size() / 2)));
  GpHyperparameters h;
  h.lengthscales = Vector::Constant(gp.dim(), 0.5);
  h.outputscale = 1.0;
  h.noise_variance = 0.005;
  h.mean = (median - fresh.output_mean()) / fresh.output_scale();
  fresh.set_hyperparameters(h);
  fit_hyperparameters_adam(fresh);
  gp = std::move(fresh);
}

Turbo::Turbo(const Space& space, Direction direction, TurboOptions options)
    : Optimizer("turbo", space, direction, options.seed),
      options_(std::move(options)),
      n_init_(options_.n_init > 0 ? options_.n_init : std::clamp<std::size_t>(2 * space.dim(), 2, 50)),
      n_candidates_(options_.n_candidates > 0 ? options_.n_candidates : std::min<std::size_t>(100 * space.dim(), 5000)),
      run_X_(static_cast<Eigen::Index>(space.dim()), 0),
      gp_(static_cast<Eigen::Index>(space.dim()), turbo_model_options(options_)) {
  if (options_.init != "sobol" && options_.init != "uniform" && options_.init != "lhs")
    throw InvalidArgument("turbo: option 'init' must be sobol, uniform or lhs, got '" + options_.init + "'");
  if (options_.prior != "none" && options_.prior != "gamma")
    throw InvalidArgument("turbo: option 'prior' must be none or gamma, got '" + options_.prior + "'");
  if (options_.recipe != "reference" && options_.recipe != "ml")
    throw InvalidArgument("turbo: option 'recipe' must be reference or ml, got '" + options_.recipe + "'");
  if (options_.sampler != "rff" && options_.sampler != "exact")
    throw InvalidArgument("turbo: option 'sampler' must be rff or exact, got '" + options_.sampler + "'");
  if (options_.batch_size == 0) throw InvalidArgument("turbo: option 'batch_size' must be >= 1");
  if (options_.rff_features == 0) throw InvalidArgument("turbo: option 'rff_features' must be >= 1");
  if (options_.success_tolerance == 0) throw InvalidArgument("turbo: option 'success_tolerance' must be >= 1");
  if (!(options_.length_min > 0.0 && options_.length_min <= options_.length_init && options_.length_init <= options_.length_max))
    throw InvalidArgument("turbo: need 0 < length_min <= length_init <= length_max, got " + std::to_string(options_.length_min) +
                          ", " + std::to_string(options_.length_init) + ", " + std::to_string(options_.length_max));
  tr_.length_init = tr_.length = options_.length_init;
  tr_.length_min = options_.length_min;
  tr_.length_max = options_.length_max;
  tr_.success_tolerance = options_.success_tolerance;
  tr_.failure_tolerance = options_.failure_tolerance > 0 ? options_.failure_tolerance
                                                         : TrustRegion::default_failure_tolerance(space.dim(), options_.batch_size);
}

nlohmann::json Turbo::diagnostics() const {
  return {{"tr_length", tr_.length}, {"tr_restarts", tr_.restarts}, {"tr_successes", tr_.successes}, {"tr_failures", tr_.failures}};
}

const GaussianProcess& Turbo::model() const {
  sync();
  return gp_;
}

void Turbo::sync() const {
  for (const Pending& p : unsynced_) {
    gp_.add_point(p.unit, p.value);
    if (!p.fit) continue;
    // Multi-start fit at the run's first fit and whenever its data has doubled, warm refits
    // otherwise; the seed depends only on the told history (replay contract).
    Rng rng(derive_seed(derive_seed(options_.seed, kFitStream), p.stream));
    const auto n = static_cast<std::size_t>(gp_.size());
    const bool thorough = last_thorough_fit_ == 0 || n >= 2 * last_thorough_fit_;
    fit_run_model(gp_, thorough, rng);
    if (thorough) last_thorough_fit_ = n;
    fitted_ = true;
  }
  unsynced_.clear();
}

void Turbo::observe(const Observation& obs, double y) {
  // Everything below is a function of the told sequence, so replaying the history rebuilds the
  // same trust region (state recomputed here, never in propose).
  const Vector u = space().to_unit(obs.trial.x);
  const bool in_design = run_size() < n_init_;
  const double run_best = run_size() > 0 ? run_y_.maxCoeff() : -std::numeric_limits<double>::infinity();
  const Eigen::Index k = run_X_.cols();
  run_X_.conservativeResize(Eigen::NoChange, k + 1);
  run_X_.col(k) = u;
  run_y_.conservativeResize(k + 1);
  run_y_[k] = y;
  if (in_design) {
    // The design is not judged (the reference adjusts the region only after trust-region batches).
    unsynced_.push_back({u, y, run_size() == n_init_, history().size()});
    return;
  }
  if (batch_count_ == 0) {
    best_before_batch_ = run_best;
    batch_best_ = y;
  }
  batch_best_ = std::max(batch_best_, y);
  if (++batch_count_ >= options_.batch_size) {
    batch_count_ = 0;
    // Reference rule (maximization form): success if the batch beats the run's best by 1e-3 |best|.
    const bool success = batch_best_ > best_before_batch_ + 1e-3 * std::abs(best_before_batch_);
    if (tr_.update(success) == TrustRegion::Event::Collapsed) {
      // TuRBO-1 restart: forget the run (its data and GP), start a fresh design.
      tr_.restart();
      run_X_.resize(run_X_.rows(), 0);
      run_y_.resize(0);
      gp_ = GaussianProcess(gp_.dim(), turbo_model_options(options_));
      unsynced_.clear();
      fitted_ = false;
      last_thorough_fit_ = 0;
      run_start_ = history().size();
      return;
    }
  }
  unsynced_.push_back({u, y, true, history().size()});
}

Matrix Turbo::candidates(const GaussianProcess& gp, const Vector& center, Rng& rng) const {
  const auto d = static_cast<Eigen::Index>(space().dim());
  const auto m = static_cast<Eigen::Index>(n_candidates_);
  // Region L_i = l_i / prod(l)^(1/d) * L around the center (volume L^d), clipped to the cube.
  const Vector& l = gp.kernel().lengthscales();
  const Vector weights = l / std::exp(l.array().log().mean());
  const Vector half = 0.5 * tr_.length * weights;
  const Vector lb = (center - half).cwiseMax(0.0), ub = (center + half).cwiseMin(1.0);
  const SobolSequence sobol(space().dim(), true, rng.next_u64());
  Matrix pert = sobol.points(0, n_candidates_);
  pert = (lb.replicate(1, m) + (ub - lb).asDiagonal() * pert).cwiseMin(ub.replicate(1, m));
  // Perturb each coordinate with probability min(1, 20/d), at least one per candidate.
  const double p = std::min(1.0, 20.0 / static_cast<double>(d));
  Matrix C = center.replicate(1, m);
  for (Eigen::Index j = 0; j < m; ++j) {
    bool any = false;
    for (Eigen::Index i = 0; i < d; ++i)
      if (rng.uniform() < p) {
        C(i, j) = pert(i, j);
        any = true;
      }
    if (!any) {
      const auto i = static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(d)));
      C(i, j) = pert(i, j);
    }
  }
  return C;
}

std::vector<Vector> Turbo::propose(std::size_t n) {
  sync();
  Rng rng = rng_for_ask();
  std::vector<Vector> out;
  // The run's design (also when the run has no data yet).
  if (run_size() + pending().size() < n_init_ || run_size() == 0) {
    const SobolSequence sobol(space().dim(), true, derive_seed(derive_seed(options_.seed, kDesignStream), tr_.restarts));
    const std::uint64_t first = history().size() - run_start_ + pending().size();
    // The run's Latin hypercube (reference utils.py: shuffled cell centres plus a uniform shift
    // within the cell), drawn from a stream of the run so that every ask takes its own row.
    Matrix lhs;
    if (options_.init == "lhs") {
      Rng lhs_rng(derive_seed(derive_seed(options_.seed, kDesignStream + 1), tr_.restarts));
      const auto d = static_cast<Eigen::Index>(space().dim());
      const auto m = static_cast<Eigen::Index>(n_init_);
      lhs.resize(d, m);
      std::vector<Eigen::Index> perm(n_init_);
      for (Eigen::Index i = 0; i < d; ++i) {
        for (Eigen::Index j = 0; j < m; ++j) perm[static_cast<std::size_t>(j)] = j;
        for (std::size_t j = perm.size(); j > 1; --j) std::swap(perm[j - 1], perm[lhs_rng.below(j)]);
        for (Eigen::Index j = 0; j < m; ++j)
          lhs(i, j) = (static_cast<double>(perm[static_cast<std::size_t>(j)]) + lhs_rng.uniform()) / static_cast<double>(m);
      }
    }
    while (out.size() < n && (run_size() + pending().size() + out.size() < n_init_ || run_size() == 0)) {
      const std::uint64_t index = first + out.size();
      if (options_.init == "uniform")
        out.push_back(rng.uniform_vector(static_cast<Eigen::Index>(space().dim())));
      else if (options_.init == "lhs" && index < n_init_)
        out.push_back(lhs.col(static_cast<Eigen::Index>(index)));
      else
        out.push_back(sobol.point(index));
    }
    if (out.size() == n) return out;
  }

  // Pending points and this batch's design points enter as Kriging-believer fantasies.
  GaussianProcess gp = gp_;
  if (!fitted_) {
    Rng fit_rng(derive_seed(derive_seed(options_.seed, kFitStream), history().size()));
    fit_run_model(gp, true, fit_rng);
  }
  auto fantasize = [&](const Vector& unit_point) { gp.add_point(unit_point, gp.predict(unit_point).mean); };
  for (const Trial& t : pending()) fantasize(space().to_unit(t.x));
  for (const Vector& u : out) fantasize(space().to_unit(space().to_user(space().snap_unit(u))));

  Eigen::Index best = 0;
  run_y_.maxCoeff(&best);
  const Vector center = run_X_.col(best);
  const Matrix C = candidates(gp, center, rng);
  const std::size_t q = n - out.size();
  Matrix samples = options_.sampler == "exact" ? gp.sample_posterior(C, q, rng)
                                               : pathwise_thompson_samples(gp, C, q, options_.rff_features, rng);
  if (options_.recipe == "reference") {
    // The reference samples y = f + noise (gp.likelihood(gp(X_cand)).sample()).
    const double sd = std::sqrt(gp.hyperparameters().noise_variance) * gp.output_scale();
    for (Eigen::Index j = 0; j < samples.cols(); ++j)
      for (Eigen::Index i = 0; i < samples.rows(); ++i) samples(i, j) += sd * rng.normal();
  }
  // q columns of one joint draw, each its argmax among candidates not yet chosen.
  std::vector<char> taken(static_cast<std::size_t>(C.cols()), 0);
  for (Eigen::Index j = 0; j < samples.cols(); ++j) {
    Eigen::Index arg = -1;
    for (Eigen::Index i = 0; i < C.cols(); ++i)
      if (!taken[static_cast<std::size_t>(i)] && (arg < 0 || samples(i, j) > samples(arg, j))) arg = i;
    if (arg < 0) break;
    taken[static_cast<std::size_t>(arg)] = 1;
    out.push_back(C.col(arg));
  }
  return out;
}

}  // namespace optimist
