// Conditional parameters (Space::add_condition): a parameter that matters only for some values of
// another. Inactive parameters hold their fixed value in every point, so points that differ only
// there are one point to the no-repeat rule, the enumeration of a finite space and the models.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>

#include "optimist/core/discrete_domain.hpp"
#include "optimist/core/optimizer.hpp"
#include "optimist/core/point_set.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/core/space.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/algorithms/registry.hpp"
#include "message_of.hpp"

using namespace optimist;
using optimist::testing::message_of;

namespace {

// An SVM-like space: gamma for rbf and poly, degree for poly only, and a flag for all.
// Points: linear 1, rbf 3 (gamma), poly 4 x 3 = 12; times the flag's 2: 32.
Space svm_space() {
  Space s;
  s.add_categorical("kernel", {"linear", "rbf", "poly"})
      .add_integer("degree", 2, 5)
      .add_integer("gamma", 1, 3)
      .add_categorical("flag", {"no", "yes"});
  s.add_condition("degree", "kernel", {"poly"}).add_condition("gamma", "kernel", {"rbf", "poly"});
  return s;
}
constexpr std::uint64_t kSvmPoints = 32;

Vector vec(std::initializer_list<double> v) {
  Vector x(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double e : v) x[i++] = e;
  return x;
}

}  // namespace

