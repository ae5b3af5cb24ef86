// GO-UCB: global optimization with parametric function approximation (Liu & Wang, ICML 2023,
// Algorithm 1), its workshop variant and the exploration-first baseline (workshop Lemma 15).
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "optimist/algorithms/bo/initial_design.hpp"
#include "optimist/algorithms/bo/trust_region.hpp"
#include "optimist/algorithms/parametric/go_ucb_options.hpp"
#include "optimist/algorithms/parametric/gradient_ellipsoid.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/models/outcome_transform.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/models/parametric/parametric_model.hpp"
#include "optimist/models/parametric/regression_oracle.hpp"
#include "optimist/solvers/box_maximizer.hpp"

namespace optimist {

/// Ask/tell GO-UCB, Algorithm 1. Inputs of the model are unit-cube points (integer and categorical
/// parameters as the centers of equal-length intervals, appendix D.2). The workshop version's
/// variants, GoUcbWorkshop and ExplorationFirst (go_ucb_variants.hpp), share its Phase I, oracle and
/// acquisition maximizer and replace the Phase II update and the acquisition value.
class GoUcb : public Optimizer {
 public:
  /// context.horizon is the total number of evaluations N = n + T (required).
  /// model: the parametric family f_w (input_dim must equal space.dim()) of the value GO-UCB
  /// maximizes (the objective for Direction::Maximize, its negative for Minimize), over unit-cube
  /// points; null builds the MLP of the options. Throws InvalidArgument on inconsistent options
  /// (naming them) and on a model whose derivatives disagree with its values (options.check_model).
  /// options.variant must be GoUcbVariant::GoUcb (make_go_ucb_variant builds any variant).
  GoUcb(const Space& space, Direction direction, GoUcbOptions options, const RunContext& context,
        std::shared_ptr<const ParametricModel> model = nullptr);

  /// The Phase I length n for a total budget N: the smallest n with n >= sqrt(N - n).
  static std::size_t default_n_init(std::size_t budget);
  /// What model=auto means for a space of this dimension and these options: Additive from 3 inputs
  /// up unless the options describe the network (hidden or activation other than their defaults,
  /// or preset=paper), or the space has a categorical parameter (a choice that changes the other
  /// parameters' effects needs the interactions of the paper's network; docs/discrete.md); else Mlp.
  static GoUcbModel auto_model(std::size_t dim, const GoUcbOptions& options, bool categorical = false);

  const ParametricModel& model() const { return *model_; }
  const GoUcbOptions& options() const { return options_; }
  std::size_t n_init() const { return n_init_; }
  bool in_phase_two() const { return ellipsoid_.has_value(); }
  /// Current parameter estimate (w_0 after Phase I, then w_t); empty before the oracle ran.
  virtual Vector current_parameters() const;
  /// lambda and beta_t as used by the next ask.
  double lambda() const { return lambda_; }
  double beta(std::size_t t) const;
  nlohmann::json diagnostics() const override;
  /// {"resolved": {...}}: the values the options left at "auto" took for this run.
  nlohmann::json decisions() const override;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;
  void observe_failure(const Observation& obs) override;
  Vector recommend_unit() const override;

  /// For the variants: the same construction, checked against the variant being built.
  GoUcb(const Space& space, Direction direction, GoUcbOptions options, const RunContext& context,
        std::shared_ptr<const ParametricModel> model, GoUcbVariant built);
  /// Phase II, after a successful observation (ys: its standardized value): Algorithm 1 steps 2-3.
  virtual void update_phase_two(const Observation& obs, double ys);
  /// The acquisition maximized over x in step 5, and its gradient in x when grad is given.
  virtual double acquisition_value(const Vector& x, Vector* grad) const;
  /// Eq. (2) on every successful observation so far, warm-started (a refit's random stream).
  RegressionFit fit_on_all_data(const Vector& warm_start, std::size_t restarts, bool restandardize);
  /// w_0: Phase I's oracle fit (or refit_every's latest).
  const Vector& initial_parameters() const { return w0_; }
  GoUcbOptions options_;       // as resolved at construction (preset=paper applied, model=auto decided)
  nlohmann::json resolved_ = nlohmann::json::object();  // options resolved from "auto" (decisions())
  double last_fit_sse_ = 0.0;  // the last oracle fit's squared error (diagnostics)

