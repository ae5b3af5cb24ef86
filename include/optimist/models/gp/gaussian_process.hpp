// Exact Gaussian-process regression on unit-cube inputs: constant mean, Gaussian noise, ARD kernel,
// internally standardized outputs, MAP hyperparameters by multi-start L-BFGS-B on the log marginal
// likelihood with analytic gradients (Rasmussen & Williams, "Gaussian Processes for Machine
// Learning", 2006: Algorithm 2.1, eqs. 2.30, 5.9). Shared by GP-UCB/EI/PI and TuRBO.
//
// Units. Outputs y are standardized, y_s = (y - output_mean()) / output_scale() (sample mean and
// standard deviation at the last set_data()/fit(); a constant or single output uses scale 1). The
// hyperparameters (outputscale, noise variance, mean) live in these standardized units; every
// prediction is returned in the ORIGINAL output units. add_point() keeps the standardization and
// hyperparameters, so the model it builds is exactly the GP with the current hyperparameters.
//
// Defaults (see GpOptions): lengthscales in [0.005, 20] with the dimension-scaled log-normal prior
// LogNormal(sqrt(2) + log(d)/2, sqrt(3)) of Hvarfner et al. (2024), BoTorch's current default, so
// that a handful of points in 20-D does not collapse to tiny lengthscales; noise variance in
// [1e-6, 1] with BoTorch's LogNormal(-4, 1) prior; outputscale in [0.01, 100] with a weak
// LogNormal(1, 1) prior (mode 1 = the standardized variance); constant mean learned in [-5, 5]
// without prior (GpOptions::mean: or fixed at the sample mean, or at the lowest output).
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "optimist/core/rng.hpp"
#include "optimist/core/types.hpp"
#include "optimist/models/gp/kernel.hpp"
#include "optimist/models/outcome_transform.hpp"

