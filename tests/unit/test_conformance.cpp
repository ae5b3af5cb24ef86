// Contract tests that every registered algorithm must pass: determinism from the seed, replay
// reproducibility, batches, pending points, mixed spaces, answers inside the space, and on a finite
// space with a deterministic objective no repeated point until it is exhausted, then the stop
// (with a noisy objective declared: repeats allowed, the whole budget used).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "optimist/core/driver.hpp"
#include "optimist/core/point_set.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/algorithms/registry.hpp"

using namespace optimist;

namespace {

Space mixed_space() {
  Space s;
  s.add_continuous("a", -2.0, 3.0).add_continuous("b", 1e-3, 10.0, true).add_integer("n", 0, 5).add_categorical("c", {"u", "v", "w"});
  return s;
}

double mixed_objective(const Vector& x) {
  return -std::pow(x[0] - 0.7, 2) - std::pow(std::log10(x[1]), 2) - 0.1 * std::pow(x[2] - 3, 2) + (x[3] == 1 ? 0.5 : 0.0);
}

constexpr std::size_t kSteps = 14;

// Small budgets for every algorithm: the contract, not the quality, is tested here. The run's
// horizon reaches every algorithm (those that do not plan with it ignore it).
nlohmann::json spec_for(const std::string& name) { return {{"name", name}}; }
RunContext run_for(std::uint64_t seed) { return {.seed = seed, .horizon = 3 * kSteps}; }

std::vector<Observation> run(const std::string& name, std::uint64_t seed) {
  auto opt = make_optimizer(spec_for(name), mixed_space(), Direction::Maximize, run_for(seed));
  for (std::size_t k = 0; k < kSteps; ++k) {
    Trial t = opt->ask();
    opt->tell(t, mixed_objective(t.x));
  }
  return opt->history();
}

class Conformance : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Conformance, SameSeedSameRun) {
  const auto a = run(GetParam(), 11), b = run(GetParam(), 11);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) ASSERT_EQ(a[k].trial.x, b[k].trial.x) << "step " << k;
}

TEST_P(Conformance, FreshOptimizerFedTheSameTellsAsksTheSameNextPoint) {
  auto original = make_optimizer(spec_for(GetParam()), mixed_space(), Direction::Maximize, run_for(5));
  for (std::size_t k = 0; k < kSteps; ++k) {
    Trial t = original->ask();
    original->tell(t, mixed_objective(t.x));
  }
  auto replayed = make_optimizer(spec_for(GetParam()), mixed_space(), Direction::Maximize, run_for(5));
  for (const auto& obs : original->history()) replayed->tell(obs.trial.x, obs.value);
  EXPECT_EQ(original->ask().x, replayed->ask().x);
}

// The driver's resume (optimist run --resume): a fresh optimizer given the first k evaluations
// of a run, failed ones included, continues exactly as the uninterrupted run.
TEST_P(Conformance, ResumedRunContinuesLikeTheUninterruptedOne) {
  Objective objective;
  objective.direction = Direction::Maximize;
  objective.function = [](const Vector& x) {
    if (x[0] > 2.0) throw std::runtime_error("diverged");  // a failing region
    return mixed_objective(x);
  };
  RunOptions options;
  options.budget = kSteps;
  options.on_failure = FailurePolicy::MarkFailed;
  auto original = make_optimizer(spec_for(GetParam()), mixed_space(), Direction::Maximize, run_for(9));
  const RunSummary full = optimize(*original, objective, options);
  ASSERT_EQ(full.evaluations.size(), kSteps);
  for (const std::size_t k : {std::size_t{1}, kSteps / 2}) {
    SCOPED_TRACE("resumed after " + std::to_string(k));
    RunOptions resumed_options = options;
    for (std::size_t i = 0; i < k; ++i) resumed_options.resume_from.push_back(full.evaluations[i]);
    auto resumed = make_optimizer(spec_for(GetParam()), mixed_space(), Direction::Maximize, run_for(9));
    const RunSummary rest = optimize(*resumed, objective, resumed_options);
    ASSERT_EQ(rest.evaluations.size(), kSteps);
    EXPECT_EQ(rest.n_failed, full.n_failed);
    EXPECT_EQ(rest.n_resumed, k);
    for (std::size_t i = 0; i < kSteps; ++i) {
      ASSERT_EQ(rest.evaluations[i].x, full.evaluations[i].x) << "evaluation " << i + 1;
      EXPECT_EQ(rest.evaluations[i].failed, full.evaluations[i].failed);
    }
    EXPECT_EQ(rest.best_y, full.best_y);
    EXPECT_EQ(rest.recommended_x, full.recommended_x);
  }
}

