#include "optimist/core/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "optimist/core/trace.hpp"

namespace optimist {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string describe_point(const Vector& x) {
  std::ostringstream os;
  os.precision(6);
  os << "[";
  const Eigen::Index shown = std::min<Eigen::Index>(x.size(), 6);
  for (Eigen::Index i = 0; i < shown; ++i) os << (i ? ", " : "") << x[i];
  if (x.size() > shown) os << ", ... (" << x.size() << " values)";
  os << "]";
  return os.str();
}

// Evaluates the objective; on failure returns the reason (the value is then meaningless).
std::optional<std::string> evaluate(const std::function<double(const Vector&)>& fn, const Vector& x, double& y) {
  try {
    y = fn(x);
  } catch (const std::exception& e) {
    return "objective threw at x = " + describe_point(x) + ": " + e.what();
  } catch (...) {
    return "objective threw a non-standard exception at x = " + describe_point(x);
  }
  if (!std::isfinite(y)) {
    std::ostringstream os;
    os << "objective returned " << y << " at x = " << describe_point(x);
    return os.str();
  }
  return std::nullopt;
}

// A successful evaluation (rec.y, rec.f set) enters the summary's best values and regret.
void account_success(RunSummary& summary, EvaluationRecord& rec, const Objective& objective) {
  const double sign = direction_sign(objective.direction);
  if (!summary.best_y || sign * *rec.y > sign * *summary.best_y) {
    summary.best_y = rec.y;
    summary.best_x = rec.x;
  }
  if (!summary.best_f || sign * *rec.f > sign * *summary.best_f) summary.best_f = rec.f;
  if (objective.optimum) {
    rec.regret = objective.regret(*rec.f);
    summary.cum_regret = summary.cum_regret.value_or(0.0) + *rec.regret;
  }
}

}  // namespace

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

