// TuRBO-1 and TuRBO-m (Eriksson, Pearce, Gardner, Turner & Poloczek, "Scalable global optimization
// via local Bayesian optimization", NeurIPS 2019): Thompson sampling from a GP restricted to a
// trust region around the best point of the current run; the region doubles after a run of
// successes, halves after a run of failures, and the run restarts from a fresh design when it
// collapses. TuRBO-m keeps m such runs, each with its own data and GP, and gives every point of a
// batch to the region whose Thompson sample is best (the paper's implicit bandit, section 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "optimist/core/optimizer.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/algorithms/bo/initial_design.hpp"
#include "optimist/algorithms/bo/trust_region.hpp"
#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/models/gp/pathwise_sample.hpp"

namespace optimist {

/// TuRBO's GP fit and sampling recipe (TurboOptions::recipe).
enum class TurboRecipe { Ml, Reference };
inline constexpr EnumNames<TurboRecipe, 2> kTurboRecipeNames{{{{TurboRecipe::Ml, "ml"}, {TurboRecipe::Reference, "reference"}}}};
/// Hyperparameter priors of the "ml" recipe (TurboOptions::prior).
enum class TurboPrior { Gamma, None };
inline constexpr EnumNames<TurboPrior, 2> kTurboPriorNames{{{{TurboPrior::Gamma, "gamma"}, {TurboPrior::None, "none"}}}};
/// How the Thompson samples are drawn (TurboOptions::sampler).
enum class ThompsonSampler { Rff, Exact };
inline constexpr EnumNames<ThompsonSampler, 2> kThompsonSamplerNames{
    {{{ThompsonSampler::Rff, "rff"}, {ThompsonSampler::Exact, "exact"}}}};

struct TurboOptions {
  KernelType kernel = KernelType::Matern52;
  /// A categorical's distance in the kernel (GpBoOptions::categorical_distance).
  CategoryDistance categorical_distance = CategoryDistance::Matched;
  /// Design size of each run; 0: 2 d capped at 50 (the paper's experiments use 2d-ish designs).
  std::size_t n_init = 0;
  InitialDesign init = InitialDesign::Sobol;  ///< Sobol (scrambled), uniform or Lhs (the reference's Latin hypercube)
  /// Number of told values per trust-region update (the q of the failure tolerance): set it to the
  /// ask(q) batch size. Tells are grouped in order, so the state is a function of the told history.
  std::size_t batch_size = 1;
  /// Thompson-sampling candidates; 0: min(100 d, 5000).
  std::size_t n_candidates = 0;
  /// Rff: pathwise sample (Wilson et al. 2020) with random Fourier features for the prior plus
  /// the exact GP update, O(m) in the candidates; Exact: joint Cholesky sample, O(m^3).
  ThompsonSampler sampler = ThompsonSampler::Rff;
  /// Random Fourier features of the Rff sampler; 0: 1024 while the history holds fewer than 300
  /// points, 512 from then (docs/gp-bo.md, "Fewer features past 300 points").
  std::size_t rff_features = 0;
  double length_init = 0.8, length_min = 0x1p-7, length_max = 1.6;
  std::size_t success_tolerance = 3;
  std::size_t failure_tolerance = 0;  ///< 0: ceil(max(4 / q, d / q))
  /// "ml" (default): hyperparameters by L-BFGS-B to convergence (warm refits, a multi-start fit
  /// whenever the run's data doubles); Thompson samples of f. "reference": the reference code's
  /// recipe (turbo_1.py, gp.py): a new GP every step from lengthscale 0.5, outputscale 1, noise
  /// 0.005, mean at the median, 50 Adam steps with learning rate 0.1; Thompson samples of y (noise
  /// included). Why "ml" is the default (regret and speed, measured): docs/gp-bo.md, TuRBO.
  TurboRecipe recipe = TurboRecipe::Ml;
  /// Hyperparameters of the "ml" recipe: "gamma" (default; MAP with gp-ei's Gamma(3, 6)
  /// lengthscale and Gamma(2, 0.15) outputscale priors) or "none" (maximum likelihood within the
  /// reference bounds).
  TurboPrior prior = TurboPrior::Gamma;
  /// Number of trust regions m: 1 is TuRBO-1, m > 1 TuRBO-m (reference `turbo_m.py`): m
  /// independent runs, each with its own design of n_init points, data, GP and restarts.
  std::size_t trust_regions = 1;
  /// "ml" recipe: refit the run's hyperparameters every this many observations after its design
  /// (O(n^2) factor updates in between); 1: every step (the recipe before issue 20); 0 (auto):
  /// every step up to 100 points, then whenever the run's data has grown by 5%.
  std::size_t refit_every = 0;
  /// Past this many points in a run, its GP (local anyway: TuRBO samples inside the trust region)
  /// conditions on the max_model_points nearest the trust-region centre, chosen at each refit, plus
  /// every point told since; 0: all of the run's points.
  std::size_t max_model_points = 300;
};

class Turbo : public Optimizer {
 public:
  Turbo(const Space& space, Direction direction, TurboOptions options = {}, const RunContext& context = {});

