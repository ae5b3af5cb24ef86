// Study: the ask/tell rules on top of Storage (docs/studies.md, "Asking in a study").
#include "optimist/study/study.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>

#include "optimist/algorithms/registry.hpp"
#include "optimist/experiment/run_setup.hpp"
#include "study/heartbeat.hpp"

namespace optimist {

namespace {

std::string default_worker_name() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::random_device rd;
  char tag[16];
  std::snprintf(tag, sizeof(tag), "%04x", static_cast<unsigned>(rd() & 0xffff));
  return std::string(host) + ":" + std::to_string(getpid()) + ":" + tag;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Any text is a name (the CLI and the dashboard escape what they show), except one a reader
// cannot tell apart from another: blanks around it. PostgreSQL cannot store a NUL nor bytes that
// are not UTF-8 (the dashboard's JSON cannot name them either), and indexes at most ~8 KB.
constexpr std::size_t kMaxStudyNameBytes = 1000;

void check_study_name(const std::string& name) {
  if (name.empty()) throw InvalidArgument("a study needs a name");
  const std::string shown = nlohmann::json(name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (name.find('\0') != std::string::npos) throw InvalidArgument("study name " + shown + " holds a NUL character");
  try {
    (void)nlohmann::json(name).dump();
  } catch (const nlohmann::json::type_error&) {
    throw InvalidArgument("study name " + shown + " is not valid UTF-8 text");
  }
  if (name.size() > kMaxStudyNameBytes)
    throw InvalidArgument("study name of " + std::to_string(name.size()) + " bytes is too long (at most " +
                          std::to_string(kMaxStudyNameBytes) + ")");
  const auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  if (blank(name.front()) || blank(name.back())) throw InvalidArgument("study name " + shown + " starts or ends with a blank");
}

}  // namespace

nlohmann::json resolve_study_options(const std::string& algorithm, const nlohmann::json& options) {
  nlohmann::json spec = options.is_null() ? nlohmann::json::object() : options;
  spec["name"] = algorithm;
  return resolve_options(spec);
}

RunContext study_run_context(const StudyRecord& study) {
  // As `optimist run`: the study's seed, and its budget as the horizon (none: an anytime run).
  RunContext context{.seed = study.seed, .horizon = study.budget, .noisy = study.settings.noisy};
  // A budget changed after the study began: the algorithm keeps the horizon it was created with.
  if (study.settings.horizon) context.horizon = *study.settings.horizon > 0 ? study.settings.horizon : std::nullopt;
  // Studies created before RunContext stored "seed" and the horizon ("budget") among the options.
  nlohmann::json options = study.options;
  const experiment::LegacyRunSettings old = experiment::take_legacy_run_settings(options);
  if (old.legacy) context.horizon = old.horizon && *old.horizon > 0 ? old.horizon : std::nullopt;
  return context;
}

std::unique_ptr<Optimizer> make_study_optimizer(const StudyRecord& study) {
  nlohmann::json options = study.options;
  (void)experiment::take_legacy_run_settings(options);
  return make_optimizer(options, study.space, study.direction, study_run_context(study));
}

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
  bool just_reconnected() const {
    auto last = storage_failed_at;
    if (const auto back = storage->last_outage_end(); back && (!last || *back > *last)) last = back;
    if (beat) {
      const auto beat_failed = beat->last_failure();
      if (beat_failed && (!last || *beat_failed > *last)) last = beat_failed;
    }
    // A live worker's first beat after the outage may come one heartbeat interval after it.
    return last && std::chrono::steady_clock::now() - *last <
                       std::chrono::duration<double>(record.settings.grace_period_s + record.settings.heartbeat_interval_s);
  }

  void reset_cache() {
    optimizer = make_study_optimizer(record);
    synced_seq = 0;
    pending.clear();
  }

