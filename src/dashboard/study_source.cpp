#include "dashboard/study_source.hpp"

#include <algorithm>

namespace optimist::dashboard {

const char* to_string(TrialState state) {
  switch (state) {
    case TrialState::Waiting: return "waiting";
    case TrialState::Running: return "running";
    case TrialState::Complete: return "complete";
    case TrialState::Failed: return "failed";
  }
  return "unknown";
}

namespace {

void put(nlohmann::json& j, const char* key, const std::optional<double>& v) {
  if (v) j[key] = *v;
}

}  // namespace

nlohmann::json trial_json(const Trial& t) {
  nlohmann::json j = {{"number", t.number}, {"state", to_string(t.state)}, {"params", t.params}};
  put(j, "value", t.value);
  put(j, "f", t.f);
  put(j, "regret", t.regret);
  if (!t.error.empty()) j["error"] = t.error;
  if (t.stale) j["stale"] = true;
  if (t.given_back) j["given_back"] = true;
  if (!t.worker.empty()) j["worker"] = t.worker;
  put(j, "started_at", t.started_at);
  put(j, "completed_at", t.completed_at);
  put(j, "heartbeat_at", t.heartbeat_at);
  put(j, "lease_until", t.lease_until);
  if (t.held_until_told) j["held_until_told"] = true;
  if (!t.diagnostics.empty()) j["diagnostics"] = t.diagnostics;
  return j;
}

void StateCounts::add(TrialState state) {
  switch (state) {
    case TrialState::Waiting: ++waiting; break;
    case TrialState::Running: ++running; break;
    case TrialState::Complete: ++complete; break;
    case TrialState::Failed: ++failed; break;
  }
}

void Best::consider(const Trial& trial, Direction direction) {
  if (trial.state != TrialState::Complete || !trial.value) return;
  if (!value || direction_sign(direction) * (*trial.value - *value) > 0) {
    value = trial.value;
    number = trial.number;
  }
}

void add_to_page(const std::vector<Trial>& sorted, const TrialQuery& query, bool later, TrialPage& page) {
  auto before = [](const Trial& t, std::uint64_t n) { return t.number < n; };
  if (!later) {
    if (!query.after) return;  // every trial comes after nothing: none is included twice
    for (const std::uint64_t n : query.include) {
      const auto it = std::lower_bound(sorted.begin(), sorted.end(), n, before);
      if (it != sorted.end() && it->number == n && n <= *query.after) page.trials.push_back(*it);
    }
    return;
  }
  auto first = sorted.begin();
  if (query.after) first = std::upper_bound(sorted.begin(), sorted.end(), *query.after,
                                            [](std::uint64_t n, const Trial& t) { return n < t.number; });
  auto taken = static_cast<std::size_t>(std::count_if(page.trials.begin(), page.trials.end(), [&](const Trial& t) {
    return !query.after || t.number > *query.after;
  }));
  for (; first != sorted.end(); ++first, ++taken) {
    if (taken == query.limit) {
      page.more = true;
      return;
    }
    page.trials.push_back(*first);
  }
}

std::string not_found_message(const std::string& id, const std::vector<std::string>& known) {
  // A control character (a NUL would end the exception's text) is shown escaped, as JSON does.
  const bool plain = std::none_of(id.begin(), id.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  std::string msg = "no study ";
  if (plain) {
    msg += '\'';
    msg += id;
    msg += '\'';
  } else {
    msg += nlohmann::json(id).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (known.empty()) return msg + " (there are none)";
  msg += "; known: ";
  constexpr std::size_t kShown = 5;
  for (std::size_t k = 0; k < known.size() && k < kShown; ++k) msg += (k ? ", '" : "'") + known[k] + "'";
  if (known.size() > kShown) msg += " and " + std::to_string(known.size() - kShown) + " more";
  return msg;
}

}  // namespace optimist::dashboard
