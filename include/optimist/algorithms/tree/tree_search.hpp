// Tree-search optimizers over the hierarchical partition (docs/tree-search.md):
// SequOOL and StroquOOL (Bartlett, Gabillon & Valko, ALT 2019, Figs. 1-2), SOO (Munos 2011) and a
// breadth-first uniform grid. All are sequential: supports_batch() is false and ask(n) returns one
// point. Evaluations of the same cell repeated (StroquOOL) are repeated asks of the same point.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <vector>

#include "optimist/algorithms/tree/partition.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/algorithms/option_table.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/enum_names.hpp"

namespace optimist {

/// x_{h,i}, the point a cell is evaluated at.
enum class Representative {
  Center,  ///< the cell's center
  Random,  ///< a seeded random point inside the cell
};
inline constexpr EnumNames<Representative, 2> kRepresentativeNames{
    {{{Representative::Center, "center"}, {Representative::Random, "random"}}}};

/// The output of the tree searches built for noise (StroquOOL, StoSOO; HOO and POO have their own
/// choices, Hoo::Output): Paper, the paper's rule; Best, the best evaluated point (exact when the
/// objective is deterministic, where the papers' rules, made for noise, pick worse points); Auto,
/// Best on a deterministic objective and Paper on a noisy one.
enum class TreeRecommend { Auto, Paper, Best };
inline constexpr EnumNames<TreeRecommend, 3> kTreeRecommendNames{
    {{{TreeRecommend::Auto, "auto"}, {TreeRecommend::Paper, "paper"}, {TreeRecommend::Best, "best"}}}};

/// Options shared by the tree optimizers.
struct TreeOptions {
  unsigned children = 2;  ///< K: children per split (2 or 3)
  Representative representative = Representative::Center;
};

/// The table of TreeOptions, included by every tree optimizer's option table.
const OptionTable<TreeOptions>& tree_option_table();

/// Shared machinery: the partition, per-node statistics, a plan of (node, repetitions) steps the
/// asks walk through, and the matching of tells to steps (by pending trial id; an external tell
/// is matched to the next planned step when its point is within 1e-12 of that step's point, and
/// ignored otherwise). When the plan is used up the algorithm's decide() extends it. With a
/// deterministic objective (the default) a step whose point has been evaluated takes the known
/// value without an evaluation, so no point is asked twice (repeated evaluations of a cell,
/// StroquOOL's and StoSOO's, cost nothing); with a noisy one every step is an evaluation.
class TreeOptimizer : public Optimizer {
 public:
  bool supports_batch() const override { return false; }
  /// Index of the current run of the doubling trick (0 while within the budget).
  std::uint64_t run() const { return run_; }
  const Partition& partition() const { return tree_; }
  /// Evaluations this algorithm planned (asked or matched) in its runs, all runs included.
  std::uint64_t evaluations_planned() const { return planned_total_; }
  /// Bytes per node: partition plus the statistics kept here.
  std::size_t bytes_per_node() const { return tree_.bytes_per_node() + sizeof(double) + 3 * sizeof(std::uint32_t); }

  void set_recommend(TreeRecommend r) { recommend_ = r; }

 protected:
  /// Whether recommend() answers with the best evaluated point (TreeRecommend).
  bool recommends_best_evaluated() const {
    return best() != nullptr && (recommend_ == TreeRecommend::Best || (recommend_ == TreeRecommend::Auto && !noisy()));
  }
  TreeRecommend recommend_ = TreeRecommend::Paper;

  struct Step {
    std::uint32_t node = 0;
    std::uint32_t reps = 1;
    std::uint32_t tag = 0;
  };
  /// context.horizon: the n of the algorithms that plan with it; unset (or 0): anytime (doubling trick).
  TreeOptimizer(std::string name, const Space& space, Direction direction, const TreeOptions& options,
                const RunContext& context);