  // Feeds the optimizer every event after synced_seq in event order: an ask becomes a pending
  // trial (unless this optimizer asked it), a finish a tell or a failure.
  void sync() {
    if (!optimizer) reset_cache();
    struct Event {
      std::int64_t seq;
      bool finish;
      const TrialRecord* trial;
    };
    const std::vector<TrialRecord> changed = storage->changed_after(record.id, synced_seq);
    std::vector<Event> events;
    for (const auto& t : changed) {
      if (t.asked_seq > synced_seq) events.push_back({t.asked_seq, false, &t});
      if (t.finished_seq > synced_seq) events.push_back({t.finished_seq, true, &t});
    }
    std::sort(events.begin(), events.end(),
              [](const Event& a, const Event& b) { return a.seq != b.seq ? a.seq < b.seq : a.finish < b.finish; });
    for (const Event& e : events) {
      const TrialRecord& t = *e.trial;
      if (!e.finish) {
        if (!pending.count(t.number)) pending.emplace(t.number, optimizer->add_pending(t.x));
      } else {
        const auto it = pending.find(t.number);
        if (it == pending.end())
          throw std::logic_error("study '" + record.name + "': trial " + std::to_string(t.number) + " finished before it was asked");
        if (t.state == TrialState::Complete) optimizer->tell(it->second, *t.value);
        // A trial that was not evaluated is withdrawn, not told as a failure (gp-ei would put the
        // worst value at a point it chose as promising): one given back (release), requeued or
        // not, and a stale one whose point runs again as a queued trial. Only a stale trial of a
        // study that does not requeue is a failure: a point that kills its worker is not asked again.
        else if (t.given_back || (t.stale && record.settings.requeue_stale)) optimizer->withdraw(it->second);
        else optimizer->tell_failed(it->second, t.error);
        pending.erase(it);
      }
      synced_seq = e.seq;
    }
  }

  // A write transaction that may be re-run: a re-run starts from a fresh cache, since the
  // optimizer may already hold the rolled-back ask.
  void write(const std::function<void()>& fn) {
    bool first = true;
    try {
      storage->locked(record.id, [&] {
        if (!first) optimizer.reset();
        first = false;
        fn();
      });
    } catch (const InvalidArgument&) {  // refused input (a budget too small, history added twice): no outage
      optimizer.reset();
      throw;
    } catch (...) {
      optimizer.reset();
      storage_failed_at = std::chrono::steady_clock::now();  // perhaps an outage: see just_reconnected
      throw;
    }
  }

  void track(std::size_t number) {
    own.insert(number);
    if (!options.heartbeat_thread || record.settings.heartbeat_interval_s <= 0) return;
    if (!beat)
      beat = std::make_unique<study_detail::Heartbeat>(storage->url(), options.storage, record.id,
                                                       record.settings.heartbeat_interval_s);
    beat->add(number);
  }
  void untrack(std::size_t number) {
    own.erase(number);
    if (beat) beat->remove(number);
  }

  TrialRecord finished_record(const StudyEvaluation& e) const {
    record.space.validate(e.x);
    if (e.value && !std::isfinite(*e.value))
      throw InvalidArgument("study '" + record.name + "': value " + format_double(*e.value) + " is not finite");
    TrialRecord t;
    t.x = e.x;
    t.state = e.value ? TrialState::Complete : TrialState::Failed;
    t.value = e.value;
    t.error = e.value ? "" : (e.error.empty() ? "failed" : e.error);
    t.origin = "told";
    t.worker = options.worker;
    return t;
  }

