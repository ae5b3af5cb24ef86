#include "dashboard/api.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>

namespace optimist::dashboard {

namespace {

class BadRequest : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ApiResponse ok(nlohmann::json body) {
  body["server_time"] = now_seconds();
  return {200, json_text(body)};
}

ApiResponse error(int status, const std::string& message) { return {status, json_text(nlohmann::json{{"error", message}})}; }

const std::string& required(const std::map<std::string, std::string>& query, const std::string& key) {
  const auto it = query.find(key);
  if (it == query.end()) throw BadRequest("missing query parameter '" + key + "'");
  return it->second;
}

std::optional<std::uint64_t> optional_count(const std::map<std::string, std::string>& query, const std::string& key,
                                            const std::string& what = "a non-negative integer") {
  const auto it = query.find(key);
  if (it == query.end()) return std::nullopt;
  const std::string& text = it->second;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range && end == text.data() + text.size())
    throw BadRequest("'" + key + "' is too large, got '" + text + "'");
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw BadRequest("'" + key + "' must be " + what + ", got '" + text + "'");
  return v;
}

// "3,17,20": the open trials a page holds, asked again (TrialQuery::include).
std::vector<std::uint64_t> included(const std::map<std::string, std::string>& query) {
  std::vector<std::uint64_t> out;
  const auto it = query.find("include");
  if (it == query.end() || it->second.empty()) return out;
  const std::string& text = it->second;
  for (std::size_t from = 0; from <= text.size();) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string item = text.substr(from, comma - from);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size())
      throw BadRequest("'include' must be trial numbers separated by commas, got '" + item + "' in it");
    out.push_back(v);
    if (out.size() > kMaxIncluded)
      throw BadRequest("'include' names at most " + std::to_string(kMaxIncluded) + " trials, got more");
    from = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

nlohmann::json to_json(const StudySummary& s) {
  nlohmann::json j = {{"id", s.id},
                      {"name", s.name},
                      {"kind", s.kind},
                      {"algorithm", s.algorithm},
                      {"problem", s.problem},
                      {"direction", to_string(s.direction)},
                      {"f_star", s.f_star ? nlohmann::json(*s.f_star) : nlohmann::json(nullptr)},
                      {"budget", s.budget},
                      {"counts",
                       {{"waiting", s.counts.waiting},
                        {"running", s.counts.running},
                        {"complete", s.counts.complete},
                        {"failed", s.counts.failed}}},
                      {"n_trials", s.counts.total()},
                      {"best_value", s.best_value ? nlohmann::json(*s.best_value) : nlohmann::json(nullptr)},
                      {"best_number", s.best_number ? nlohmann::json(*s.best_number) : nlohmann::json(nullptr)},
                      {"finished", s.finished},
                      {"stopped", s.stopped},
                      {"updated_at", s.updated_at},
                      {"generation", s.generation}};
  if (!s.error.empty()) j["error"] = s.error;
  if (!s.resume.empty()) j["resume"] = s.resume;
  return j;
}

ApiResponse Api::get(const std::string& path, const std::map<std::string, std::string>& query) {
  try {
    if (path == "/api/info") return info();
    if (path == "/api/studies") return studies();
    if (path == "/api/study") return study(query);
    if (path == "/api/trials") return trials(query);
    return error(404, "no API endpoint '" + path + "' (endpoints: /api/info, /api/studies, /api/study, /api/trials)");
  } catch (const BadRequest& e) {
    return error(400, e.what());
  } catch (const InvalidArgument& e) {
    return error(400, e.what());
  } catch (const NotFound& e) {
    return error(404, e.what());
  } catch (const std::exception& e) {
    return error(500, e.what());
  }
}

ApiResponse Api::info() {
  return ok({{"version", version()}, {"read_only", true}, {"poll_ms", options_.poll_ms}, {"source", options_.description}});
}

ApiResponse Api::studies() {
  nlohmann::json list = nlohmann::json::array();
  for (const StudySummary& s : source_.studies()) list.push_back(to_json(s));
  return ok({{"studies", std::move(list)}});
}

ApiResponse Api::study(const std::map<std::string, std::string>& query) {
  const StudyDetail d = source_.study(required(query, "id"));
  nlohmann::json j = to_json(d.summary);
  j["space"] = d.space;
  j["options"] = d.options;
  j["recommend"] = d.recommend;
  j["extra"] = d.extra;
  return ok({{"study", std::move(j)}});
}

ApiResponse Api::trials(const std::map<std::string, std::string>& query) {
  const std::string& id = required(query, "study");
  const auto after = optional_count(query, "after");
  const std::string limits = "an integer between 1 and " + std::to_string(kMaxTrialsPerPage);
  const auto limit = optional_count(query, "limit", limits).value_or(kDefaultTrialsPerPage);
  if (limit < 1 || limit > kMaxTrialsPerPage) throw BadRequest("'limit' must be " + limits + ", got " + std::to_string(limit));
  const TrialPage page = source_.trials(id, TrialQuery{after, included(query), static_cast<std::size_t>(limit)});
  // Built as text: the trials' JSON is usually ready-made (Trial::json).
  std::string body = R"({"study":)" + json_text(to_json(page.summary)) + R"(,"more":)" + (page.more ? "true" : "false") +
                     R"(,"server_time":)" + json_text(nlohmann::json(now_seconds())) + R"(,"trials":[)";
  for (std::size_t k = 0; k < page.trials.size(); ++k) {
    if (k) body += ',';
    const Trial& t = page.trials[k];
    body += t.json.empty() ? json_text(trial_json(t)) : t.json;
  }
  body += "]}";
  return {200, std::move(body)};
}

}  // namespace optimist::dashboard