namespace optimist {

/// log(theta) ~ Normal(loc, scale^2). As in GPyTorch, the log density of theta itself (not of
/// log theta) is added to the log marginal likelihood, so the MAP pull is towards the mode
/// exp(loc - scale^2).
struct LogNormalPrior {
  double loc = 0.0;
  double scale = 1.0;
  double log_density(double theta) const;
  /// d log_density / d log(theta).
  double log_density_gradient(double theta) const;
  double mode() const;
};

/// theta ~ Gamma(concentration, rate) (GPyTorch's GammaPrior, BoTorch's SingleTaskGP default up to
/// 0.11): log density (k - 1) log theta - r theta + const, mode (k - 1) / r.
struct GammaPrior {
  double concentration = 2.0;
  double rate = 1.0;
  double log_density(double theta) const;
  /// d log_density / d log(theta) = (k - 1) - r theta.
  double log_density_gradient(double theta) const;
  /// (k - 1) / r; the smallest positive double if k <= 1 (clipped to the bounds by the GP).
  double mode() const;
};

/// A prior on one positive hyperparameter: log-normal or gamma.
struct HyperparameterPrior {
  std::variant<LogNormalPrior, GammaPrior> prior;
  HyperparameterPrior(LogNormalPrior p) : prior(p) {}  // NOLINT: implicit on purpose
  HyperparameterPrior(GammaPrior p) : prior(p) {}      // NOLINT
  double log_density(double theta) const;
  double log_density_gradient(double theta) const;
  double mode() const;
  /// Positive scale (log-normal), positive concentration and rate (gamma).
  bool valid() const;
};

struct GpFitOptions {
  /// Sobol points in the log-hyperparameter box scored by log posterior (one Cholesky each, no
  /// gradient) besides the current hyperparameters.
  std::size_t random_starts = 8;
  /// L-BFGS-B runs from the best of {current hyperparameters, random starts}.
  std::size_t restarts = 2;
  /// Iterations per L-BFGS-B run. Warm starts from the previous optimum usually converge in far
  /// fewer; lower it (and restarts / random_starts) for a hard time budget.
  int max_iterations = 100;
  /// Projected-gradient tolerance on the log posterior divided by n.
  double gradient_tolerance = 1e-5;
  /// Stop when an iteration improves the log posterior divided by n by less than this times
  /// max(1, |that value|) (LBFGSpp's delta with past = 1).
  double value_tolerance = 1e-9;
  /// If > 0 and there are more observations, the hyperparameters are fitted on a random subset
  /// of this many (drawn from the fit's rng), and the model then conditions on all of them. Each
  /// evaluation costs O(m^3), so 250 instead of 500 points makes a fit about 8x cheaper.
  std::size_t max_points = 0;
};

/// What the last fit() did.
struct GpFitReport {
  std::size_t evaluations = 0;      ///< log-posterior evaluations (value-only scoring included)
  std::size_t local_searches = 0;   ///< L-BFGS-B runs
  std::size_t failed_searches = 0;  ///< runs ended by a line-search failure (best point kept)
  std::size_t points = 0;           ///< observations the hyperparameters were fitted on
  double log_posterior = 0.0;       ///< at the optimum, on those points (prior included if used)
  /// At the hyperparameters the fit started from (before it, on the same points); NaN if that
  /// value was not finite. log_posterior - start_log_posterior: what the fit gained.
  double start_log_posterior = 0.0;
};

/// The GP's constant prior mean, in standardized output units.
enum class ConstantMean {
  Learned,  ///< a hyperparameter, fitted in [-max_abs_mean, max_abs_mean] without prior
  Sample,   ///< fixed at 0: the centre of the standardization (the outputs' mean by default)
  /// Fixed at the lowest output (De Ath, Fieldsend & Everson, GECCO 2020, "What do you mean? The role of
  /// the mean function in Bayesian optimisation": their pessimistic "max" mean for minimization).
  /// Away from the data the posterior reverts to the worst value seen, so the acquisition values
  /// unexplored space (the box's faces first) less for its variance alone. Derived, not fitted: it
  /// follows the outputs (set_data, set_outputs, add_point). GpOptions::worst_margin below it.
  Worst,
};

struct GpOptions {
  KernelType kernel = KernelType::Matern52;
  /// Per input dimension: its number of categories for a categorical parameter, 0 for an ordered
  /// one; empty: every input ordered (see Kernel::set_categories).
  std::vector<std::size_t> categories{};
  /// How far apart two categories are (Kernel::set_categories); matched by default.
  CategoryDistance category_distance = CategoryDistance::Matched;
  OutputScaling output_scaling = OutputScaling::MeanSampleSd;
  ConstantMean mean = ConstantMean::Learned;
  /// ConstantMean::Worst: the mean this many standardized units (sample sds of the outputs) below
  /// the lowest output, >= 0 (GpBoOptions::mean_margin).
  double worst_margin = 0.0;
  /// An orthogonal rotation of the inputs whose axes the lengthscales follow (Kernel::set_rotation);
  /// empty: the parameters' axes. Set by the caller (GpBo: gradient_rotation), never fitted here.
  Matrix input_rotation{};
  /// Known observation-noise variance in ORIGINAL output units; unset: learned.
  std::optional<double> fixed_noise_variance{};
  /// MAP (priors below) if true, maximum likelihood within the bounds if false.
  bool use_priors = true;
  /// Unset: the dimension-scaled LogNormal(sqrt(2) + log(d)/2, sqrt(3)).
  std::optional<HyperparameterPrior> lengthscale_prior{};
  HyperparameterPrior outputscale_prior{LogNormalPrior{1.0, 1.0}};
  HyperparameterPrior noise_prior{LogNormalPrior{-4.0, 1.0}};
  double min_lengthscale = 0.005, max_lengthscale = 20.0;  // inputs are unit-cube points
  double min_outputscale = 0.01, max_outputscale = 100.0;  // standardized outputs
  double min_noise_variance = 1e-6, max_noise_variance = 1.0;
  double max_abs_mean = 5.0;
  /// From kExplicitInverseFrom points on, keep the explicit inverse that predict_with_gradient
  /// uses (O(n^3) at each factorization, O(n^2) per add_point). False for a model that never
  /// predicts gradients (TuRBO's): predict_with_gradient then uses the triangular solves.
  bool explicit_inverse = true;
  GpFitOptions fit{};
};

/// Hyperparameters; outputscale, noise variance and mean are in standardized output units.
struct GpHyperparameters {
  Vector lengthscales;
  double outputscale = 1.0;
  double noise_variance = 1e-2;
  double mean = 0.0;  ///< the learned constant mean (in use when GpOptions::mean is Learned: prior_mean())
};

/// Posterior of f(x) (or of y(x) = f(x) + noise when asked), original output units.
struct GpPrediction {
  double mean = 0.0;
  double variance = 0.0;  ///< clamped at 0
};

struct GpPredictionWithGradient {
  double mean = 0.0;
  double variance = 0.0;
  Vector mean_gradient;      ///< d mean / dx
  Vector variance_gradient;  ///< d variance / dx
};

class GaussianProcess {
 public:
  /// Contract: dim >= 1 (else InvalidArgument). Hyperparameters start at the prior modes.
  explicit GaussianProcess(Eigen::Index dim, GpOptions options = {});

