// What the dashboard shows, independent of where it comes from: trace files being written
// (TraceSource) or a study storage that workers fill. The JSON API (api.hpp) reads only this.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "optimist/core/types.hpp"

namespace optimist::dashboard {

/// JSON text for the page and its API: bytes that are not UTF-8 (a name from a file or a database,
/// a request header quoted in an error) become U+FFFD instead of an exception (found by fuzz_http).
inline std::string json_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// A study or run id the source does not know (the API answers 404).
class NotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class TrialState { Waiting, Running, Complete, Failed };
/// "waiting", "running", "complete", "failed".
const char* to_string(TrialState state);

/// One trial as the page shows it. Times are seconds: since the epoch for studies, since the
/// run's start for traces (reconstructed from the trace's timings).
struct Trial {
  std::uint64_t number = 0;  ///< unique and increasing within its study
  TrialState state = TrialState::Complete;
  nlohmann::json params = nlohmann::json::array();  ///< user units, in the space's order
  std::optional<double> value;                      ///< the observed value
  std::optional<double> f;                          ///< noise-free value (traces of benchmark problems)
  std::optional<double> regret;                     ///< regret of f when f* is known
  std::string error;                                ///< why a failed trial failed
  bool stale = false;  ///< failed because its worker stopped heartbeating (studies), or given back
  bool given_back = false;  ///< given back unevaluated (Study::release, `study tell --give-back`): stale too
  std::string worker;
  std::optional<double> started_at, completed_at, heartbeat_at;
  /// A running trial asked by hand (`study ask --lease`): held until this time instead of by
  /// heartbeats, or until told (held_until_told); neither for a worker's trial.
  std::optional<double> lease_until;
  bool held_until_told = false;
  nlohmann::json diagnostics = nlohmann::json::object();  ///< the algorithm's, after this trial
  /// The API's JSON text of this trial (trial_json), when a source whose trials never change
  /// computed it once; empty otherwise. A 10,000-trial page is then a concatenation.
  std::string json;
};

/// The JSON of a trial as the API sends it (docs/dashboard.md): absent values are left out.
nlohmann::json trial_json(const Trial& trial);

/// Trials by state.
struct StateCounts {
  std::size_t waiting = 0, running = 0, complete = 0, failed = 0;
  std::size_t total() const { return waiting + running + complete + failed; }
  void add(TrialState state);
};

/// One line of the study list.
struct StudySummary {
  std::string id;    ///< stable key for the API (?study=ID)
  std::string name;  ///< shown to the user
  std::string kind;  ///< "trace" or "study"
  std::string algorithm, problem;
  Direction direction = Direction::Minimize;
  std::optional<double> f_star;
  std::size_t budget = 0;  ///< 0 when unknown
  StateCounts counts;
  std::optional<double> best_value;
  std::optional<std::uint64_t> best_number;
  bool finished = false;    ///< a trace with its recommend line; a study whose budget (or finite space) is used
  /// A trace without its recommend line that no process writes any more (its writer was killed or
  /// crashed): it will not grow until resumed. `resume` says how to continue it.
  bool stopped = false;
  std::string resume;
  double updated_at = 0.0;  ///< seconds since the epoch of the last change seen
  std::string error;        ///< why the source cannot be read (then the rest may be empty)
  /// Changes when the trials read so far no longer hold (a trace replaced or cut, a study deleted
  /// and created again): a client holding trials of another generation starts over.
  std::string generation;
};

/// A study with what the page needs to draw it.
struct StudyDetail {
  StudySummary summary;
  nlohmann::json space = nlohmann::json::object();    ///< Space::to_json()
  nlohmann::json options = nlohmann::json::object();  ///< the algorithm's resolved options
  nlohmann::json recommend;                           ///< a trace's final answer, or null
  nlohmann::json extra = nlohmann::json::object();    ///< other facts (seed, noise, ...)
};

/// What /api/trials asks for: the trials numbered in `include` (a page's open trials, asked again
/// until they finish: at most kMaxIncluded, all returned) and then those numbered after `after`
/// (all without it), at most `limit` of these.
struct TrialQuery {
  std::optional<std::uint64_t> after;
  std::vector<std::uint64_t> include;  ///< increasing, distinct
  std::size_t limit = 5000;
};
constexpr std::size_t kMaxIncluded = 1000;

/// Trials a TrialQuery asked for, in increasing number, and the study's summary read at the same
/// moment (so counts and trials agree).
struct TrialPage {
  StudySummary summary;
  std::vector<Trial> trials;
  bool more = false;  ///< trials beyond the limit exist: ask again after the last one
};

/// Adds to `page` the trials of `sorted` (increasing numbers) that `query` includes, then (with
/// `later` true) those after `query.after`, up to its limit (then sets page.more). A source whose
/// trials are in several sorted parts calls it with later = false over all parts, then true.
void add_to_page(const std::vector<Trial>& sorted, const TrialQuery& query, bool later, TrialPage& page);

/// Read-only view of studies. Implementations are safe to call from several threads.
class StudySource {
 public:
  virtual ~StudySource() = default;
  virtual std::vector<StudySummary> studies() = 0;
  /// Throws NotFound naming the id and the known ones.
  virtual StudyDetail study(const std::string& id) = 0;
  /// The trials `query` asks for (TrialQuery).
  virtual TrialPage trials(const std::string& id, const TrialQuery& query) = 0;
  /// One line for the start-up message, e.g. "3 traces".
  virtual std::string describe() = 0;
};

/// The best value in `direction` and its trial number, over complete trials.
struct Best {
  std::optional<double> value;
  std::optional<std::uint64_t> number;
  void consider(const Trial& trial, Direction direction);
};

/// The NotFound message for `id`, listing up to a few known ids.
std::string not_found_message(const std::string& id, const std::vector<std::string>& known);

}  // namespace optimist::dashboard
