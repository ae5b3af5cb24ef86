// The synchronous optimization loop on top of ask/tell.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "optimist/core/objective.hpp"
#include "optimist/core/optimizer.hpp"

namespace optimist {

class TraceWriter;

/// What to do when the objective throws or returns NaN/inf.
enum class FailurePolicy {
  Stop,        ///< end the run with StopReason::ObjectiveFailed and a message (default)
  MarkFailed,  ///< record the trial as failed (it counts against the budget) and go on
};

/// Why a run ended. SpaceExhausted: a deterministic objective on a finite space whose every point
/// has been evaluated (Optimizer::exhausted()); a budget larger than the space is not an error.
enum class StopReason { Budget, TimeLimit, Target, ObjectiveFailed, Cancelled, SpaceExhausted };
std::string to_string(StopReason r);

/// One evaluation as the driver saw it (also one line of the trace).
struct EvaluationRecord {
  std::size_t i = 0;  ///< 1-based
  Vector x{};           ///< user point
  std::optional<double> y{};       ///< observed; empty when failed
  std::optional<double> f{};       ///< noise-free value (the observed one when the objective has none)
  std::optional<double> regret{};  ///< f* - f in the improving direction, when f* is known
  std::optional<double> cum_regret{};
  std::optional<double> best_f{};  ///< best f among evaluations so far
  double suggest_s = 0.0;        ///< optimizer time to produce this point
  double eval_s = 0.0;           ///< objective time
  double tell_s = 0.0;           ///< optimizer time to take the observation (tell: refits, updates)
  bool failed = false;
  std::string error{};
  /// optimizer.diagnostics() after the tell: an object when a trace is written or
  /// RunOptions::collect_diagnostics is set, else null (computing JSON per evaluation is costly).
  nlohmann::json diagnostics{};
};

/// Every evaluation of a run, stored compactly (about 8 d + 64 bytes per evaluation in chunks, no
/// per-evaluation heap allocation; errors and non-empty diagnostics kept aside). Reads like a
/// std::vector<EvaluationRecord>: size(), operator[], back(), range-for; an element is rebuilt
/// as an EvaluationRecord value on access (so iterate with `const auto&` or by value).
class EvaluationLog {
 public:
  void push_back(const EvaluationRecord& r);
  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  EvaluationRecord operator[](std::size_t k) const;
  EvaluationRecord front() const { return (*this)[0]; }
  EvaluationRecord back() const { return (*this)[size() - 1]; }
  /// Cheap single fields (no record built).
  std::optional<double> y(std::size_t k) const { return get(k, kHasY, rows_[k].y); }
  std::optional<double> f(std::size_t k) const { return get(k, kHasF, rows_[k].f); }
  double suggest_s(std::size_t k) const { return rows_[k].suggest_s; }
  double tell_s(std::size_t k) const { return rows_[k].tell_s; }
  bool failed(std::size_t k) const { return (rows_[k].flags & kFailed) != 0; }
  /// The user point of evaluation k (0-based) equals x.
  bool x_equals(std::size_t k, const Vector& x) const;

  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = EvaluationRecord;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = EvaluationRecord;
    const_iterator(const EvaluationLog* log, std::size_t k) : log_(log), k_(k) {}
    EvaluationRecord operator*() const { return (*log_)[k_]; }
    const_iterator& operator++() { ++k_; return *this; }
    const_iterator operator++(int) { auto t = *this; ++k_; return t; }
    bool operator==(const const_iterator& o) const { return k_ == o.k_; }
    bool operator!=(const const_iterator& o) const { return k_ != o.k_; }
   private:
    const EvaluationLog* log_;
    std::size_t k_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

