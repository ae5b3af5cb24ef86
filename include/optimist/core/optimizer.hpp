// The ask/tell interface every algorithm implements.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "optimist/core/discrete_domain.hpp"
#include "optimist/core/point_set.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/core/space.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

/// What an optimizer learns from the run it serves, once, at construction: the seed and the horizon
/// are properties of the run, not options of an algorithm (docs/architecture.md, "Creating an
/// optimizer").
struct RunContext {
  /// Every random stream of the algorithm derives from it (rng_for_ask, design, fits).
  std::uint64_t seed = 0;
  /// The total number of evaluations the run plans (its budget), for algorithms that plan with it
  /// (GO-UCB's Phase I length, SequOOL's schedule, HOO's log term); unset: an anytime run.
  /// (The explicit initializer lets `RunContext{.seed = 3}` compile without -Wextra's warning.)
  std::optional<std::size_t> horizon = std::nullopt;
  /// The objective is declared noisy: evaluating a point again gives a new observation, so
  /// algorithms may repeat points (BKB's arm pulls, StoSOO/HOO/POO's repeated samples) and a
  /// finite space is never exhausted. False (the default, a deterministic objective): a point
  /// evaluated or pending is never asked again while unevaluated points remain.
  bool noisy = false;
};

/// Thrown by ask() on a deterministic objective when every point of a finite space has been
/// evaluated or is pending: nothing new is left to ask.
class SpaceExhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A point handed out by ask(): the unit-cube point the algorithm chose and its user form.
struct Trial {
  std::uint64_t id = 0;  ///< 0-based, in order of asks (external tells get the next id too)
  Vector unit;           ///< in [0,1]^d
  Vector x;              ///< space().to_user(unit)
};

/// A told trial.
struct Observation {
  Trial trial;
  double value = 0.0;  ///< as told, in the objective's direction (0 when failed)
  bool failed = false;
  std::string error;   ///< why it failed
};

/// Base class of all optimizers. Users drive it only through ask/tell:
///
///   Trial t = opt.ask();  double y = f(t.x);  opt.tell(t, y);
///
/// Contract shared by every algorithm:
///  - Values are told in the objective's direction (given at construction); internally every
///    algorithm maximizes direction_sign * value.
///  - Pending trials (asked, not yet told) are allowed; ask() may be called again before tell().
///  - Determinism: the optimizer is a deterministic function of (options, context, told history).
///    Randomness for an ask comes from rng_for_ask(), seeded by (seed, number of told + pending
///    trials), so a fresh optimizer fed the same tells asks the same next point.
///  - recommend() is the algorithm's own answer (default: best observed point).
///  - No repeats (deterministic objectives, the default): a point evaluated (failed ones included)
///    or pending is never returned by ask() while the space holds points that are neither. Each
///    algorithm avoids them on its own; as a safety net ask() replaces a repeated point by the
///    nearest free one (free_point_near), deterministically. When every point of a finite space
///    has been evaluated, exhausted() is true and ask() throws SpaceExhausted. With
///    RunContext::noisy none of this applies.
///  - Not thread-safe, not even the const members: recommend() may bring a model cache up to
///    date (gp-*, turbo). Give each thread its own optimizer, or serialize the
///    calls (the Python Optimizer holds a lock; a Study serializes through its storage).
///  - A trial is identified by its id: tell(trial, ...) takes the pending trial with that id, at
///    the point this optimizer asked (not a copy's edited x, nor another optimizer's trial).
class Optimizer {
 public:
  Optimizer(std::string name, Space space, Direction direction, const RunContext& context);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const std::string& name() const { return name_; }
  const Space& space() const { return space_; }
  Direction direction() const { return direction_; }
  std::uint64_t seed() const { return context_.seed; }
  /// The run's planned number of evaluations, if it has one (RunContext::horizon).
  std::optional<std::size_t> horizon() const { return context_.horizon; }
  const RunContext& context() const { return context_; }
  /// RunContext::noisy: repeated points are allowed.
  bool noisy() const { return context_.noisy; }

  /// The next point to evaluate. Throws SpaceExhausted when no point is left (see the class comment).
  Trial ask();
  /// Up to n points to evaluate in parallel (n >= 1). Algorithms without a batch form
  /// (supports_batch() == false) return exactly one; on a finite space with a deterministic
  /// objective, at most remaining_points().
  std::vector<Trial> ask(std::size_t n);