TEST(ConditionalSpace, InactiveParametersHoldTheirFixedValue) {
  const Space s = svm_space();
  EXPECT_TRUE(s.has_conditions());
  EXPECT_EQ(s.active(vec({0, 4, 2, 1})), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(s.active(vec({1, 4, 2, 1})), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(s.active(vec({2, 4, 2, 1})), (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(s.canonical(vec({0, 4, 2, 1})), vec({0, 2, 1, 1}));  // linear: degree and gamma at their lower bounds
  EXPECT_EQ(s.canonical(vec({1, 4, 2, 1})), vec({1, 2, 2, 1}));
  EXPECT_EQ(s.canonical(vec({2, 4, 3, 0})), vec({2, 4, 3, 0}));
  // Every unit point maps to a canonical user point, and snap_unit agrees with it.
  Rng rng(3);
  for (int k = 0; k < 200; ++k) {
    const Vector u = rng.uniform_vector(4);
    const Vector x = s.to_user(u);
    EXPECT_EQ(x, s.canonical(x));
    EXPECT_EQ(s.to_unit(x), s.snap_unit(u));
  }
}

TEST(ConditionalSpace, ChainsAndContinuousChildren) {
  Space s;
  s.add_categorical("model", {"tree", "net"})
      .add_integer("layers", 1, 3)
      .add_continuous("dropout", 0.1, 0.5)
      .add_continuous("lr", 1e-4, 1e-1, true);
  s.add_condition("layers", "model", {"net"}).add_condition("dropout", "layers", {"2", "3"});
  EXPECT_EQ(s.active(vec({0, 3, 0.3, 0.01})), (std::vector<bool>{true, false, false, true}));  // an inactive parent's child
  EXPECT_EQ(s.active(vec({1, 1, 0.3, 0.01})), (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(s.active(vec({1, 2, 0.3, 0.01})), (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(s.canonical(vec({0, 3, 0.3, 0.01})), vec({0, 1, 0.1, 0.01}));
  Vector u = vec({0.2, 0.9, 0.7, 0.5});  // tree: layers and dropout inactive
  u = s.snap_unit(u);
  EXPECT_DOUBLE_EQ(u[1], 1.0 / 6.0);  // the first value's cell centre
  EXPECT_DOUBLE_EQ(u[2], 0.0);        // a continuous parameter's lower bound
  EXPECT_DOUBLE_EQ(u[3], 0.5);
  EXPECT_FALSE(s.finite_size());
}

TEST(ConditionalSpace, FiniteSizeCountsEachPointOnce) {
  EXPECT_EQ(svm_space().finite_size(), std::optional<std::uint64_t>(kSvmPoints));
  // A chain: a (3) -> b (4, for a = 0 or 1) -> c (5, for b = 0): a=2: 1; a=0,1: b=0: 5, b=1..3: 1 each -> 8; 2*8 + 1 = 17.
  Space s;
  s.add_integer("a", 0, 2).add_integer("b", 0, 3).add_integer("c", 0, 4);
  s.add_condition("b", "a", {"0", "1"}).add_condition("c", "b", {"0"});
  EXPECT_EQ(s.finite_size(), std::optional<std::uint64_t>(17));
  // Counted by enumeration: every combination, canonicalized, into a set.
  const DiscreteDomain domain(s);
  PointSet seen;
  std::size_t calls = 0;
  const Vector zero = Vector::Zero(3), one = Vector::Ones(3);
  domain.enumerate(zero, zero, one, [&](const Vector& u) {
    ++calls;
    EXPECT_TRUE(seen.insert(s.to_user(u)));   // each point once
    EXPECT_EQ(u, s.snap_unit(u));             // already canonical
    return true;
  });
  EXPECT_EQ(calls, 17u);
  // A huge integer parent whose listed values activate a child: no enumeration of its values.
  Space big;
  big.add_integer("n", 0, (1LL << 52)).add_categorical("c", {"x", "y", "z"});
  big.add_condition("c", "n", {"7"});
  EXPECT_EQ(big.finite_size(), std::optional<std::uint64_t>((std::uint64_t{1} << 52) + 3));
}

TEST(ConditionalSpace, NeighboursMoveOnlyActiveDimensions) {
  const Space s = svm_space();
  const DiscreteDomain domain(s);
  const Vector lin = s.to_unit(vec({0, 2, 1, 0}));
  std::vector<Vector> around;
  domain.neighbors(lin, Vector::Zero(4), Vector::Ones(4), around);
  ASSERT_EQ(around.size(), 3u);  // kernel rbf, kernel poly, flag yes; not degree or gamma
  for (const Vector& n : around) EXPECT_EQ(n, s.snap_unit(n));
  // From poly (degree 4, gamma 3) to linear: degree and gamma go back to their fixed values.
  around.clear();
  domain.neighbors(s.to_unit(vec({2, 4, 3, 0})), Vector::Zero(4), Vector::Ones(4), around);
  bool saw_linear = false;
  for (const Vector& n : around)
    if (s.to_user(n)[0] == 0) {
      saw_linear = true;
      EXPECT_EQ(s.to_user(n), vec({0, 2, 1, 0}));
    }
  EXPECT_TRUE(saw_linear);
}

TEST(ConditionalSpace, BadConditionsAreNamed) {
  const auto base = [] {
    Space s;
    s.add_categorical("kernel", {"linear", "rbf"}).add_continuous("gamma", 1e-3, 1.0, true).add_continuous("C", 0.1, 10.0);
    return s;
  };
  EXPECT_NE(message_of([&] { base().add_condition("gamma", "kernal", {"rbf"}); }).find("condition on unknown parameter 'kernal' (did you mean 'kernel'?)"),
            std::string::npos);
  EXPECT_NE(message_of([&] { base().add_condition("gama", "kernel", {"rbf"}); }).find("unknown parameter 'gama'"), std::string::npos);
  EXPECT_NE(message_of([&] { base().add_condition("gamma", "kernel", {"rbg"}); }).find("'rbg' is not a choice of 'kernel'"),
            std::string::npos);
  EXPECT_NE(message_of([&] { base().add_condition("gamma", "kernel", {}); }).find("lists no values"), std::string::npos);
  EXPECT_NE(message_of([&] { base().add_condition("gamma", "kernel", {"rbf", "rbf"}); }).find("listed twice"), std::string::npos);
  EXPECT_NE(message_of([&] { base().add_condition("gamma", "C", {"1"}); }).find("continuous parameter 'C'"), std::string::npos);
  EXPECT_NE(message_of([&] { base().add_condition("kernel", "kernel", {"rbf"}); }).find("names itself"), std::string::npos);
  EXPECT_NE(message_of([&] {
              Space s = base();
              s.add_integer("n", 1, 3).add_condition("C", "n", {"1"});
            }).find("must come before it"),
            std::string::npos);
  EXPECT_NE(message_of([&] { base().add_condition("gamma", "kernel", {"rbf"}).add_condition("gamma", "kernel", {"linear"}); })
                .find("has a condition already"),
            std::string::npos);
  Space ints;
  ints.add_integer("n", 1, 3).add_continuous("x", 0.0, 1.0);
  EXPECT_NE(message_of([&] { ints.add_condition("x", "n", {"4"}); }).find("outside 'n''s range [1, 3]"), std::string::npos);
  EXPECT_NE(message_of([&] { ints.add_condition("x", "n", {"2.5"}); }).find("'2.5' of integer parameter 'n' is not an integer"),
            std::string::npos);
}

TEST(ConditionalSpace, JsonRoundTripKeepsConditions) {
  const Space s = svm_space();
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["parameters"][1]["condition"], (nlohmann::json{{"parent", "kernel"}, {"values", {"poly"}}}));
  const Space back = Space::from_json(j);
  EXPECT_EQ(back.to_json(), j);
  EXPECT_EQ(back.finite_size(), std::optional<std::uint64_t>(kSvmPoints));
  // An integer parent's values are integers in JSON.
  Space ints;
  ints.add_integer("n", 1, 3).add_continuous("x", 0.0, 1.0);
  ints.add_condition("x", "n", {"2", "3"});
  EXPECT_EQ(ints.to_json()["parameters"][1]["condition"]["values"], (nlohmann::json{2, 3}));
  EXPECT_EQ(Space::from_json(ints.to_json()).to_json(), ints.to_json());
  // Malformed conditions are named.
  nlohmann::json bad = j;
  bad["parameters"][1]["condition"] = {{"parent", "kernel"}, {"value", {"poly"}}};
  EXPECT_NE(message_of([&] { Space::from_json(bad); }).find("parameter 'degree': 'condition' must be"), std::string::npos);
  bad["parameters"][1]["condition"] = {{"parent", "kernel"}, {"values", {"poly"}}, {"when", 1}};
  EXPECT_NE(message_of([&] { Space::from_json(bad); }).find("unknown key 'when' in its condition"), std::string::npos);
  bad["parameters"][1]["condition"] = {{"parent", "kernel"}, {"values", {true}}};
  EXPECT_NE(message_of([&] { Space::from_json(bad); }).find("must be a choice (a string) or an integer"), std::string::npos);
}

// Told points: a value given for an inactive parameter is replaced by its fixed value, so a point
// told twice with different unused values is one point evaluated twice, not two.
TEST(ConditionalSpace, ToldPointsAreCanonical) {
  auto opt = make_optimizer({{"name", "random"}}, svm_space(), Direction::Maximize, {.seed = 1});
  opt->tell(vec({0, 5, 3, 1}), 1.0);
  EXPECT_EQ(opt->history().back().trial.x, vec({0, 2, 1, 1}));
  EXPECT_EQ(opt->distinct_evaluated(), 1u);
  opt->tell(vec({0, 3, 2, 1}), 1.0);  // the same point again
  EXPECT_EQ(opt->distinct_evaluated(), 1u);
  EXPECT_EQ(opt->remaining_points(), std::optional<std::uint64_t>(kSvmPoints - 1));
  const Trial pending = opt->add_pending(vec({1, 5, 2, 0}));  // degree unused by rbf
  EXPECT_EQ(pending.x, vec({1, 2, 2, 0}));
  opt->tell(vec({1, 4, 2, 0}), 2.0);  // matches the pending trial
  EXPECT_TRUE(opt->pending().empty());
  EXPECT_EQ(opt->history().back().trial.id, pending.id);
}

// A point by name (study tell --params, enqueue) may leave out an inactive parameter, not an
// active one; an unknown name is named.
TEST(ConditionalSpace, PointsByNameMayLeaveOutInactiveParameters) {
  const Space s = svm_space();
  EXPECT_EQ(s.point_from_json(nlohmann::json{{"kernel", "linear"}, {"flag", "yes"}}), vec({0, 2, 1, 1}));
  EXPECT_EQ(s.point_from_json(nlohmann::json{{"kernel", "rbf"}, {"gamma", 3}, {"flag", "no"}}), vec({1, 2, 3, 0}));
  EXPECT_NE(message_of([&] { s.point_from_json(nlohmann::json{{"kernel", "poly"}, {"gamma", 3}, {"flag", "no"}}); })
                .find("parameter 'degree': missing from point"),
            std::string::npos);
  EXPECT_NE(message_of([&] { s.point_from_json(nlohmann::json{{"kernel", "linear"}}); }).find("parameter 'flag': missing"),
            std::string::npos);
  EXPECT_NE(message_of([&] { s.point_from_json(nlohmann::json{{"kernel", "linear"}, {"flag", "no"}, {"gama", 1}}); })
                .find("names unknown parameter 'gama'"),
            std::string::npos);
}

// A space file may name a parent after its child: it is named as misplaced, not unknown. A resumed
// run or a study whose space differs only in a condition says so.
TEST(ConditionalSpace, FilesNameMisplacedParentsAndDifferencesNameConditions) {
  const nlohmann::json later = nlohmann::json::parse(
      R"({"parameters": [{"name": "gamma", "type": "continuous", "lower": 0.1, "upper": 1, "condition": {"parent": "kernel", "values": ["rbf"]}},
                         {"name": "kernel", "type": "categorical", "choices": ["linear", "rbf"]}]})");
  EXPECT_NE(message_of([&] { Space::from_json(later); }).find("parameter 'gamma': its condition's parent 'kernel' must come before it"),
            std::string::npos);
  const Space with = svm_space();
  Space without;
  without.add_categorical("kernel", {"linear", "rbf", "poly"}).add_integer("degree", 2, 5).add_integer("gamma", 1, 3).add_categorical("flag", {"no", "yes"});
  without.add_condition("gamma", "kernel", {"rbf", "poly"});
  EXPECT_EQ(space_difference(with.to_json(), without.to_json()),
            "'degree' is integer [2, 5] used when kernel is in [\"poly\"] there, integer [2, 5] here");
  nlohmann::json continuous_parent = later;
  continuous_parent["parameters"] = {later["parameters"][1], later["parameters"][0]};
  continuous_parent["parameters"][0] = {{"name", "kernel"}, {"type", "continuous"}, {"lower", 0}, {"upper", 1}};
  continuous_parent["parameters"][1]["condition"]["values"] = {0.5};
  EXPECT_NE(message_of([&] { Space::from_json(continuous_parent); }).find("condition on continuous parameter 'kernel'"),
            std::string::npos);
}