  // An evaluation added before (origin told, not a late value) with the same parameters and value.
  void refuse_added_twice(const std::vector<TrialRecord>& adding) {
    std::map<std::pair<std::vector<double>, double>, std::size_t> added;
    for (const TrialRecord& t : storage->trials(record.id))
      if (t.origin == "told" && !t.requeued_from && t.state == TrialState::Complete)
        added.emplace(std::pair{std::vector<double>(t.x.begin(), t.x.end()), *t.value}, t.number);
    for (std::size_t i = 0; i < adding.size(); ++i) {
      if (!adding[i].value) continue;
      const double value = *adding[i].value;
      const auto it = added.find({std::vector<double>(adding[i].x.begin(), adding[i].x.end()), value});
      if (it != added.end())
        throw AddedTwice("study '" + record.name + "': " + (adding.size() > 1 ? "evaluation " + std::to_string(i) + ": " : "") + "trial " +
                             std::to_string(it->second) +
                             " was added with the same parameters and value " + format_double(value) +
                             "; added twice? (none was added)",
                         i, it->second, value);
    }
  }

  std::size_t add_finished(const Vector& x, std::optional<double> value, const std::string& error) {
    TrialRecord t = finished_record({x, value, error});
    write([&] { t = storage->insert_trial(record.id, t); });
    return t.number;
  }

  [[noreturn]] void refuse_unknown(std::size_t number) {
    const std::size_t n = storage->trials(record.id).size();
    throw InvalidArgument("study '" + record.name + "' has no trial " + std::to_string(number) +
                          (n == 0 ? std::string(" (it has no trials yet)")
                                  : " (its trials are numbered 0 to " + std::to_string(n - 1) + ")"));
  }

  // A trial failed as stale: whether its point was queued again, as which trial.
  std::string requeue_note(const TrialRecord& t) {
    for (const TrialRecord& copy : storage->trials(record.id, t.number))
      if (copy.requeued_from == t.number && copy.origin == "requeued")
        return "its point was queued again (trial " + std::to_string(copy.number) + ")";
    return "its point was not queued again";
  }

  // A trial failed as stale, as a refusal names it: given back, or failed when its worker went silent.
  std::string stale_text(const TrialRecord& t) {
    if (!t.given_back) return " is failed as stale (" + t.error + ")";
    return t.error == "given back" ? " was given back" : " was given back (" + t.error + ")";
  }

  // Why trial `number` cannot be told: it does not exist, is waiting, or was told already.
  [[noreturn]] void refuse_tell(std::size_t number, const std::optional<TrialRecord>& t, bool any_worker) {
    const std::string trial = "study '" + record.name + "': trial " + std::to_string(number);
    if (!t) refuse_unknown(number);
    const std::string by = t->worker.empty() ? "" : ", worker '" + t->worker + "'";
    switch (t->state) {
      case TrialState::Waiting:
        throw InvalidArgument(trial + " is waiting: no one has asked it yet (ask it first, or record an evaluation "
                              "made elsewhere with add)");
      case TrialState::Complete:
        throw InvalidArgument(trial + " is complete (value " + format_double(t->value.value_or(NAN)) + by +
                              "): it was told already; told twice?");
      case TrialState::Failed:
        if (t->stale)
          throw InvalidArgument(trial + stale_text(*t) + ": a failure told now changes nothing; " + requeue_note(*t));
        throw InvalidArgument(trial + " is failed (" + t->error + by + "): it was told already; told twice?");
      case TrialState::Running:
        break;
    }
    throw InvalidArgument(trial + " is running for worker '" + t->worker + "', not for this worker '" + options.worker +
                          "'" + (any_worker ? "" : "; tell it by its number to tell another worker's trial"));
  }

