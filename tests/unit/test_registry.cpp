#include <gtest/gtest.h>

#include "optimist/core/registry.hpp"

using namespace optimist;

namespace {
std::string error_of(const nlohmann::json& spec) {
  try {
    make_optimizer(spec, Space::box(2, 0, 1));
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Registry, CreatesByNameWithOptions) {
  auto opt = make_optimizer({{"name", "random"}, {"seed", 3}}, Space::box(2, 0, 1));
  EXPECT_EQ(opt->name(), "random");
  EXPECT_EQ(opt->seed(), 3u);
  const nlohmann::json resolved = resolve_options({{"name", "sobol"}});
  EXPECT_EQ(resolved.at("scramble"), true);
  EXPECT_EQ(resolved.at("seed"), 0);
}

TEST(Registry, UnknownNameListsValidOnes) {
  const std::string e = error_of({{"name", "gradient-descent"}});
  EXPECT_NE(e.find("'gradient-descent'"), std::string::npos);
  EXPECT_NE(e.find("random"), std::string::npos);
  EXPECT_NE(e.find("sobol"), std::string::npos);
  EXPECT_NE(error_of({{"seed", 1}}).find("name"), std::string::npos);
}

TEST(Registry, UnknownOptionListsValidKeys) {
  const std::string e = error_of({{"name", "sobol"}, {"scramlbe", false}});
  EXPECT_NE(e.find("'scramlbe'"), std::string::npos);
  EXPECT_NE(e.find("scramble"), std::string::npos);
  EXPECT_NE(e.find("seed"), std::string::npos);
}

TEST(Registry, WrongTypesAreRejected) {
  EXPECT_NE(error_of({{"name", "sobol"}, {"scramble", "yes"}}).find("scramble"), std::string::npos);
  EXPECT_NE(error_of({{"name", "random"}, {"seed", -1}}).find("seed"), std::string::npos);
  EXPECT_NE(error_of({{"name", "random"}, {"seed", 1.5}}).find("seed"), std::string::npos);
}

TEST(Registry, UserAlgorithmsCanRegister) {
  AlgorithmInfo info = algorithm_info("random");
  info.name = "my-random";
  register_algorithm(info);
  EXPECT_NO_THROW(make_optimizer({{"name", "my-random"}}, Space::box(1, 0, 1)));
  EXPECT_THROW(register_algorithm(info), InvalidArgument);
}
