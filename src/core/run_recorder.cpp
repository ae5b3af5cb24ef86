#include "optimist/core/run_recorder.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/text.hpp"
#include "optimist/core/trace.hpp"

namespace optimist {

namespace {

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

std::string RunRecorder::describe_point(const Vector& x, const Space& space) {
  std::ostringstream os;
  os.precision(6);
  if (static_cast<std::size_t>(x.size()) != space.dim()) {  // not a point of this space: the numbers
    os << "[";
    for (Eigen::Index i = 0; i < x.size(); ++i) os << (i ? ", " : "") << x[i];
    return os.str() + "]";
  }
  const std::vector<bool> active = space.active(x);
  const std::size_t n = space.dim(), shown = n <= 12 ? n : 10;
  os << "{";
  for (std::size_t i = 0; i < shown; ++i) {
    const Parameter& p = space[i];
    os << (i ? ", " : "") << p.name << ": ";
    const double v = x[static_cast<Eigen::Index>(i)];
    if (!active[i]) os << "unused";
    else if (p.kind == ParameterKind::Categorical && v >= 0 && v < static_cast<double>(p.choices.size())) os << p.choices[static_cast<std::size_t>(v)];
    else os << v;
  }
  if (shown < n) os << ", ... (" << n << " parameters)";
  os << "}";
  return os.str();
}

std::string RunRecorder::thrown(const Vector& x, const std::string& what, const Space& space) {
  return "objective threw at x = " + describe_point(x, space) + ": " + what;
}

RunRecorder::RunRecorder(Optimizer& optimizer, const Objective& objective, const RunOptions& options)
    : optimizer_(optimizer), objective_(objective), options_(options), t0_(Clock::now()) {
  if (options.budget == 0) throw InvalidArgument("optimize: budget must be > 0, got 0");
  if (options.batch_size == 0) throw InvalidArgument("optimize: batch_size must be > 0, got 0");
  if (options.time_limit_s && !(*options.time_limit_s > 0 && std::isfinite(*options.time_limit_s)))
    throw InvalidArgument("optimize: time limit must be a finite number of seconds > 0, got " + format_double(*options.time_limit_s));
  if (options.target && !std::isfinite(*options.target))
    throw InvalidArgument("optimize: target must be a finite number, got " + format_double(*options.target));
  if (objective.direction != optimizer.direction())
    throw InvalidArgument("optimize: the objective is to " + to_string(objective.direction) +
                          " but the optimizer was created to " + to_string(optimizer.direction()));
  if (options.resume_from.size() > options.budget)
    throw InvalidArgument("optimize: resuming " + std::to_string(options.resume_from.size()) +
                          " evaluations, more than the budget of " + std::to_string(options.budget));
  for (const EvaluationRecord& earlier : options.resume_from) replay(earlier);
  summary_.n_resumed = summary_.evaluations.size();
  rec_ = EvaluationRecord{};
}

// An evaluation of an earlier run: told, counted, kept, never evaluated again nor re-written.
void RunRecorder::replay(const EvaluationRecord& earlier) {
  EvaluationRecord& rec = rec_;
  rec = earlier;
  rec.i = summary_.evaluations.size() + 1;
  rec.regret.reset();
  try {
    if (rec.failed || !rec.y) {
      rec.failed = true;
      rec.y.reset();
      rec.f.reset();
      if (rec.error.empty()) rec.error = "failed";
      optimizer_.tell_failed(rec.x, rec.error);
      ++summary_.n_failed;
    } else {
      optimizer_.tell(rec.x, *rec.y);
    }
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("optimize: resumed evaluation " + std::to_string(rec.i) + " at x = " + describe_point(rec.x, optimizer_.space()) +
                          ": " + e.what());
  }
  if (!rec.failed) {
    rec.f = rec.f.value_or(*rec.y);
    account_success(rec);
    const double sign = direction_sign(objective_.direction);
    if (options_.target && sign * *rec.y >= sign * *options_.target && !stop_) stop_ = StopReason::Target;
  }
  rec.cum_regret = summary_.cum_regret;
  rec.best_f = summary_.best_f;
  summary_.evaluations.push_back(rec);
}

// A successful evaluation (rec.y, rec.f set) enters the best values and the regret.
void RunRecorder::account_success(EvaluationRecord& rec) {
  const double sign = direction_sign(objective_.direction);
  if (!summary_.best_y || sign * *rec.y > sign * *summary_.best_y) {
    summary_.best_y = rec.y;
    summary_.best_x = rec.x;
  }
  if (!summary_.best_f || sign * *rec.f > sign * *summary_.best_f) summary_.best_f = rec.f;
  if (objective_.optimum) {
    rec.regret = objective_.regret(*rec.f);
    summary_.cum_regret = summary_.cum_regret.value_or(0.0) + *rec.regret;
  }
}

bool RunRecorder::stopped() const {
  if (stop_) return true;
  if (summary_.evaluations.size() >= options_.budget) return true;
  if (optimizer_.exhausted()) stop_ = StopReason::SpaceExhausted;
  return stop_.has_value();
}

std::size_t RunRecorder::remaining() const {
  return options_.budget - std::min(options_.budget, summary_.evaluations.size());
}

bool RunRecorder::time_is_up() const {
  return options_.time_limit_s && seconds_between(t0_, Clock::now()) >= *options_.time_limit_s;
}

void RunRecorder::stop(StopReason reason) {
  if (!stop_) stop_ = reason;
}

const EvaluationRecord& RunRecorder::record(const Trial& trial, double y, double suggest_s, double eval_s) {
  if (!std::isfinite(y)) {
    std::ostringstream os;
    os << "objective returned " << y << " at x = " << describe_point(trial.x, optimizer_.space());
    return record_failure(trial, os.str(), suggest_s, eval_s);
  }
  rec_.x = trial.x;
  rec_.y = y;
  rec_.failed = false;
  rec_.error.clear();
  const auto tt = Clock::now();
  optimizer_.tell(trial, y);
  const double tell_s = seconds_between(tt, Clock::now());
  double f = y;
  if (objective_.noise_free) {
    try {
      const double fn = objective_.noise_free(trial.x);
      if (std::isfinite(fn)) f = fn;
    } catch (...) {  // f is informative only: fall back to the observation
    }
  }
  rec_.f = f;
  rec_.regret.reset();
  account_success(rec_);
  const double sign = direction_sign(objective_.direction);
  if (options_.target && sign * y >= sign * *options_.target && !stop_) stop_ = StopReason::Target;
  return store(suggest_s, eval_s, tell_s);
}

const EvaluationRecord& RunRecorder::record_failure(const Trial& trial, const std::string& error, double suggest_s,
                                                    double eval_s) {
  rec_.x = trial.x;
  rec_.y.reset();
  rec_.f.reset();
  rec_.regret.reset();
  rec_.failed = true;
  // A message may hold any bytes (an exception's, a program's): the trace's JSON needs UTF-8.
  rec_.error = printable(error, /*keep_lines=*/true);
  const auto tt = Clock::now();
  optimizer_.tell_failed(trial, rec_.error);
  const double tell_s = seconds_between(tt, Clock::now());
  ++summary_.n_failed;
  if (options_.on_failure == FailurePolicy::Stop && !stop_) {
    stop_ = StopReason::ObjectiveFailed;
    summary_.message = rec_.error;
  }
  return store(suggest_s, eval_s, tell_s);
}

// Completes rec_ (index, running values, timings, diagnostics), keeps it, writes it, reports it.
const EvaluationRecord& RunRecorder::store(double suggest_s, double eval_s, double tell_s) {
  rec_.i = summary_.evaluations.size() + 1;
  rec_.suggest_s = suggest_s;
  rec_.eval_s = eval_s;
  rec_.tell_s = tell_s;
  summary_.suggest_s += suggest_s;
  summary_.tell_s += tell_s;
  rec_.cum_regret = summary_.cum_regret;
  rec_.best_f = summary_.best_f;
  if (options_.trace != nullptr || options_.collect_diagnostics) rec_.diagnostics = optimizer_.diagnostics();
  summary_.evaluations.push_back(rec_);
  if (options_.trace && !trace_failed_) {  // after a failed write: in the summary only (the error named where)
    try {
      options_.trace->write(rec_);
    } catch (const std::exception& e) {
      // A full disk, a lost file system: the run stops, and the message keeps the evaluation the
      // trace could not (nothing paid for is lost: the earlier lines are complete and resumable).
      trace_failed_ = true;
      std::string x;  // every digit (describe_point rounds): the evaluation can be recorded exactly by hand
      for (Eigen::Index k = 0; k < rec_.x.size(); ++k) x += (k ? ", " : "") + format_double(rec_.x[k]);
      throw std::runtime_error(std::string(e.what()) + "; evaluation " + std::to_string(rec_.i) + " (x = [" + x + "], " +
                               (rec_.failed ? "failed: " + rec_.error : "y = " + format_double(*rec_.y)) +
                               ") is not in the trace, which keeps evaluations 1 to " + std::to_string(rec_.i - 1) +
                               ": make room, then --resume it (that point is asked again)");
    }
  }
  if (options_.on_progress) {
    Progress p;
    p.done = summary_.evaluations.size();
    p.budget = options_.budget;
    p.elapsed_s = seconds_between(t0_, Clock::now());
    p.best_y = summary_.best_y;
    p.best_f = summary_.best_f;
    p.cum_regret = summary_.cum_regret;
    p.last = &rec_;
    options_.on_progress(p);
  }
  return rec_;
}

void RunRecorder::abandon(const Trial& trial) { optimizer_.withdraw(trial); }

std::optional<std::string> stop_message(StopReason reason, std::size_t evaluations, std::size_t budget,
                                        std::size_t distinct_evaluated) {
  switch (reason) {
    case StopReason::Budget:
      if (evaluations >= budget) return "budget of " + std::to_string(budget) + " evaluations used";
      return std::nullopt;
    case StopReason::Target: return "target reached";
    case StopReason::TimeLimit: return "time limit reached";
    case StopReason::Cancelled: return "cancelled after " + std::to_string(evaluations) + " evaluations";
    case StopReason::ObjectiveFailed: return std::nullopt;  // the failure's message, set when it was recorded
    case StopReason::SpaceExhausted:
      return (distinct_evaluated == 1 ? std::string("the one point of the search space has been evaluated (")
                                      : "every one of the " + std::to_string(distinct_evaluated) +
                                            " points of the search space has been evaluated (") +
             std::to_string(evaluations) + (evaluations == 1 ? " evaluation" : " evaluations") + " of a budget of " +
             std::to_string(budget) + ")";
  }
  return std::nullopt;
}

RunSummary RunRecorder::finish() {
  summary_.reason = stop_.value_or(StopReason::Budget);
  if (auto message = stop_message(summary_.reason, summary_.evaluations.size(), options_.budget, optimizer_.distinct_evaluated()))
    summary_.message = std::move(*message);
  if (optimizer_.n_successful() > 0) {
    try {
      summary_.recommended_x = optimizer_.recommend();
      // Never spend a paid evaluation on the answer: use the noise-free value when the objective
      // has one, else the observed value if the point was evaluated (with a noisy objective
      // evaluated there several times, the mean of its values: the last one was a lucky or
      // unlucky draw like the others).
      std::optional<double> f;
      if (objective_.noise_free) {
        try {
          const double fn = objective_.noise_free(*summary_.recommended_x);
          if (std::isfinite(fn)) f = fn;
        } catch (...) {
        }
      } else {
        double sum = 0.0;
        std::size_t count = 0;
        for (const auto& obs : optimizer_.history())
          if (!obs.failed && obs.trial.x == *summary_.recommended_x) {
            sum += obs.value;
            ++count;
          }
        if (count > 0) f = sum / static_cast<double>(count);
      }
      summary_.recommended_f = f;
      if (f && objective_.optimum) summary_.simple_regret = objective_.regret(*f);
    } catch (const std::exception& e) {
      if (summary_.message.empty()) summary_.message = std::string("recommend failed: ") + e.what();
    }
  }
  std::vector<double> values;
  for (std::size_t k = 0; k < summary_.evaluations.size(); ++k)
    if (auto y = summary_.evaluations.failed(k) ? std::nullopt : summary_.evaluations.y(k)) values.push_back(*y);
  if (auto note = equal_values_note(values)) summary_.notes.push_back(std::move(*note));
  summary_.total_s = seconds_between(t0_, Clock::now());
  // After a failed write the file is closed: a second error here would replace the first, which
  // names the unwritten evaluation (the Python loop finishes the run after any error).
  if (options_.trace && !trace_failed_)
    options_.trace->write_recommend(summary_.recommended_x.value_or(Vector()), summary_.recommended_f,
                                    summary_.simple_regret, to_string(summary_.reason));
  return std::move(summary_);
}

}  // namespace optimist