  // Within a write transaction: gives back running trial `number` (this worker's unless any_worker)
  // or says why it cannot: it does not exist, is waiting, or is finished already.
  void release_locked(std::size_t number, const std::string& why, bool requeue, bool any_worker) {
    if (storage->release(record, number, any_worker ? std::string() : options.worker, why, requeue)) return;
    const auto t = storage->trial(record.id, number);
    if (!t) refuse_unknown(number);
    const std::string trial = "study '" + record.name + "': trial " + std::to_string(number);
    const std::string by = t->worker.empty() ? "" : ", worker '" + t->worker + "'";
    switch (t->state) {
      case TrialState::Waiting:
        throw InvalidArgument(trial + " is waiting: no one has asked it yet, so there is nothing to give back");
      case TrialState::Complete:
        throw InvalidArgument(trial + " is complete (value " + format_double(t->value.value_or(NAN)) + by +
                              "): it was told already, so it cannot be given back");
      case TrialState::Failed:
        if (t->stale) throw InvalidArgument(trial + stale_text(*t) + " already: " + requeue_note(*t));
        throw InvalidArgument(trial + " is failed (" + t->error + by + "): it was told already, so it cannot be given back");
      case TrialState::Running:
        break;
    }
    throw InvalidArgument(trial + " is running for worker '" + t->worker + "', not for this worker '" + options.worker +
                          "'; give it back by its number to give back another worker's trial");
  }

  // number running for this worker (any worker with any_worker) becomes complete or failed.
  void finish(std::size_t number, std::optional<double> value, const std::string& error, bool any_worker) {
    write([&] { finish_locked(number, value, error, any_worker); });
    untrack(number);
  }

