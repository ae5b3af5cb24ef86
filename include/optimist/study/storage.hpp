// Where studies live: a database shared by every worker of a study (docs/studies.md).
// sqlite:///path/study.db (one machine, no server) or postgresql://user@host/db (many machines).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "optimist/core/space.hpp"
#include "optimist/core/types.hpp"

namespace optimist {

namespace study_detail {
class Database;
}

/// A storage URL fit for messages and pages: a password (postgresql://user:secret@host, or a
/// password=... parameter) replaced by "***".
std::string redact_url(const std::string& url);

/// For the commands that read or join studies (not create them): InvalidArgument when a
/// sqlite:/// URL names no file, since opening it would create an empty database there (a
/// mistyped path would then read as "no studies").
void require_existing_database(const std::string& url);

enum class TrialState { Waiting, Running, Complete, Failed };
std::string to_string(TrialState s);
/// Throws InvalidArgument naming the text and the allowed states.
TrialState trial_state_from_string(const std::string& text);

/// Settings every worker of a study follows (stored with the study).
struct StudySettings {
  double heartbeat_interval_s = 10.0;  ///< how often a worker refreshes its running trials
  double grace_period_s = 60.0;        ///< a running trial silent this long is failed as stale
  bool requeue_stale = true;           ///< a stale trial's point is queued again as a waiting trial
  /// The objective is declared noisy (RunContext::noisy): the algorithm may ask a point again and
  /// a finite space is never exhausted. False: no point is asked twice; once every point of a
  /// finite space is evaluated, ask() returns nothing.
  bool noisy = false;
  /// What the study was created for, for workers that do not say (e.g. {"problem": "branin",
  /// "dim": 2, "noise": 0.1} or {"objective_command": "python3 f.py"}); free-form JSON.
  nlohmann::json objective = nlohmann::json::object();
  /// The horizon the study's algorithm plans with, once the budget was changed (Study::set_budget):
  /// the budget it was created with (0: none), so every worker keeps computing the same optimizer
  /// from the history, as a resumed run keeps its first budget's horizon. Unset: the budget.
  std::optional<std::size_t> horizon{};

  nlohmann::json to_json() const;
  static StudySettings from_json(const nlohmann::json& j);
  /// A heartbeat above half the grace period is allowed (a beat still lands within it) but thin:
  /// a beat late by the difference, on a busy machine or after a reconnect, fails a live trial as
  /// stale and its point is paid twice. The warning the CLI and Python give then; empty otherwise.
  std::string heartbeat_margin_warning() const;
};

/// A study as stored.
struct StudyRecord {
  std::int64_t id = 0;
  std::string name;
  Space space;
  Direction direction = Direction::Maximize;
  std::string algorithm;
  nlohmann::json options = nlohmann::json::object();  ///< resolved options, with "name" and "seed"
  std::uint64_t seed = 0;
  std::optional<std::size_t> budget;  ///< trials to run (failed ones included); none: unlimited
  std::optional<double> f_star;
  StudySettings settings;
  double created = 0.0;  ///< Unix time (s)
};

/// One trial as stored.
struct TrialRecord {
  std::int64_t id = 0;      ///< database row id
  std::size_t number = 0;   ///< 0-based, dense and unique within the study
  TrialState state = TrialState::Waiting;
  Vector x;                 ///< user point
  std::optional<double> value;  ///< objective 0's told value (complete trials)
  std::vector<double> values;   ///< every objective's value, in objective order
  std::string error;            ///< why it failed
  bool stale = false;           ///< failed as stale: not evaluated (its worker stopped heartbeating, its lease ended, or it was given back)
  /// Failed as stale because it was given back (Study::release: a trial that will not be run), not
  /// because its worker went silent: the algorithm withdraws it, whether its point was queued
  /// again or not (column `stale` = 2; 1: timed out).
  bool given_back = false;
  std::string worker;           ///< who holds or held it
  std::optional<double> created, started, finished, heartbeat;  ///< Unix times (s)
  std::optional<double> suggest_s;  ///< optimizer time spent proposing it
  std::optional<std::size_t> requeued_from;  ///< number of the stale trial it re-runs
  /// Running trials asked by hand (a lab experiment, `optimist study ask`): not failed as stale
  /// before this Unix time, heartbeat or not; +infinity: until told. None: heartbeats alone decide.
  std::optional<double> lease_until;
  std::string origin;  ///< "asked", "enqueued", "told" (added already evaluated) or "requeued"
  std::int64_t asked_seq = 0, finished_seq = 0;  ///< event numbers (0: not yet)
  /// Attributes stored with the trial (table trial_user_attrs). insert_trial writes them all;
  /// reads fill only "diagnostics": the optimizer's diagnostics when it proposed the trial.
  nlohmann::json user_attrs = nlohmann::json::object();

