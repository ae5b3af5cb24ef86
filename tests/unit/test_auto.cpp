// `auto`'s first choice by dimension and horizon (docs/robust.md, the table under "`auto`").
#include <gtest/gtest.h>

#include "optimist/algorithms/auto/auto.hpp"
#include "optimist/algorithms/registry.hpp"

namespace optimist {
namespace {

std::string first(std::size_t dim, std::optional<std::size_t> horizon) {
  return AutoOptimizer::first_choice(Space::box(dim, 0.0, 1.0), RunContext{.seed = 1, .horizon = horizon}).algorithm;
}

TEST(Auto, FirstChoiceFollowsTheDimensionAndTheBudget) {
  EXPECT_EQ(first(2, 30), "gp-ei");
  EXPECT_EQ(first(12, 50), "gp-ei");
  EXPECT_EQ(first(20, 72), "gp-ei");  // measured better than or level with go-ucb at 20 and 40 parameters
  EXPECT_EQ(first(40, 100), "gp-ei");
  EXPECT_EQ(first(20, std::nullopt), "gp-ei");
  EXPECT_EQ(first(41, 100), "go-ucb");  // and far behind it at 100
  EXPECT_EQ(first(100, 200), "go-ucb");
  EXPECT_EQ(first(41, std::nullopt), "turbo");  // GO-UCB plans with the horizon
  EXPECT_EQ(first(20, 22), "go-ucb");           // budget <= d + 2: no room for a GP's design
  EXPECT_EQ(first(100, 100), "go-ucb");
  EXPECT_EQ(first(2, 2), "go-ucb");  // GO-UCB's smallest horizon
  EXPECT_EQ(first(2, 1), "sobol");
  EXPECT_EQ(first(20, 23), "gp-ei");
}

TEST(Auto, RunsItsChoiceAndNamesIt) {
  auto opt = make_optimizer({{"name", "auto"}}, Space::box(20, -5.0, 5.0), Direction::Minimize, {.seed = 3, .horizon = 40});
  const Trial t = opt->ask();
  EXPECT_EQ(t.x.size(), 20u);
  EXPECT_EQ(opt->diagnostics().at("auto_algorithm"), "gp-ei");
  EXPECT_EQ(opt->decisions().at("algorithm"), "gp-ei");
  EXPECT_NE(opt->decisions().at("reason").get<std::string>().find("20 parameters"), std::string::npos);
  // The chosen algorithm's own "auto" options, as resolved for this space (gp-ei's above 12 parameters).
  EXPECT_EQ(opt->decisions().at("resolved"), nlohmann::json::parse(R"({"prior": "gamma", "output_warp": "none", "mean": "learned", "rotation": "none"})"));
  auto in_4d = make_optimizer({{"name", "auto"}}, Space::box(4, -5.0, 5.0), Direction::Minimize, {.seed = 3, .horizon = 40});
  EXPECT_EQ(in_4d->decisions().at("resolved"), nlohmann::json::parse(R"({"prior": "botorch", "output_warp": "alternate", "mean": "worst-unwarped", "mean_margin": 0.0, "rotation": "none"})"));
}

}  // namespace
}  // namespace optimist
