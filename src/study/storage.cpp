// Storage: every SQL statement of the study model, written once for both backends.
#include "optimist/study/storage.hpp"

#include <filesystem>
#include <string_view>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/text.hpp"
#include "study/database.hpp"
#include "study/schema.hpp"

namespace optimist {

using study_detail::Cell;
using study_detail::Row;
using study_detail::SqlValue;

namespace {

// trials.stale: 0 not stale; failed as stale (not evaluated, not counted against the budget)
// because its worker went silent or its lease ended (1), or because it was given back (2).
constexpr std::int64_t kStaleTimedOut = 1;
constexpr std::int64_t kStaleGivenBack = 2;

constexpr const char* kTrialColumns =
    "t.id, t.number, t.state, t.point, v.value, t.error, t.worker, t.created, t.started, t.finished, t.heartbeat, "
    "t.suggest_s, t.requeued_from, t.origin, t.asked_seq, t.finished_seq, t.stale, d.value, t.lease_until";
// A trial's diagnostics (the optimizer's state when it proposed the trial) ride along with it; other
// user attributes are read on demand.
constexpr const char* kTrialFrom =
    " FROM trials t LEFT JOIN trial_values v ON v.trial_id = t.id AND v.objective = 0"
    " LEFT JOIN trial_user_attrs d ON d.trial_id = t.id AND d.key = 'diagnostics' ";

std::string point_text(const Vector& x) {
  nlohmann::json a = nlohmann::json::array();
  for (Eigen::Index i = 0; i < x.size(); ++i) a.push_back(x[i]);
  return a.dump();
}

Vector point_from_text(const std::string& text) {
  const auto a = nlohmann::json::parse(text);
  Vector x(static_cast<Eigen::Index>(a.size()));
  for (std::size_t i = 0; i < a.size(); ++i) x[static_cast<Eigen::Index>(i)] = a[i].get<double>();
  return x;
}

SqlValue opt_real(const std::optional<double>& v) { return v ? SqlValue(*v) : SqlValue(); }
SqlValue opt_text(const std::string& s) { return s.empty() ? SqlValue() : SqlValue(s); }
std::int64_t to_i64(std::size_t n) { return static_cast<std::int64_t>(n); }

TrialRecord trial_from_row(const Row& r) {
  TrialRecord t;
  t.id = r[0].integer();
  t.number = static_cast<std::size_t>(r[1].integer());
  t.state = trial_state_from_string(r[2].text());
  t.x = point_from_text(r[3].text());
  t.value = r[4].optional_real();
  if (t.value) t.values = {*t.value};
  t.error = r[5].optional_text().value_or("");
  t.worker = r[6].optional_text().value_or("");
  t.created = r[7].optional_real();
  t.started = r[8].optional_real();
  t.finished = r[9].optional_real();
  t.heartbeat = r[10].optional_real();
  t.suggest_s = r[11].optional_real();
  if (!r[12].null()) t.requeued_from = static_cast<std::size_t>(r[12].integer());
  t.origin = r[13].text();
  t.asked_seq = r[14].null() ? 0 : r[14].integer();
  t.finished_seq = r[15].null() ? 0 : r[15].integer();
  t.stale = r[16].integer() != 0;
  t.given_back = r[16].integer() == kStaleGivenBack;
  if (const auto d = r[17].optional_text()) {
    nlohmann::json j = nlohmann::json::parse(*d, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) t.user_attrs["diagnostics"] = std::move(j);
  }
  t.lease_until = r[18].optional_real();
  return t;
}

StudyRecord study_from_row(const Row& r) {
  // id, name, space, directions, algorithm, options, seed, budget, f_star, settings, created
  StudyRecord s;
  s.id = r[0].integer();
  s.name = r[1].text();
  s.space = Space::from_json(nlohmann::json::parse(r[2].text()));
  s.direction = parse_direction(nlohmann::json::parse(r[3].text()).at(0).get<std::string>());
  s.algorithm = r[4].text();
  s.options = nlohmann::json::parse(r[5].text());
  s.seed = std::stoull(r[6].text());
  if (!r[7].null()) s.budget = static_cast<std::size_t>(r[7].integer());
  s.f_star = r[8].optional_real();
  s.settings = StudySettings::from_json(nlohmann::json::parse(r[9].text()));
  s.created = r[10].real();
  return s;
}

// A running trial is stale when its heartbeat is older than the grace period (the `?`) and it is
// not held under a lease that has yet to end (a trial asked by hand has no heartbeat).
std::string stale_condition(const std::string& now, const std::string& prefix) {
  return prefix + "state = 'running' AND " + prefix + "heartbeat < " + now + " - ? AND (" + prefix + "lease_until IS NULL OR " +
         prefix + "lease_until < " + now + ")";
}

// The lease_until of a trial asked now: held for a lease (its length a `?`), or NULL.
std::string lease_sql(const std::string& now, bool leased) { return leased ? now + " + ?" : "NULL"; }

constexpr const char* kStudyColumns = "id, name, space, directions, algorithm, options, seed, budget, f_star, settings, created";

}  // namespace

std::string to_string(TrialState s) {
  switch (s) {
    case TrialState::Waiting: return "waiting";
    case TrialState::Running: return "running";
    case TrialState::Complete: return "complete";
    case TrialState::Failed: return "failed";
  }
  return "?";
}

TrialState trial_state_from_string(const std::string& text) {
  for (TrialState s : {TrialState::Waiting, TrialState::Running, TrialState::Complete, TrialState::Failed})
    if (to_string(s) == text) return s;
  throw InvalidArgument("unknown trial state '" + text + "'; expected waiting, running, complete or failed");
}

nlohmann::json StudySettings::to_json() const {
  nlohmann::json j = {{"heartbeat_interval_s", heartbeat_interval_s},
          {"grace_period_s", grace_period_s},
          {"requeue_stale", requeue_stale},
          {"noisy", noisy},
          {"objective", objective}};
  if (horizon) j["horizon"] = *horizon;
  return j;
}

std::string StudySettings::heartbeat_margin_warning() const {
  if (!(heartbeat_interval_s > grace_period_s / 2.0 && heartbeat_interval_s < grace_period_s)) return "";
  char margin[32];
  std::snprintf(margin, sizeof margin, "%.3g", grace_period_s - heartbeat_interval_s);
  return "a heartbeat every " + format_double(heartbeat_interval_s) + " s with a grace period of " +
         format_double(grace_period_s) + " s leaves " + margin +
         " s for a late beat: a busy machine or a slow network fails live trials as stale; a grace period of at least "
         "twice the heartbeat is safer";
}

StudySettings StudySettings::from_json(const nlohmann::json& j) {
  StudySettings s;
  s.heartbeat_interval_s = j.value("heartbeat_interval_s", s.heartbeat_interval_s);
  s.grace_period_s = j.value("grace_period_s", s.grace_period_s);
  s.requeue_stale = j.value("requeue_stale", s.requeue_stale);
  // Studies stored before "noisy": a benchmark objective with noise > 0 was noisy.
  const nlohmann::json objective = j.value("objective", nlohmann::json::object());
  s.noisy = j.value("noisy", objective.is_object() && objective.value("noise", 0.0) > 0.0);
  s.objective = j.value("objective", nlohmann::json::object());
  if (const auto h = j.find("horizon"); h != j.end() && h->is_number_unsigned()) s.horizon = h->get<std::size_t>();
  return s;
}

void require_existing_database(const std::string& url) {
  constexpr std::string_view kSqlite = "sqlite:///";  // then the path: sqlite:////abs/x.db, sqlite:///rel/x.db
  if (url.rfind(kSqlite, 0) != 0) return;
  const std::string path = url.substr(kSqlite.size());
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw InvalidArgument("no study database at '" + path + "' (from the storage URL " + redact_url(url) +
                          "); studies are created by 'optimist study create' or Study.create");
}

Storage::Storage(const std::string& url, StorageOptions options)
    : url_(url), db_(study_detail::connect(url, options.retry_s, options.read_only, options.wait_for_server && !options.read_only)) {
  if (options.read_only) check_schema();
  else create_schema();
}

void Storage::check_schema() {
  std::optional<int> found;
  try {
    const auto rows = db_->query("SELECT version FROM schema_version");
    found = rows.empty() ? 0 : static_cast<int>(rows[0][0].integer());
  } catch (const std::runtime_error&) {  // no such table: another application's database
  }
  if (!found || *found == 0)
    throw InvalidArgument("storage '" + db_->display_url() + "' holds no optimist studies (no study tables; studies are "
                          "created by 'optimist study create' or Study.create)");
  if (*found != kStudySchemaVersion)
    throw InvalidArgument("storage '" + db_->display_url() + "' has study schema version " + std::to_string(*found) +
                          ", this optimist reads version " + std::to_string(kStudySchemaVersion) +
                          (*found < kStudySchemaVersion
                               ? "; a command that writes (optimist worker, study create, study ask, tell or add) upgrades it"
                               : "; upgrade optimist"));
}

Storage::~Storage() = default;

std::string Storage::backend() const { return db_->backend(); }

void Storage::create_schema() {
  // Today's schema there already: nothing to create. (CREATE TABLE IF NOT EXISTS needs CREATE on
  // the schema even when the table exists, which a role that only reads and writes the tables, the
  // usual PostgreSQL 15 worker, lacks: every writing command failed with "permission denied".)
  try {
    const auto rows = db_->query("SELECT version FROM schema_version");
    if (!rows.empty() && rows[0][0].integer() == kStudySchemaVersion) return;
  } catch (const std::runtime_error&) {  // no such table yet: created below
  }
  db_->transaction(study_detail::kGlobalLock, [&] {
    db_->query("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    const auto rows = db_->query("SELECT version FROM schema_version");
    const int found = rows.empty() ? 0 : static_cast<int>(rows[0][0].integer());
    if (found > kStudySchemaVersion)
      throw InvalidArgument("storage '" + db_->display_url() + "' has study schema version " + std::to_string(found) +
                            ", newer than this optimist's " + std::to_string(kStudySchemaVersion) + "; upgrade optimist");
    if (found == kStudySchemaVersion) return;
    if (found == 0) {  // a fresh database: today's tables
      // Not over another program's tables of the same names (Optuna's `studies` and `trials`):
      // CREATE TABLE IF NOT EXISTS kept theirs, and the first index failed with raw SQL.
      const std::string tables = db_->backend() == "sqlite"
                                     ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('studies', 'trials')"
                                     : "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                                       "AND table_name IN ('studies', 'trials')";
      if (const auto taken = db_->query(tables); !taken.empty())
        throw InvalidArgument("storage '" + db_->display_url() + "' holds a table '" + taken[0][0].text() +
                              "' that is not optimist's (no optimist schema: another program's database, Optuna's "
                              "perhaps); give optimist a database of its own");
      for (const auto& stmt : study_detail::schema_statements(*db_)) db_->query(stmt);
      db_->query("INSERT INTO schema_version (version) VALUES (?)", {std::int64_t{kStudySchemaVersion}});
      return;
    }
    for (const auto& stmt : study_detail::migration_statements(*db_, found)) db_->query(stmt);
    db_->query("UPDATE schema_version SET version = ?", {std::int64_t{kStudySchemaVersion}});
  });
}

StudyRecord Storage::create_study(StudyRecord record) {
  db_->transaction(study_detail::kGlobalLock, [&] {
    if (!db_->query("SELECT id FROM studies WHERE name = ?", {record.name}).empty())
      throw InvalidArgument("study '" + record.name + "' already exists in '" + db_->display_url() +
                            "'; pick another name or delete it ('optimist study delete')");
    const nlohmann::json directions = nlohmann::json::array({to_string(record.direction)});
    const auto rows = db_->query(
        "INSERT INTO studies (name, space, directions, algorithm, options, seed, budget, f_star, settings, created) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, " + db_->now_sql() + ") RETURNING id, created",
        {record.name, record.space.to_json().dump(), directions.dump(), record.algorithm, record.options.dump(),
         std::to_string(record.seed), record.budget ? SqlValue(to_i64(*record.budget)) : SqlValue(),
         opt_real(record.f_star), record.settings.to_json().dump()});
    record.id = rows[0][0].integer();
    record.created = rows[0][1].real();
  });
  return record;
}

void Storage::set_budget(const StudyRecord& study) {
  db_->query("UPDATE studies SET budget = ?, settings = ? WHERE id = ?",
             {study.budget ? SqlValue(to_i64(*study.budget)) : SqlValue(), study.settings.to_json().dump(), study.id});
}

std::optional<StudyRecord> Storage::find_study(const std::string& name) {
  const auto rows = db_->query(std::string("SELECT ") + kStudyColumns + " FROM studies WHERE name = ?", {name});
  if (rows.empty()) return std::nullopt;
  return study_from_row(rows[0]);
}

StudyRecord Storage::load_study(const std::string& name) {
  if (auto s = find_study(name)) return *s;
  // Names as `study list` shows them (a newline escaped, not a space), each cut at 80 characters
  // (a 1,000-byte name filled the terminal), at most 50 of them.
  std::string names;
  std::size_t count = 0;
  for (const auto& r : db_->query("SELECT name FROM studies ORDER BY name")) {
    if (++count > 50) continue;
    std::string shown = printable(r[0].text());
    if (shown.size() > 80) {
      std::size_t cut = 77;
      while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
      shown = shown.substr(0, cut) + "...";
    }
    names += (names.empty() ? "'" : ", '") + shown + "'";
  }
  if (count > 50) names += " and " + std::to_string(count - 50) + " more ('optimist study list')";
  throw InvalidArgument("no study named '" + printable(name) + "' in '" + db_->display_url() + "'; " +
                        (names.empty() ? "it holds no study" : "it holds: " + names));
}

std::vector<StudySummary> Storage::list_studies() {
  std::vector<StudySummary> out;
  for (const auto& r : db_->query(std::string("SELECT ") + kStudyColumns + " FROM studies ORDER BY name")) {
    StudySummary s;
    s.study = study_from_row(r);
    for (const auto& c : db_->query("SELECT state, COUNT(*), MAX(COALESCE(finished, started, created)) FROM trials "
                                    "WHERE study_id = ? GROUP BY state", {s.study.id})) {
      s.counts[trial_state_from_string(c[0].text())] = static_cast<std::size_t>(c[1].integer());
      if (const auto t = c[2].optional_real()) s.last_activity = std::max(s.last_activity.value_or(*t), *t);
    }
    const char* order = s.study.direction == Direction::Maximize ? "DESC" : "ASC";
    const auto b = db_->query(std::string("SELECT t.number, v.value FROM trials t JOIN trial_values v ON v.trial_id = t.id AND "
                                          "v.objective = 0 WHERE t.study_id = ? AND t.state = 'complete' ORDER BY v.value ") +
                                  order + ", t.number LIMIT 1",
                              {s.study.id});
    if (!b.empty()) {
      s.best_number = static_cast<std::size_t>(b[0][0].integer());
      s.best_value = b[0][1].optional_real();
    }
    out.push_back(std::move(s));
  }
  return out;
}

void Storage::delete_study(const std::string& name) {
  const StudyRecord s = load_study(name);
  db_->transaction(s.id, [&] {
    const std::string in_study = " WHERE trial_id IN (SELECT id FROM trials WHERE study_id = ?)";
    for (const char* table : {"trial_values", "trial_constraints", "trial_intermediate_values", "trial_user_attrs"})
      db_->query(std::string("DELETE FROM ") + table + in_study, {s.id});
    db_->query("DELETE FROM trials WHERE study_id = ?", {s.id});
    db_->query("DELETE FROM study_user_attrs WHERE study_id = ?", {s.id});
    db_->query("DELETE FROM studies WHERE id = ?", {s.id});
  });
}

std::vector<TrialRecord> Storage::trials(std::int64_t study_id, std::optional<std::size_t> after_number) {
  std::vector<TrialRecord> out;
  const auto rows = db_->query(std::string("SELECT ") + kTrialColumns + kTrialFrom +
                                   "WHERE t.study_id = ? AND t.number > ? ORDER BY t.number",
                               {study_id, after_number ? to_i64(*after_number) : std::int64_t{-1}});
  for (const auto& r : rows) out.push_back(trial_from_row(r));
  return out;
}

std::vector<TrialRecord> Storage::changed_after(std::int64_t study_id, std::int64_t seq) {
  std::vector<TrialRecord> out;
  const auto rows = db_->query(std::string("SELECT ") + kTrialColumns + kTrialFrom +
                                   "WHERE t.study_id = ? AND (t.asked_seq > ? OR t.finished_seq > ?)",
                               {study_id, seq, seq});
  for (const auto& r : rows) out.push_back(trial_from_row(r));
  return out;
}

std::optional<TrialRecord> Storage::trial(std::int64_t study_id, std::size_t number) {
  const auto rows = db_->query(std::string("SELECT ") + kTrialColumns + kTrialFrom + "WHERE t.study_id = ? AND t.number = ?",
                               {study_id, to_i64(number)});
  if (rows.empty()) return std::nullopt;
  return trial_from_row(rows[0]);
}

void Storage::locked(std::int64_t study_id, const std::function<void()>& fn) { db_->transaction(study_id, fn); }

namespace {

/// The one row of a query on the study's own row; none when the study was deleted meanwhile (by
/// `optimist study delete` while this process worked on it).
const study_detail::Row& study_row(const study_detail::Rows& rows) {
  if (rows.empty()) throw InvalidArgument("the study no longer exists: it was deleted while this process worked on it");
  return rows[0];
}

}  // namespace

std::int64_t Storage::next_event(std::int64_t study_id, int used_change) {
  // The budget count rides on the event's update: an ask never counts the trials table.
  return study_row(db_->query("UPDATE studies SET seq = seq + 1, used = used + ? WHERE id = ? RETURNING seq",
                              {std::int64_t{used_change}, study_id}))[0]
      .integer();
}

AskState Storage::ask_state(const StudyRecord& study) {
  // One round trip for everything an ask decides on.
  const auto r = db_->query(
      "SELECT s.seq, s.used,"
      " (SELECT MIN(number) FROM trials WHERE study_id = s.id AND state = 'waiting'),"
      " (SELECT COUNT(*) FROM trials WHERE study_id = s.id AND " + stale_condition(db_->now_sql(), "") + "),"
      " s.budget FROM studies s WHERE s.id = ?",
      {study.settings.grace_period_s, study.id});
  if (r.empty()) throw InvalidArgument("study '" + study.name + "' no longer exists (deleted?)");
  AskState a;
  a.seq = r[0][0].integer();
  a.budget_used = static_cast<std::size_t>(r[0][1].integer());
  a.has_waiting = !r[0][2].null();
  a.has_stale = r[0][3].integer() > 0;
  if (!r[0][4].null()) a.budget = static_cast<std::size_t>(r[0][4].integer());
  return a;
}

std::size_t Storage::budget_used(std::int64_t study_id) {
  return static_cast<std::size_t>(study_row(db_->query("SELECT used FROM studies WHERE id = ?", {study_id}))[0].integer());
}

std::size_t Storage::running_elsewhere(std::int64_t study_id, const std::string& worker) {
  return static_cast<std::size_t>(
      db_->query("SELECT COUNT(*) FROM trials WHERE study_id = ? AND state = 'running' AND worker <> ? AND "
                 "(lease_until IS NULL OR lease_until < " + db_->now_sql() + ")",
                 {study_id, worker})
          .at(0)[0]
          .integer());
}

namespace {

// A running trial that was never evaluated: failed as stale (`stale`: kStaleTimedOut or
// kStaleGivenBack; it does not count against the budget) and, if asked to, its point queued again.
void fail_unevaluated(Storage& storage, study_detail::Database& db, const StudyRecord& study, const TrialRecord& t,
                      const std::string& why, bool requeue, std::int64_t stale) {
  db.query("UPDATE trials SET state = 'failed', stale = ?, error = ?, finished = " + db.now_sql() +
               ", finished_seq = ? WHERE id = ? AND state = 'running'",
           {stale, printable(why, /*keep_lines=*/true), storage.next_event(study.id, -1), t.id});
  if (!requeue) return;
  TrialRecord again;
  again.x = t.x;
  again.origin = "requeued";
  again.requeued_from = t.number;
  storage.insert_trial(study.id, again);
}

}  // namespace

std::optional<std::chrono::steady_clock::time_point> Storage::last_outage_end() const { return db_->last_outage_end(); }

std::optional<std::string> Storage::change_token() { return db_->change_token(); }

std::size_t Storage::fail_stale(const StudyRecord& study) {
  const double grace = study.settings.grace_period_s;
  const auto rows = db_->query(std::string("SELECT ") + kTrialColumns + kTrialFrom +
                                   "WHERE t.study_id = ? AND " + stale_condition(db_->now_sql(), "t.") +
                                   " ORDER BY t.number",
                               {study.id, grace});
  for (const auto& r : rows) {
    TrialRecord t = trial_from_row(r);
    const std::string why =
        t.lease_until ? "stale: worker '" + t.worker + "' held it under a lease that ended without a value told"
                      : "stale: no heartbeat from worker '" + t.worker + "' for more than " + format_double(grace) +
                            " s (the worker died or lost the storage)";
    fail_unevaluated(*this, *db_, study, t, why, study.settings.requeue_stale, kStaleTimedOut);
  }
  return rows.size();
}

bool Storage::release(const StudyRecord& study, std::size_t number, const std::string& worker, const std::string& why,
                      bool requeue) {
  // Any worker's trial (given back by number, `optimist study tell --give-back`) or only this worker's.
  std::vector<SqlValue> params{study.id, to_i64(number)};
  if (!worker.empty()) params.emplace_back(worker);
  const auto rows = db_->query(std::string("SELECT ") + kTrialColumns + kTrialFrom +
                                   "WHERE t.study_id = ? AND t.number = ? AND t.state = 'running'" +
                                   (worker.empty() ? "" : " AND t.worker = ?"),
                               params);
  if (rows.empty()) return false;
  fail_unevaluated(*this, *db_, study, trial_from_row(rows[0]), why, requeue, kStaleGivenBack);
  return true;
}

std::optional<TrialRecord> Storage::first_waiting(std::int64_t study_id) {
  const auto rows = db_->query(std::string("SELECT ") + kTrialColumns + kTrialFrom +
                                   "WHERE t.study_id = ? AND t.state = 'waiting' ORDER BY t.number LIMIT 1",
                               {study_id});
  if (rows.empty()) return std::nullopt;
  return trial_from_row(rows[0]);
}

TrialRecord Storage::insert_trial(std::int64_t study_id, TrialRecord t, std::optional<double> lease_s) {
  const bool leased = lease_s.has_value() && t.state == TrialState::Running;
  const double lease_length = leased ? *lease_s : 0.0;
  const bool asked = t.state != TrialState::Waiting;
  const bool finished = t.state == TrialState::Complete || t.state == TrialState::Failed;
  const std::int64_t seq = asked ? next_event(study_id, 1) : 0;
  t.asked_seq = asked ? seq : 0;
  t.finished_seq = finished ? seq : 0;
  const std::string now = db_->now_sql();
  std::vector<SqlValue> params{study_id, study_id, to_string(t.state), point_text(t.x), t.origin, opt_text(t.worker),
                               opt_text(printable(t.error, /*keep_lines=*/true)), opt_real(t.suggest_s),
                               t.requeued_from ? SqlValue(to_i64(*t.requeued_from)) : SqlValue(),
                               asked ? SqlValue(t.asked_seq) : SqlValue(), finished ? SqlValue(t.finished_seq) : SqlValue()};
  if (leased) params.emplace_back(lease_length);
  // The next number is taken in the INSERT itself (under the study's lock; UNIQUE(study_id,
  // number) backs it up).
  const auto rows = db_->query(
      "INSERT INTO trials (study_id, number, state, point, origin, worker, error, created, started, finished, heartbeat, "
      "suggest_s, requeued_from, asked_seq, finished_seq, lease_until) VALUES (?, (SELECT COALESCE(MAX(number), -1) + 1 FROM "
      "trials WHERE study_id = ?), ?, ?, ?, ?, ?, " + now + ", " + (asked ? now : "NULL") + ", " + (finished ? now : "NULL") +
          ", " + (t.state == TrialState::Running ? now : "NULL") + ", ?, ?, ?, ?, " + lease_sql(now, leased) +
          ") RETURNING id, number, created, lease_until",
      params);
  t.id = rows[0][0].integer();
  t.number = static_cast<std::size_t>(rows[0][1].integer());
  t.created = rows[0][2].real();
  t.lease_until = rows[0][3].optional_real();
  if (t.value) db_->query("INSERT INTO trial_values (trial_id, objective, value) VALUES (?, 0, ?)", {t.id, *t.value});
  for (const auto& [key, value] : t.user_attrs.items())
    db_->query("INSERT INTO trial_user_attrs (trial_id, key, value) VALUES (?, ?, ?)", {t.id, key, value.dump()});
  return t;
}

void Storage::claim(std::int64_t study_id, TrialRecord& t, const std::string& worker, std::optional<double> suggest_s,
                    std::optional<double> lease_s) {
  t.asked_seq = next_event(study_id, 1);
  std::vector<SqlValue> params{worker, opt_real(suggest_s), t.asked_seq};
  if (lease_s) params.emplace_back(*lease_s);
  params.emplace_back(t.id);
  const auto rows = db_->query("UPDATE trials SET state = 'running', worker = ?, started = " + db_->now_sql() +
                                   ", heartbeat = " + db_->now_sql() + ", suggest_s = ?, asked_seq = ?, lease_until = " +
                                   lease_sql(db_->now_sql(), lease_s.has_value()) + " WHERE id = ? AND state = 'waiting' RETURNING lease_until",
                               params);
  if (rows.empty()) throw std::logic_error("trial " + std::to_string(t.number) + " is no longer waiting");
  t.lease_until = rows[0][0].optional_real();
  t.state = TrialState::Running;
  t.worker = worker;
}

bool Storage::finish(std::int64_t study_id, std::size_t number, const std::string& worker, std::optional<double> value,
                     const std::string& error) {
  const auto state = value ? TrialState::Complete : TrialState::Failed;
  const std::int64_t seq = next_event(study_id);
  // Any worker's trial (a tell by number, `optimist study tell`) or only this worker's.
  // An objective's message may hold any bytes: PostgreSQL refuses text that is not UTF-8.
  std::vector<SqlValue> params{to_string(state), opt_text(printable(error, /*keep_lines=*/true)), seq, study_id, to_i64(number)};
  if (!worker.empty()) params.emplace_back(worker);
  const auto rows = db_->query("UPDATE trials SET state = ?, error = ?, finished = " + db_->now_sql() +
                                   ", finished_seq = ? WHERE study_id = ? AND number = ? AND state = 'running'" +
                                   (worker.empty() ? "" : " AND worker = ?") + " RETURNING id",
                               params);
  if (rows.empty()) return false;
  if (value) db_->query("INSERT INTO trial_values (trial_id, objective, value) VALUES (?, 0, ?)", {rows[0][0].integer(), *value});
  return true;
}

void Storage::heartbeat(std::int64_t study_id, const std::vector<std::size_t>& numbers) {
  if (numbers.empty()) return;
  std::string in;
  std::vector<SqlValue> params{study_id};
  for (const std::size_t n : numbers) {
    in += in.empty() ? "?" : ", ?";
    params.emplace_back(to_i64(n));
  }
  // One statement: atomic on its own, no transaction round trips.
  db_->query("UPDATE trials SET heartbeat = " + db_->now_sql() + " WHERE study_id = ? AND state = 'running' AND number IN (" +
                 in + ")",
             params);
}

void Storage::set_user_attr(std::int64_t trial_id, const std::string& key, const nlohmann::json& value) {
  db_->transaction(study_detail::kNoLock, [&] { put_user_attr(trial_id, key, value); });
}

void Storage::put_user_attr(std::int64_t trial_id, const std::string& key, const nlohmann::json& value) {
  db_->query("DELETE FROM trial_user_attrs WHERE trial_id = ? AND key = ?", {trial_id, key});
  db_->query("INSERT INTO trial_user_attrs (trial_id, key, value) VALUES (?, ?, ?)", {trial_id, key, value.dump()});
}

std::optional<nlohmann::json> Storage::user_attr(std::int64_t trial_id, const std::string& key) {
  const auto rows = db_->query("SELECT value FROM trial_user_attrs WHERE trial_id = ? AND key = ?", {trial_id, key});
  if (rows.empty()) return std::nullopt;
  return nlohmann::json::parse(rows[0][0].text(), nullptr, /*allow_exceptions=*/false);
}

double Storage::now() { return db_->query("SELECT " + db_->now_sql()).at(0)[0].real(); }

std::string Storage::integrity_check() {
  if (db_->backend() != "sqlite") return "ok";
  std::string out;
  for (const auto& r : db_->query("PRAGMA integrity_check")) out += (out.empty() ? "" : "; ") + r[0].text();
  return out;
}

}  // namespace optimist
