// The ask/tell interface every algorithm implements.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

  /// The next point to evaluate.
  Trial ask();
  /// Up to n points to evaluate in parallel (n >= 1). Algorithms without a batch form
  /// (supports_batch() == false) return exactly one.
  std::vector<Trial> ask(std::size_t n);

  /// Reports the value of an asked trial. Throws InvalidArgument if the trial is not pending or
  /// the value is not finite (a failed evaluation is reported with tell_failed).
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
  /// Unit point of the answer; default: best observed.
  virtual Vector recommend_unit() const;

  /// Value to maximize for a stored observation.
  double maximized(const Observation& obs) const { return direction_sign(direction_) * obs.value; }
  /// Random stream of the next ask: derive_seed(seed, history + pending).
  Rng rng_for_ask() const;
  /// Successful observations as unit points (columns) and maximized values.
  void successful_data(Matrix& unit_points, Vector& values) const;
  /// The id the next trial will get: in propose(n), point k of the result becomes trial
  /// next_trial_id() + k.
  std::uint64_t next_trial_id() const { return next_id_; }

 private:
  void store(const Trial& trial, double value);
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
  std::optional<std::size_t> best_index_;
};

}  // namespace optimist