  Eigen::Index dim() const { return dim_; }
  /// Number of observations.
  Eigen::Index size() const { return X_.cols(); }
  const GpOptions& options() const { return options_; }
  /// Replaces GpOptions::input_rotation (same contract; the factor is recomputed).
  void set_input_rotation(const Matrix& rotation);
  /// Changes options().mean (the factor is kept: only the weights depend on the mean). The learned
  /// value, hyperparameters().mean, is kept while a fixed mean is in use.
  void set_constant_mean(ConstantMean mean);
  /// The constant prior mean in use (standardized units): hyperparameters().mean when learned,
  /// else 0 (Sample) or the lowest output (Worst).
  double prior_mean() const { return prior_mean_; }
  const Matrix& inputs() const { return X_; }    ///< d x n, columns are points
  const Vector& outputs() const { return y_; }   ///< original units

  /// Replaces the data (columns of X; y finite), recomputes the standardization and factorizes
  /// with the current hyperparameters. No fit.
  void set_data(const Matrix& X, const Vector& y);
  /// Appends one observation: O(n^2) extension of the Cholesky factor (at the next update()),
  /// standardization and hyperparameters kept. Falls back to a full refactorization (with jitter) if the new pivot is
  /// not safely positive, e.g. a duplicate point with a tiny fixed noise. On an empty model this
  /// is set_data with one point.
  void add_point(const Vector& x, double y);
  /// Replaces the outputs of the current points (same count; finite), e.g. after a rank warp moved
  /// them: O(n^2), the factor, standardization and hyperparameters kept (the next fit
  /// re-standardizes).
  void set_outputs(const Vector& y);
  /// Re-standardizes the data, maximizes the log posterior over the hyperparameters (warm start
  /// from the current ones plus options().fit random starts; rng seeds those) and refactorizes.
  /// A no-op without data.
  void fit(Rng& rng) { fit(rng, options_.fit); }
  /// The same with these fit options instead of options().fit (e.g. a tolerance for one refit).
  void fit(Rng& rng, const GpFitOptions& fit_options);
  /// Full O(n^3) factorization with the current standardization and hyperparameters.
  void refactorize();
  /// Does the factorization work that set_data, add_point, set_outputs, set_hyperparameters, fit
  /// and refactorize recorded. Those update the data, the standardization and the hyperparameters
  /// at once but leave the Cholesky factor, the explicit inverse and the weights alpha to here:
  /// the full factorization last asked for, then add_point's O(n^2) extension for each point told
  /// since, in that order, so the numbers are bit for bit those of doing each at once. Work that a
  /// later factorization replaces is never done: a history told in one go (a resumed run, a study
  /// worker joining) pays for the refits it needs and one factorization, not for one factorization
  /// per refit and an extension per point (docs/gp-bo.md, "Replaying a history"). Every prediction
  /// and accessor of that state calls it; it is const because it only fills those caches, so a
  /// model shared by threads, or copied for predictions (a batch's fantasies), is updated first.
  void update() const;

