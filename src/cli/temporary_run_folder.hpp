// The temporary folder of `optimist run --jobs K` without --storage: it holds the run's SQLite study.
#pragma once

#include <cstddef>
#include <filesystem>

namespace optimist::cli {

/// A folder optimist-run-XXXXXX under the temporary directory ($TMPDIR), removed with everything in
/// it at the end. While it lives, it holds an exclusive flock on its file `owner.lock`: a run killed
/// without a chance to clean up (kill -9, the OOM killer) leaves its folder with that lock released,
/// and the next run removes it (remove_abandoned).
class TemporaryRunFolder {
 public:
  /// Removes abandoned folders first, then creates this one; throws std::runtime_error if it cannot.
  TemporaryRunFolder();
  ~TemporaryRunFolder();
  TemporaryRunFolder(const TemporaryRunFolder&) = delete;
  TemporaryRunFolder& operator=(const TemporaryRunFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

  /// Removes the folders optimist-run-* directly under `dir` that belong to this user, whose
  /// owner.lock no process holds, and that hold nothing but a run's files (run.db and SQLite's
  /// companions, owner.lock); returns how many. A folder without owner.lock (optimist before stop
  /// 62) or with any other file is left alone.
  static std::size_t remove_abandoned(const std::filesystem::path& dir);

 private:
  std::filesystem::path path_;
  int lock_fd_ = -1;
};

}  // namespace optimist::cli