RunSummary optimize(Optimizer& optimizer, const Objective& objective, const RunOptions& options) {
  if (!objective.function) throw InvalidArgument("optimize: the objective has no function");
  if (options.budget == 0) throw InvalidArgument("optimize: budget must be > 0, got 0");
  if (options.batch_size == 0) throw InvalidArgument("optimize: batch_size must be > 0, got 0");
  if (options.time_limit_s && !(*options.time_limit_s > 0))
    throw InvalidArgument("optimize: time limit must be > 0 seconds, got " + std::to_string(*options.time_limit_s));
  if (objective.direction != optimizer.direction())
    throw InvalidArgument("optimize: the objective is to " + to_string(objective.direction) +
                          " but the optimizer was created to " + to_string(optimizer.direction()));

  if (options.resume_from.size() > options.budget)
    throw InvalidArgument("optimize: resuming " + std::to_string(options.resume_from.size()) +
                          " evaluations, more than the budget of " + std::to_string(options.budget));

  RunSummary summary;
  const double sign = direction_sign(objective.direction);
  const auto t0 = Clock::now();
  Clock::time_point mark = t0;  // the latest clock read (after an ask, after an evaluation)
  bool stop = false;
  const bool want_diagnostics = options.trace != nullptr || options.collect_diagnostics;
  EvaluationRecord rec;

  for (const EvaluationRecord& earlier : options.resume_from) {
    rec = earlier;
    rec.i = summary.evaluations.size() + 1;
    rec.regret.reset();
    try {
      if (rec.failed || !rec.y) {
        rec.failed = true;
        rec.y.reset();
        rec.f.reset();
        if (rec.error.empty()) rec.error = "failed";
        optimizer.tell_failed(rec.x, rec.error);
        ++summary.n_failed;
      } else {
        optimizer.tell(rec.x, *rec.y);
      }
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("optimize: resumed evaluation " + std::to_string(rec.i) + " at x = " + describe_point(rec.x) +
                            ": " + e.what());
    }
    if (!rec.failed) {
      rec.f = rec.f.value_or(*rec.y);
      account_success(summary, rec, objective);
      if (options.target && sign * *rec.y >= sign * *options.target) {
        summary.reason = StopReason::Target;
        summary.message = "target reached";
        stop = true;
      }
    }
    rec.cum_regret = summary.cum_regret;
    rec.best_f = summary.best_f;
    summary.evaluations.push_back(rec);
  }
  summary.n_resumed = summary.evaluations.size();
  rec = EvaluationRecord{};

  while (!stop && summary.evaluations.size() < options.budget) {
    if (options.should_stop && options.should_stop()) {
      summary.reason = StopReason::Cancelled;
      summary.message = "cancelled after " + std::to_string(summary.evaluations.size()) + " evaluations";
      break;
    }
    if (options.time_limit_s && seconds_since(t0) >= *options.time_limit_s) {
      summary.reason = StopReason::TimeLimit;
      summary.message = "time limit reached";
      break;
    }
    const std::size_t want = std::min(options.batch_size, options.budget - summary.evaluations.size());
    const auto ta = Clock::now();
    std::vector<Trial> trials = optimizer.ask(want);
    mark = Clock::now();
    const double suggest_each = std::chrono::duration<double>(mark - ta).count() / static_cast<double>(trials.size());
    summary.suggest_s += suggest_each * static_cast<double>(trials.size());

    for (std::size_t k = 0; k < trials.size(); ++k) {
      const Trial& trial = trials[k];
      // One record reused for every evaluation: assigning x of the same size allocates nothing.
      rec.i = summary.evaluations.size() + 1;
      rec.x = trial.x;
      rec.y.reset();
      rec.f.reset();
      rec.regret.reset();
      rec.failed = false;
      rec.error.clear();
      rec.suggest_s = suggest_each;
      double y = 0.0;
      const auto te = k == 0 ? mark : Clock::now();  // the first point: right after the ask
      std::optional<std::string> failure = evaluate(objective.function, trial.x, y);
      mark = Clock::now();
      rec.eval_s = std::chrono::duration<double>(mark - te).count();
      const auto tt = mark;

      if (failure) {
        rec.failed = true;
        rec.error = *failure;
        optimizer.tell_failed(trial, *failure);
        mark = Clock::now();
        ++summary.n_failed;
      } else {
        rec.y = y;
        optimizer.tell(trial, y);
        mark = Clock::now();
        double f = y;
        if (objective.noise_free) {
          double fn = 0.0;
          if (!evaluate(objective.noise_free, trial.x, fn))
            f = fn;
        }
        rec.f = f;
        account_success(summary, rec, objective);
      }
      rec.tell_s = std::chrono::duration<double>(mark - tt).count();
      summary.tell_s += rec.tell_s;
      rec.cum_regret = summary.cum_regret;
      rec.best_f = summary.best_f;
      if (want_diagnostics) rec.diagnostics = optimizer.diagnostics();
      summary.evaluations.push_back(rec);
      if (options.trace) options.trace->write(rec);

      if (options.on_progress) {
        Progress p;
        p.done = summary.evaluations.size();
        p.budget = options.budget;
        p.elapsed_s = seconds_since(t0);
        p.best_y = summary.best_y;
        p.best_f = summary.best_f;
        p.cum_regret = summary.cum_regret;
        p.last = &rec;
        options.on_progress(p);
      }

      if (failure && options.on_failure == FailurePolicy::Stop) {
        summary.reason = StopReason::ObjectiveFailed;
        summary.message = *failure;
        // The rest of the batch was asked but not evaluated: report it failed so nothing stays pending.
        for (std::size_t r = k + 1; r < trials.size(); ++r) optimizer.tell_failed(trials[r], "not evaluated: run stopped");
        stop = true;
        break;
      }
      if (!failure && options.target && sign * y >= sign * *options.target) {
        summary.reason = StopReason::Target;
        summary.message = "target reached";
        for (std::size_t r = k + 1; r < trials.size(); ++r) optimizer.tell_failed(trials[r], "not evaluated: target reached");
        stop = true;
        break;
      }
    }
  }
  if (!stop && summary.reason == StopReason::Budget && summary.evaluations.size() >= options.budget)
    summary.message = "budget of " + std::to_string(options.budget) + " evaluations used";

  if (optimizer.n_successful() > 0) {
    try {
      summary.recommended_x = optimizer.recommend();
      // Never spend a paid evaluation on the answer: use the noise-free value when the objective
      // has one, else the observed value if the point was evaluated.
      std::optional<double> f;
      if (objective.noise_free) {
        double fn = 0.0;
        if (!evaluate(objective.noise_free, *summary.recommended_x, fn))
          f = fn;
      } else {
        for (const auto& obs : optimizer.history())
          if (!obs.failed && obs.trial.x == *summary.recommended_x) f = obs.value;
      }
      summary.recommended_f = f;
      if (f && objective.optimum) summary.simple_regret = objective.regret(*f);
    } catch (const std::exception& e) {
      if (summary.message.empty()) summary.message = std::string("recommend failed: ") + e.what();
    }
  }
  summary.total_s = seconds_since(t0);
  // Always close the trace, so that a finished run (even one without an answer) is complete.
  if (options.trace)
    options.trace->write_recommend(summary.recommended_x.value_or(Vector()), summary.recommended_f, summary.simple_regret,
                                   to_string(summary.reason));
  return summary;
}

}  // namespace optimist