 private:
  enum : std::uint8_t { kHasY = 1, kHasF = 2, kHasRegret = 4, kHasCum = 8, kHasBest = 16, kFailed = 32, kHasDiag = 64 };
  struct Row {
    double y, f, regret, cum_regret, best_f, suggest_s, eval_s, tell_s;
    std::uint8_t flags;
  };
  std::optional<double> get(std::size_t k, std::uint8_t flag, double v) const {
    return (rows_[k].flags & flag) ? std::optional<double>(v) : std::nullopt;
  }
  std::deque<Row> rows_;       // deque: grows without copying what is stored
  std::deque<double> x_;       // dim_ values per evaluation
  Eigen::Index dim_ = -1;
  std::vector<std::pair<std::size_t, std::string>> errors_;          // failed evaluations only
  std::vector<std::pair<std::size_t, nlohmann::json>> diagnostics_;  // non-empty diagnostics only
};

struct Progress {
  std::size_t done = 0;    ///< evaluations so far
  std::size_t budget = 0;
  double elapsed_s = 0.0;
  std::optional<double> best_y;  ///< best observed value
  std::optional<double> best_f;
  std::optional<double> cum_regret;
  const EvaluationRecord* last = nullptr;
};

struct RunOptions {
  std::size_t budget = 100;  ///< number of evaluations (failed ones included); must be > 0
  std::optional<double> time_limit_s{};  ///< no new ask after this wall time
  std::optional<double> target{};        ///< stop once an observed value reaches it
  std::size_t batch_size = 1;          ///< points per ask(n); evaluated in order
  FailurePolicy on_failure = FailurePolicy::Stop;
  std::function<void(const Progress&)> on_progress{};  ///< after every evaluation
  std::function<bool()> should_stop{};                 ///< polled before every ask (e.g. SIGINT)
  // An exception thrown by on_progress or should_stop leaves the run there and propagates: the
  // evaluations made so far were told to the optimizer and written to the trace, if any (resume
  // from it); no summary is returned.
  TraceWriter* trace = nullptr;  ///< receives every evaluation as it completes, then recommend
  /// Keep optimizer.diagnostics() in each EvaluationRecord also without a trace (with a trace
  /// they are always computed, for the trace lines).
  bool collect_diagnostics = false;
  /// Evaluations of an earlier, interrupted run of the same optimizer settings (a trace read
  /// back): told to the fresh optimizer in order before the first ask (failed ones with
  /// tell_failed), counted against the budget, kept in the summary, never re-evaluated and not
  /// re-written to `trace`. Only x, y (absent: failed), f and error are used; f* - f gives the
  /// regret. With batch_size 1 the resumed run continues exactly as the uninterrupted one would.
  std::vector<EvaluationRecord> resume_from{};
  /// Points (user coordinates) evaluated first, in order, before any ask: a known good guess
  /// (`optimist run --x0`). Handed out as trials the algorithm did not ask (Optimizer::add_pending)
  /// and recorded, told and written like its own. See start_points_left for those skipped.
  std::vector<Vector> start_points{};

  /// The settings that shape a run besides the budget, for the trace's meta "run" object:
  /// {"time_limit_s", "target" (numbers or null), "batch", "on_failure" ("stop" | "mark-failed")}.
  nlohmann::json settings_json() const;
};

struct RunSummary {
  StopReason reason = StopReason::Budget;
  std::string message;  ///< why the run ended (the failure's cause for ObjectiveFailed)
  EvaluationLog evaluations;
  std::size_t n_failed = 0;
  std::size_t n_resumed = 0;  ///< evaluations taken from RunOptions::resume_from (the first ones)
  std::optional<Vector> best_x;  ///< best observed point
  std::optional<double> best_y;
  std::optional<double> best_f;
  std::optional<double> cum_regret;
  std::optional<Vector> recommended_x;  ///< optimizer.recommend()
  /// Its noise-free value when the objective has one (a benchmark problem), else the mean of the
  /// values observed there (one value on a deterministic objective), else none: never a new evaluation.
  std::optional<double> recommended_f;
  std::optional<double> simple_regret;  ///< regret of recommended_f
  double total_s = 0.0;
  double suggest_s = 0.0;  ///< total optimizer time in ask
  double tell_s = 0.0;     ///< total optimizer time in tell
  /// What the user should know about the run beyond its numbers, one sentence each (e.g. that
  /// every value was the same: a plateau, or an objective that ignores its parameters).
  std::vector<std::string> notes;
  /// The objective's exception that stopped the run (ObjectiveFailed under FailurePolicy::Stop),
  /// for a caller that wants it with its type: std::rethrow_exception(summary.objective_exception).
  /// Empty otherwise (failures recorded under MarkFailed are in `evaluations` with their messages).
  std::exception_ptr objective_exception{};

  bool ok() const { return reason != StopReason::ObjectiveFailed; }
};

/// A note for the user when at least five values were told and all are the same (a plateau, or
/// an objective that ignores its parameters), worded for a summary; none otherwise. `values`: the
/// successful values of a run or a study.
std::optional<std::string> equal_values_note(const std::vector<double>& values);

/// The start points still to evaluate, canonical (inactive conditional coordinates at their
/// fixed values): a deterministic objective's repeats once, and without those `done` holds (as
/// many times as it holds them: a resumed run, a continued study). InvalidArgument naming the
/// point (its index k as "x0[k]") when one is outside the space, or when more are left than the
/// budget after `done`.
std::vector<Vector> start_points_left(const Space& space, bool noisy, const std::vector<Vector>& given,
                                      const std::vector<EvaluationRecord>& done, std::size_t budget);

/// Runs ask -> evaluate -> tell until the budget, time limit or target is reached, the objective
/// fails under FailurePolicy::Stop, or every point of a finite space has been evaluated
/// (deterministic objectives, StopReason::SpaceExhausted). Never loses an evaluation: every completed
/// evaluation is told to the optimizer, kept in the summary and written to the trace before the
/// next ask. Throws InvalidArgument for budget == 0, batch_size == 0, a missing function, or a
/// resume_from longer than the budget or holding a point or value the optimizer refuses.
/// total_s, suggest_s and tell_s cover this call only. The books (values, regret, trace) are kept by
/// a RunRecorder (core/run_recorder.hpp), which other loops over ask/tell use too.
RunSummary optimize(Optimizer& optimizer, const Objective& objective, const RunOptions& options);

}  // namespace optimist