// withdraw(): an ask given back leaves the run as if it had not been made (a cancelled job, an
// Optuna trial that ran other values). It is not a failure: the history holds only the real
// evaluations. The tree searches decide on what is not pending when asked with trials pending;
// those decisions stand, so for them only an ask made with nothing else pending is undone exactly
// (TreeSearch.AWithdrawnStepIsAskedAgain covers the rest).
TEST_P(Conformance, AWithdrawnAskLeavesTheRunAsIfItWasNotMade) {
  const bool decides_on_pending = algorithm_info(GetParam()).family == "tree";
  const auto reference = run(GetParam(), 7);
  auto opt = make_optimizer(spec_for(GetParam()), mixed_space(), Direction::Maximize, run_for(7));
  for (std::size_t k = 0; k < kSteps; ++k) {
    if (k % 3 == 0) opt->withdraw(opt->ask());  // given back before the real ask
    Trial t = opt->ask();
    if (k % 3 == 1 && !decides_on_pending) {
      const std::vector<Trial> extra = opt->ask(2);  // given back while t is pending
      for (const Trial& e : extra) opt->withdraw(e);
    }
    ASSERT_EQ(t.x, reference[k].trial.x) << "step " << k;
    opt->tell(t, mixed_objective(t.x));
  }
  EXPECT_EQ(opt->history().size(), kSteps);
  EXPECT_TRUE(opt->pending().empty());
  Trial t = opt->ask();
  opt->withdraw(t);
  EXPECT_THROW(opt->withdraw(t), InvalidArgument);  // not pending any more
  EXPECT_THROW(opt->tell(t, 1.0), InvalidArgument);
}

TEST_P(Conformance, PointsStayInTheSpaceAndPendingIsTolerated) {
  const Space space = mixed_space();
  auto opt = make_optimizer(spec_for(GetParam()), space, Direction::Maximize, run_for(2));
  for (std::size_t k = 0; k < kSteps / 2; ++k) {
    std::vector<Trial> batch = opt->ask(3);
    ASSERT_GE(batch.size(), 1u);
    ASSERT_LE(batch.size(), 3u);
    if (!opt->supports_batch()) {
      ASSERT_EQ(batch.size(), 1u);
    }
    Trial extra = opt->ask();  // a second ask before any tell
    batch.push_back(extra);
    for (const auto& t : batch) {
      ASSERT_NO_THROW(space.validate(t.x));
      ASSERT_TRUE((t.unit.array() >= 0).all() && (t.unit.array() <= 1).all());
    }
    EXPECT_EQ(opt->pending().size(), batch.size());
    for (const auto& t : batch) opt->tell(t, mixed_objective(t.x));
    EXPECT_TRUE(opt->pending().empty());
  }
  ASSERT_NO_THROW(space.validate(opt->recommend()));
}

TEST_P(Conformance, MinimizationIsMaximizationOfTheNegative) {
  auto max_opt = make_optimizer(spec_for(GetParam()), mixed_space(), Direction::Maximize, run_for(9));
  auto min_opt = make_optimizer(spec_for(GetParam()), mixed_space(), Direction::Minimize, run_for(9));
  for (std::size_t k = 0; k < kSteps; ++k) {
    Trial a = max_opt->ask(), b = min_opt->ask();
    ASSERT_EQ(a.x, b.x) << "step " << k;
    max_opt->tell(a, mixed_objective(a.x));
    min_opt->tell(b, -mixed_objective(b.x));
  }
  EXPECT_EQ(max_opt->recommend(), min_opt->recommend());
}