  // finish() within a write transaction.
  void finish_locked(std::size_t number, std::optional<double> value, const std::string& error, bool any_worker) {
    if (storage->finish(record.id, number, any_worker ? std::string() : options.worker, value, error)) return;
    const auto t = storage->trial(record.id, number);
    if (!t) refuse_tell(number, t, any_worker);
    // A commit whose outcome was lost with the connection, run again: already done. Only for a
    // trial this object still holds; once told, a second tell is the caller's mistake.
    if (own.count(number) && t->state == (value ? TrialState::Complete : TrialState::Failed) &&
        t->worker == options.worker && t->value == value)
      return;
    if (t->state == TrialState::Failed && t->stale && value) {
      // Our trial was failed as stale meanwhile (we lost the storage too long): keep the value,
      // once (a late value told again, by a person or a script re-run, is refused).
      const auto kept = storage->user_attr(t->id, "late_value");
      // A commit whose outcome was lost with the connection, run again: kept already. Only for a
      // trial this object holds, as above; anyone else telling it again is refused.
      if (own.count(number) && kept && kept->is_object() && kept->value("value", nlohmann::json()) == nlohmann::json(*value)) return;
      if (kept && kept->is_object())
        throw InvalidArgument("study '" + record.name + "': trial " + std::to_string(number) + " is failed as stale, and its late value " +
                              kept->value("value", nlohmann::json()).dump() + " was kept already (trial " +
                              kept->value("trial", nlohmann::json()).dump() + "); told twice?");
      // Its re-queued copy, if no worker has taken it yet, takes the value: the point is not
      // evaluated twice.
      for (TrialRecord& copy : storage->trials(record.id, t->number))
        if (copy.requeued_from == t->number && copy.state == TrialState::Waiting) {
          storage->claim(record.id, copy, options.worker, std::nullopt);
          storage->finish(record.id, copy.number, options.worker, value, "");
          storage->put_user_attr(t->id, "late_value", {{"value", *value}, {"trial", copy.number}});
          return;
        }
      // Otherwise as a new trial rather than losing an evaluation that was paid for.
      TrialRecord late;
      late.x = t->x;
      late.state = TrialState::Complete;
      late.value = value;
      late.origin = "told";
      late.requeued_from = t->number;
      late.worker = options.worker;
      storage->put_user_attr(t->id, "late_value", {{"value", *value}, {"trial", storage->insert_trial(record.id, late).number}});
      return;
    }
    refuse_tell(number, t, any_worker);
  }
};

Study::Study(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Study::~Study() = default;
Study::Study(Study&&) noexcept = default;
Study& Study::operator=(Study&&) noexcept = default;

Study Study::create(const std::string& storage_url, const StudyConfig& config, StudyOptions options) {
  check_study_name(config.name);
  if (config.space.empty()) throw InvalidArgument("study '" + config.name + "': the search space has no parameters");
  if (config.budget && *config.budget == 0) throw InvalidArgument("study '" + config.name + "': budget must be > 0, got 0");
  if (!std::isfinite(config.settings.grace_period_s) || !std::isfinite(config.settings.heartbeat_interval_s) ||
      !(config.settings.grace_period_s > 0.0) || config.settings.heartbeat_interval_s < 0.0 ||
      (config.settings.heartbeat_interval_s > 0.0 && config.settings.heartbeat_interval_s >= config.settings.grace_period_s))
    throw InvalidArgument("study '" + config.name + "': the heartbeat interval (" + format_double(config.settings.heartbeat_interval_s) +
                          " s) must be >= 0 and below the grace period (" + format_double(config.settings.grace_period_s) + " s)");
  StudyRecord record;
  record.name = config.name;
  record.space = config.space;
  record.direction = config.direction;
  record.algorithm = config.algorithm;
  record.options = resolve_study_options(config.algorithm, config.options);
  record.seed = config.seed;
  record.budget = config.budget;
  record.f_star = config.f_star;
  record.settings = config.settings;
  make_study_optimizer(record);  // refuses options the algorithm rejects at construction
  auto storage = std::make_unique<Storage>(storage_url, options.storage);
  record = storage->create_study(record);
  auto impl = std::make_unique<Impl>();
  impl->record = std::move(record);
  impl->storage = std::move(storage);
  if (options.worker.empty()) options.worker = default_worker_name();
  impl->options = std::move(options);
  return Study(std::move(impl));
}

Study Study::load(const std::string& storage_url, const std::string& name, StudyOptions options) {
  require_existing_database(storage_url);  // a mistyped path would read as an empty database, and leave one
  auto storage = std::make_unique<Storage>(storage_url, options.storage);
  auto impl = std::make_unique<Impl>();
  impl->record = storage->load_study(name);
  impl->storage = std::move(storage);
  if (options.worker.empty()) options.worker = default_worker_name();
  impl->options = std::move(options);
  return Study(std::move(impl));
}

const StudyRecord& Study::record() const { return impl_->record; }
const std::string& Study::worker() const { return impl_->options.worker; }
Storage& Study::storage() { return *impl_->storage; }

std::optional<StudyTrial> Study::ask() { return ask_unguarded_or_note(std::nullopt); }

std::optional<StudyTrial> Study::ask(double lease_s) {
  if (!(lease_s > 0.0))  // NaN too
    throw InvalidArgument("study '" + name() + "': a lease must be > 0 seconds (infinity: until told), got " + format_double(lease_s));
  return ask_unguarded_or_note(lease_s);
}

std::optional<StudyTrial> Study::ask_unguarded_or_note(std::optional<double> lease_s) {
  try {
    return ask_unguarded(lease_s);
  } catch (const std::exception&) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->storage_failed_at = std::chrono::steady_clock::now();
    throw;
  }
}

std::optional<StudyTrial> Study::ask_unguarded(std::optional<double> lease_s) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sync();  // most events outside the lock, so the locked part stays short
  std::optional<StudyTrial> out;
  s.write([&] {
    out.reset();
    AskState state = s.storage->ask_state(s.record);
    if (state.has_stale && !s.just_reconnected()) {
      s.storage->fail_stale(s.record);
      state = s.storage->ask_state(s.record);
    }
    if (state.budget != s.record.budget) {
      // Changed by set_budget (in any process): with it the horizon was fixed in the settings,
      // which a rebuilt optimizer must use.
      s.record.settings = s.storage->load_study(s.record.name).settings;
      s.record.budget = state.budget;
    }
    if (state.seq > s.synced_seq || !s.optimizer) s.sync();
    if (s.record.budget && state.budget_used >= *s.record.budget) return;
    std::optional<TrialRecord> t;
    // A deterministic objective on a finite space: nothing new to ask once every point has been
    // evaluated or is running (a stale running trial comes back as a waiting one).
    if (!state.has_waiting && s.optimizer->remaining_points() == 0) return;
    if (state.has_waiting) {
      t = s.storage->first_waiting(s.record.id);
      s.storage->claim(s.record.id, *t, s.options.worker, std::nullopt, lease_s);
      s.pending.emplace(t->number, s.optimizer->add_pending(t->x));
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      const Trial asked = s.optimizer->ask();
      TrialRecord fresh;
      fresh.x = asked.x;
      fresh.state = TrialState::Running;
      fresh.origin = "asked";
      fresh.worker = s.options.worker;
      fresh.suggest_s = seconds_since(t0);
      // The optimizer's state behind this suggestion (e.g. GP lengthscales), as a trace line has it.
      if (nlohmann::json d = s.optimizer->diagnostics(); d.is_object() && !d.empty()) fresh.user_attrs["diagnostics"] = std::move(d);
      t = s.storage->insert_trial(s.record.id, fresh, lease_s);
      s.pending.emplace(t->number, asked);
    }
    s.synced_seq = t->asked_seq;
    out = StudyTrial{t->number, t->x, t->origin, t->suggest_s.value_or(0.0), t->lease_until};
    if (const auto d = t->user_attrs.find("diagnostics"); d != t->user_attrs.end()) out->diagnostics = *d;
  });
  if (out) s.track(out->number);
  return out;
}

