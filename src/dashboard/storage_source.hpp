// Studies in a study database (docs/studies.md) as the dashboard shows them, read through the
// Storage interface only (its queries are parameterized; the dashboard writes nothing).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "dashboard/study_source.hpp"
#include "optimist/study/storage.hpp"

namespace optimist::dashboard {

class StorageSource : public StudySource {
 public:
  /// Opens the database at `url` (sqlite:///path/study.db or postgresql://...). Throws
  /// InvalidArgument for a SQLite file that does not exist (the dashboard never creates one), and
  /// what Storage throws for a bad URL or an unreachable server.
  explicit StorageSource(const std::string& url);

  std::vector<StudySummary> studies() override;
  StudyDetail study(const std::string& id) override;
  TrialPage trials(const std::string& id, const TrialQuery& query) override;
  std::string describe() override;
  /// Trial records read from the database so far (what the incremental reads save; for tests).
  std::size_t records_read() const { return records_read_; }

 private:
  /// A study's trials as last read. Finished trials never change: a refresh asks the database
  /// for the trials after the last one read and again for the open (waiting, running) ones only,
  /// by number, so that a trial held open for days does not make every later one read again.
  struct Cache {
    std::int64_t study_id = -1;
    double created = 0.0;        ///< with the id: a study deleted and created again (SQLite may reuse its id)
    /// A noisy benchmark problem's noise-free f, for regrets (null: regret from the value).
    std::function<double(const Vector&)> noise_free;
    std::vector<Trial> settled;  ///< finished trials 0..k, in number order
    std::vector<Trial> later;    ///< the trials after them, in number order (an open one first)
    StateCounts settled_counts;  ///< of `settled`, kept as it grows
    Best settled_best;
    double settled_updated = 0.0;
  };
  StudyRecord load(const std::string& name);  // callers hold mutex_
  void refresh(const StudyRecord& study, Cache& cache);
  StudySummary summarize(const StudyRecord& study, const Cache& cache) const;

  std::string url_;
  std::mutex mutex_;  ///< one Storage serves one thread at a time
  Storage storage_;
  std::map<std::string, Cache> caches_;  ///< by study name
  std::size_t records_read_ = 0;
  /// The study list as last computed, and the database's change token then: while the token
  /// stays (SQLite: nothing committed since), the list is not computed again.
  std::vector<StudySummary> list_;
  std::optional<std::string> list_token_;
};

/// `url` with its password, if any, replaced by "***" (for messages and the page).
std::string redact_url(const std::string& url);

}  // namespace optimist::dashboard