  /// The last sign of life of a running trial's worker: its last heartbeat, else its start.
  std::optional<double> last_beat() const { return heartbeat ? heartbeat : started; }

  /// A running trial asked with a lease: when it can first be failed as stale, the later of its
  /// lease and its last heartbeat (at its ask) plus the grace period, as the stale rule reads them:
  /// a lease is never shorter than the grace period. +infinity: until told. None: not leased.
  std::optional<double> held_until(double grace_period_s) const {
    if (state != TrialState::Running || !lease_until) return std::nullopt;
    const std::optional<double> beat = last_beat();
    return beat ? std::max(*lease_until, *beat + grace_period_s) : *lease_until;
  }
};

/// A study with its trial counts and best value (what `optimist study list` and a dashboard show).
struct StudySummary {
  StudyRecord study;
  std::map<TrialState, std::size_t> counts;
  std::optional<double> best_value;
  std::optional<std::size_t> best_number;  ///< the trial holding best_value (the first, on ties)
  std::optional<double> last_activity;  ///< latest trial time (Unix s)
};

/// The study's state as an ask sees it under the lock.
struct AskState {
  std::int64_t seq = 0;          ///< last event number
  std::size_t budget_used = 0;   ///< as Storage::budget_used
  bool has_waiting = false;      ///< a waiting trial exists
  bool has_stale = false;        ///< a running trial's heartbeat is older than the grace period (and its lease over)
  std::optional<std::size_t> budget;  ///< the study's budget now (Study::set_budget may change it)
};

struct StorageOptions {
  /// How long to keep retrying a busy database or an unreachable server before giving up (s).
  double retry_s = 600.0;
  /// Only read (study list/show/export, the dashboard): the schema is neither created nor
  /// migrated, a SQLite file is opened read-only, and no write lock is ever waited for.
  bool read_only = false;
  /// A PostgreSQL server that is not there yet (down, starting, its host unreachable) is waited
  /// for up to retry_s, as an outage is (`optimist worker`: a machine that boots before its
  /// database). Otherwise the first connection fails at once, naming the cause (a wrong port
  /// does not hang a command for 10 minutes). Not with read_only.
  bool wait_for_server = false;
};

/// Makes every wait for a busy or unreachable storage, in this process, give up at its next
/// retry (within ~2 s) and from then on fail at once. Async-signal-safe: a worker aborted by a
/// second Ctrl-C calls it, so that an evaluation it could not store is printed (as JSON) rather
/// than waited on for retry_s or lost.
void give_up_storage_retries() noexcept;

/// A connection to a study database. Creates the schema on first use and checks its version.
/// All calls are safe from one thread at a time; open one Storage per thread.
class Storage {
 public:
  /// Throws InvalidArgument for a malformed URL or unknown scheme (naming the allowed ones) and
  /// when the server cannot be reached (with the server's message).
  explicit Storage(const std::string& url, StorageOptions options = {});
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  const std::string& url() const { return url_; }
  /// When the server last became reachable again after an outage (PostgreSQL), if ever.
  std::optional<std::chrono::steady_clock::time_point> last_outage_end() const;
  /// Changes whenever another connection commits to the database (one cheap statement), so that a
  /// reader can keep what it computed while it stays the same.
  std::optional<std::string> change_token();
  std::string backend() const;

  // ---- studies ----
  /// Throws InvalidArgument if the name is taken.
  StudyRecord create_study(StudyRecord record);
  /// Throws InvalidArgument naming the study and listing the existing ones.
  StudyRecord load_study(const std::string& name);
  std::optional<StudyRecord> find_study(const std::string& name);
  /// Within locked(): stores the study's budget (none: unlimited) and settings.
  void set_budget(const StudyRecord& study);
  std::vector<StudySummary> list_studies();
  /// Removes the study and its trials; throws InvalidArgument if it does not exist.
  void delete_study(const std::string& name);

