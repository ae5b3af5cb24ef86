// Study::Impl (study_impl.hpp): syncing the cached optimizer, write transactions, finishing and
// giving back trials, and the refusals that say why not.
#include "study/study_impl.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace optimist {

bool Study::Impl::just_reconnected() const {
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

void Study::Impl::reset_cache() {
  optimizer = make_study_optimizer(record);
  synced_seq = 0;
  pending.clear();
}

void Study::Impl::sync() {
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

void Study::Impl::write(const std::function<void()>& fn) {
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

void Study::Impl::track(std::size_t number) {
  own.insert(number);
  if (!options.heartbeat_thread || record.settings.heartbeat_interval_s <= 0) return;
  if (!beat)
    beat = std::make_unique<study_detail::Heartbeat>(storage->url(), options.storage, record.id,
                                                     record.settings.heartbeat_interval_s);
  beat->add(number);
}

void Study::Impl::untrack(std::size_t number) {
  own.erase(number);
  if (beat) beat->remove(number);
}

TrialRecord Study::Impl::finished_record(const StudyEvaluation& e) const {
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

void Study::Impl::refuse_added_twice(const std::vector<TrialRecord>& adding) {
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

std::size_t Study::Impl::add_finished(const Vector& x, std::optional<double> value, const std::string& error) {
  TrialRecord t = finished_record({x, value, error});
  write([&] { t = storage->insert_trial(record.id, t); });
  return t.number;
}

[[noreturn]] void Study::Impl::refuse_unknown(std::size_t number) {
  const std::size_t n = storage->trials(record.id).size();
  throw InvalidArgument("study '" + record.name + "' has no trial " + std::to_string(number) +
                        (n == 0 ? std::string(" (it has no trials yet)")
                                : " (its trials are numbered 0 to " + std::to_string(n - 1) + ")"));
}

std::string Study::Impl::requeue_note(const TrialRecord& t) {
  for (const TrialRecord& copy : storage->trials(record.id, t.number))
    if (copy.requeued_from == t.number && copy.origin == "requeued")
      return "its point was queued again (trial " + std::to_string(copy.number) + ")";
  return "its point was not queued again";
}

std::string Study::Impl::stale_text(const TrialRecord& t) {
  if (!t.given_back) return " is failed as stale (" + t.error + ")";
  return t.error == "given back" ? " was given back" : " was given back (" + t.error + ")";
}

[[noreturn]] void Study::Impl::refuse_tell(std::size_t number, const std::optional<TrialRecord>& t, bool any_worker) {
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

void Study::Impl::release_locked(std::size_t number, const std::string& why, bool requeue, bool any_worker) {
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

void Study::Impl::finish(std::size_t number, std::optional<double> value, const std::string& error, bool any_worker) {
  write([&] { finish_locked(number, value, error, any_worker); });
  untrack(number);
}

void Study::Impl::finish_locked(std::size_t number, std::optional<double> value, const std::string& error, bool any_worker) {
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

}  // namespace optimist
