// OptionTable (include/optimist/algorithms/option_table.hpp): specs, reading, ranges, enums and
// included parts; and coordinate-search, the worked example of docs/architecture.md.
#include <gtest/gtest.h>

#include <cmath>

#include "optimist/algorithms/baseline/coordinate_search.hpp"
#include "optimist/algorithms/option_table.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

enum class Shape { Box, Ball };
constexpr EnumNames<Shape, 2> kShapeNames{{{{Shape::Box, "box"}, {Shape::Ball, "ball"}}}};

struct Part {
  unsigned children = 2;
};
struct Settings {
  Part part;
  double rate = 0.5;
  std::uint32_t count = 3;
  bool flag = true;
  Shape shape = Shape::Ball;
};

const OptionTable<Part>& part_table() {
  static const auto t = OptionTable<Part>().integer("children", &Part::children, 2, 3, "K");
  return t;
}

const OptionTable<Settings>& table() {
  static const auto t = OptionTable<Settings>()
                            .include(part_table(), &Settings::part)
                            .real("rate", &Settings::rate, NumberRange::open(0.0, 1.0), "a rate")
                            .integer("count", &Settings::count, 1, 10, "a count")
                            .flag("flag", &Settings::flag, "a flag")
                            .choice("shape", &Settings::shape, kShapeNames, "a shape");
  return t;
}

OptionValues values(nlohmann::json given) {
  nlohmann::json all = {{"children", 2}, {"rate", 0.5}, {"count", 3}, {"flag", true}, {"shape", "ball"}};
  all.update(given);
  return OptionValues("demo", all);
}

std::string read_error(nlohmann::json given) {
  try {
    table().read(values(std::move(given)));
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(OptionTable, SpecsCarryDefaultsFromTheStructAndEnumNames) {
  const auto specs = table().specs();
  ASSERT_EQ(specs.size(), 5u);
  EXPECT_EQ(specs[0].key, "children");  // the included part first, in table order
  EXPECT_EQ(specs[0].default_value, 2);
  EXPECT_EQ(specs[1].key, "rate");
  EXPECT_DOUBLE_EQ(specs[1].default_value.get<double>(), 0.5);
  EXPECT_TRUE(specs[1].default_value.is_number_float());
  EXPECT_TRUE(specs[3].default_value.is_boolean());
  EXPECT_EQ(specs[4].default_value, "ball");
  EXPECT_EQ(specs[4].allowed, (std::vector<std::string>{"box", "ball"}));
}

TEST(OptionTable, ReadsEveryFieldIncludingTheIncludedPart) {
  const Settings s = table().read(values({{"children", 3}, {"rate", 0.25}, {"count", 7}, {"flag", false}, {"shape", "box"}}));
  EXPECT_EQ(s.part.children, 3u);
  EXPECT_DOUBLE_EQ(s.rate, 0.25);
  EXPECT_EQ(s.count, 7u);
  EXPECT_FALSE(s.flag);
  EXPECT_EQ(s.shape, Shape::Box);
}

TEST(OptionTable, OutOfRangeNamesTheAlgorithmTheKeyTheValueAndTheRange) {
  EXPECT_EQ(read_error({{"rate", 1.0}}), "demo: option 'rate' must be in (0, 1), got 1");
  EXPECT_EQ(read_error({{"count", 11}}), "demo: option 'count' must be in 1..10, got 11");
  EXPECT_EQ(read_error({{"children", 4}}), "demo: option 'children' must be in 2..3, got 4");
  EXPECT_NE(read_error({{"shape", "cube"}}).find("valid values: box, ball"), std::string::npos);
  EXPECT_EQ(read_error(nlohmann::json::object()), "");
}

// Registered options through make_optimizer: values are named as the user wrote them (an integer
// above 2^63 - 1 was shown wrapped, "got -1"), limits that protect a run are enforced, and a
// noise_sd whose square overflows names the option (it failed inside the GP, unnamed).
TEST(OptionTable, RegisteredOptionsNameHugeValuesAsWritten) {
  const Space space = Space::box(2, 0.0, 1.0);
  const auto message = [&](const nlohmann::json& spec) {
    try {
      make_optimizer(spec, space, Direction::Minimize, RunContext{.horizon = 20});
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message({{"name", "gp-ei"}, {"n_init", 18446744073709551615ull}}),
            "gp-ei: option 'n_init' must be >= 0, got 18446744073709551615");
  EXPECT_NE(message({{"name", "go-ucb"}, {"restarts", 10000000000000000000ull}}).find("got 10000000000000000000"),
            std::string::npos);
  EXPECT_NE(message({{"name", "go-ucb"}, {"refit_restarts", 9223372036854775807ll}}).find("option 'refit_restarts' must be in 0.."),
            std::string::npos);
  EXPECT_NE(message({{"name", "bkb"}, {"arms", 100000000000ll}}).find("option 'arms' must be in 1..1000000, got 100000000000"),
            std::string::npos);
  EXPECT_NE(message({{"name", "gp-ucb"}, {"noise_sd", 1e200}}).find("gp-ucb: option 'noise_sd' must be"), std::string::npos);
  EXPECT_EQ(message({{"name", "gp-ei"}, {"noise_sd", 1e100}}), "(no error)");
}

TEST(OptionTable, DefaultsFromAGivenStructAlsoFillTheFieldsWithoutAnOption) {
  Settings defaults;
  defaults.rate = 0.75;
  defaults.shape = Shape::Box;
  defaults.flag = false;  // no option below: read() keeps it
  const auto t = OptionTable<Settings>(defaults)
                     .real("rate", &Settings::rate, NumberRange::open(0.0, 1.0), "a rate")
                     .choice("shape", &Settings::shape, kShapeNames, "a shape");
  const auto specs = t.specs();
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_DOUBLE_EQ(specs[0].default_value.get<double>(), 0.75);
  EXPECT_EQ(specs[1].default_value, "box");
  const Settings s = t.read(OptionValues("demo", {{"rate", 0.5}, {"shape", "ball"}}));
  EXPECT_DOUBLE_EQ(s.rate, 0.5);
  EXPECT_EQ(s.shape, Shape::Ball);
  EXPECT_FALSE(s.flag);
}

TEST(OptionTable, NumberRangeDescribesItself) {
  EXPECT_EQ(NumberRange::above(0.0).describe(), "> 0");
  EXPECT_EQ(NumberRange::at_least(1.5).describe(), ">= 1.5");
  EXPECT_EQ((NumberRange{0.0, 1.0, false, true}).describe(), "in [0, 1)");
  EXPECT_FALSE(NumberRange::any().contains(std::nan("")));
  EXPECT_TRUE(NumberRange::any().contains(-1e300));
}

TEST(OptionTable, RegisteredTreeOptionsAreCheckedByTheirTable) {
  EXPECT_THROW(make_optimizer({{"name", "poo"}, {"rho_max", 1.5}}, Space::box(1, 0, 1)), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "hoo"}, {"h_max", 61}}, Space::box(1, 0, 1)), InvalidArgument);
  EXPECT_NO_THROW(make_optimizer({{"name", "poo"}, {"rho_grid", "printed"}, {"representative", "random"}},
                                 Space::box(1, 0, 1)));
}