// Values of 1e200 (squares overflow) and a sentinel of -1e300 for a region (a user's "failed"
// value): every algorithm keeps going and answers inside the space. gp-ucb, go-ucb and BKB's
// refits once threw "non-finite coordinates", "non-finite model output" or "outputscale inf".
TEST_P(Conformance, HugeValuesAndSentinelsAreHandled) {
  const Space space = mixed_space();
  auto opt = make_optimizer(spec_for(GetParam()), space, Direction::Maximize, {.seed = 4, .horizon = 30});
  std::size_t sentinels = 0;
  for (std::size_t k = 0; k < 30; ++k) {
    Trial t = opt->ask();
    ASSERT_NO_THROW(space.validate(t.x)) << "step " << k;
    const bool sentinel = t.x[0] > 1.5;
    sentinels += sentinel;
    ASSERT_NO_THROW(opt->tell(t, sentinel ? -1e300 : 1e200 * (20.0 + mixed_objective(t.x)))) << "step " << k;
  }
  EXPECT_GT(sentinels, 0u);  // the sentinel region was met
  const Vector best = opt->recommend();
  ASSERT_NO_THROW(space.validate(best));
  EXPECT_LE(best[0], 1.5);  // never a sentinel's point
}

// Sentinels at both ends of the doubles (+-1.7e308: their difference overflows to infinity) once
// broke GO-UCB's and BKB's standardization.
TEST_P(Conformance, SentinelsAtBothEndsOfTheDoublesAreHandled) {
  const Space space = mixed_space();
  auto opt = make_optimizer(spec_for(GetParam()), space, Direction::Maximize, {.seed = 4, .horizon = 30});
  constexpr double kLargest = 1.7e308;
  bool low = false, high = false;
  for (std::size_t k = 0; k < 30; ++k) {
    Trial t = opt->ask();
    ASSERT_NO_THROW(space.validate(t.x)) << "step " << k;
    // the first two tells are one of each, so every algorithm meets both
    const double value = k == 0   ? -kLargest
                         : k == 1 ? kLargest
                                  : (t.x[0] > 1.5 ? -kLargest : t.x[0] < -1.5 ? kLargest : mixed_objective(t.x));
    low |= value == -kLargest;
    high |= value == kLargest;
    ASSERT_NO_THROW(opt->tell(t, value)) << "step " << k;
  }
  EXPECT_TRUE(low && high);
  const Vector best = opt->recommend();
  ASSERT_NO_THROW(space.validate(best));
  EXPECT_EQ(opt->best()->value, kLargest);
}

// Values of 1e-300 that differ (a likelihood, a p-value): BKB's kernel refit underflowed to a
// zero outputscale and threw on the third tell.
TEST_P(Conformance, TinyValuesAreHandled) {
  const Space space = mixed_space();
  auto opt = make_optimizer(spec_for(GetParam()), space, Direction::Maximize, {.seed = 4, .horizon = 30});
  std::vector<double> told;
  for (std::size_t k = 0; k < 30; ++k) {
    Trial t = opt->ask();
    told.push_back(1e-300 * (20.0 + mixed_objective(t.x)));
    ASSERT_NO_THROW(opt->tell(t, told.back())) << "step " << k;
  }
  const Vector best = opt->recommend();
  ASSERT_NO_THROW(space.validate(best));
  EXPECT_EQ(opt->best()->value, *std::max_element(told.begin(), told.end()));
}

TEST_P(Conformance, BadTellsAreRejected) {
  auto opt = make_optimizer(spec_for(GetParam()), mixed_space(), Direction::Maximize, run_for(1));
  // recommend() before any observation refuses in the algorithm's own name (auto named its inner one).
  try {
    (void)opt->recommend();
    ADD_FAILURE() << "recommend() before any observation returned";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(opt->name() + ": recommend() before any successful observation", 0), 0u) << e.what();
  }
  Trial t = opt->ask();
  EXPECT_THROW(opt->tell(t, std::nan("")), InvalidArgument);
  EXPECT_THROW(opt->tell(Vector::Zero(2), 1.0), InvalidArgument);
  // A point edited after ask() (rounded, clipped) was recorded at the asked point with the value
  // of the edited one: refused, naming both (tell(x, value) records the edited point).
  Trial edited = t;
  edited.x[0] += 0.25;
  try {
    opt->tell(edited, 1.0);
    ADD_FAILURE() << "an edited trial was told";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("a trial's point cannot change after ask()"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("told with x = [" + format_double(edited.x[0]) + ", "), std::string::npos) << e.what();
  }
  EXPECT_THROW(opt->tell_failed(edited, "x"), InvalidArgument);
  EXPECT_EQ(opt->pending().size(), 1u);  // nothing was recorded
  opt->tell(t, 1.0);
  EXPECT_THROW(opt->tell(t, 1.0), InvalidArgument);  // told twice
}