  /// Reports the value of an asked trial. Throws InvalidArgument if the trial is not pending, its
  /// x was changed after ask() (the value would be recorded at the asked point), or the value is
  /// not finite (a failed evaluation is reported with tell_failed).
  void tell(const Trial& trial, double value);
  /// Reports the value at a user point: the matching pending trial if there is one, otherwise
  /// an external observation (warm start, replay). Throws InvalidArgument on a point outside
  /// the space or a non-finite value.
  void tell(const Vector& x, double value);
  /// Reports that evaluating a pending trial failed; it enters the history as failed and the
  /// algorithm is not given a value for it.
  void tell_failed(const Trial& trial, const std::string& error);
  /// Reports a failed evaluation at a user point: the matching pending trial if there is one,
  /// otherwise an external failed observation (replay of a trace). Throws InvalidArgument on a
  /// point outside the space.
  void tell_failed(const Vector& x, const std::string& error);

  /// Gives back a pending trial that will not be evaluated (its job was cancelled; an Optuna trial
  /// ran other values): it leaves pending() and enters no history, and the algorithm forgets it
  /// (observe_withdrawn). The optimizer is then as if that ask had not been made: the next ask
  /// proposes what it would have proposed without it (often the same point). Unlike tell_failed,
  /// the point is not recorded as a failure the model must avoid. Throws InvalidArgument if the
  /// trial is not pending.
  void withdraw(const Trial& trial);

  /// Registers a pending trial for a user point this optimizer did not ask: another worker of a
  /// shared study asked it (or a queued point is being evaluated). The algorithm treats it as it
  /// treats its own pending trials (observe_pending); tell it later with the returned trial.
  /// Throws InvalidArgument on a point outside the space.
  Trial add_pending(const Vector& x);

  /// The algorithm's current answer, a user point. Throws std::logic_error before any
  /// successful observation when the algorithm has no answer of its own.
  Vector recommend() const;

  const std::vector<Observation>& history() const { return history_; }
  const std::vector<Trial>& pending() const { return pending_; }
  /// Best successful observation so far, if any.
  const Observation* best() const;
  std::size_t n_successful() const { return n_successful_; }
  /// True while every successful value told, as the algorithms see it (maximized()), is bit-equal
  /// to the first (a plateau so far; true before any): the history has nothing for a model to fit.
  bool values_all_equal() const { return values_all_equal_; }

  /// Distinct points evaluated so far (failed evaluations included).
  std::size_t distinct_evaluated() const { return n_distinct_evaluated_; }
  /// True for a deterministic objective on a finite space whose every point has been evaluated
  /// (failed ones included): the run is over (StopReason::SpaceExhausted).
  bool exhausted() const;
  /// Points of a finite space neither evaluated nor pending (what ask() can still return), for a
  /// deterministic objective; empty for a space with a continuous parameter or a noisy objective.
  std::optional<std::uint64_t> remaining_points() const;
  /// How many asked points the safety net replaced because the algorithm proposed a point
  /// evaluated or pending (0 for algorithms that avoid repeats on their own).
  std::size_t repeats_replaced() const { return repeats_replaced_; }

  virtual bool supports_batch() const { return false; }
  /// Per-evaluation diagnostics written into the trace (e.g. {"dictionary_size": 12}).
  virtual nlohmann::json diagnostics() const { return nlohmann::json::object(); }
  /// What the algorithm decided for the run at construction, for the trace's meta line (e.g.
  /// `auto`'s choice and its reason); empty by default.
  virtual nlohmann::json decisions() const { return nlohmann::json::object(); }

 protected:
  /// Propose between 1 and n unit-cube points (n >= 1). Pending trials are in pending().
  virtual std::vector<Vector> propose(std::size_t n) = 0;
  /// Called after a successful observation is stored; `y` is the value to maximize.
  virtual void observe(const Observation& obs, double y) { (void)obs; (void)y; }
  /// Called after add_pending() stored a trial that propose() did not return; algorithms that
  /// keep per-ask state (tree plans, TuRBO's regions) take it here as if they had proposed it.
  virtual void observe_pending(const Trial& trial) { (void)trial; }
  /// Called after a failed trial is stored.
  virtual void observe_failure(const Observation& obs) { (void)obs; }
  /// Called after withdraw() removed a pending trial: algorithms that keep per-ask state (tree
  /// plans, TuRBO's regions, auto's inner optimizer) undo what the ask did, so that the next ask
  /// proposes what it would have without it. Algorithms that read pending() need nothing.
  virtual void observe_withdrawn(const Trial& trial) { (void)trial; }
  /// Unit point of the answer; default: best observed.
  virtual Vector recommend_unit() const;