namespace {
void check_told_value(const std::string& study, std::size_t number, double value) {
  if (!std::isfinite(value))
    throw InvalidArgument("study '" + study + "': trial " + std::to_string(number) + ": value " + format_double(value) +
                          " is not finite; report a failed evaluation with tell_failed");
}
}  // namespace

void Study::tell(const StudyTrial& trial, double value) {
  check_told_value(name(), trial.number, value);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->finish(trial.number, value, "", false);
}

void Study::tell_failed(const StudyTrial& trial, const std::string& error) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->finish(trial.number, std::nullopt, error.empty() ? "failed" : error, false);
}

void Study::tell(std::size_t number, double value) {
  check_told_value(name(), number, value);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->finish(number, value, "", true);
}

void Study::tell_failed(std::size_t number, const std::string& error) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->finish(number, std::nullopt, error.empty() ? "failed" : error, true);
}

void Study::tell(const std::vector<StudyTell>& tells) {
  std::set<std::size_t> numbers;
  for (const StudyTell& t : tells) {
    if (t.value) check_told_value(name(), t.number, *t.value);
    if (!numbers.insert(t.number).second)
      throw InvalidArgument("study '" + name() + "': trial " + std::to_string(t.number) + " is told twice in one batch");
  }
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->write([&] {  // one transaction: all or none
    for (const StudyTell& t : tells)
      impl_->finish_locked(t.number, t.value, t.value ? "" : (t.error.empty() ? "failed" : t.error), true);
  });
  for (const StudyTell& t : tells) impl_->untrack(t.number);
}

void Study::release(const StudyTrial& trial, const std::string& why, bool requeue) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->write([&] { impl_->release_locked(trial.number, why.empty() ? "given back" : why, requeue, false); });
  impl_->untrack(trial.number);
}

void Study::release(std::size_t number, const std::string& why, bool requeue) {
  release(std::vector<std::size_t>{number}, why, requeue);
}

void Study::release(const std::vector<std::size_t>& numbers, const std::string& why, bool requeue) {
  std::set<std::size_t> seen;
  for (const std::size_t n : numbers)
    if (!seen.insert(n).second)
      throw InvalidArgument("study '" + name() + "': trial " + std::to_string(n) + " is given back twice in one batch");
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->write([&] {  // one transaction: all or none
    // Unknown numbers first: the refusal names the study's trials, before any re-queued copy is made.
    for (const std::size_t n : numbers)
      if (!impl_->storage->trial(impl_->record.id, n)) impl_->refuse_unknown(n);
    for (const std::size_t n : numbers) impl_->release_locked(n, why.empty() ? "given back" : why, requeue, true);
  });
  for (const std::size_t n : numbers) impl_->untrack(n);
}

