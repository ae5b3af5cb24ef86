// Storage URLs for the study tests, one fresh database per test: a SQLite file in a temporary
// folder, or a database on the test PostgreSQL server (tests/support/postgres_server.hpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "message_of.hpp"
#include "temp_test_dir.hpp"

namespace optimist::testing {

/// The running test's folder (temp_test_dir.hpp: removed when the test passes).
inline std::filesystem::path study_test_dir() { return test_dir("optimist_study"); }

/// A URL of an empty database of `backend` ("sqlite" or "postgresql") for the running test.
/// Fails the test (with the reason) when the PostgreSQL test server cannot be started.
std::string fresh_storage_url(const std::string& backend);

/// The backends every study test runs on.
std::vector<std::string> study_backends();

}  // namespace optimist::testing

namespace optimist::testing {

struct CliRun {
  int code = -1;
  std::string out, err;
};

/// Runs the optimist binary with `args` (shell-quoted as needed) in `cwd`.
CliRun run_optimist(const std::string& args, const std::filesystem::path& cwd);

}  // namespace optimist::testing

namespace optimist::testing {

/// A background process (`sh -c 'exec COMMAND'`, so the pid is the command's own) with stdout
/// and stderr in files; killed with SIGKILL by the destructor if still running.
class Process {
 public:
  Process(const std::string& command, const std::filesystem::path& cwd, const std::string& log_name);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  int pid() const { return pid_; }
  void kill9();
  /// Waits for the exit; returns the exit code (-signal when killed).
  int wait();
  bool running();
  std::string err() const;
  std::string out() const;

 private:
  int pid_ = -1;
  std::optional<int> status_;
  std::filesystem::path out_, err_;
};

/// The value of environment variable `name` as a count, or `fallback` (the full-size runs of the
/// reliability tests: OPTIMIST_STUDY_FULL=1).
std::size_t env_size(const char* name, std::size_t fallback);
bool full_size_reliability();

}  // namespace optimist::testing
