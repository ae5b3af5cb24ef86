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

// A user's definition is checked when it is registered (a probe's findings: each was accepted and
// met later, or never, as a puzzle); every built-in definition passes the same checks.
TEST(Registry, ABadDefinitionIsRefusedWhenRegistered) {
  for (const AlgorithmInfo& builtin : algorithms()) {
    AlgorithmInfo copy = builtin;
    copy.name = "copy-of-" + builtin.name;
    EXPECT_NO_THROW(register_algorithm(copy)) << builtin.name;
  }
  const auto error_of_registering = [](const std::function<void(AlgorithmInfo&)>& edit) {
    AlgorithmInfo info = algorithm_info("random");
    info.name = "mine";
    edit(info);
    try {
      register_algorithm(info);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string slash = error_of_registering([](AlgorithmInfo& i) { i.name = "my algo/x"; });
  EXPECT_NE(slash.find("'my algo/x': a name is letters, digits"), std::string::npos) << slash;
  EXPECT_NE(error_of_registering([](AlgorithmInfo& i) { i.name = ".."; }), "");
  const std::string seed = error_of_registering([](AlgorithmInfo& i) { i.options.push_back({"seed", 3, "my seed"}); });
  EXPECT_NE(seed.find("option 'seed': the run's seed reaches the factory in its RunContext"), std::string::npos) << seed;
  const std::string twice = error_of_registering([](AlgorithmInfo& i) {
    i.options.push_back({"sigma0", 0.1, "first"});
    i.options.push_back({"sigma0", 0.2, "second"});
  });
  EXPECT_NE(twice.find("option 'sigma0': declared twice"), std::string::npos) << twice;
  const std::string choice = error_of_registering([](AlgorithmInfo& i) { i.options.push_back({"mode", "zzz", "a mode", {"a", "b"}}); });
  EXPECT_NE(choice.find("option 'mode': its default \"zzz\" is not among its allowed values"), std::string::npos) << choice;
  EXPECT_THROW(make_optimizer({{"name", "mine"}}, Space::box(1, 0, 1)), InvalidArgument);  // none was registered
}

// A user's factory that throws is named in the error.
TEST(Registry, AFactoryThatThrowsIsNamed) {
  AlgorithmInfo info = algorithm_info("random");
  info.name = "throws-at-creation";
  info.create = [](const Space&, Direction, const OptionValues&, const RunContext&) -> std::unique_ptr<Optimizer> {
    throw std::runtime_error("no GPU found");
  };
  register_algorithm(info);
  try {
    (void)make_optimizer({{"name", "throws-at-creation"}}, Space::box(1, 0, 1));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "algorithm 'throws-at-creation': creating the optimizer failed: no GPU found");
  }
}

namespace {
// An algorithm that proposes one fixed point, to see what the base class says of a bad one.
class FixedPointOptimizer : public Optimizer {
 public:
  FixedPointOptimizer(const Space& space, Vector point) : Optimizer("fixed-point", space, Direction::Maximize, {}), point_(std::move(point)) {}

 protected:
  std::vector<Vector> propose(std::size_t) override { return {point_}; }

 private:
  Vector point_;
};

std::string ask_error(const Vector& point) {
  Space space;
  space.add_continuous("lr", 1e-4, 1e-1, /*log_scale=*/true);
  space.add_continuous("momentum", 0.0, 0.99);
  FixedPointOptimizer opt(space, point);
  try {
    (void)opt.ask();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// A point an algorithm proposes is checked with the parameter and value named: outside the unit
// cube (a user point given as is) is an error, not a silently clipped boundary point.
TEST(Registry, AnAlgorithmsBadPointIsNamed) {
  EXPECT_EQ(ask_error(Vector::Constant(3, 0.5)), "fixed-point: propose() returned a point of 3 coordinates; the space has 2");
  Vector nan(2);
  nan << 0.5, std::nan("");
  EXPECT_EQ(ask_error(nan), "fixed-point: propose() returned nan for parameter 'momentum' (coordinate 1)");
  Vector user(2);
  user << 0.01, 0.9;  // lr given in user units is inside; momentum too: no error
  EXPECT_EQ(ask_error(user), "");
  user << 0.5, 1.7;
  const std::string outside = ask_error(user);
  EXPECT_NE(outside.find("returned 1.7 for parameter 'momentum' (coordinate 1), outside the unit cube [0, 1]"), std::string::npos) << outside;
  user << 1.0 + 1e-12, -1e-12;  // an inner solver's round-off is clipped
  EXPECT_EQ(ask_error(user), "");
}
