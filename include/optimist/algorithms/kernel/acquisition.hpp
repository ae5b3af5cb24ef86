// Acquisition functions on a fitted GaussianProcess (model, acquisition and optimization kept apart,
// as in BoTorch): GP-UCB (Srinivas et al., ICML 2010), expected improvement in the numerically
// stable log form of Ament et al. (NeurIPS 2023, "Unexpected improvements to expected improvement
// for Bayesian optimization", eq. 9), and log probability of improvement. Every acquisition gives
// its value and x-gradient at one point and values at a batch of points; maximize_acquisition runs
// the shared multi-start L-BFGS-B box maximizer on it over the unit cube.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "optimist/core/rng.hpp"
#include "optimist/core/types.hpp"
#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/solvers/box_maximizer.hpp"

namespace optimist {

// ---- scalar building blocks (all for standard normal Phi, phi) ----

/// erfcx(x) = exp(x^2) erfc(x), accurate to a few ulp for every finite x (overflows to +inf only
/// for x < -26.6).
double erfcx(double x);
double normal_pdf(double z);
double normal_cdf(double z);
/// Mills ratio R(t) = Phi(-t) / phi(t) = sqrt(pi/2) erfcx(t / sqrt 2); finite and positive for t >= 0.
double mills_ratio(double t);
/// log Phi(z), finite for every finite z (log phi(z) + log R(-z) for z < 0).
double log_normal_cdf(double z);
/// d log Phi(z) / dz = phi(z) / Phi(z) (the inverse Mills ratio).
double log_normal_cdf_derivative(double z);
/// h(z) = phi(z) + z Phi(z), so that EI = sigma h((mu - best) / sigma).
double ei_h(double z);
/// log h(z) (Ament et al. 2023, eq. 9): direct for z > -1, erfcx-based for -40 <= z <= -1, an
/// asymptotic series in 1/z^2 beyond. Finite (~ -z^2/2) however negative z is: never flat.
double log_ei_h(double z);
/// d log h / dz = Phi(z) / h(z) (h'(z) = Phi(z)), stable for very negative z (~ -z).
double log_ei_h_derivative(double z);

/// Closed forms on a Gaussian N(mean, sd^2), maximization: EI = E[max(f - best - xi, 0)],
/// PI = P(f > best + xi), UCB = mean + sqrt(beta) sd.
double expected_improvement(double mean, double sd, double best, double xi = 0.0);
double log_expected_improvement(double mean, double sd, double best, double xi = 0.0);
double probability_of_improvement(double mean, double sd, double best, double xi = 0.0);
double upper_confidence_bound(double mean, double sd, double beta);

/// Srinivas et al. (2010) exploration weights beta_t (t >= 1, 0 < delta < 1).
/// Theorem 1, finite domain D: beta_t = 2 log(|D| t^2 pi^2 / (6 delta)) (log |D| given).
double srinivas_beta_finite(double t, double log_domain_size, double delta);
/// Theorem 2, D in [0, r]^d with the Lipschitz-tail constants a, b (here the unit cube, r = 1, and
/// a = b = 1): beta_t = 2 log(2 t^2 pi^2 / (3 delta)) + 2 d log(t^2 d b r sqrt(log(4 d a / delta))).
double srinivas_beta_continuous(double t, double d, double delta, double a = 1.0, double b = 1.0, double r = 1.0);

// ---- acquisition functions on a GP ----

/// alpha(x) = g(mean(x), sd(x)) for the GP posterior of f (noise-free) at x. The posterior standard
/// deviation is floored at min_sd (the gradient through sd is then 0) so that log-EI and log-PI
/// stay finite at observed points of a noise-free model.
class AcquisitionFunction {
 public:
  explicit AcquisitionFunction(const GaussianProcess& gp);
  virtual ~AcquisitionFunction() = default;
  const GaussianProcess& model() const { return gp_; }

