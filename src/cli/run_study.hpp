// `optimist run --jobs K` / `--storage URL`: the run as a study with K evaluations in flight.
#pragma once

#include <string>
#include <vector>

#include "cli/settings.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::cli {

struct StudyRunFlags {
  std::size_t jobs = 1;
  std::string storage;  ///< empty: a temporary SQLite file, removed at the end
  std::string study = "run";
  bool quiet = false;
  /// `--resume TRACE --jobs K`: the trace's evaluations, added to the (temporary) study before
  /// any worker asks, so none is repeated; `resume_lock`: the lock taken on TRACE when it was read
  /// (the trace is written back in place when --out names it).
  const std::vector<EvaluationRecord>* resumed = nullptr;
  const TraceMeta* resumed_meta = nullptr;
  const TraceLock* resume_lock = nullptr;
};

/// Runs `s` as a study: created (or continued when --storage holds a study of that name with the
/// same settings), evaluated by `jobs` threads or child processes, written to s.out as
/// evaluations complete. Returns the exit code of `optimist run`.
int run_in_study(const RunSettings& s, const Problem& problem, const StudyRunFlags& flags);

}  // namespace optimist::cli
