// The dashboard's JSON API (docs/dashboard.md): read-only GET endpoints over a StudySource,
// independent of the HTTP server so that tests call them directly.
#pragma once

#include <map>
#include <string>

#include "dashboard/study_source.hpp"

namespace optimist::dashboard {

struct ApiResponse {
  int status = 200;
  std::string body;  ///< JSON; {"error": "..."} when status is not 200
};

struct ApiOptions {
  int poll_ms = 1000;        ///< how often the page asks for news (told to it by /api/info)
  std::string description;   ///< what is served, for /api/info
};

/// Largest and default page of /api/trials.
constexpr std::size_t kMaxTrialsPerPage = 100000;
constexpr std::size_t kDefaultTrialsPerPage = 5000;

class Api {
 public:
  Api(StudySource& source, ApiOptions options) : source_(source), options_(std::move(options)) {}

  /// Answers GET `path` (e.g. "/api/trials") with query parameters `query` (decoded). Bad
  /// parameters give 400, unknown studies and endpoints 404; never throws.
  ApiResponse get(const std::string& path, const std::map<std::string, std::string>& query);

 private:
  ApiResponse info();
  ApiResponse studies();
  ApiResponse study(const std::map<std::string, std::string>& query);
  ApiResponse trials(const std::map<std::string, std::string>& query);

  StudySource& source_;
  ApiOptions options_;
};

/// The JSON of a study summary as the API sends it.
nlohmann::json to_json(const StudySummary& summary);

}  // namespace optimist::dashboard
