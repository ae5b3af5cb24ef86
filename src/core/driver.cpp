#include "optimist/core/driver.hpp"

#include <algorithm>
#include <chrono>

#include "optimist/core/run_recorder.hpp"

namespace optimist {

void EvaluationLog::push_back(const EvaluationRecord& r) {
  if (dim_ < 0) dim_ = r.x.size();
  if (r.x.size() != dim_)
    throw InvalidArgument("EvaluationLog: point of dimension " + std::to_string(r.x.size()) + ", the log holds dimension " +
                          std::to_string(dim_));
  const std::size_t k = rows_.size();
  Row row{r.y.value_or(0.0), r.f.value_or(0.0), r.regret.value_or(0.0), r.cum_regret.value_or(0.0),
          r.best_f.value_or(0.0), r.suggest_s, r.eval_s, r.tell_s, 0};
  row.flags = static_cast<std::uint8_t>((r.y ? kHasY : 0) | (r.f ? kHasF : 0) | (r.regret ? kHasRegret : 0) |
                                        (r.cum_regret ? kHasCum : 0) | (r.best_f ? kHasBest : 0) | (r.failed ? kFailed : 0) |
                                        (r.diagnostics.is_null() ? 0 : kHasDiag));
  rows_.push_back(row);
  for (Eigen::Index j = 0; j < dim_; ++j) x_.push_back(r.x[j]);
  if (!r.error.empty()) errors_.emplace_back(k, r.error);
  if (!r.diagnostics.is_null() && !r.diagnostics.empty()) diagnostics_.emplace_back(k, r.diagnostics);
}

EvaluationRecord EvaluationLog::operator[](std::size_t k) const {
  const Row& row = rows_.at(k);
  EvaluationRecord r;
  r.i = k + 1;
  r.x.resize(dim_);
  const std::size_t base = k * static_cast<std::size_t>(dim_);
  for (Eigen::Index j = 0; j < dim_; ++j) r.x[j] = x_[base + static_cast<std::size_t>(j)];
  r.y = get(k, kHasY, row.y);
  r.f = get(k, kHasF, row.f);
  r.regret = get(k, kHasRegret, row.regret);
  r.cum_regret = get(k, kHasCum, row.cum_regret);
  r.best_f = get(k, kHasBest, row.best_f);
  r.suggest_s = row.suggest_s;
  r.eval_s = row.eval_s;
  r.tell_s = row.tell_s;
  r.failed = (row.flags & kFailed) != 0;
  // Both lists are sorted by k (appended in order).
  const auto by_k = [](const auto& e, std::size_t key) { return e.first < key; };
  if (auto it = std::lower_bound(errors_.begin(), errors_.end(), k, by_k); it != errors_.end() && it->first == k)
    r.error = it->second;
  if (row.flags & kHasDiag) {
    r.diagnostics = nlohmann::json::object();  // collected; stored aside only when not empty
    if (auto it = std::lower_bound(diagnostics_.begin(), diagnostics_.end(), k, by_k);
        it != diagnostics_.end() && it->first == k)
      r.diagnostics = it->second;
  }
  return r;
}

bool EvaluationLog::x_equals(std::size_t k, const Vector& x) const {
  if (k >= rows_.size() || x.size() != dim_) return false;
  const std::size_t base = k * static_cast<std::size_t>(dim_);
  for (Eigen::Index j = 0; j < dim_; ++j)
    if (x_[base + static_cast<std::size_t>(j)] != x[j]) return false;
  return true;
}

std::string to_string(StopReason r) {
  switch (r) {
    case StopReason::Budget: return "budget";
    case StopReason::TimeLimit: return "time limit";
    case StopReason::Target: return "target reached";
    case StopReason::ObjectiveFailed: return "objective failed";
    case StopReason::Cancelled: return "cancelled";
    case StopReason::SpaceExhausted: return "space exhausted";
  }
  return "?";
}

nlohmann::json RunOptions::settings_json() const {
  const auto number_or_null = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"time_limit_s", number_or_null(time_limit_s)},
          {"target", number_or_null(target)},
          {"batch", batch_size},
          {"on_failure", on_failure == FailurePolicy::Stop ? "stop" : "mark-failed"}};
}

std::optional<std::string> equal_values_note(const std::vector<double>& values) {
  // The usual cause is the objective itself (it ignores its parameters, or returns a constant or
  // stale value), which no algorithm can fix: say so rather than report a best value as if it were one.
  constexpr std::size_t kMinValues = 5;
  if (values.size() < kMinValues || std::any_of(values.begin(), values.end(), [&](double v) { return v != values.front(); }))
    return std::nullopt;
  return "every one of the " + std::to_string(values.size()) + " values was " + format_double(values.front()) +
         ": the points tried all fell on a plateau, or the objective does not depend on its parameters "
         "(check that it uses them and returns the value it computes)";
}

