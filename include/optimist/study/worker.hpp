// A worker: evaluates a study's trials, several at a time, until the budget is used.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "optimist/study/study.hpp"

namespace optimist {

/// Evaluates one trial: the observed value, or a throw (the trial is told as failed with the
/// message). Each job gets its own evaluator (e.g. its own child process).
using TrialEvaluator = std::function<double(const StudyTrial&)>;

/// A finished evaluation, as a worker reports it.
struct WorkerEvent {
  StudyTrial trial;
  std::optional<double> value;  ///< empty: failed
  std::string error;
  double eval_s = 0.0;
};

struct WorkerOptions {
  std::size_t jobs = 1;  ///< evaluations in flight in this process (one thread each)
  /// This worker evaluates at most this many trials (the study's budget applies too).
  std::optional<std::size_t> max_trials{};
  /// Polled before every ask: true stops asking; evaluations in flight finish and are told.
  std::function<bool()> should_stop{};
  /// True once the worker is aborted (a second Ctrl-C: its objective processes killed): an
  /// evaluation that then fails is given back to the study, not told as failed, and the worker
  /// stops. Evaluations that finished are still told (or printed, give_up_storage_retries()).
  std::function<bool()> aborted{};
  /// After every told evaluation (serialized: never called from two threads at once).
  std::function<void(const WorkerEvent&)> on_evaluation{};
  /// A failed evaluation stops this worker's asks (the failure is still told); default: go on.
  bool stop_on_failure = false;
};

struct WorkerSummary {
  std::size_t evaluated = 0;  ///< told trials, failed ones included
  std::size_t failed = 0;
  std::string first_error;    ///< the first failure's message
};

/// Runs `options.jobs` threads that each ask, evaluate (with their own evaluator from
/// `make_evaluator`) and tell, until the study has no trial left, max_trials is reached or
/// should_stop says so. When the budget is taken but other workers still hold running trials,
/// a thread waits for them (polling every grace period / 8, 0.25 s at most): a dead
/// worker's trial goes stale and is re-queued, and must still be evaluated. A storage error that outlasts its retries ends every thread and is
/// rethrown here after the evaluations in flight are told.
WorkerSummary run_worker(Study& study, const std::function<TrialEvaluator()>& make_evaluator,
                         const WorkerOptions& options = {});

}  // namespace optimist
