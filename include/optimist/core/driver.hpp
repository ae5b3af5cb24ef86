// The synchronous optimization loop on top of ask/tell.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
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

enum class StopReason { Budget, TimeLimit, Target, ObjectiveFailed, Cancelled };
std::string to_string(StopReason r);

/// One evaluation as the driver saw it (also one line of the trace).
struct EvaluationRecord {
  std::size_t i = 0;  ///< 1-based
  Vector x;           ///< user point
  std::optional<double> y;       ///< observed; empty when failed
  std::optional<double> f;       ///< noise-free value (the observed one when the objective has none)
  std::optional<double> regret;  ///< f* - f in the improving direction, when f* is known
  std::optional<double> cum_regret;
  std::optional<double> best_f;  ///< best f among evaluations so far
  double suggest_s = 0.0;        ///< optimizer time to produce this point
  double eval_s = 0.0;           ///< objective time
  bool failed = false;
  std::string error;
  nlohmann::json diagnostics = nlohmann::json::object();
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
  std::optional<double> time_limit_s;  ///< no new ask after this wall time
  std::optional<double> target;        ///< stop once an observed value reaches it
  std::size_t batch_size = 1;          ///< points per ask(n); evaluated in order
  FailurePolicy on_failure = FailurePolicy::Stop;
  std::function<void(const Progress&)> on_progress;  ///< after every evaluation
  std::function<bool()> should_stop;                 ///< polled before every ask (e.g. SIGINT)
  TraceWriter* trace = nullptr;  ///< receives every evaluation as it completes, then recommend
};

struct RunSummary {
  StopReason reason = StopReason::Budget;
  std::string message;  ///< why the run ended (the failure's cause for ObjectiveFailed)
  std::vector<EvaluationRecord> evaluations;
  std::size_t n_failed = 0;
  std::optional<Vector> best_x;  ///< best observed point
  std::optional<double> best_y;
  std::optional<double> best_f;
  std::optional<double> cum_regret;
  std::optional<Vector> recommended_x;  ///< optimizer.recommend()
  std::optional<double> recommended_f;
  std::optional<double> simple_regret;  ///< regret of recommended_f
  double total_s = 0.0;
  double suggest_s = 0.0;  ///< total optimizer time

  bool ok() const { return reason != StopReason::ObjectiveFailed; }
};

/// Runs ask -> evaluate -> tell until the budget, time limit or target is reached, or the
/// objective fails under FailurePolicy::Stop. Never loses an evaluation: every completed
/// evaluation is told to the optimizer, kept in the summary and written to the trace before the
/// next ask. Throws InvalidArgument for budget == 0, batch_size == 0 or a missing function.
RunSummary optimize(Optimizer& optimizer, const Objective& objective, const RunOptions& options);

}  // namespace optimist
