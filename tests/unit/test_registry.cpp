#include <gtest/gtest.h>

#include "optimist/algorithms/registry.hpp"

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
  auto opt = make_optimizer({{"name", "random"}}, Space::box(2, 0, 1), Direction::Maximize, RunContext{.seed = 3});
  EXPECT_EQ(opt->name(), "random");
  EXPECT_EQ(opt->seed(), 3u);
  const nlohmann::json resolved = resolve_options({{"name", "sobol"}});
  EXPECT_EQ(resolved.at("scramble"), true);
  EXPECT_FALSE(resolved.contains("seed"));  // the seed is the run's (RunContext), not an option
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

TEST(Registry, SeedAndHorizonArriveInTheRunContext) {
  auto opt = make_optimizer({{"name", "sequool"}}, Space::box(2, 0, 1), Direction::Maximize, {.seed = 7, .horizon = 30});
  EXPECT_EQ(opt->seed(), 7u);
  EXPECT_EQ(opt->horizon(), std::optional<std::size_t>(30));
  EXPECT_EQ(algorithm_info("go-ucb").horizon, HorizonUse::Required);
  EXPECT_EQ(algorithm_info("sequool").horizon, HorizonUse::Optional);
  EXPECT_EQ(algorithm_info("gp-ei").horizon, HorizonUse::Unused);
  // As option keys they are refused with a message saying where they go.
  const std::string seed = error_of({{"name", "random"}, {"seed", 3}});
  EXPECT_NE(seed.find("RunContext::seed"), std::string::npos) << seed;
  EXPECT_NE(seed.find("--seed"), std::string::npos) << seed;
  const std::string budget = error_of({{"name", "sequool"}, {"budget", 30}});
  EXPECT_NE(budget.find("RunContext::horizon"), std::string::npos) << budget;
  EXPECT_NE(budget.find("--budget"), std::string::npos) << budget;
  const std::string missing = error_of({{"name", "go-ucb"}});
  EXPECT_NE(missing.find("go-ucb needs the run's horizon"), std::string::npos) << missing;
}

TEST(Registry, UserAlgorithmsCanRegister) {
  AlgorithmInfo info = algorithm_info("random");
  info.name = "my-random";
  register_algorithm(info);
  EXPECT_NO_THROW(make_optimizer({{"name", "my-random"}}, Space::box(1, 0, 1)));
  EXPECT_THROW(register_algorithm(info), InvalidArgument);
}

// A user's factory that returns a null pointer is refused by name (the first ask crashed).
TEST(Registry, AFactoryReturningNothingIsRefusedByName) {
  AlgorithmInfo info = algorithm_info("random");
  info.name = "returns-nothing";
  info.create = [](const Space&, Direction, const OptionValues&, const RunContext&) { return std::unique_ptr<Optimizer>(); };
  register_algorithm(info);
  try {
    (void)make_optimizer({{"name", "returns-nothing"}}, Space::box(1, 0, 1));
    ADD_FAILURE() << "a null optimizer was returned";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("algorithm 'returns-nothing': its factory returned no optimizer"), std::string::npos) << e.what();
  }
}
