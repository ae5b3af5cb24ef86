// Study::Impl: a Study's cached optimizer, its sync with the storage's events, and the refusals
// that name what is wrong with a tell or a give-back (docs/studies.md, "Asking in a study").
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "optimist/study/study.hpp"
#include "study/heartbeat.hpp"

namespace optimist {

struct Study::Impl {
  StudyRecord record;
  StudyOptions options;
  std::unique_ptr<Storage> storage;
  std::unique_ptr<study_detail::Heartbeat> beat;
  std::mutex mutex;  // one storage call and optimizer use at a time

  // The cached optimizer and what it has seen: events up to synced_seq; its pending trials by number.
  std::unique_ptr<Optimizer> optimizer;
  std::int64_t synced_seq = 0;
  std::map<std::size_t, Trial> pending;
  std::set<std::size_t> own;  // trials this object asked and has not told
  // When this worker last failed to reach the storage (a write that threw; the database's own
  // retries and the heartbeat's failures are asked for in just_reconnected).
  std::optional<std::chrono::steady_clock::time_point> storage_failed_at;

  /// Within the grace period (plus a heartbeat interval) after this worker lost the storage: the
  /// other workers' heartbeats failed during the same outage, so their trials look stale without
  /// being so; they are given that long to beat again before any is failed (stop 60: a 12 s PostgreSQL outage with a
  /// 5 s grace failed every running trial when the server came back, and their points were paid
  /// for twice).
  bool just_reconnected() const;

  void reset_cache();

  // Feeds the optimizer every event after synced_seq in event order: an ask becomes a pending
  // trial (unless this optimizer asked it), a finish a tell or a failure.
  void sync();

  // A write transaction that may be re-run: a re-run starts from a fresh cache, since the
  // optimizer may already hold the rolled-back ask.
  void write(const std::function<void()>& fn);

  void track(std::size_t number);
  void untrack(std::size_t number);

  TrialRecord finished_record(const StudyEvaluation& e) const;

  // An evaluation added before (origin told, not a late value) with the same parameters and value.
  void refuse_added_twice(const std::vector<TrialRecord>& adding);

  std::size_t add_finished(const Vector& x, std::optional<double> value, const std::string& error);

  [[noreturn]] void refuse_unknown(std::size_t number);

  // A trial failed as stale: whether its point was queued again, as which trial.
  std::string requeue_note(const TrialRecord& t);

  // A trial failed as stale, as a refusal names it: given back, or failed when its worker went silent.
  std::string stale_text(const TrialRecord& t);

  // Why trial `number` cannot be told: it does not exist, is waiting, or was told already.
  [[noreturn]] void refuse_tell(std::size_t number, const std::optional<TrialRecord>& t, bool any_worker);

  // Within a write transaction: gives back running trial `number` (this worker's unless any_worker)
  // or says why it cannot: it does not exist, is waiting, or is finished already.
  void release_locked(std::size_t number, const std::string& why, bool requeue, bool any_worker);

  // number running for this worker (any worker with any_worker) becomes complete or failed.
  void finish(std::size_t number, std::optional<double> value, const std::string& error, bool any_worker);

  // finish() within a write transaction.
  void finish_locked(std::size_t number, std::optional<double> value, const std::string& error, bool any_worker);
};

}  // namespace optimist