 private:
  /// Throws InvalidArgument when the model's matrices over `budget` evaluations (or the opening's
  /// radial network's) would not fit in available_memory_bytes().
  void check_model_memory(std::size_t budget, bool user_model) const;
  void run_oracle();
  /// outcome_ (sample mean and sd; only centred if y is constant) from these values.
  void standardize_with(const Vector& y) { outcome_ = Standardization::fit(y); }
  RegressionFit oracle_fit(const Matrix& X, const Vector& ys, const Vector& warm_start, std::size_t restarts, Rng& rng) const;
  void refit();
  /// After a Phase II observation: whether refit_every's schedule asks for refit() now.
  bool refit_due_now() const;
  double trust_size() const { return size_override_ ? *size_override_ : trust_.length; }
  /// The trust region's initial size, "auto" resolved (0: none, step 5 over the whole domain).
  double trust_region() const { return *options_.trust_region; }
  double standardized(double y) const { return outcome_.apply(y); }
  Vector phase_one_point(std::uint64_t index) const;
  Vector acquire();
  /// Adds the Phase II points to `ellipsoid` (centred at w_0) as eqs. (3)-(5) do, under `model`, their
  /// values in `outcome`'s units.
  void add_phase_two_points(const ParametricModel& model, const Standardization& outcome, GradientEllipsoid& ellipsoid) const;
  /// opening_steps: step 5 under a RadialNet fitted to all data (fifteenth round).
  Vector opening_acquire();
  /// acquire() on a space with integer or categorical parameters (maximize_mixed).
  Vector acquire_discrete(const BoxObjective& fn, const std::vector<Vector>& starts, Vector lower, Vector upper, Rng& rng) const;
  /// Step 5's value for many raw samples at once (empty where fn is not Lemma 5.4's form).
  BoxBatchObjective batch_acquisition(const BoxObjective& fn) const;
  /// f_{w_t}(x) and the bonus sqrt(beta_t) ||grad_w f_x(w_t)||_{Sigma_t^-1} (go-ucb variant).
  std::pair<double, double> mean_and_bonus(const Vector& x) const;
  Vector joint_ascent(const Vector& x_start, const Vector& lower, const Vector& upper) const;

  std::shared_ptr<const ParametricModel> model_;
  std::size_t n_init_ = 0;
  std::optional<DesignSequence> sobol_design_;  // init=sobol: Phase I's points
  std::size_t horizon_ = 0;  // T = N - n
  double lambda_ = 1.0;
  Standardization outcome_;  // identity unless standardize
  double f_bound_ = 1.0;
  Vector w0_;  // oracle output
  std::optional<GradientEllipsoid> ellipsoid_;
  std::size_t phase_two_count_ = 0;
  std::vector<std::size_t> phase_two_indices_;  // indices into history() of Phase II observations
  std::size_t refits_ = 0;
  std::optional<double> size_override_, beta_override_;  // opening_steps: the opening step's region and beta
  std::optional<std::pair<Vector, Vector>> bounds_override_;  // opening_bounds data: the data's range
  std::size_t last_fit_n_ = 0;  // successful observations at the last oracle fit (Phase I's or a refit)
  TrustRegion trust_;                // side / radius (deviation trust_region); its restarts: the stall rule's explorations
  std::size_t global_steps_ = 0;     // asks won by the global candidate
  std::size_t stalled_ = 0;          // the stall rule's run of steps (stall_steps)
  bool stalled() const;
  bool revisits(const Observation& obs) const;
  bool whole_domain_step() const;  // this step 5 is over every integer value (discrete_step)
  Vector best_unit_;                 // incumbent before the current tell (trust_rule=ratio)
  double best_seen_ = -std::numeric_limits<double>::infinity();
  std::optional<double> worst_;  // the worst successful value so far (maximized)
  /// The value a failed observation is fitted with: worst_ (failed_points=worst), else none.
  std::optional<double> failed_value() const;
};

/// The registry's go-ucb, go-ucb-workshop or exploration-first (spec["name"], options as for
/// make_optimizer, context.horizon required) with your own model f_w instead of the built-in one
/// (null: the built-in one). Throws InvalidArgument on another name or a bad option, naming it.
std::unique_ptr<GoUcb> make_go_ucb(const nlohmann::json& spec, const Space& space, Direction direction,
                                   const RunContext& context, std::shared_ptr<const ParametricModel> model);

AlgorithmInfo go_ucb_info();
AlgorithmInfo go_ucb_workshop_info();
AlgorithmInfo exploration_first_info();

}  // namespace optimist