  const GpHyperparameters& hyperparameters() const { return hyp_; }
  /// Contract: sizes and values valid (positive scales, finite mean); refactorizes. A fixed noise
  /// option overrides h.noise_variance.
  void set_hyperparameters(const GpHyperparameters& h);
  /// The kernel with the current lengthscales and outputscale.
  const Kernel& kernel() const { return kernel_; }
  double output_mean() const { return y_mean_; }
  double output_scale() const { return y_scale_; }
  /// Diagonal jitter the last full factorization needed (standardized units), usually 0.
  double jitter() const {
    update();
    return jitter_;
  }
  /// log p(y_s | hyperparameters) of the standardized outputs (eq. 2.30), current state.
  double log_marginal_likelihood() const {
    update();
    return lml_;
  }
  const GpFitReport& last_fit() const { return last_fit_; }

  // ---- packed log-space parameters: [log l_1..log l_d, log s, log noise (if learned), mean (if
  // learned: ConstantMean::Learned)] ----
  Eigen::Index num_parameters() const;
  Vector parameters() const;
  void parameter_bounds(Vector& lower, Vector& upper) const;
  GpHyperparameters unpack(const Vector& theta) const;
  /// log p(y_s | theta) (+ log prior if with_prior and options().use_priors) on the current
  /// standardized data, and its analytic gradient in *grad if non-null (eq. 5.9). -infinity if
  /// the covariance cannot be factorized.
  double log_marginal_likelihood(const Vector& theta, Vector* grad, bool with_prior = false) const;

  // ---- posterior, original output units; with_noise adds the noise variance (predictive) ----
  GpPrediction predict(const Vector& x, bool with_noise = false) const;
  GpPredictionWithGradient predict_with_gradient(const Vector& x, bool with_noise = false) const;
  /// Batch over the columns of X (d x m).
  void predict(const Matrix& X, Vector& mean, Vector& variance, bool with_noise = false) const;
  /// Posterior means only at the columns of X: O(n) per column (predict's variance is O(n^2)).
  void predict_mean(const Matrix& X, Vector& mean) const;
  /// Prior variance of f (original units): an upper bound of every posterior variance.
  double prior_variance() const { return y_scale_ * y_scale_ * kernel_.variance(); }
  /// predict_mean's means, and at each column of X an upper bound of its posterior variance
  /// (original units) at no extra O(n^2) cost: the variance given only the nearest observation in
  /// the kernel's metric, s - k(x, x_j)^2 / (s + noise + jitter) with s = k(x, x). Conditioning on
  /// more points never raises a variance, so it bounds the posterior's, and it is far tighter than
  /// the prior's next to the data (plus 1e-9 s against round-off).
  void predict_mean_and_variance_bound(const Matrix& X, Vector& mean, Vector& variance_bound) const;
  /// From this many observations on, predict_with_gradient uses an explicit (K + noise I)^-1,
  /// formed once per factorization and extended in O(n^2) by add_point: one symmetric
  /// matrix-vector product per point instead of two triangular solves. Below it, the solves.
  /// It is formed with each factorization of that many points (and when an extension reaches
  /// that size), in update()'s replay of the recorded work, never on first use: its round-off
  /// then depends only on the sequence of data and fits, not on when predictions were made, so a
  /// replayed history (a resumed run) predicts bit for bit as the run it replays.
  static constexpr Eigen::Index kExplicitInverseFrom = 128;
  /// Batch with gradients: column j of mean_gradient / variance_gradient (d x m) is at X.col(j).
  void predict_with_gradient(const Matrix& X, Vector& mean, Vector& variance, Matrix& mean_gradient,
                             Matrix& variance_gradient, bool with_noise = false) const;
  /// R <- (K + noise I)^-1 R (n x k) with the current Cholesky factor: two triangular solves,
  /// O(n^2) per column, no refactorization.
  void solve_in_place(Matrix& R) const;
  /// Leave-one-out cross-validation (Rasmussen & Williams, eq. 5.12): r_i = y_i - E[y_i | the
  /// others], in standardized units, with the kernel and noise in use and the constant prior mean
  /// `mean` (standardized units) in place of prior_mean(). O(n^3); empty for fewer than 2 points.
  Vector leave_one_out_residuals(double mean) const;
  /// The standardized outputs the model conditions on, (outputs() - output_mean()) / output_scale().
  const Vector& standardized_outputs() const { return ys_; }
  /// Joint posterior covariance of f at the columns of X (m x m, noise-free).
  Matrix posterior_covariance(const Matrix& X) const;
  /// n_samples joint draws of f at the columns of X (noise-free): an m x n_samples matrix whose
  /// column s is one draw. Cholesky of the m x m posterior covariance (with jitter, pivoted LDLT
  /// if that fails): O(m^3), so keep m in the low thousands.
  Matrix sample_posterior(const Matrix& X, std::size_t n_samples, Rng& rng) const;

