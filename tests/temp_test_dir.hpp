#pragma once
// One folder per test under the system's temporary folder, removed when the test ends without a
// failure and kept (its path printed) when it fails, for diagnosis. Every test that writes files
// takes its folder from here, so a run of the suite leaves nothing behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <system_error>

namespace optimist::testing {

namespace detail {

inline std::set<std::filesystem::path>& test_folders() {
  static std::set<std::filesystem::path> folders;
  return folders;
}

class TestFolderCleaner : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    for (const auto& dir : test_folders()) {
      if (info.result()->Failed()) {
        std::cerr << "kept the failed test's folder " << dir << '\n';
      } else {
        std::error_code ec;  // a folder already gone, or one a child still writes to, is no failure
        std::filesystem::remove_all(dir, ec);
      }
    }
    test_folders().clear();
  }
};

inline const bool kTestFolderCleanerInstalled = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new TestFolderCleaner);  // gtest owns it
  return true;
}();

}  // namespace detail

/// The running test's folder, `<tmp>/<prefix>_<pid>_<suite>_<test>` (characters other than letters
/// and digits of the names become '_'): emptied and created at the test's first call, the same
/// folder at later calls.
inline std::filesystem::path test_dir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  const auto dir = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(::getpid()) + "_" + name);
  if (detail::test_folders().insert(dir).second) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  return dir;
}

}  // namespace optimist::testing