// ---- integer and categorical spaces: no repeats on a deterministic objective (docs/discrete.md) ----

namespace {

// 12 points: an integer with 3 values, a categorical with 2 and a boolean.
Space finite_space() {
  Space s;
  s.add_integer("n", 1, 3).add_categorical("c", {"u", "v"}).add_categorical("flag", {"false", "true"});
  return s;
}
constexpr std::size_t kFinitePoints = 12;

double finite_objective(const Vector& x) { return -std::pow(x[0] - 2.2, 2) + 0.3 * x[1] - 0.2 * x[2]; }

std::size_t distinct(const std::vector<Vector>& xs) {
  PointSet set;
  for (const auto& x : xs) set.insert(x);
  return set.size();
}

RunContext finite_run(std::uint64_t seed, bool noisy = false) { return {.seed = seed, .horizon = 2 * kFinitePoints, .noisy = noisy}; }

}  // namespace

// A deterministic objective (the default): every point once, then the stop; ask() says so.
TEST_P(Conformance, FiniteSpaceIsEvaluatedOnceThenTheRunStops) {
  auto opt = make_optimizer(spec_for(GetParam()), finite_space(), Direction::Maximize, finite_run(3));
  Objective objective;
  objective.direction = Direction::Maximize;
  objective.function = finite_objective;
  RunOptions options;
  options.budget = 2 * kFinitePoints;  // a budget larger than the space is not an error
  const RunSummary run = optimize(*opt, objective, options);
  std::vector<Vector> xs;
  for (const auto& r : run.evaluations) xs.push_back(r.x);
  EXPECT_EQ(run.evaluations.size(), kFinitePoints);
  EXPECT_EQ(distinct(xs), kFinitePoints);
  EXPECT_EQ(run.reason, StopReason::SpaceExhausted);
  EXPECT_TRUE(opt->exhausted());
  EXPECT_EQ(opt->remaining_points(), std::optional<std::uint64_t>(0));
  EXPECT_THROW(opt->ask(), SpaceExhausted);
  ASSERT_TRUE(run.best_y);
  EXPECT_DOUBLE_EQ(*run.best_y, 0.3 - std::pow(0.2, 2));  // the optimum (n = 2, c = v, flag = false)
}

// A log-scale integer (unequal cells, stop 60) is as discrete as any other: every point once,
// then the stop, in every algorithm (the trees split it like a continuous side).
TEST_P(Conformance, LogScaleIntegersAreEvaluatedOnceThenTheRunStops) {
  Space space;
  space.add_integer("width", 1, 8, /*log_scale=*/true).add_categorical("c", {"u", "v"});
  auto opt = make_optimizer(spec_for(GetParam()), space, Direction::Maximize, {.seed = 6, .horizon = 40});
  Objective objective;
  objective.direction = Direction::Maximize;
  objective.function = [](const Vector& x) { return -std::pow(std::log(x[0] / 3.0), 2) + 0.1 * x[1]; };
  RunOptions options;
  options.budget = 40;
  const RunSummary run = optimize(*opt, objective, options);
  std::vector<Vector> xs;
  for (const auto& r : run.evaluations) xs.push_back(r.x);
  EXPECT_EQ(run.evaluations.size(), 16u);
  EXPECT_EQ(distinct(xs), 16u);
  EXPECT_EQ(run.reason, StopReason::SpaceExhausted);
  ASSERT_TRUE(run.best_y);
  EXPECT_DOUBLE_EQ(*run.best_y, 0.1);  // width 3, c = v
}

