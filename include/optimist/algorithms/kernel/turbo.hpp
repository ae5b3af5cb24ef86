// TuRBO-1 (Eriksson, Pearce, Gardner, Turner & Poloczek, "Scalable global optimization via local
// Bayesian optimization", NeurIPS 2019): Thompson sampling from a GP restricted to a trust region
// around the best point of the current run; the region doubles after a run of successes, halves
// after a run of failures, and the run restarts from a fresh design when it collapses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "optimist/core/optimizer.hpp"
#include "optimist/core/registry.hpp"
#include "optimist/models/gp/gaussian_process.hpp"

namespace optimist {

/// The trust-region bookkeeping of TuRBO-1 (reference code `turbo_1.py`, `_adjust_length`).
struct TrustRegion {
  double length_init = 0.8;
  double length_min = 0x1p-7;
  double length_max = 1.6;
  std::size_t success_tolerance = 3;
  std::size_t failure_tolerance = 20;  ///< reference: ceil(max(4 / q, d / q))

  double length = 0.8;
  std::size_t successes = 0;  ///< consecutive
  std::size_t failures = 0;   ///< consecutive
  std::size_t restarts = 0;

  enum class Event { None, Expanded, Shrunk, Collapsed };
  /// One update with a batch outcome: success if it improved the run's best by more than
  /// 1e-3 |best| (the reference's rule, decided by the caller). Expands (length doubled, capped
  /// at length_max) after success_tolerance consecutive successes and shrinks (halved) after
  /// failure_tolerance consecutive failures; Collapsed when the length falls below length_min (the
  /// caller then calls restart()).
  Event update(bool success);
  /// A fresh run: length_init, counters 0, restarts + 1.
  void restart();
  /// ceil(max(4 / q, d / q)).
  static std::size_t default_failure_tolerance(std::size_t dim, std::size_t batch_size);
};

struct TurboOptions {
  std::uint64_t seed = 0;
  std::string kernel = "matern52";
  /// Design size of each run; 0: 2 d capped at 50 (the paper's experiments use 2d-ish designs).
  std::size_t n_init = 0;
  std::string init = "sobol";  ///< "sobol" (scrambled), "uniform" or "lhs" (the reference's Latin hypercube)
  /// Number of told values per trust-region update (the q of the failure tolerance): set it to the
  /// ask(q) batch size. Tells are grouped in order, so the state is a function of the told history.
  std::size_t batch_size = 1;
  /// Thompson-sampling candidates; 0: min(100 d, 5000).
  std::size_t n_candidates = 0;
  /// "rff": pathwise sample (Wilson et al. 2020) with random Fourier features for the prior plus
  /// the exact GP update, O(m) in the candidates; "exact": joint Cholesky sample, O(m^3).
  std::string sampler = "rff";
  std::size_t rff_features = 1024;
  double length_init = 0.8, length_min = 0x1p-7, length_max = 1.6;
  std::size_t success_tolerance = 3;
  std::size_t failure_tolerance = 0;  ///< 0: ceil(max(4 / q, d / q))
  /// "reference" (default): the reference code's recipe (turbo_1.py, gp.py): a new GP every step
  /// from lengthscale 0.5, outputscale 1, noise 0.005, mean at the median, 50 Adam steps with
  /// learning rate 0.1; Thompson samples of y (noise included). "ml": hyperparameters by
  /// L-BFGS-B to convergence (warm refits, a multi-start fit whenever the run's data doubles);
  /// Thompson samples of f. On 20-D Styblinski-Tang (8 points, budget 72, 10 seeds) "ml" has a
  /// mean cumulative regret 2,233 +- 2,215 higher (paired), see docs/gp-bo.md.
  std::string recipe = "reference";
  /// Hyperparameters of the "ml" recipe: "none" (maximum likelihood within the reference bounds)
  /// or "gamma" (MAP with gp-ei's Gamma(3, 6) lengthscale and Gamma(2, 0.15) outputscale priors).
  std::string prior = "none";
};

class Turbo : public Optimizer {
 public:
  Turbo(const Space& space, Direction direction, TurboOptions options);

  bool supports_batch() const override { return true; }
  /// {"tr_length", "tr_restarts", "tr_successes", "tr_failures"} after the last tell.
  nlohmann::json diagnostics() const override;

  const TrustRegion& trust_region() const { return tr_; }
  const TurboOptions& options() const { return options_; }
  std::size_t n_init() const { return n_init_; }
  /// Successful observations in the current run (since the last restart).
  std::size_t run_size() const { return static_cast<std::size_t>(run_y_.size()); }
  /// GP of the current run (fitted once the run's design is complete); brought up to date first.
  const GaussianProcess& model() const;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;

 private:
  /// Applies the run's observations told since the last sync to the GP, in order, with the fit
  /// each one triggered at its tell: the GP is a function of the told history, its cost is paid
  /// in ask().
  void sync() const;
  Matrix candidates(const GaussianProcess& gp, const Vector& center, Rng& rng) const;
  /// The fit of options().recipe on gp's data (thorough: the multi-start fit of the default).
  void fit_run_model(GaussianProcess& gp, bool thorough, Rng& rng) const;

  TurboOptions options_;
  std::size_t n_init_, n_candidates_;
  TrustRegion tr_;
  Matrix run_X_;  // unit points of the current run (columns)
  Vector run_y_;
  std::size_t run_start_ = 0;  // history().size() when the run began (design index origin)
  std::size_t batch_count_ = 0;  // tells in the current update group
  double batch_best_ = 0.0;      // best value among them
  double best_before_batch_ = 0.0;  // run's best before the group
  // The run's GP is a cache of the told history, brought up to date by sync().
  struct Pending {
    Vector unit;
    double value;
    bool fit;              // a fit follows this point
    std::uint64_t stream;  // seed stream of that fit (history size at the tell)
  };
  mutable GaussianProcess gp_;
  mutable std::vector<Pending> unsynced_;
  mutable bool fitted_ = false;
  mutable std::size_t last_thorough_fit_ = 0;  // run's model size at its last multi-start fit
};

/// Thompson samples of f at the columns of C (d x m): an m x q matrix whose columns are q
/// independent posterior draws, by pathwise conditioning (Wilson et al., ICML 2020, eq. 13):
/// f(.) = prior(.) + k(., X) (K + s2 I)^-1 (y - prior(X) - eps), the prior drawn with n_features
/// random Fourier features of the GP's kernel (Rahimi & Recht 2007; Matern spectral densities are
/// Student-t). Values in the GP's original output units.
Matrix pathwise_thompson_samples(const GaussianProcess& gp, const Matrix& C, std::size_t q, std::size_t n_features, Rng& rng);

AlgorithmInfo turbo_info();

}  // namespace optimist