  /// alpha(x) and, if grad is non-null, d alpha / dx (grad is resized).
  double value(const Vector& x, Vector* grad = nullptr) const;
  /// alpha at the columns of X (d x m), one batched posterior.
  Vector values(const Matrix& X) const;
  /// alpha at the columns of X that can be among the `keep` largest values, -infinity at the
  /// others. Exact pruning for an alpha nondecreasing in sd (increasing_in_sd()): alpha at the
  /// posterior mean and an upper bound of the sd (GaussianProcess::predict_mean_and_variance_bound,
  /// the variance given the nearest observation alone) bounds alpha from above, so only the
  /// columns whose bound reaches the keep-th largest exact value need their O(n^2) variance. With a GP of fewer than GaussianProcess::kExplicitInverseFrom points,
  /// or an alpha not monotone in sd, the same as values(X).
  Vector top_values(const Matrix& X, std::size_t keep) const;
  /// Whether transform() is nondecreasing in sd at every mean (UCB, EI, log-EI; not PI).
  virtual bool increasing_in_sd() const { return false; }

  /// g(mean, sd) and its partial derivatives (written when the pointers are non-null).
  virtual double transform(double mean, double sd, double* d_mean, double* d_sd) const = 0;

 protected:
  const GaussianProcess& gp_;
  double min_sd_;
};

/// GP-UCB: mean + sqrt(beta) sd (Srinivas et al. 2010, eq. 6).
class UpperConfidenceBound : public AcquisitionFunction {
 public:
  UpperConfidenceBound(const GaussianProcess& gp, double beta);
  double transform(double mean, double sd, double* d_mean, double* d_sd) const override;
  bool increasing_in_sd() const override { return true; }
  double beta() const { return beta_; }

 private:
  double beta_;
};

/// EI = sd h(z), z = (mean - best - xi) / sd (Jones et al. 1998; Mockus 1975).
class ExpectedImprovement : public AcquisitionFunction {
 public:
  ExpectedImprovement(const GaussianProcess& gp, double best, double xi = 0.0);
  double transform(double mean, double sd, double* d_mean, double* d_sd) const override;
  bool increasing_in_sd() const override { return true; }

 private:
  double best_, xi_;
};

/// log EI = log h(z) + log sd (Ament et al. 2023, eq. 9). Maximized instead of EI: it has the same
/// maximizers but no flat zero region far from the data.
class LogExpectedImprovement : public AcquisitionFunction {
 public:
  LogExpectedImprovement(const GaussianProcess& gp, double best, double xi = 0.0);
  double transform(double mean, double sd, double* d_mean, double* d_sd) const override;
  bool increasing_in_sd() const override { return true; }

 private:
  double best_, xi_;
};

/// PI = Phi(z) (Kushner 1964).
class ProbabilityOfImprovement : public AcquisitionFunction {
 public:
  ProbabilityOfImprovement(const GaussianProcess& gp, double best, double xi = 0.0);
  double transform(double mean, double sd, double* d_mean, double* d_sd) const override;

 private:
  double best_, xi_;
};

/// log PI = log Phi(z), z = (mean - best - xi) / sd.
class LogProbabilityOfImprovement : public AcquisitionFunction {
 public:
  LogProbabilityOfImprovement(const GaussianProcess& gp, double best, double xi = 0.0);
  double transform(double mean, double sd, double* d_mean, double* d_sd) const override;

 private:
  double best_, xi_;
};

/// Maximizes the acquisition over [0,1]^d with maximize_in_box: raw Sobol samples scored in one
/// batch (top_values: only those that can be among the options.restarts best get an exact
/// variance), plus `starts` (e.g. the best observed points), refined by L-BFGS-B.
BoxMaximizerResult maximize_acquisition(const AcquisitionFunction& acq, const std::vector<Vector>& starts,
                                        const BoxMaximizerOptions& options, Rng& rng);

}  // namespace optimist