  /// Value to maximize for a stored observation, as the algorithms see it: within +-kLargestModelledValue,
  /// so that sums and differences of values (standardization, a bandit's per-arm sums) stay finite
  /// for sentinels at both ends of the doubles (+-1.7e308). The history keeps the value as told.
  double maximized(const Observation& obs) const {
    return std::clamp(direction_sign(direction_) * obs.value, -kLargestModelledValue, kLargestModelledValue);
  }
  static constexpr double kLargestModelledValue = 1e300;
  /// Random stream of the next ask: derive_seed(seed, history + pending).
  Rng rng_for_ask() const;
  /// Successful observations as unit points (columns) and maximized values.
  void successful_data(Matrix& unit_points, Vector& values) const;
  /// The same, plus every failed observation at `failed_value` when given, in history order.
  void model_data(Matrix& unit_points, Vector& values, std::optional<double> failed_value) const;
  /// The id the next trial will get: in propose(n), point k of the result becomes trial
  /// next_trial_id() + k.
  std::uint64_t next_trial_id() const { return next_id_; }

  // ---- the no-repeat rule (deterministic objectives; see the class comment) ----
  /// True when repeats must be avoided: the objective is not declared noisy.
  bool avoids_repeats() const { return !context_.noisy; }
  /// The integer and categorical part of the space.
  const DiscreteDomain& domain() const { return domain_; }
  /// True when the user point of unit point u (snapped) has been evaluated or is pending.
  bool is_taken(const Vector& u) const;
  /// The same for a user point.
  bool is_taken_user(const Vector& x) const;
  /// The maximized value of the first successful evaluation of u's user point (snapped), if any.
  std::optional<double> evaluated_value(const Vector& u) const;
  /// True when u's user point has been evaluated and every evaluation of it failed.
  bool evaluated_failed(const Vector& u) const;
  /// snap(u) when it is free (neither taken nor in `also`, user points), else the nearest free
  /// point: breadth-first over discrete neighbours, or, for a point of a space with continuous
  /// parameters, a small deterministic move of its continuous coordinates. Empty only when the
  /// space has no free point left.
  std::optional<Vector> free_point_near(const Vector& u, const PointSet* also = nullptr) const;
  /// A point uniform over the free points: draws of rng.uniform_vector (snapped) until one is
  /// free (at most 64), then a uniform choice among the free points of a finite space, or the
  /// free point nearest to the last draw. The first draw when repeats are allowed (noisy) or
  /// the space has a continuous parameter and the draw is free (the common case: one draw).
  Vector free_uniform_point(Rng& rng, const PointSet* also = nullptr) const;
  /// The user point of a unit point as ask() would hand it out.
  Vector user_point(const Vector& u) const { return space_.to_user(space_.snap_unit(u)); }
  /// The unit point a trial asked at u will carry (trial.unit, recomputed from its user point):
  /// what a batch's earlier points are fantasized at, so they match their later observations.
  Vector stored_unit(const Vector& u) const { return space_.to_unit(user_point(u)); }

 private:
  struct PointRecord {
    std::uint32_t evaluated = 0;  // told, failed included
    std::uint32_t pending = 0;
    bool has_value = false;       // a successful evaluation
    double value = 0.0;           // its value to maximize (the first one)
  };
  void store(const Trial& trial, double value);
  void note_pending(const Vector& x);
  void note_withdrawn(const Vector& x);
  void note_evaluated(const Vector& x, bool pending_before, const std::optional<double>& maximized_value);
  /// A trial for a told point that no ask handed out (warm start, replay): the next id.
  Trial external_trial(const Vector& x);

  std::string name_;
  Space space_;
  Direction direction_;
  RunContext context_;
  std::uint64_t next_id_ = 0;
  std::vector<Observation> history_;
  std::vector<Trial> pending_;
  std::size_t n_successful_ = 0;
  bool values_all_equal_ = true;
  std::optional<std::size_t> best_index_;
  DiscreteDomain domain_;
  std::optional<std::uint64_t> finite_size_;
  std::unordered_map<PointKey, PointRecord, PointKeyHash> points_;
  std::size_t n_distinct_evaluated_ = 0;
  std::size_t n_taken_ = 0;  // distinct points evaluated or pending
  std::size_t repeats_replaced_ = 0;
};

}  // namespace optimist