  // ---- reading trials ----
  /// Trials in number order; with after_number, only those numbered above it (incremental reads).
  std::vector<TrialRecord> trials(std::int64_t study_id, std::optional<std::size_t> after_number = std::nullopt);
  /// Trials that were asked or finished after event `seq`, with their event numbers.
  std::vector<TrialRecord> changed_after(std::int64_t study_id, std::int64_t seq);
  std::optional<TrialRecord> trial(std::int64_t study_id, std::size_t number);

  // ---- state changes (each a transaction; see Study for the rules) ----
  /// Runs fn inside a write transaction that holds the study's lock; fn may be re-run after a
  /// transient failure.
  void locked(std::int64_t study_id, const std::function<void()>& fn);
  /// Within locked(): the next event number of the study; `used_change` adjusts the count of
  /// trials against the budget (+1 a trial asked, claimed or added; -1 one failed as stale).
  std::int64_t next_event(std::int64_t study_id, int used_change = 0);
  /// Trials that count against the budget: running, complete and failed ones, except those
  /// failed as stale (their point runs again or was lost with its worker, not evaluated).
  std::size_t budget_used(std::int64_t study_id);
  /// Within locked(): fails running trials whose heartbeat is older than the grace period and
  /// whose lease, if any, has ended (re-queuing their points when the settings say so); returns how many.
  std::size_t fail_stale(const StudyRecord& study);
  /// Within locked(): trial `number`, running for `worker` (empty: for any worker: a trial given
  /// back by number), will not be evaluated: failed as stale and given back (TrialRecord::given_back),
  /// with `why`, and its point queued again when `requeue`; false when it is not running (for that worker).
  bool release(const StudyRecord& study, std::size_t number, const std::string& worker, const std::string& why,
               bool requeue = true);
  /// Running trials held by workers other than `worker`, except those held under a lease that has
  /// not ended (a hand-run experiment may take days: a worker does not wait for it).
  std::size_t running_elsewhere(std::int64_t study_id, const std::string& worker);
  /// Within locked(): the waiting trial with the lowest number, if any.
  std::optional<TrialRecord> first_waiting(std::int64_t study_id);
  /// Within locked(): inserts a trial with the next number; returns it. A running trial with
  /// `lease_s` is held that long without heartbeats (TrialRecord::lease_until).
  TrialRecord insert_trial(std::int64_t study_id, TrialRecord trial, std::optional<double> lease_s = std::nullopt);
  /// Within locked(): marks a waiting trial running for `worker`, held for `lease_s` seconds
  /// without heartbeats when given (TrialRecord::lease_until; infinity: until told).
  void claim(std::int64_t study_id, TrialRecord& trial, const std::string& worker, std::optional<double> suggest_s,
             std::optional<double> lease_s = std::nullopt);
  /// Within locked(): trial `number`, running for `worker` (empty: for any worker), becomes
  /// complete (with `value`) or failed (with `error`); false when it is not running (for that worker).
  bool finish(std::int64_t study_id, std::size_t number, const std::string& worker, std::optional<double> value,
              const std::string& error);
  /// Within locked(): what an ask decides on, in one query.
  AskState ask_state(const StudyRecord& study);
  /// Refreshes the heartbeat of these running trials (no lock needed).
  void heartbeat(std::int64_t study_id, const std::vector<std::size_t>& numbers);
  /// Sets a trial's user attribute (JSON value).
  void set_user_attr(std::int64_t trial_id, const std::string& key, const nlohmann::json& value);
  /// Within locked(): the same, in the caller's transaction.
  void put_user_attr(std::int64_t trial_id, const std::string& key, const nlohmann::json& value);
  /// A trial's user attribute, if set.
  std::optional<nlohmann::json> user_attr(std::int64_t trial_id, const std::string& key);

  /// The Unix time of the database's clock.
  double now();
  /// The SQLite file's PRAGMA integrity_check result ("ok"); "ok" on PostgreSQL.
  std::string integrity_check();

 private:
  void create_schema();
  void check_schema();  // read_only: the tables exist, of this version
  std::string url_;
  std::unique_ptr<study_detail::Database> db_;
};

/// The current version of the schema (docs/studies.md); a database with a newer one is refused.
constexpr int kStudySchemaVersion = 3;

}  // namespace optimist
