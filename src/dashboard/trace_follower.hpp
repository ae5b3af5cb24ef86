// Follows one trace file (docs/trace-format.md) while its run writes it: each refresh reads only
// the bytes appended since the last one and turns complete lines into trials.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dashboard/study_source.hpp"
#include "optimist/core/trace.hpp"

namespace optimist::dashboard {

class TraceFollower {
 public:
  /// `writer_check_interval`: how often, at most, a trace without its end line is tested for a
  /// writer (TraceLock::held); the dashboard's poll.
  explicit TraceFollower(std::string path,
                         std::chrono::milliseconds writer_check_interval = std::chrono::milliseconds(1000));

  /// Reads what was appended since the last call. Starts over when the file was replaced (another
  /// inode, or shorter: a resumed run rewrites its trace). Never throws: an unreadable or malformed
  /// file keeps the trials read so far and reports the reason in summary().error. A trace without
  /// its end line is tested for a writer (at most every writer_check_interval, and at once when
  /// the file was replaced): none is summary().stopped.
  void refresh();
  /// Follows another path from now on (a bench run's `.partial` trace renamed when it ends).
  void set_path(std::string path) { path_ = std::move(path); }
  const std::string& path() const { return path_; }
  /// Keeps every trial in memory from the next refresh on (re-reading the file once); until then
  /// only the summary is kept, so a folder of thousands of traces stays small.
  void keep_trials();

  bool has_meta() const { return has_meta_; }
  const TraceMeta& meta() const { return meta_; }
  const std::vector<Trial>& trials() const { return trials_; }
  /// Fills every field but id and name.
  StudySummary summary() const;
  StudyDetail detail() const;

 private:
  void reset();
  void read_appended();
  /// Whether to test for a writer now: the trace has no end line and the last test is old.
  bool writer_check_due();
  /// How to continue this trace (summary().resume).
  std::string resume_hint() const;
  /// Whether the meta line read first is no longer the file's first line (rewritten in place).
  bool rewritten() const;
  void consume_line(const std::string& line, std::size_t line_number);
  void add_evaluation(const nlohmann::json& line);

  std::string path_;
  std::chrono::milliseconds writer_check_interval_;
  std::chrono::steady_clock::time_point writer_checked_at_{};
  bool writer_recheck_ = true;  ///< test at the next refresh (the file is new, or was replaced)
  bool writer_gone_ = false;    ///< no end line, and no process holds the trace's lock
  std::uint64_t inode_ = 0;
  bool reread_ = false;  ///< the next refresh starts over
  std::uint64_t offset_ = 0;  ///< bytes consumed (complete lines only)
  std::size_t lines_ = 0;     ///< complete lines consumed
  double mtime_ = 0.0;
  std::string first_line_;    ///< the meta line as read: a file rewritten in place starts over
  double error_mtime_ = 0.0;  ///< the file's mtime when error_ was set: a later write retries
  std::string error_;

  bool has_meta_ = false;
  TraceMeta meta_;
  std::optional<Space> space_;  ///< the meta's space: evaluation lines are checked as --resume reads them
  bool keep_trials_ = false;
  std::vector<Trial> trials_;
  std::optional<std::uint64_t> last_number_;
  nlohmann::json recommend_;
  StateCounts counts_;
  Best best_;
  /// When each evaluation slot of the run is free again (its last tell's end), seconds since the
  /// run's start; one slot per evaluation in flight.
  std::vector<double> slots_;
  /// Unique in the process (a trace deleted and created again gets a new follower): a new one
  /// whenever the trials read so far are dropped because the file changed under them.
  std::uint64_t generation_;
};

}  // namespace optimist::dashboard