  bool supports_batch() const override { return true; }
  /// {"tr_length", "tr_restarts", "tr_successes", "tr_failures"} of region 0 after the last tell;
  /// with m > 1 also "tr_lengths" and "tr_sizes" (every region's length and run size).
  nlohmann::json diagnostics() const override;

  const TurboOptions& options() const { return options_; }
  std::size_t n_init() const { return n_init_; }
  std::size_t num_regions() const { return regions_.size(); }
  /// Trust region r (0 <= r < num_regions()).
  const TrustRegion& trust_region(std::size_t r = 0) const { return regions_.at(r).tr; }
  /// Successful observations in region r's current run (since its last restart).
  std::size_t run_size(std::size_t r = 0) const { return static_cast<std::size_t>(regions_.at(r).y.size()); }
  /// GP of region r's current run (fitted once the run's design is complete; past max_model_points
  /// its local subset); brought up to date first.
  const GaussianProcess& model(std::size_t r = 0) const;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;
  void observe_failure(const Observation& obs) override;
  void observe_pending(const Trial& trial) override;
  void observe_withdrawn(const Trial& trial) override;

 private:
  struct Pending {
    Vector unit;
    double value;
    bool fit;              // a fit may follow this point (after the run's design)
    std::uint64_t stream;  // seed stream of that fit (history size at the tell)
    std::size_t run_size;  // the run's points with this one
  };
  // One run: its trust region, data and GP (the GP is a cache of the told history, brought up to
  // date by sync()).
  struct Region {
    TrustRegion tr;
    Matrix X;  // unit points of the current run (columns)
    Vector y;
    std::size_t told = 0;          // tells (failures included) since the run began: design index origin
    std::size_t batch_count = 0;   // tells in the current update group
    double batch_best = 0.0;       // best value among them
    double best_before_batch = 0.0;  // run's best before the group
    mutable GaussianProcess gp;
    mutable std::vector<Pending> unsynced;
    mutable bool fitted = false;
    mutable std::size_t last_thorough_fit = 0;  // run's size at its last multi-start fit
    mutable std::size_t last_fit = 0;           // run's size at its last fit
    DesignSequence design;                      // the current run's initial design
  };

  /// Applies region r's observations told since its last sync to its GP, in order, with the fit
  /// each one triggered at its tell: the GP is a function of the told history, its cost is paid
  /// in ask().
  void sync(const Region& region) const;
  /// The Rff sampler's feature count this ask (options().rff_features; 0: by the history's size).
  std::size_t rff_features() const;
  Matrix candidates(const GaussianProcess& gp, const Region& region, const Vector& center, Rng& rng,
                    std::optional<Vector> lower = std::nullopt, std::optional<Vector> upper = std::nullopt) const;
  /// Candidates on a space with integer or categorical parameters: valid values only, free points
  /// only (none evaluated or pending), a Hamming limit on the categoricals; the region doubles for
  /// this ask until it holds a free point. Empty only when the whole space is taken.
  Matrix discrete_candidates(const GaussianProcess& gp, const Region& region, const Vector& center, Rng& rng) const;
  /// The fit of options().recipe on gp's data (thorough: the multi-start fit of the default).
  void fit_run_model(GaussianProcess& gp, bool thorough, Rng& rng) const;
  /// The region a told trial belongs to: the one that proposed it; an external tell (or a
  /// replayed one) goes to the region whose box, scaled by its length, is nearest.
  std::size_t region_of(const Trial& trial);
  /// The region that proposed a pending trial (0 if none did: pending trials are always asked).
  std::size_t asked_by(const Trial& trial) const;
  /// The region an external point is given to: the nearest best point, scaled by region length.
  std::size_t nearest_region(const Trial& trial) const;
  /// The initial design of region r's run after `restarts` restarts.
  DesignSequence make_design(std::size_t r, std::size_t restarts) const;
  void restart(Region& region);

  TurboOptions options_;
  std::size_t n_init_, n_candidates_;
  std::vector<Region> regions_;
  std::vector<std::pair<std::uint64_t, std::size_t>> proposed_by_;  // (trial id, region) of pending asks
  std::vector<std::size_t> categories_;  // the GP's categorical inputs (empty: none)
};

AlgorithmInfo turbo_info();

}  // namespace optimist
