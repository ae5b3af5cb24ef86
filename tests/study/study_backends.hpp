// Storage URLs for the study tests, one fresh database per test: a SQLite file in a temporary
// folder, or a database on the test PostgreSQL server (tests/support/postgres_server.hpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace optimist::testing {

/// A fresh folder named after the running test (ctest runs tests in parallel).
inline std::filesystem::path study_test_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  const auto dir = std::filesystem::temp_directory_path() / ("optimist_study_" + std::to_string(getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

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