std::size_t Study::enqueue(const Vector& x, bool skip_if_exists) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->record.space.validate(x);
  TrialRecord t;
  t.x = x;
  t.origin = "enqueued";
  impl_->write([&] {
    if (skip_if_exists) {
      // Under the study's lock, so two workers queuing the same point queue it once.
      for (const TrialRecord& old : impl_->storage->trials(impl_->record.id))
        if (old.x == x && old.state != TrialState::Failed) {
          t = old;
          return;
        }
    }
    t = impl_->storage->insert_trial(impl_->record.id, t);
  });
  return t.number;
}

std::size_t Study::add(const Vector& x, double value) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->add_finished(x, value, "");
}

std::size_t Study::add_failed(const Vector& x, const std::string& error) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->add_finished(x, std::nullopt, error.empty() ? "failed" : error);
}

std::vector<std::size_t> Study::add(const std::vector<StudyEvaluation>& evaluations, Duplicates duplicates) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<TrialRecord> records;
  records.reserve(evaluations.size());
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    try {
      records.push_back(impl_->finished_record(evaluations[i]));
    } catch (const InvalidArgument& e) {
      // One evaluation (Python's Study.add(x, value)) is not numbered: its message is the plain one.
      if (evaluations.size() == 1) throw;
      throw InvalidArgument("evaluation " + std::to_string(i) + ": " + e.what() + " (none was added)");
    }
  }
  std::vector<std::size_t> numbers;
  impl_->write([&] {  // one transaction: all or none
    numbers.clear();
    if (duplicates == Duplicates::Refuse) impl_->refuse_added_twice(records);
    for (const TrialRecord& t : records) numbers.push_back(impl_->storage->insert_trial(impl_->record.id, t).number);
  });
  return numbers;
}

std::vector<TrialRecord> Study::trials() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->storage->trials(impl_->record.id);
}

std::optional<TrialRecord> Study::best() {
  std::optional<TrialRecord> best;
  const double sign = direction_sign(record().direction);
  for (auto& t : trials())
    if (t.state == TrialState::Complete && (!best || sign * *t.value > sign * *best->value)) best = std::move(t);
  return best;
}

std::optional<Vector> Study::recommend() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->sync();
  if (impl_->optimizer->n_successful() == 0) return std::nullopt;
  return impl_->optimizer->recommend();
}

void Study::set_budget(std::optional<std::size_t> budget) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Impl& s = *impl_;
  s.write([&] {
    StudyRecord fresh = s.storage->load_study(s.record.name);
    if (budget && *budget == 0) throw InvalidArgument("study '" + fresh.name + "': budget must be > 0, got 0");
    const std::size_t used = s.storage->budget_used(fresh.id);
    if (budget && *budget < used)
      throw InvalidArgument("study '" + fresh.name + "': a budget of " + std::to_string(*budget) + " is below the " +
                            std::to_string(used) + " trial(s) it has counted already (running, complete and failed ones)");
    // The first change fixes the horizon at the budget the study was created with.
    if (!fresh.settings.horizon) fresh.settings.horizon = fresh.budget.value_or(0);
    fresh.budget = budget;
    s.storage->set_budget(fresh);
    s.record.budget = fresh.budget;
    s.record.settings.horizon = fresh.settings.horizon;
  });
}

std::size_t Study::budget_used() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->storage->budget_used(impl_->record.id);
}

std::size_t Study::running_elsewhere() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->storage->running_elsewhere(impl_->record.id, impl_->options.worker);
}

void Study::heartbeat() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->storage->heartbeat(impl_->record.id, {impl_->own.begin(), impl_->own.end()});
}

std::size_t Study::fail_stale() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::size_t n = 0;
  impl_->write([&] { n = impl_->storage->fail_stale(impl_->record); });
  return n;
}

}  // namespace optimist
