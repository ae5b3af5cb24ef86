// `optimist run --jobs K` / `--storage URL`: the run as a study with K evaluations in flight.
#pragma once

#include <string>

#include "cli/settings.hpp"
#include "optimist/problems/problem.hpp"

namespace optimist::cli {

struct StudyRunFlags {
  std::size_t jobs = 1;
  std::string storage;  ///< empty: a temporary SQLite file, removed at the end
  std::string study = "run";
  bool quiet = false;
};

/// Runs `s` as a study: created (or continued when --storage holds a study of that name with the
/// same settings), evaluated by `jobs` threads or child processes, written to s.out as
/// evaluations complete. Returns the exit code of `optimist run`.
int run_in_study(const RunSettings& s, const Problem& problem, const StudyRunFlags& flags);

}  // namespace optimist::cli
