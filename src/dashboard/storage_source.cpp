#include "dashboard/storage_source.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "optimist/problems/problem.hpp"

namespace optimist::dashboard {

namespace {


TrialState state_of(optimist::TrialState s) {
  switch (s) {
    case optimist::TrialState::Waiting: return TrialState::Waiting;
    case optimist::TrialState::Running: return TrialState::Running;
    case optimist::TrialState::Complete: return TrialState::Complete;
    case optimist::TrialState::Failed: return TrialState::Failed;
  }
  return TrialState::Failed;
}

bool finished(TrialState s) { return s == TrialState::Complete || s == TrialState::Failed; }

bool noisy_problem(const StudyRecord& study) {
  const nlohmann::json& o = study.settings.objective;
  const auto noise = o.find("noise");
  return o.contains("problem") && noise != o.end() && noise->is_number() && noise->get<double>() > 0.0;
}

// The noise-free f of a noisy benchmark study, as `study export` computes it; null when this
// build lacks the problem (its regrets are then left out, not taken from noisy values).
std::function<double(const Vector&)> noise_free_f(const StudyRecord& study) {
  if (!noisy_problem(study)) return nullptr;
  try {
    const nlohmann::json& o = study.settings.objective;
    return make_problem(o.at("problem").get<std::string>(), o.value("dim", std::size_t{0})).f;
  } catch (const std::exception&) {
    return nullptr;
  }
}

Trial trial_of(const TrialRecord& r, const StudyRecord& study, const std::function<double(const Vector&)>& noise_free) {
  Trial t;
  t.number = r.number;
  t.state = state_of(r.state);
  t.params = study.space.point_to_json(r.x);
  t.value = r.value;
  // Regret of the noise-free value (of the value itself without noise), >= 0 as in `study export`.
  if (t.value && study.f_star && (noise_free || !noisy_problem(study))) {
    const double f = noise_free ? noise_free(r.x) : *t.value;
    t.regret = std::max(0.0, direction_sign(study.direction) * (*study.f_star - f));
  }
  t.error = r.stale && r.error.empty() ? "stale: its worker stopped heartbeating" : r.error;
  t.stale = r.stale;
  t.given_back = r.given_back;
  t.worker = r.worker;
  t.started_at = r.started;
  t.completed_at = r.finished;
  // A trial asked by hand (study ask) is held under a lease, not by heartbeats: its silence is no
  // sign of staleness, and its lease end is shown instead (JSON has no infinity: held_until_told).
  if (t.state == TrialState::Running && !r.lease_until) t.heartbeat_at = r.heartbeat;
  if (const auto until = r.held_until(study.settings.grace_period_s)) {
    if (std::isinf(*until)) t.held_until_told = true;
    else t.lease_until = until;
  }
  if (const auto d = r.user_attrs.find("diagnostics"); d != r.user_attrs.end() && d->is_object()) t.diagnostics = *d;
  return t;
}

// What the study optimizes, from the settings its creator stored.
std::string problem_of(const StudyRecord& s) {
  const auto& o = s.settings.objective;
  if (o.contains("problem") && o["problem"].is_string()) return o["problem"].get<std::string>();
  if (o.contains("objective_command") && o["objective_command"].is_string())
    return o["objective_command"].get<std::string>();
  return "";
}

StudySummary summary_base(const StudyRecord& s) {
  StudySummary out;
  out.id = s.name;
  out.name = s.name;
  out.kind = "study";
  out.algorithm = s.algorithm;
  out.problem = problem_of(s);
  out.direction = s.direction;
  out.f_star = s.f_star;
  out.budget = s.budget.value_or(0);
  out.updated_at = s.created;
  // A study deleted and created again under its name (SQLite may reuse its id) is another study.
  out.generation = std::to_string(s.id) + ":" + std::to_string(s.created);
  return out;
}

// A study is finished when nothing runs or waits and its budget is used, or (a deterministic one
// over a finite space) every point was evaluated: its workers stop there (docs/discrete.md).
bool study_finished(const StudyRecord& s, const StateCounts& c) {
  if (c.running != 0 || c.waiting != 0) return false;
  const std::size_t done = c.complete + c.failed;
  if (s.budget && done >= *s.budget) return true;
  const auto points = s.space.finite_size();
  return !s.settings.noisy && points && done >= *points;
}

std::string checked_url(const std::string& url) {
  require_existing_database(url);
  return url;
}

}  // namespace

std::string redact_url(const std::string& url) { return optimist::redact_url(url); }

// A page waits on each answer: a database that stays busy or unreachable for seconds is reported
// (the page shows the error and polls again), not retried for minutes as workers do.
constexpr double kRetrySeconds = 5.0;

StorageSource::StorageSource(const std::string& url)
    : url_(url), storage_(checked_url(url), StorageOptions{kRetrySeconds, /*read_only=*/true}) {
  // A few studies are read now, so that the page's first load finds their trials ready.
  constexpr std::size_t kReadAhead = 16;
  const auto list = storage_.list_studies();
  if (list.size() <= kReadAhead)
    for (const auto& s : list) refresh(s.study, caches_[s.study.name]);
}

StudyRecord StorageSource::load(const std::string& name) {
  if (auto s = storage_.find_study(name)) return *s;
  std::vector<std::string> known;
  for (const auto& s : storage_.list_studies()) known.push_back(s.study.name);
  throw NotFound(not_found_message(name, known));
}

namespace {

double last_time(const Trial& t) {
  double at = 0.0;
  for (const auto& time : {t.completed_at, t.started_at, t.heartbeat_at})
    if (time) at = std::max(at, *time);
  return at;
}

}  // namespace

void StorageSource::refresh(const StudyRecord& study, Cache& cache) {
  if (cache.study_id != study.id || cache.created != study.created) {
    cache = Cache{};  // new, or deleted and created again
    cache.study_id = study.id;
    cache.created = study.created;
    cache.noise_free = noise_free_f(study);
  }
  auto read = [&](const TrialRecord& r) {
    ++records_read_;
    Trial t = trial_of(r, study, cache.noise_free);
    if (finished(t.state)) t.json = json_text(trial_json(t));  // final: its JSON never changes
    return t;
  };
  // The open trials after the settled ones: read again one by one while they are few beside the
  // finished ones around them (a trial held for days in a study of 20,000), else all again.
  constexpr std::size_t kReadEachBelow = 8;  // open trials x this < trials after the first open
  const auto open = static_cast<std::size_t>(
      std::count_if(cache.later.begin(), cache.later.end(), [](const Trial& t) { return !finished(t.state); }));
  if (open * kReadEachBelow < cache.later.size()) {
    for (Trial& t : cache.later)
      if (!finished(t.state))
        if (const auto r = storage_.trial(study.id, static_cast<std::size_t>(t.number))) t = read(*r);
  } else {
    cache.later.clear();
  }
  std::optional<std::size_t> after;
  if (!cache.later.empty()) after = static_cast<std::size_t>(cache.later.back().number);
  else if (!cache.settled.empty()) after = static_cast<std::size_t>(cache.settled.back().number);
  for (const TrialRecord& r : storage_.trials(study.id, after)) cache.later.push_back(read(r));
  // The finished prefix of `later` joins the settled trials.
  auto first_open = std::find_if(cache.later.begin(), cache.later.end(), [](const Trial& t) { return !finished(t.state); });
  for (auto it = cache.later.begin(); it != first_open; ++it) {
    cache.settled_counts.add(it->state);
    cache.settled_best.consider(*it, study.direction);
    cache.settled_updated = std::max(cache.settled_updated, last_time(*it));
    cache.settled.push_back(std::move(*it));
  }
  cache.later.erase(cache.later.begin(), first_open);
}

StudySummary StorageSource::summarize(const StudyRecord& study, const Cache& cache) const {
  StudySummary s = summary_base(study);
  s.counts = cache.settled_counts;
  Best best = cache.settled_best;
  s.updated_at = std::max(s.updated_at, cache.settled_updated);
  for (const Trial& t : cache.later) {
    s.counts.add(t.state);
    best.consider(t, study.direction);
    s.updated_at = std::max(s.updated_at, last_time(t));
  }
  s.best_value = best.value;
  s.best_number = best.number;
  s.finished = study_finished(study, s.counts);
  return s;
}

std::vector<StudySummary> StorageSource::studies() {
  std::lock_guard lock(mutex_);
  // Counting every study's trials grows with the database (86 ms at 240,000 trials, at every
  // poll of every tab): not again while nothing was committed (stop 67's probe).
  std::optional<std::string> token = storage_.change_token();
  if (token && token == list_token_) return list_;
  std::vector<StudySummary> out;
  for (const auto& row : storage_.list_studies()) {
    StudySummary s = summary_base(row.study);
    for (const auto& [state, n] : row.counts)
      for (std::size_t k = 0; k < n; ++k) s.counts.add(state_of(state));
    s.best_value = row.best_value;
    s.best_number = row.best_number;
    if (row.last_activity) s.updated_at = *row.last_activity;
    s.finished = study_finished(row.study, s.counts);
    out.push_back(std::move(s));
  }
  list_ = out;
  list_token_ = std::move(token);
  return out;
}

StudyDetail StorageSource::study(const std::string& id) {
  std::lock_guard lock(mutex_);
  const StudyRecord s = load(id);
  Cache& cache = caches_[id];
  refresh(s, cache);
  StudyDetail d;
  d.summary = summarize(s, cache);
  d.space = s.space.to_json();
  d.options = s.options;
  d.extra = {{"storage", redact_url(url_)},
             {"seed", s.seed},
             {"settings", s.settings.to_json()},
             {"created", s.created},
             {"dim", s.space.dim()}};
  return d;
}

TrialPage StorageSource::trials(const std::string& id, const TrialQuery& query) {
  std::lock_guard lock(mutex_);
  const StudyRecord s = load(id);
  Cache& cache = caches_[id];
  refresh(s, cache);
  TrialPage page;
  page.summary = summarize(s, cache);
  for (const bool later : {false, true})
    for (const auto* part : {&cache.settled, &cache.later}) add_to_page(*part, query, later, page);
  return page;
}

std::string StorageSource::describe() {
  std::lock_guard lock(mutex_);
  const std::size_t n = storage_.list_studies().size();
  return std::to_string(n) + (n == 1 ? " study" : " studies") + " in " + redact_url(url_);
}

}  // namespace optimist::dashboard
