// Trace files as studies: `optimist dashboard TRACE.jsonl ...` or a folder written by
// `optimist bench --out DIR` (whose running runs write `*.jsonl.partial` traces).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "dashboard/study_source.hpp"
#include "dashboard/trace_follower.hpp"

namespace optimist::dashboard {

class TraceSource : public StudySource {
 public:
  /// Each path is a trace file or a folder searched recursively for traces (`*.jsonl`, and
  /// `*.jsonl.partial` while a bench run writes one). Throws InvalidArgument naming a path that
  /// does not exist. Folders are searched again for new traces at most every `rescan_interval`;
  /// a trace without its end line is tested for a writer at most every `writer_check_interval`.
  explicit TraceSource(std::vector<std::string> paths,
                       std::chrono::milliseconds rescan_interval = std::chrono::milliseconds(1000),
                       std::chrono::milliseconds writer_check_interval = std::chrono::milliseconds(1000));

  std::vector<StudySummary> studies() override;
  StudyDetail study(const std::string& id) override;
  TrialPage trials(const std::string& id, const TrialQuery& query) override;
  std::string describe() override;

 private:
  void rescan();  // callers hold mutex_
  TraceFollower& follower(const std::string& id);
  StudySummary summary_of(const std::string& id, const TraceFollower& follower) const;

  std::vector<std::string> roots_;
  std::chrono::milliseconds rescan_interval_;
  std::chrono::milliseconds writer_check_interval_;
  std::mutex mutex_;
  std::map<std::string, TraceFollower> followers_;  ///< by id: the path without its suffix
  std::map<std::string, std::string> names_;         ///< shown names, when shorter than the id
  std::chrono::steady_clock::time_point last_scan_{};
};

}  // namespace optimist::dashboard
