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
#include "study/study_impl.hpp"

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

nlohmann::json continued_study_options(const StudyRecord& study) {
  nlohmann::json options = study.options;
  (void)experiment::take_legacy_run_settings(options);
  try {
    return resolve_options(options);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("study '" + study.name + "': its stored options no longer apply: " + e.what());
  }
}

std::vector<std::string> study_option_differences(const StudyRecord& study, const nlohmann::json& named) {
  const nlohmann::json continued = continued_study_options(study);
  const nlohmann::json given = named.is_object() ? named : nlohmann::json::object();
  const nlohmann::json asked = resolve_study_options(study.algorithm, given);  // refuses unknown keys and bad values
  std::vector<std::string> out;
  for (const auto& [key, value] : given.items()) {
    const nlohmann::json& here = asked.contains(key) ? asked.at(key) : value;
    if (!continued.contains(key) || continued.at(key) != here)
      out.push_back(key + " = " + (continued.contains(key) ? continued.at(key).dump() : "absent") + " there, " + here.dump() + " here");
  }
  return out;
}

std::unique_ptr<Optimizer> make_study_optimizer(const StudyRecord& study) {
  nlohmann::json options = study.options;
  (void)experiment::take_legacy_run_settings(options);
  return make_optimizer(options, study.space, study.direction, study_run_context(study));
}

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
                          " s) must be " + (config.settings.heartbeat_interval_s < 0.0 ? ">= 0 and " : "") +
                          "below the grace period (" + format_double(config.settings.grace_period_s) +
                          " s): a trial would be failed as stale between two heartbeats");
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
    if (t.give_back && t.value)
      throw InvalidArgument("study '" + name() + "': trial " + std::to_string(t.number) + " is given back with a value " +
                            format_double(*t.value) + " (a trial given back was not evaluated)");
    if (t.value) check_told_value(name(), t.number, *t.value);
    if (!numbers.insert(t.number).second)
      throw InvalidArgument("study '" + name() + "': trial " + std::to_string(t.number) + " is told twice in one batch");
  }
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->write([&] {  // one transaction: all or none
    // Unknown numbers first: the refusal names the study's trials, before any re-queued copy is made.
    for (const StudyTell& t : tells)
      if (t.give_back && !impl_->storage->trial(impl_->record.id, t.number)) impl_->refuse_unknown(t.number);
    for (const StudyTell& t : tells) {
      if (t.give_back) impl_->release_locked(t.number, t.error.empty() ? "given back" : t.error, t.requeue, true);
      else impl_->finish_locked(t.number, t.value, t.value ? "" : (t.error.empty() ? "failed" : t.error), true);
    }
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
