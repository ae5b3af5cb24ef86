#include "optimist/study/worker.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace optimist {

WorkerSummary run_worker(Study& study, const std::function<TrialEvaluator()>& make_evaluator, const WorkerOptions& options) {
  if (options.jobs == 0) throw InvalidArgument("a worker needs jobs >= 1, got 0");
  WorkerSummary summary;
  std::mutex mutex;  // guards summary, the claim count, the callback and the first exception
  std::size_t claimed = 0;
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  const double poll_s = std::clamp(study.record().settings.grace_period_s / 8.0, 0.05, 0.25);
  // A wait longer than this for others' running trials is said once (it may last a grace period).
  constexpr double kQuietWait_s = 2.0;
  std::optional<std::chrono::steady_clock::time_point> waiting_since;
  bool said_waiting = false;

  auto job = [&](TrialEvaluator evaluate) {
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (stop || (options.should_stop && options.should_stop()) || (options.max_trials && claimed >= *options.max_trials)) return;
        ++claimed;
      }
      std::optional<StudyTrial> trial = study.ask();
      if (!trial) {
        std::lock_guard<std::mutex> lock(mutex);
        --claimed;
      }
      if (!trial) {
        if (const std::size_t running = study.running_elsewhere(); running > 0) {
          // The budget is taken, but another worker's trial may still go stale and come back:
          // wait for it rather than leave the study one evaluation short. A long wait is said
          // (a killed run's trials wait out the grace period: 60 s of silence before stop 60).
          {
            std::lock_guard<std::mutex> lock(mutex);
            const auto now = std::chrono::steady_clock::now();
            if (!waiting_since) waiting_since = now;
            if (!said_waiting && std::chrono::duration<double>(now - *waiting_since).count() > kQuietWait_s) {
              said_waiting = true;
              std::fprintf(stderr,
                           "optimist: the budget is taken; waiting for %zu trial(s) running elsewhere (one whose worker "
                           "died is failed as stale %s s after its last heartbeat, then evaluated here)\n",
                           running, format_double(study.record().settings.grace_period_s).c_str());
            }
          }
          std::this_thread::sleep_for(std::chrono::duration<double>(poll_s));
          continue;
        }
      }
      if (!trial) {
        stop = true;
        return;
      }
      WorkerEvent event{*trial, std::nullopt, "", 0.0};
      const auto t0 = std::chrono::steady_clock::now();
      try {
        event.value = evaluate(*trial);
        if (!std::isfinite(*event.value)) {
          event.error = "objective returned " + format_double(*event.value);
          event.value.reset();
        }
      } catch (const std::exception& e) {
        event.error = e.what();
      }
      event.eval_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!event.value && options.aborted && options.aborted()) {
        // Killed by the abort, not a failure of the objective: given back for another worker (if
        // the storage answers; else it goes stale and is asked again), and this worker stops.
        try {
          study.release(*trial, "the worker was aborted");
        } catch (const std::exception&) {
        }
        std::lock_guard<std::mutex> lock(mutex);
        stop = true;
        return;
      }
      try {
        if (event.value) study.tell(*trial, *event.value);
        else study.tell_failed(*trial, event.error);
      } catch (const std::exception& e) {
        // The storage is gone for longer than its retries (an outage, a full disk): the evaluation
        // was paid for, so it is printed as a JSON line the user can give back (Study::add) before
        // the worker stops; the trial goes stale and is asked again.
        // x in the user's form (a categorical's choice, an integer), as Study::add takes it back.
        const nlohmann::json x = study.space().point_to_json(trial->x);
        nlohmann::json lost = {{"study", study.name()}, {"trial", trial->number}, {"x", x}};
        if (event.value) lost["value"] = *event.value;
        else lost["error"] = event.error;
        const std::string what = "trial " + std::to_string(trial->number) + " (x = " + x.dump() + ", " +
                                 (event.value ? "y = " + format_double(*event.value) : "failed: " + event.error) + ")";
        // Said now: with several jobs, each one's lost evaluation is shown, not only the first.
        std::fprintf(stderr, "optimist: could not store an evaluation (%s): %s; as JSON: %s\n", e.what(), what.c_str(),
                     lost.dump().c_str());
        throw std::runtime_error(std::string(e.what()) + "; " + what + " was evaluated but could not be stored");
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++summary.evaluated;
      if (!event.value) {
        if (summary.failed++ == 0) summary.first_error = event.error;
        if (options.stop_on_failure) stop = true;
      }
      if (options.on_evaluation) options.on_evaluation(event);
    }
  };
  auto guarded = [&](TrialEvaluator evaluate) {
    try {
      job(std::move(evaluate));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };

  std::vector<TrialEvaluator> evaluators;
  for (std::size_t k = 0; k < options.jobs; ++k) evaluators.push_back(make_evaluator());
  if (options.jobs == 1) {
    guarded(std::move(evaluators[0]));
  } else {
    std::vector<std::thread> threads;
    for (auto& e : evaluators) threads.emplace_back(guarded, std::move(e));
    for (auto& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);
  return summary;
}

}  // namespace optimist