TEST(CoordinateSearch, ConvergesOnASmoothBowlAndHalvesItsStep) {
  // f(x) = -sum (x_i - 0.3)^2 on [0,1]^3: compass search reaches the optimum to about its step.
  const Space space = Space::box(3, 0, 1);
  auto opt = make_optimizer({{"name", "coordinate-search"}}, space, Direction::Maximize, {.seed = 1});
  Objective f;
  f.function = [](const Vector& x) { return -(x.array() - 0.3).square().sum(); };
  RunOptions ro;
  ro.budget = 150;
  const RunSummary s = optimize(*opt, f, ro);
  const Vector best = opt->recommend();
  EXPECT_LT((best.array() - 0.3).abs().maxCoeff(), 1e-3);
  EXPECT_LT(opt->diagnostics().at("step").get<double>(), 0.25);
  EXPECT_GT(*s.best_y, -1e-5);
}

TEST(CoordinateSearch, HalvesTheStepAfterTwoDUnsuccessfulPollsThenRestartsAtRandom) {
  // A constant objective: no poll improves. d = 2, steps 0.25 .. 0.015625 (5 steps of 4 polls),
  // then 0.0078 < min_step = 0.01: after the center and 20 polls the search restarts.
  const Space space = Space::box(2, 0, 1);
  auto opt = make_optimizer({{"name", "coordinate-search"}, {"min_step", 0.01}}, space, Direction::Maximize, {.seed = 4});
  std::vector<Vector> points;
  for (int t = 0; t < 21; ++t) {
    const Trial trial = opt->ask();
    points.push_back(trial.x);
    if (t == 4) {  // 3 polls told so far
      EXPECT_DOUBLE_EQ(opt->diagnostics().at("step").get<double>(), 0.25);
    }
    opt->tell(trial, 0.0);
  }
  EXPECT_DOUBLE_EQ(points[0][0], 0.5);  // the cube's center first
  EXPECT_DOUBLE_EQ(points[0][1], 0.5);
  for (std::size_t t = 1; t < points.size(); ++t)  // polls: along one axis through the center
    EXPECT_TRUE(points[t][0] == 0.5 || points[t][1] == 0.5) << t;
  EXPECT_DOUBLE_EQ(points[20][0] + points[20][1], 1.0 - 0.015625);  // the last poll: -e_1 at the last step
  EXPECT_DOUBLE_EQ(opt->diagnostics().at("step").get<double>(), 0.0);  // restarting
  const Trial restart = opt->ask();
  EXPECT_TRUE(restart.x[0] != 0.5 && restart.x[1] != 0.5);  // a random point, off the cross
  opt->tell(restart, 0.0);
  EXPECT_DOUBLE_EQ(opt->diagnostics().at("step").get<double>(), 0.25);
}
