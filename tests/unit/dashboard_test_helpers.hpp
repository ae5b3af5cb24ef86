// Shared by the dashboard tests: a fresh folder per test and trace lines written by hand.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "optimist/core/space.hpp"
#include "optimist/core/trace.hpp"
#include "temp_test_dir.hpp"

namespace dashboard_test {

namespace fs = std::filesystem;

// A fresh folder per test (tests run in parallel under ctest -j), removed when the test passed.
class DashboardTest : public ::testing::Test {
 protected:
  fs::path dir() const { return optimist::testing::test_dir("optimist_dashboard"); }
  void SetUp() override { dir(); }
};

inline std::string meta_line(optimist::Direction direction = optimist::Direction::Minimize, double f_star = 0.5) {
  optimist::Space space;
  space.add_continuous("lr", 1e-4, 1.0, true);
  space.add_categorical("kernel", {"rbf", "matern"});
  optimist::TraceMeta m;
  m.algorithm = "gp-ei";
  m.options = {{"name", "gp-ei"}, {"seed", 3}};
  m.problem = "toy";
  m.dim = 2;
  m.seed = 3;
  m.direction = direction;
  m.f_star = f_star;
  m.budget = 10;
  m.space = space.to_json();
  return nlohmann::json{{"meta", m.to_json()}}.dump() + "\n";
}

// Evaluation i with value y (failed when y is null), timings 0.1 s suggest, 1 s eval, 0.2 s tell.
inline std::string eval_line(int i, std::optional<double> y, const std::string& extra = "") {
  nlohmann::json j = {{"i", i},          {"x", {0.01 * i, "rbf"}}, {"y", nullptr}, {"f", nullptr},
                      {"regret", nullptr}, {"suggest_s", 0.1},      {"eval_s", 1.0}, {"tell_s", 0.2},
                      {"status", y ? "ok" : "failed"}};
  if (y) {
    j["y"] = *y;
    j["f"] = *y;
    j["regret"] = *y - 0.5;
  } else {
    j["error"] = "objective threw: boom";
  }
  if (!extra.empty()) j.update(nlohmann::json::parse(extra));
  return j.dump() + "\n";
}

inline void append(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::app | std::ios::binary);
  out << text;
}

inline void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::trunc | std::ios::binary);
  out << text;
}

}  // namespace dashboard_test
