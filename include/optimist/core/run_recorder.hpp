// The books of one run, kept the same way by every loop that drives an optimizer.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "optimist/core/driver.hpp"

namespace optimist {

/// Records the evaluations of one run: tells each to the optimizer, derives f, regret and the best
/// values, keeps it in the summary, writes its trace line and reports progress; at the end takes
/// the recommendation and closes the trace. optimize() is a synchronous loop over it; the Python
/// package's loop (evaluations in flight on an executor) is another, so every loop keeps the same
/// books and writes the same trace:
///
///   RunRecorder run(optimizer, objective, options);  // checks options, replays resume_from
///   while (!run.stopped()) {
///     Trial t = optimizer.ask();                      // timed by the loop
///     run.record(t, objective.function(t.x), suggest_s, eval_s);  // or record_failure(...)
///   }
///   RunSummary summary = run.finish();
/// The summary's message for a run that stopped for `reason` after `evaluations` of `budget`
/// ("budget of 40 evaluations used", ...); none for a failure (its own message) or a budget not used up.
std::optional<std::string> stop_message(StopReason reason, std::size_t evaluations, std::size_t budget,
                                        std::size_t distinct_evaluated);

class RunRecorder {
 public:
  /// Checks `options` as optimize() documents (except objective.function, which the recorder does
  /// not call) and tells options.resume_from to the optimizer. The optimizer, objective and
  /// options must outlive the recorder.
  RunRecorder(Optimizer& optimizer, const Objective& objective, const RunOptions& options);

  /// True once the loop must ask for no more points: the budget is used, the target reached, the
  /// objective failed under FailurePolicy::Stop, every point of a finite space has been evaluated
  /// (Optimizer::exhausted(), StopReason::SpaceExhausted), or stop() was called. Evaluations already under
  /// way may still be recorded (an asynchronous loop waits for them: they are paid for).
  bool stopped() const;
  /// Evaluations left in the budget.
  std::size_t remaining() const;
  /// True when a time limit is set and has passed since construction.
  bool time_is_up() const;
  /// Ends the run early: StopReason::TimeLimit or StopReason::Cancelled (the message says how
  /// many evaluations were done). Ignored once the run has stopped for another reason.
  void stop(StopReason reason);

  /// Records the value of the pending `trial` (told to the optimizer; a non-finite value is a
  /// failure "objective returned nan at x = ..."). suggest_s and eval_s as measured by the loop.
  const EvaluationRecord& record(const Trial& trial, double y, double suggest_s, double eval_s);
  /// Records a failed evaluation of the pending `trial` with its message (see thrown()).
  const EvaluationRecord& record_failure(const Trial& trial, const std::string& error, double suggest_s, double eval_s);
  /// Gives back (Optimizer::withdraw) a trial that was asked but will not be evaluated because
  /// the run stopped, so nothing stays pending; it is not an evaluation, and the optimizer holds
  /// no failure for it (a run continued with the same optimizer may ask it again).
  void abandon(const Trial& trial);

  const RunSummary& summary() const { return summary_; }
  /// Takes the recommendation, the total time and writes the trace's recommend line (a finished
  /// run's trace is always complete). Call once, last.
  RunSummary finish();

  /// The message of an objective that threw `what` at x: "objective threw at x = {...}: what".
  static std::string thrown(const Vector& x, const std::string& what, const Space& space);
  /// A point for messages, named and with choices as written: "{lr: 0.01, kernel: rbf}" (6
  /// significant digits; beyond 12 parameters the first 10 and the count).
  static std::string describe_point(const Vector& x, const Space& space);

 private:
  using Clock = std::chrono::steady_clock;
  const EvaluationRecord& store(double suggest_s, double eval_s, double tell_s);
  void replay(const EvaluationRecord& earlier);
  void account_success(EvaluationRecord& rec);

  Optimizer& optimizer_;
  const Objective& objective_;
  const RunOptions& options_;
  Clock::time_point t0_;
  RunSummary summary_;
  mutable std::optional<StopReason> stop_;  // set when the run ends before its budget (stopped() sets SpaceExhausted)
  bool trace_failed_ = false;  // a trace write failed: finish() adds no recommend line (the trace stays resumable)
  EvaluationRecord rec_;            // the latest record, reused (assigning x allocates nothing)
};

}  // namespace optimist
