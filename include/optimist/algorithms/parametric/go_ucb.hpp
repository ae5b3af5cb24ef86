// GO-UCB: global optimization with parametric function approximation (Liu & Wang, ICML 2023,
// Algorithm 1), its workshop variant and the exploration-first baseline (workshop Lemma 15).
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "optimist/algorithms/parametric/gradient_ellipsoid.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/models/parametric/parametric_model.hpp"
#include "optimist/models/parametric/regression_oracle.hpp"
#include "optimist/solvers/box_maximizer.hpp"

namespace optimist {

struct GoUcbOptions {
  /// "go-ucb" (Algorithm 1), "workshop" (workshop Algorithm 1 with its section-4 surrogate) or
  /// "exploration-first" (workshop Lemma 15).
  std::string variant = "go-ucb";
  std::size_t n_init = 0;   ///< Phase I length; 0: smallest n with n >= sqrt(N - n) (Theorem 4.1)
  std::string init = "uniform";  ///< Phase I design: "uniform" (the paper) or "sobol"
  /// Built-in family f_w used when no model is given: "mlp" (the paper's network, sized by hidden
  /// and activation), "additive" (AdditiveMlp: f_w(x) = c + sum_i g_i(x_i), units_per_input
  /// sigmoid units per input; docs/go-ucb.md, sixth round) or "auto": additive from 3 inputs up,
  /// the paper's network below, or when hidden or activation differ from their defaults ({25},
  /// sigmoid: they describe the network) or preset=paper (seventh round). The constructor replaces "auto" by its choice (options().model; "custom" when a model
  /// is passed to it).
  std::string model = "auto";
  std::vector<std::size_t> hidden = {25};  ///< model=mlp: hidden layer sizes (the paper's: {25})
  std::string activation = "sigmoid";      ///< model=mlp: activation
  std::size_t units_per_input = 9;         ///< model=additive: sigmoid units per input (d_w = 3 d_x units + 1)
  /// Fit standardized outputs (Phase I mean and sd; the paper does not). Unset: yes for the built-in
  /// models (their output layer absorbs any shift and scale), no for a model passed to the constructor,
  /// whose family describes the objective's own values (a physics law cannot fit (y - mean) / sd).
  /// Without it lambda, beta and the oracle's ridge are in the objective's units.
  std::optional<bool> standardize;
  /// Deviation: each refit re-standardizes with the mean and sd of all data so far (false: Phase I's
  /// stay). After a flat Phase I its sd is the noise, and later values would be thousands of sds.
  bool restandardize = true;
  /// "default" or "paper": lambda and beta_t of appendix D.1, and every deviation below forced to
  /// its paper value (inputs=unit, weight_decay=0, refit_every=0, trust_region=0).
  std::string preset = "default";
  double lambda = 1.0;  ///< regularization of eqs. (3)-(5) (preset=paper: sqrt(T) log^2 T)
  double beta = 0.1;    ///< confidence radius beta_t (preset=paper: d_w^3 F^4 t / T)
  /// beta_t schedule (preset default): "constant" (beta_t = beta) or "log" (beta_t = beta (1 + ln t),
  /// the radius grows like sqrt(log t) as in GP-UCB-style confidence bounds).
  std::string beta_schedule = "constant";
  /// Deviations from Algorithm 1 (each paper value available):
  /// inputs: what the built-in model sees: "unit" (the unit-cube point, paper) or "centered"
  /// (2u - 1 in [-1,1]^d, so a zero-centered network is symmetric about the box center). A model
  /// passed to the constructor always sees unit-cube points.
  std::string inputs = "unit";
  /// Oracle (eq. 2) weight decay: + weight_decay ||w||^2 on top of the oracle's own ridge toward
  /// the start (paper: 0).
  double weight_decay = 0.0;
  /// Every refit_every Phase II observations, re-run the oracle (eq. 2) on all data warm-started
  /// at w_t, make the fit the new w_0 and rebuild Sigma_t / w_t (eqs. 3-5) from the Phase II
  /// points' gradients at it (paper: 0, never).
  std::size_t refit_every = 1;
  std::size_t refit_restarts = 0;  ///< extra random oracle starts at each refit
  /// Step 5 over a box of this side (fraction of the domain) centred at the best observed point,
  /// clipped to the domain (paper: 0, the whole domain).
  double trust_region = 0.1;
  /// "box": trust_region is the side of a box; "ball": the radius of a Euclidean ball (both in
  /// unit-cube coordinates, intersected with the domain).
  std::string trust_shape = "ball";
  /// Adapt the trust region's size: x1.5 after a Phase II step that improves the best value, x0.7
  /// after one that does not, within [trust_region / 4, trust_max (0: trust_region)].
  bool trust_adapt = true;
  /// Upper limit of the adapted size (0: trust_region, i.e. the region never grows past its start).
  double trust_max = 0.0;
  /// "success": grow after any improvement (above); "ratio": grow only when the improvement is at
  /// least half the one f_{w_t} predicted (the classical trust-region ratio test), keep the size
  /// after a smaller improvement, shrink otherwise.
  std::string trust_rule = "success";
  /// Integer and categorical spaces (docs/discrete.md): step 5 over every value of the integer
  /// parameters on odd Phase II steps and within the trust region on even ones ("alternate"),
  /// always over every value ("global": the paper's step 5 on the discrete part), or always in the
  /// trust region ("trust-region"). Categorical parameters are never restricted; continuous ones
  /// keep the trust region.
  std::string discrete_step = "alternate";
  /// Also maximize the acquisition over the whole domain and take that point when its pessimistic
  /// value f_{w_t}(x) - sqrt(beta_t) ||g||_{Sigma_t^-1} beats the incumbent's optimistic value
  /// (the model is confident the far point is better than anything near the incumbent).
  bool global_candidate = false;
  /// Stall rule (docs/robust.md): this many Phase II steps in a row without improvement, each at a
  /// point next to one already evaluated (closer than 5% of the smallest trust region), make the
  /// next point the one farthest from every evaluated point (a space-filling step), after which
  /// the region restarts at trust_region. Keeps the search from re-evaluating a local optimum for
  /// the rest of the budget; 0: never (before).
  std::size_t stall_steps = 3;
  std::string acquisition = "linearized";  ///< "linearized" (Lemma 5.4) or "joint" (step 5)
  std::size_t raw_samples = 512;           ///< acquisition: quasi-random candidates
  std::size_t restarts = 8;                ///< acquisition: local searches from the best candidates
  std::string output = "model";  ///< recommend(): "model" (best evaluated point under f_{w_t}),
                                 ///< "best-observed", or "uniform" (the paper's draw among Phase II)
  RegressionOracleOptions oracle;  ///< eq. (2)
  double workshop_sigma = 0.01;    ///< workshop surrogate: sigma ||grad||_2 sqrt(U/t) + U/t
  double workshop_u = 10.0;
  /// A model given to the constructor is first checked against finite differences of its own
  /// values (check_model_gradients: 3 random points, tolerance 1e-4); wrong derivatives would make
  /// the fit, Sigma_t and the acquisition silently wrong. The built-in MLP is not checked.
  bool check_model = true;
};

/// Ask/tell GO-UCB. Inputs of the model are unit-cube points (integer and categorical parameters
/// as the centers of equal-length intervals, appendix D.2).
class GoUcb : public Optimizer {
 public:
  /// context.horizon is the total number of evaluations N = n + T (required).
  /// model: the parametric family f_w (input_dim must equal space.dim()) of the value GO-UCB
  /// maximizes (the objective for Direction::Maximize, its negative for Minimize), over unit-cube
  /// points; null builds the MLP of the options. Throws InvalidArgument on inconsistent options
  /// (naming them) and on a model whose derivatives disagree with its values (options.check_model).
  GoUcb(const Space& space, Direction direction, GoUcbOptions options, const RunContext& context,
        std::shared_ptr<const ParametricModel> model = nullptr);