 private:
  struct Workspace;
  double evaluate(const Matrix& X, const Vector& ys, const Vector& theta, Vector* grad, bool with_prior,
                  Workspace& ws) const;
  HyperparameterPrior lengthscale_prior() const;
  void standardize();
  void apply(const GpHyperparameters& h);  // sets hyp_ and kernel_, no factorization
  void update_alpha() const;                // alpha_ and lml_ from L_ (all points factored)
  void factorize_leading(Eigen::Index m) const;  // L_ (and Kinv_ when due) of the first m points
  void extend_factor(Eigen::Index n) const;       // add_point's O(n^2) extension by point n
  void form_explicit_inverse_if_due() const;  // Kinv_ from L_ if not formed and factored_ >= kExplicitInverseFrom
  void check_point(const Vector& x) const;
  bool learns_mean() const { return options_.mean == ConstantMean::Learned; }
  double fixed_mean(const Vector& ys) const;  // the mean of ConstantMean::Sample or Worst on outputs ys
  void update_prior_mean();                   // prior_mean_ from options_.mean, hyp_ and ys_

  Eigen::Index dim_;
  GpOptions options_;
  Matrix X_;
  Vector y_, ys_;
  double y_mean_ = 0.0, y_scale_ = 1.0;
  GpHyperparameters hyp_;
  Kernel kernel_;
  /// (K + (noise + jitter) I)^-1 (after update()), formed at each factorization of
  /// kExplicitInverseFrom points or more.
  Eigen::Block<const Matrix> explicit_inverse() const;
  /// The Cholesky factor: the leading factored_ x factored_ block of L_ (size() after update()).
  Eigen::Block<const Matrix> factor() const { return std::as_const(L_).topLeftCorner(factored_, factored_); }

  // The factorization state, filled by update() (mutable: a cache of the data, hyperparameters and
  // standardization above). L_ and Kinv_ hold their n x n matrices in the top-left corner of a
  // larger buffer, so that add_point's O(n^2) extension does not reallocate (and copy) them at
  // every step.
  mutable Matrix L_;                // lower Cholesky factor of K + (noise + jitter) I
  mutable Matrix Kinv_;             // explicit inverse (symmetric), valid if kinv_ready_
  mutable bool kinv_ready_ = false;
  mutable Vector alpha_;            // (K + noise I)^-1 (y_s - mean)
  mutable double jitter_ = 0.0;
  mutable double lml_ = 0.0;
  double prior_mean_ = 0.0;  // see prior_mean()
  mutable Eigen::Index factored_ = 0;                // leading points in L_ (and Kinv_)
  mutable Eigen::Index pending_factorization_ = -1;  // a full factorization of this many points is due; -1: none
  mutable bool alpha_stale_ = false;
  GpFitReport last_fit_;
};

}  // namespace optimist