std::vector<Vector> start_points_left(const Space& space, bool noisy, const std::vector<Vector>& given,
                                      const std::vector<EvaluationRecord>& done, std::size_t budget) {
  std::vector<Vector> left;
  for (std::size_t k = 0; k < given.size(); ++k) {
    Vector x;
    try {
      if (given[k].size() != static_cast<Eigen::Index>(space.dim()))
        throw InvalidArgument("it has " + std::to_string(given[k].size()) + " values, the space has " +
                              std::to_string(space.dim()));
      x = space.canonical(given[k]);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("x0[" + std::to_string(k) + "]: " + e.what());
    }
    // A deterministic objective's value is known after one evaluation.
    if (!noisy && std::find(left.begin(), left.end(), x) != left.end()) continue;
    left.push_back(std::move(x));
  }
  std::vector<bool> used(done.size(), false);  // each earlier evaluation stands for one start point
  std::erase_if(left, [&](const Vector& x) {
    for (std::size_t k = 0; k < done.size(); ++k) {
      if (used[k] || done[k].x.size() != x.size()) continue;
      bool same = false;
      try {
        same = space.canonical(done[k].x) == x;
      } catch (const InvalidArgument&) {  // not a point of this space: not one of the start points
      }
      if (same) {
        used[k] = true;
        return true;
      }
    }
    return false;
  });
  if (!left.empty() && done.size() + left.size() > budget)  // (none left: the resume's own check)
    throw InvalidArgument("x0 has " + std::to_string(left.size()) + " point(s) to evaluate" +
                          (done.empty() ? "" : " besides the " + std::to_string(done.size()) + " evaluations made already") +
                          ", more than the budget of " + std::to_string(budget) + ": give fewer points or a larger budget");
  return left;
}

RunSummary optimize(Optimizer& optimizer, const Objective& objective, const RunOptions& options) {
  if (!objective.function) throw InvalidArgument("optimize: the objective has no function");
  std::vector<Vector> starts;
  if (!options.start_points.empty())
    starts = start_points_left(optimizer.space(), optimizer.noisy(), options.start_points, options.resume_from, options.budget);
  std::size_t next_start = 0;
  RunRecorder run(optimizer, objective, options);
  std::exception_ptr stopping_exception;  // the throw that stopped the run, for RunSummary::objective_exception
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  while (!run.stopped()) {
    if (options.should_stop && options.should_stop()) {
      run.stop(StopReason::Cancelled);
      break;
    }
    if (run.time_is_up()) {
      run.stop(StopReason::TimeLimit);
      break;
    }
    const auto ta = Clock::now();
    const std::size_t n = std::min(options.batch_size, run.remaining());
    std::vector<Trial> trials;
    if (next_start < starts.size()) {  // the start points first, as pending trials the algorithm did not ask
      while (trials.size() < n && next_start < starts.size()) trials.push_back(optimizer.add_pending(starts[next_start++]));
    } else {
      trials = optimizer.ask(n);
    }
    const auto mark = Clock::now();  // the first point's evaluation starts right after the ask
    const double suggest_each = seconds(ta, mark) / static_cast<double>(trials.size());
    for (std::size_t k = 0; k < trials.size(); ++k) {
      const Trial& trial = trials[k];
      if (run.stopped()) {  // failed under FailurePolicy::Stop or reached the target mid-batch
        run.abandon(trial);
        continue;
      }
      const auto te = k == 0 ? mark : Clock::now();
      std::optional<std::string> error;
      std::exception_ptr thrown;
      double y = 0.0;
      try {
        y = objective.function(trial.x);
      } catch (const std::exception& e) {
        error = RunRecorder::thrown(trial.x, e.what(), optimizer.space());
        thrown = std::current_exception();
      } catch (...) {
        error = "objective threw a non-standard exception at x = " + RunRecorder::describe_point(trial.x, optimizer.space());
        thrown = std::current_exception();
      }
      const double eval_s = seconds(te, Clock::now());
      if (error) {
        run.record_failure(trial, *error, suggest_each, eval_s);
        if (run.stopped() && !stopping_exception) stopping_exception = thrown;
      } else {
        run.record(trial, y, suggest_each, eval_s);
      }
    }
  }
  RunSummary summary = run.finish();
  if (summary.reason == StopReason::ObjectiveFailed) summary.objective_exception = stopping_exception;
  return summary;
}

}  // namespace optimist
