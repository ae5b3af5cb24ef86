// The fixture of the CLI tests of studies run by hand (`optimist study ask|tell|add`): a fresh
// storage per backend, the test's folder with the study's space file, the CLI run there.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "optimist/study/study.hpp"
#include "study/study_backends.hpp"

namespace optimist::testing {

class LabStudyCli : public ::testing::TestWithParam<std::string> {
 protected:
  /// `space_toml`: the study's parameters, written to space.toml in the test's folder.
  explicit LabStudyCli(std::string space_toml) : space_toml_(std::move(space_toml)) {}
  void SetUp() override {
    url = fresh_storage_url(GetParam());
    dir = study_test_dir();
    s = "--storage '" + url + "' --name lab ";
    std::ofstream(dir / "space.toml") << space_toml_;
  }
  CliRun cli(const std::string& args) { return run_optimist(args, dir); }
  /// `study create` of the study "lab" over space.toml, to maximize, with `extra` flags.
  void create(const std::string& extra) {
    const auto r = cli("study create " + s + "--space space.toml --direction maximize " + extra);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  /// Writes `text` to `file` in the test's folder, byte for byte.
  void write(const std::string& file, const std::string& text) { std::ofstream(dir / file, std::ios::binary) << text; }
  std::vector<TrialRecord> trials() { return Study::load(url, "lab").trials(); }
  std::string url, s;
  std::filesystem::path dir;

 private:
  std::string space_toml_;
};

}  // namespace optimist::testing