  /// The Phase I length n for a total budget N: the smallest n with n >= sqrt(N - n).
  static std::size_t default_n_init(std::size_t budget);
  /// What model="auto" means for a space of this dimension and these options: "additive" from 3
  /// inputs up unless hidden or activation differ from their defaults or preset=paper, or the
  /// space has a categorical parameter (a choice that changes the other parameters' effects needs
  /// the interactions of the paper's network; docs/discrete.md); else "mlp".
  static std::string auto_model(std::size_t dim, const GoUcbOptions& options, bool categorical = false);

  const ParametricModel& model() const { return *model_; }
  const GoUcbOptions& options() const { return options_; }
  std::size_t n_init() const { return n_init_; }
  bool in_phase_two() const { return ellipsoid_.has_value(); }
  /// Current parameter estimate (w_0 after Phase I, then w_t); empty before the oracle ran.
  Vector current_parameters() const;
  /// lambda and beta_t as used by the next ask.
  double lambda() const { return lambda_; }
  double beta(std::size_t t) const;
  nlohmann::json diagnostics() const override;

 protected:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;
  Vector recommend_unit() const override;

 private:
  void run_oracle();
  /// y_mean_ and y_scale_ (sample sd; 1 if y is constant) from these values.
  void standardize_with(const Vector& y);
  RegressionFit oracle_fit(const Matrix& X, const Vector& ys, const Vector& warm_start, std::size_t restarts, Rng& rng) const;
  void refit();
  double trust_size() const { return trust_size_ > 0 ? trust_size_ : options_.trust_region; }
  double standardized(double y) const { return (y - y_mean_) / y_scale_; }
  Vector phase_one_point(std::uint64_t index) const;
  Vector acquire();
  /// acquire() on a space with integer or categorical parameters (maximize_mixed).
  Vector acquire_discrete(const BoxObjective& fn, const std::vector<Vector>& starts, Vector lower, Vector upper, Rng& rng) const;
  double acquisition_value(const Vector& x, Vector* grad) const;
  /// f_{w_t}(x) and the bonus sqrt(beta_t) ||grad_w f_x(w_t)||_{Sigma_t^-1} (go-ucb variant).
  std::pair<double, double> mean_and_bonus(const Vector& x) const;
  Vector joint_ascent(const Vector& x_start, const Vector& lower, const Vector& upper) const;

  GoUcbOptions options_;
  std::shared_ptr<const ParametricModel> model_;
  std::size_t n_init_ = 0;
  std::size_t horizon_ = 0;  // T = N - n
  double lambda_ = 1.0;
  double y_mean_ = 0.0, y_scale_ = 1.0, f_bound_ = 1.0;
  Vector w0_;        // oracle output
  Vector w_latest_;  // workshop: refit each round
  std::optional<GradientEllipsoid> ellipsoid_;
  std::size_t phase_two_count_ = 0;
  std::vector<std::size_t> phase_two_indices_;  // indices into history() of Phase II observations
  double last_fit_sse_ = 0.0;
  std::size_t refits_ = 0;
  double trust_size_ = 0.0;          // current side / radius
  std::size_t global_steps_ = 0;     // asks won by the global candidate
  std::size_t stalled_ = 0;          // Phase II steps at the minimum trust size without improvement
  std::size_t explorations_ = 0;     // space-filling steps taken by the stall rule
  bool stalled() const;
  bool revisits(const Observation& obs) const;
  Vector best_unit_;                 // incumbent before the current tell (trust_rule=ratio)
  double best_seen_ = -std::numeric_limits<double>::infinity();
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