// Batches, a second ask before any tell, points registered by other workers (add_pending): no
// point is handed out twice, and the last free points are handed out before ask() refuses.
TEST_P(Conformance, FiniteSpaceNoRepeatsWithBatchesAndPendingPoints) {
  const Space space = finite_space();
  auto opt = make_optimizer(spec_for(GetParam()), space, Direction::Maximize, finite_run(5));
  std::vector<Vector> seen;
  // Another worker holds two points.
  seen.push_back(opt->add_pending(space.point_from_json(nlohmann::json::array({3, "u", "true"}))).x);
  seen.push_back(opt->add_pending(space.point_from_json(nlohmann::json::array({1, "v", "false"}))).x);
  const std::vector<Trial> external = opt->pending();
  std::vector<Trial> open;
  while (seen.size() < kFinitePoints) {
    std::vector<Trial> batch = opt->ask(3);
    ASSERT_GE(batch.size(), 1u);
    for (auto& t : batch) {
      seen.push_back(t.x);
      open.push_back(t);
    }
    ASSERT_EQ(distinct(seen), seen.size()) << "a point was handed out twice";
    if (seen.size() < kFinitePoints) {  // one more ask before telling
      Trial extra = opt->ask();
      seen.push_back(extra.x);
      open.push_back(extra);
      ASSERT_EQ(distinct(seen), seen.size()) << "a point was handed out twice";
    }
    for (const auto& t : open) opt->tell(t, finite_objective(t.x));
    open.clear();
  }
  EXPECT_THROW(opt->ask(), SpaceExhausted);  // two points are still pending elsewhere
  EXPECT_FALSE(opt->exhausted());
  for (const auto& t : external) opt->tell(t, finite_objective(t.x));
  EXPECT_TRUE(opt->exhausted());
}

// A withdrawn point of a finite space is free again: asked later, and the space is used up
// only when every point has been evaluated.
TEST_P(Conformance, AWithdrawnPointOfAFiniteSpaceIsAskedAgain) {
  const Space space = finite_space();
  auto opt = make_optimizer(spec_for(GetParam()), space, Direction::Maximize, finite_run(3));
  const Trial given_back = opt->ask();
  EXPECT_EQ(opt->remaining_points(), kFinitePoints - 1);
  opt->withdraw(given_back);
  EXPECT_EQ(opt->remaining_points(), kFinitePoints);
  std::vector<Vector> seen;
  while (seen.size() < kFinitePoints) {
    Trial t = opt->ask();
    seen.push_back(t.x);
    ASSERT_EQ(distinct(seen), seen.size()) << "a point was handed out twice";
    opt->tell(t, finite_objective(t.x));
  }
  EXPECT_TRUE(opt->exhausted());
  EXPECT_NE(std::find(seen.begin(), seen.end(), given_back.x), seen.end());
}

// A fresh optimizer fed the same tells (a resumed run) continues without repeating a point.
TEST_P(Conformance, FiniteSpaceNoRepeatsAcrossResume) {
  Objective objective;
  objective.direction = Direction::Maximize;
  objective.function = finite_objective;
  RunOptions options;
  options.budget = kFinitePoints;
  auto original = make_optimizer(spec_for(GetParam()), finite_space(), Direction::Maximize, finite_run(9));
  const RunSummary full = optimize(*original, objective, options);
  RunOptions resumed_options = options;
  for (std::size_t i = 0; i < kFinitePoints / 2; ++i) resumed_options.resume_from.push_back(full.evaluations[i]);
  auto resumed = make_optimizer(spec_for(GetParam()), finite_space(), Direction::Maximize, finite_run(9));
  const RunSummary rest = optimize(*resumed, objective, resumed_options);
  std::vector<Vector> xs;
  for (std::size_t i = 0; i < rest.evaluations.size(); ++i) {
    xs.push_back(rest.evaluations[i].x);
    EXPECT_EQ(rest.evaluations[i].x, full.evaluations[i].x) << "evaluation " << i + 1;
  }
  EXPECT_EQ(distinct(xs), kFinitePoints);
}