  /// Appends steps with plan(); returns false when nothing can be decided because the values it
  /// needs are pending (the ask then gets an untracked uniform filler point).
  virtual bool decide() = 0;
  /// A successful value (to maximize) of a step's node, already added to sum_/count_.
  virtual void on_value(const Step& step, double y) { (void)step; (void)y; }

  /// Schedules `reps` evaluations of `node` (planned_ counts them at once).
  void plan(std::uint32_t node, std::uint32_t reps, std::uint32_t tag = 0);
  /// Schedules a step without touching planned_ (algorithms keeping their own trees: HOO, POO).
  void push_step(const Step& step);
  /// Adds a successful value to the step's statistics (default: sum_/count_ of step.node), then on_value().
  virtual void record(const Step& step, double y);
  /// The unit point a step evaluates (default: representative(step.node)).
  virtual Vector step_point(const Step& step) const { return representative(step.node); }
  /// New run (doubling trick): empty tree, statistics cleared, stale pending tells ignored.
  void reset_tree();
  /// Empirical mean, -inf when the node has no successful value.
  double mean(std::uint32_t node) const {
    return count_[node] ? sum_[node] / count_[node] : -std::numeric_limits<double>::infinity();
  }
  /// True while some asked step still waits for its value.
  bool has_pending() const { return !pending_steps_.empty(); }
  /// Representative x_{h,i} of a node in the unit cube.
  Vector representative(std::uint32_t node) const;
  std::uint32_t new_children(std::uint32_t node, unsigned count = 0);
  /// Node whose subtree is most surely good under noise: the evaluated node maximizing the lower
  /// confidence bound mean - sigma sqrt(2 ln N / C), over the mean of its own value (C = 1) and the
  /// mean of the values of its whole subtree (C = evaluated nodes in it); N = evaluated nodes and
  /// sigma estimated from parent-child differences in the deeper half of the tree (where f barely
  /// varies). With deterministic f the deep differences vanish, sigma = 0 and this is the
  /// best-valued node. 0 if nothing is evaluated.
  std::uint32_t lower_confidence_node() const;

  TreeOptions opt_;
  std::uint64_t budget_ = 0;  ///< n planned for (RunContext::horizon); 0: anytime
  Partition tree_;
  std::vector<double> sum_;
  std::vector<std::uint32_t> count_;    ///< successful evaluations T_{h,i}
  std::vector<std::uint32_t> planned_;  ///< evaluations planned (asked or to come)
  std::vector<std::uint32_t> parent_;   ///< parent node (the root's: itself)
  std::uint64_t run_ = 0;               ///< index of the current run (doubling trick)
  std::uint64_t run_planned_ = 0;       ///< evaluations planned in the current run

 private:
  std::vector<Vector> propose(std::size_t n) override;
  void observe(const Observation& obs, double y) override;
  void observe_failure(const Observation& obs) override;
  void observe_pending(const Trial& trial) override;
  void observe_withdrawn(const Trial& trial) override;
  /// The next step: a withdrawn step first (asked again, in the order planned), then the plan's.
  const Step* next_step();
  /// next_step() after consuming the steps whose point is known (deterministic objectives: its
  /// value recorded, or attached to its pending trial); `told`: a point being told, which stops
  /// the walk when a step reaches it. Null when nothing can be decided, or after kMaxKnownSteps.
  const Step* next_new_step(const Vector* told);
  /// The id of the pending trial at u's user point, if any.
  std::optional<std::uint64_t> pending_id(const Vector& u) const;
  void advance();

  struct PendingStep {
    std::uint64_t id;
    std::uint64_t run;
    Step step;
    std::uint64_t order;  ///< its place in the plan: withdrawn steps return in this order
  };
  std::vector<Step> plan_;
  std::size_t pos_ = 0;
  std::uint32_t rep_ = 0;
  std::vector<PendingStep> pending_steps_;
  std::deque<PendingStep> withdrawn_steps_;  ///< steps of withdrawn trials, to be asked again
  bool from_withdrawn_ = false;       ///< next_step() returned withdrawn_steps_.front()
  std::uint64_t plan_order_ = 0;      ///< steps taken from the plan so far
  /// The place in the plan of the step next_step() returned.
  std::uint64_t step_order() const { return from_withdrawn_ ? withdrawn_steps_.front().order : plan_order_; }
  std::uint64_t planned_total_ = 0;
};

/// SequOOL (ALT 2019, Fig. 1), with Remark 3.2's use of the whole budget and Remark 3.1's
/// doubling trick when the budget is 0 (runs of 64, 128, ... evaluations) or exceeded.
class SequOOL : public TreeOptimizer {
 public:
  /// Output x(n): Fig. 1's argmax of the evaluated values, the deepest opened cell, or the lower
  /// confidence bound over subtree means (lower_confidence_node(); Fig. 1's output without noise).
  enum class Output { Best, Deepest, LowerConfidence };
  /// `repeats` p: SequOOL(p) of sec. 4, every cell evaluated p times (its value: the mean), the
  /// schedule planned for floor(n / p) cells (p = 1: Fig. 1). p = 0 (kAutoRepeats): the first run
  /// starts by evaluating the root's center twice; equal values (deterministic feedback) give
  /// p = 1, different ones p = kNoisyRepeats, and the schedule plans the n - 2 evaluations left.
  static constexpr std::uint32_t kAutoRepeats = 0;
  static constexpr std::uint32_t kNoisyRepeats = 4;
  SequOOL(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context = {},
          Output output = Output::LowerConfidence,
          std::uint32_t repeats = kAutoRepeats);
  /// p in use (with kAutoRepeats: 1 until the two root values are known).
  std::uint32_t repeats() const { return reps_; }
  /// Openings per depth of a run with n evaluations: element h is the number of cells of depth h
  /// opened (element 0: the root, 1 or 0); `partial` receives the children evaluated by a final
  /// partial opening (0 if none) and `partial_depth` its depth. Sum K * openings + partial == n.
  static std::vector<std::uint64_t> schedule(std::uint64_t n, unsigned k, std::uint64_t* partial = nullptr,
                                             std::size_t* partial_depth = nullptr, std::uint64_t* h_max = nullptr);
  /// Openings done per depth in the current run.
  const std::vector<std::uint64_t>& openings() const { return done_; }

 protected:
  bool decide() override;
  void on_value(const Step& step, double y) override;
  Vector recommend_unit() const override;

 private:
  void start_run();
  void schedule_run(std::uint64_t n, std::uint32_t p);
  std::vector<std::uint64_t> sched_, done_;
  bool pilot_ = false;            ///< kAutoRepeats: the root's two evaluations are under way
  std::uint64_t pilot_rest_ = 0;  ///< evaluations of the run left after the pilot
  std::vector<double> pilot_values_;
  std::uint64_t partial_ = 0;
  std::size_t partial_depth_ = 0;
  std::size_t depth_ = 0;  ///< next depth to open
  std::uint32_t level_begin_ = 0, level_end_ = 1;
  double best_ = -std::numeric_limits<double>::infinity();
  Vector best_unit_;
  Output output_ = Output::LowerConfidence;
  Vector lcb_previous_unit_;  ///< the LCB output of the last finished run (doubling trick)
  std::uint32_t repeats_ = 1, reps_ = 1;  ///< p asked for; p of the current run (at most its n)
  std::uint64_t extra_ = 0;               ///< n - p floor(n/p), added to the run's first evaluation
  std::size_t deepest_depth_ = 0;  ///< depth of deepest_ (largest value among the cells opened there)
  std::uint32_t deepest_run_ = 0;
  Vector deepest_unit_;
};

/// StroquOOL (ALT 2019, Fig. 2) with the exact evaluation count (Appendix B) fitted to the budget.
class StroquOOL : public TreeOptimizer {
 public:
  /// `p_max_log2`: p_max = floor(log2 h_max) (sec. 4.1's text, the default) or Fig. 2's floor(ln h_max).
  StroquOOL(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context = {},
            bool p_max_log2 = true);
  /// p_max of Fig. 2, floor(ln h_max), or floor(log2 h_max) (sec. 4.1's text).
  static std::uint64_t p_max_for(std::uint64_t h_max, bool log2);
  /// Evaluations of a run with parameter h_max (exploration + (p_max+1) * floor(h_max/2)
  /// cross-validation), independent of the function values.
  static std::uint64_t evaluations(std::uint64_t h_max, unsigned k, bool p_max_log2 = true);
  /// Largest h_max with evaluations(h_max, k) <= n (0 if none).
  static std::uint64_t fit_h_max(std::uint64_t n, unsigned k, bool p_max_log2 = true);
  std::uint64_t h_max() const { return h_max_; }
  std::uint64_t p_max() const { return p_max_; }
  /// Openings per depth (index h) and evaluations per depth (children evaluations planned at h).
  const std::vector<std::uint64_t>& openings() const { return openings_; }
  const std::vector<std::uint64_t>& exploration_evaluations() const { return evals_; }
  std::uint64_t cross_validation_evaluations() const { return cv_evals_; }
  /// The current run's cross-validation candidates x(n,p), p = 0..p_max (unit points), and their
  /// cross-validation means so far (NaN before any).
  std::vector<std::pair<Vector, double>> candidates() const;

 protected:
  bool decide() override;
  void on_value(const Step& step, double y) override;
  Vector recommend_unit() const override;

 private:
  void start_run();
  std::uint32_t output() const;
  bool p_max_log2_ = true;
  std::uint64_t n_run_ = 0, h_max_ = 0, p_max_ = 0;
  std::size_t depth_ = 0;
  bool cv_planned_ = false, run_done_ = false;
  std::uint32_t level_begin_ = 0, level_end_ = 1;
  std::vector<std::uint64_t> openings_, evals_;
  std::uint64_t cv_evals_ = 0;
  std::vector<std::uint32_t> candidates_;
  std::vector<double> cv_sum_;
  std::vector<std::uint32_t> cv_count_;
  bool has_output_ = false;
  Vector output_unit_;
};

/// SOO (Munos 2011): sweeps over depths h = 0 .. min(depth, h_max(t)), opening at each depth the
/// leaf of largest value if it is at least the values opened at smaller depths in the sweep;
/// h_max(t) = t^depth_exponent.
class Soo : public TreeOptimizer {
 public:
  Soo(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context,
      double depth_exponent);

 protected:
  bool decide() override;
  void on_value(const Step& step, double y) override;
  Vector recommend_unit() const override;

 private:
  struct Leaf {
    double value;
    std::uint32_t node;
    bool operator<(const Leaf& o) const { return value < o.value || (value == o.value && node > o.node); }
  };
  double exponent_;
  std::vector<std::vector<Leaf>> heaps_;  ///< evaluated leaves per depth (max-heaps)
  std::size_t h_ = 0;
  double v_max_ = -std::numeric_limits<double>::infinity();
  bool root_planned_ = false;
  double best_ = -std::numeric_limits<double>::infinity();
  std::uint32_t best_node_ = 0;
};

/// Breadth-first evaluation of every cell: depth 0, then all cells of depth 1, 2, ... (with K = 2
/// in 1-D, the dyadic grid refined level by level). Output: best value.
class UniformGrid : public TreeOptimizer {
 public:
  UniformGrid(const Space& space, Direction direction, const TreeOptions& options, const RunContext& context = {});

 protected:
  bool decide() override;
  void on_value(const Step& step, double y) override;
  Vector recommend_unit() const override;

 private:
  bool root_planned_ = false;
  std::uint32_t next_split_ = 0;
  double best_ = -std::numeric_limits<double>::infinity();
  std::uint32_t best_node_ = 0;
};

AlgorithmInfo sequool_info();
AlgorithmInfo stroquool_info();
AlgorithmInfo soo_info();
AlgorithmInfo uniform_grid_info();

}  // namespace optimist