// Conditional parameters (Space::add_condition): a point is its active values; every algorithm
// evaluates each of the 20 points of this space once (not each of the 48 combinations), then stops.
TEST_P(Conformance, ConditionalFiniteSpaceIsEvaluatedOnceThenTheRunStops) {
  Space space;
  space.add_categorical("kernel", {"linear", "rbf", "poly"}).add_integer("degree", 2, 4).add_integer("gamma", 1, 4);
  space.add_condition("degree", "kernel", {"poly"}).add_condition("gamma", "kernel", {"rbf", "poly"});
  constexpr std::size_t kPoints = 1 + 4 + 3 * 4;
  ASSERT_EQ(space.finite_size(), std::optional<std::uint64_t>(kPoints));
  auto opt = make_optimizer(spec_for(GetParam()), space, Direction::Maximize, {.seed = 8, .horizon = 48});
  Objective objective;
  objective.direction = Direction::Maximize;
  objective.function = [](const Vector& x) {
    return x[0] == 0 ? 0.5 : x[0] == 1 ? 1.0 - std::pow(x[2] - 3, 2) : 0.8 - 0.1 * x[1] - std::pow(x[2] - 2, 2);
  };
  RunOptions options;
  options.budget = 48;
  const RunSummary run = optimize(*opt, objective, options);
  std::vector<Vector> xs;
  for (const auto& r : run.evaluations) {
    xs.push_back(r.x);
    EXPECT_EQ(r.x, space.canonical(r.x)) << "an inactive parameter away from its fixed value";
  }
  EXPECT_EQ(run.evaluations.size(), kPoints);
  EXPECT_EQ(distinct(xs), kPoints);
  EXPECT_EQ(run.reason, StopReason::SpaceExhausted);
  ASSERT_TRUE(run.best_y);
  EXPECT_DOUBLE_EQ(*run.best_y, 1.0);  // rbf, gamma 3
}

// With a continuous child: every evaluated point canonical, the answer too, and no two evaluations
// the same point (a change in an unused parameter is no new point).
TEST_P(Conformance, ConditionalMixedSpaceEvaluatesCanonicalPoints) {
  Space space;
  space.add_categorical("model", {"tree", "net"}).add_continuous("lr", 1e-4, 1e-1, true).add_integer("depth", 1, 6);
  space.add_condition("lr", "model", {"net"}).add_condition("depth", "model", {"tree"});
  auto opt = make_optimizer(spec_for(GetParam()), space, Direction::Maximize, {.seed = 4, .horizon = 24});
  Objective objective;
  objective.direction = Direction::Maximize;
  objective.function = [](const Vector& x) {
    return x[0] == 0 ? 0.1 * x[2] : 1.0 - std::pow(std::log10(x[1]) + 2.0, 2);
  };
  RunOptions options;
  options.budget = 24;
  const RunSummary run = optimize(*opt, objective, options);
  std::vector<Vector> xs;
  for (const auto& r : run.evaluations) {
    xs.push_back(r.x);
    EXPECT_EQ(r.x, space.canonical(r.x));
  }
  EXPECT_EQ(distinct(xs), xs.size());
  const Vector answer = opt->recommend();
  EXPECT_EQ(answer, space.canonical(answer));
}

// A noisy objective (declared): repeats are allowed, the space is never exhausted, the budget is
// used in full and ask() never refuses.
TEST_P(Conformance, NoisyObjectiveMayRepeatAndUsesTheBudget) {
  auto opt = make_optimizer(spec_for(GetParam()), finite_space(), Direction::Maximize, finite_run(4, true));
  Objective objective;
  objective.direction = Direction::Maximize;
  Rng noise(17);
  objective.function = [&](const Vector& x) { return finite_objective(x) + 0.1 * noise.normal(); };
  RunOptions options;
  options.budget = 2 * kFinitePoints;
  const RunSummary run = optimize(*opt, objective, options);
  EXPECT_EQ(run.evaluations.size(), 2 * kFinitePoints);
  EXPECT_EQ(run.reason, StopReason::Budget);
  EXPECT_FALSE(opt->exhausted());
  EXPECT_EQ(opt->remaining_points(), std::nullopt);
  EXPECT_NO_THROW(opt->ask());
}

INSTANTIATE_TEST_SUITE_P(AllAlgorithms, Conformance, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto& a : algorithms()) names.push_back(a.name);
                           return names;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });
