#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

#include "optimist/core/driver.hpp"
#include "optimist/algorithms/registry.hpp"

using namespace optimist;

namespace {
Objective sphere(Direction dir = Direction::Minimize) {
  Objective o;
  o.function = [](const Vector& x) { return x.squaredNorm(); };
  o.direction = dir;
  o.optimum = 0.0;
  o.name = "sphere";
  return o;
}
std::unique_ptr<Optimizer> random_opt(std::size_t d = 2, Direction dir = Direction::Minimize) {
  return make_optimizer({{"name", "random"}}, Space::box(d, -1, 1), dir, RunContext{.seed = 4});
}
}  // namespace

TEST(Driver, RunsTheBudgetAndTracksRegret) {
  auto opt = random_opt();
  RunOptions ro;
  ro.budget = 50;
  std::size_t progress_calls = 0;
  ro.on_progress = [&](const Progress& p) {
    ++progress_calls;
    EXPECT_EQ(p.done, progress_calls);
  };
  const RunSummary s = optimize(*opt, sphere(), ro);
  EXPECT_EQ(s.reason, StopReason::Budget);
  ASSERT_EQ(s.evaluations.size(), 50u);
  EXPECT_EQ(progress_calls, 50u);
  EXPECT_EQ(opt->history().size(), 50u);
  double cum = 0, best = INFINITY;
  for (const auto& r : s.evaluations) {
    ASSERT_TRUE(r.y && r.regret);
    EXPECT_DOUBLE_EQ(*r.regret, *r.y);  // f* = 0, minimize: regret = f
    cum += *r.regret;
    best = std::min(best, *r.y);
    EXPECT_DOUBLE_EQ(*r.cum_regret, cum);
    EXPECT_DOUBLE_EQ(*r.best_f, best);
  }
  EXPECT_DOUBLE_EQ(*s.best_y, best);
  EXPECT_DOUBLE_EQ(*s.recommended_f, best);  // default recommend = best observed
  EXPECT_DOUBLE_EQ(*s.simple_regret, best);
}

TEST(Driver, ThrowingObjectiveStopsWithMessageAndKeepsHistory) {
  auto opt = random_opt();
  Objective o = sphere();
  int calls = 0;
  o.function = [&](const Vector& x) -> double {
    if (++calls == 7) throw std::runtime_error("simulator crashed");
    return x.squaredNorm();
  };
  RunOptions ro;
  ro.budget = 20;
  const RunSummary s = optimize(*opt, o, ro);
  EXPECT_EQ(s.reason, StopReason::ObjectiveFailed);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("simulator crashed"), std::string::npos);
  EXPECT_NE(s.message.find("x = {x1: "), std::string::npos) << s.message;
  ASSERT_EQ(s.evaluations.size(), 7u);
  EXPECT_TRUE(s.evaluations.back().failed);
  EXPECT_EQ(opt->history().size(), 7u);  // six values and the failure, nothing lost
  EXPECT_EQ(opt->n_successful(), 6u);
  EXPECT_TRUE(opt->pending().empty());
  ASSERT_TRUE(s.recommended_x.has_value());
}

TEST(Driver, NanAndInfAreFailures) {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
    auto opt = random_opt();
    Objective o = sphere();
    int calls = 0;
    o.function = [&](const Vector& x) { return ++calls == 3 ? bad : x.squaredNorm(); };
    RunOptions ro;
    ro.budget = 10;
    const RunSummary s = optimize(*opt, o, ro);
    EXPECT_EQ(s.reason, StopReason::ObjectiveFailed) << bad;
    EXPECT_NE(s.message.find(bad != bad ? "nan" : "inf"), std::string::npos) << s.message;
    EXPECT_EQ(s.evaluations.size(), 3u);
  }
}

TEST(Driver, MarkFailedContinuesAndCountsBudget) {
  auto opt = random_opt();
  Objective o = sphere();
  int calls = 0;
  o.function = [&](const Vector& x) {
    return ++calls % 3 == 0 ? std::numeric_limits<double>::quiet_NaN() : x.squaredNorm();
  };
  RunOptions ro;
  ro.budget = 30;
  ro.on_failure = FailurePolicy::MarkFailed;
  const RunSummary s = optimize(*opt, o, ro);
  EXPECT_EQ(s.reason, StopReason::Budget);
  EXPECT_EQ(s.evaluations.size(), 30u);
  EXPECT_EQ(s.n_failed, 10u);
  EXPECT_EQ(opt->n_successful(), 20u);
  EXPECT_EQ(opt->history().size(), 30u);
}

TEST(Driver, TargetAndCancellationStopEarly) {
  {
    auto opt = random_opt();
    RunOptions ro;
    ro.budget = 1000;
    ro.target = 0.2;  // minimize: stop once y <= 0.2
    const RunSummary s = optimize(*opt, sphere(), ro);
    EXPECT_EQ(s.reason, StopReason::Target);
    EXPECT_LE(*s.best_y, 0.2);
    EXPECT_LT(s.evaluations.size(), 1000u);
  }
  {
    auto opt = random_opt();
    RunOptions ro;
    ro.budget = 1000;
    int polls = 0;
    ro.should_stop = [&] { return ++polls > 5; };
    const RunSummary s = optimize(*opt, sphere(), ro);
    EXPECT_EQ(s.reason, StopReason::Cancelled);
    EXPECT_EQ(s.evaluations.size(), 5u);
  }
}

TEST(Driver, BatchesEvaluateEveryAskedPoint) {
  auto opt = random_opt();
  RunOptions ro;
  ro.budget = 23;
  ro.batch_size = 5;
  // While a batch is evaluated its not-yet-told points are pending: the k-th point of a batch of
  // n sees n - k pending. Batches of 5, the last one cut to the 3 evaluations left.
  Objective o = sphere();
  std::vector<std::size_t> pending_seen;
  o.function = [&](const Vector& x) {
    pending_seen.push_back(opt->pending().size());
    return x.squaredNorm();
  };
  const RunSummary s = optimize(*opt, o, ro);
  EXPECT_EQ(s.evaluations.size(), 23u);
  EXPECT_TRUE(opt->pending().empty());
  std::vector<std::size_t> expected;
  for (int b = 0; b < 4; ++b)
    for (std::size_t k = 5; k >= 1; --k) expected.push_back(k);
  for (std::size_t k = 3; k >= 1; --k) expected.push_back(k);
  EXPECT_EQ(pending_seen, expected);
  // Every asked point was evaluated, in ask order, and none was abandoned.
  ASSERT_EQ(opt->history().size(), 23u);
  for (std::size_t i = 0; i < 23; ++i) {
    EXPECT_EQ(opt->history()[i].trial.id, i);
    EXPECT_FALSE(opt->history()[i].failed);
  }
}

TEST(Driver, NoiseFreeValueDrivesRegretNotTheObservation) {
  auto opt = random_opt(1, Direction::Maximize);
  Objective o;
  o.direction = Direction::Maximize;
  o.function = [](const Vector& x) { return -x[0] * x[0] + 0.5; };  // observed with an offset
  o.noise_free = [](const Vector& x) { return -x[0] * x[0]; };
  o.optimum = 0.0;
  RunOptions ro;
  ro.budget = 10;
  const RunSummary s = optimize(*opt, o, ro);
  ASSERT_EQ(s.evaluations.size(), 10u);
  // Regret from the observation would be x^2 - 0.5 (negative near 0); from f it is x^2 = -f.
  double cum = 0.0, best_f = -INFINITY;
  for (const auto& r : s.evaluations) {
    ASSERT_TRUE(r.y && r.f && r.regret && r.cum_regret && r.best_f);
    EXPECT_NEAR(*r.f, *r.y - 0.5, 1e-15);
    EXPECT_NEAR(*r.regret, -*r.f, 1e-15);
    cum += -*r.f;
    best_f = std::max(best_f, *r.f);
    EXPECT_NEAR(*r.cum_regret, cum, 1e-12);
    EXPECT_EQ(*r.best_f, best_f);  // the best noise-free value, not the best observation
  }
  EXPECT_NEAR(*s.cum_regret, cum, 1e-12);
  EXPECT_EQ(*s.best_f, best_f);
  EXPECT_NEAR(*s.best_y, best_f + 0.5, 1e-15);
  // The recommendation's value and simple regret come from noise_free too.
  ASSERT_TRUE(s.recommended_x && s.recommended_f && s.simple_regret);
  EXPECT_NEAR(*s.recommended_f, -(*s.recommended_x)[0] * (*s.recommended_x)[0], 1e-15);
  EXPECT_NEAR(*s.simple_regret, -*s.recommended_f, 1e-15);
}

TEST(Driver, RejectsBadRunOptions) {
  auto opt = random_opt();
  RunOptions ro;
  ro.budget = 0;
  EXPECT_THROW(optimize(*opt, sphere(), ro), InvalidArgument);
  ro.budget = 5;
  ro.batch_size = 0;
  EXPECT_THROW(optimize(*opt, sphere(), ro), InvalidArgument);
  ro.batch_size = 1;
  EXPECT_THROW(optimize(*opt, sphere(Direction::Maximize), ro), InvalidArgument);  // direction mismatch
  EXPECT_THROW(optimize(*opt, Objective{}, ro), InvalidArgument);
  // As minimize() refuses them: a target never reached and a time limit never met ran silently.
  ro.target = std::nan("");
  EXPECT_THROW(optimize(*opt, sphere(), ro), InvalidArgument);
  ro.target.reset();
  ro.time_limit_s = std::numeric_limits<double>::infinity();
  EXPECT_THROW(optimize(*opt, sphere(), ro), InvalidArgument);
}

TEST(Driver, ResumeTellsEarlierEvaluationsWithoutEvaluatingThemAgain) {
  auto first = random_opt();
  RunOptions ro;
  ro.budget = 6;
  const RunSummary earlier = optimize(*first, sphere(), ro);
  std::size_t calls = 0;
  Objective counted = sphere();
  counted.function = [&calls](const Vector& x) { ++calls; return x.squaredNorm(); };
  RunOptions resume;
  resume.budget = 10;
  for (const auto& r : earlier.evaluations) resume.resume_from.push_back(r);
  auto again = random_opt();
  const RunSummary s = optimize(*again, counted, resume);
  EXPECT_EQ(calls, 4u);
  ASSERT_EQ(s.evaluations.size(), 10u);
  EXPECT_EQ(s.n_resumed, 6u);
  EXPECT_EQ(again->history().size(), 10u);
  EXPECT_NEAR(*s.evaluations[5].cum_regret, *earlier.cum_regret, 1e-12);
  EXPECT_LE(*s.best_y, *earlier.best_y);

  // More resumed evaluations than the budget, or one outside the space: errors naming them.
  resume.budget = 5;
  EXPECT_THROW(optimize(*random_opt(), counted, resume), InvalidArgument);
  resume.budget = 10;
  resume.resume_from[2].x[1] = 3.0;
  try {
    optimize(*random_opt(), counted, resume);
    ADD_FAILURE() << "a resumed point outside the box was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("resumed evaluation 3"), std::string::npos) << e.what();
  }
}

TEST(Driver, TimesTellSeparatelyAndSumsIt) {
  // GO-UCB refits in tell: the time per step must count it (tell_s), and the run's total is the sum.
  auto opt = make_optimizer({{"name", "go-ucb"}}, Space::box(3, -1, 1), Direction::Minimize, RunContext{.seed = 2, .horizon = 12});
  RunOptions ro;
  ro.budget = 12;
  const RunSummary s = optimize(*opt, sphere(), ro);
  ASSERT_EQ(s.evaluations.size(), 12u);
  double total = 0.0, phase_two = 0.0;
  for (std::size_t k = 0; k < s.evaluations.size(); ++k) {
    const double t = s.evaluations.tell_s(k);
    EXPECT_TRUE(std::isfinite(t) && t >= 0.0) << k;
    EXPECT_EQ(s.evaluations[k].tell_s, t);
    total += t;
    if (k >= 4) phase_two += t;
  }
  EXPECT_NEAR(s.tell_s, total, 1e-12);
  EXPECT_GT(phase_two, 0.0);  // the oracle refits in tell take measurable time
}

// A told point recommended came back through the unit cube: 0.1 as 0.10000000000000009.
TEST(Driver, AToldPointIsRecommendedExactlyAsTold) {
  Space space;
  space.add_continuous("a", -3.0, 7.0).add_continuous("lr", 1e-5, 1e-1, true);
  for (const char* name : {"random", "gp-ei"}) {
    SCOPED_TRACE(name);
    auto opt = make_optimizer({{"name", name}}, space, Direction::Minimize, RunContext{.seed = 1});
    Vector warm(2);
    warm << 0.1, 0.0123;
    ASSERT_NE(space.to_user(space.to_unit(warm))[0], 0.1);  // the round trip this guards against
    opt->tell(warm, -5.0);
    for (int k = 0; k < 4; ++k) {
      const Trial t = opt->ask();
      opt->tell(t, 1.0 + k);
    }
    const Vector x = opt->recommend();
    EXPECT_EQ(x[0], 0.1);
    EXPECT_EQ(x[1], 0.0123);
  }
  // Two sentinels at both ends of the doubles: the best is the one told, not a clamped tie.
  auto opt = random_opt(1, Direction::Maximize);
  const Trial a = opt->ask();
  opt->tell(a, 1e301);
  const Trial b = opt->ask();
  opt->tell(b, 1.7e308);
  EXPECT_EQ(opt->best()->value, 1.7e308);
  EXPECT_EQ(opt->recommend(), b.x);
}

// Start points (RunOptions::start_points, `optimist run --x0`): evaluated first, in order, in
// batches too, told as the run's own; a deterministic objective's repeats once; a resume skips
// those it holds; a bad or excess point is refused before anything is evaluated.
TEST(Driver, StartPointsAreEvaluatedFirstInOrder) {
  for (const std::string algorithm : {"random", "gp-ei", "sequool", "turbo"}) {
    SCOPED_TRACE(algorithm);
    auto opt = make_optimizer({{"name", algorithm}}, Space::box(2, -1, 1), Direction::Minimize, RunContext{.seed = 4});
    RunOptions ro;
    ro.budget = 8;
    ro.batch_size = 2;
    ro.start_points = {Vector::Constant(2, 0.5), Vector::Zero(2), Vector::Constant(2, 0.5), Vector::Constant(2, -0.25)};
    const RunSummary s = optimize(*opt, sphere(), ro);
    ASSERT_EQ(s.evaluations.size(), 8u);
    EXPECT_EQ(s.evaluations[0].x, Vector::Constant(2, 0.5));
    EXPECT_EQ(s.evaluations[1].x, Vector::Zero(2));
    EXPECT_EQ(s.evaluations[2].x, Vector::Constant(2, -0.25));  // the repeat of x0[0] evaluated once
    EXPECT_EQ(*s.best_y, 0.0);
    EXPECT_EQ(opt->history().size(), 8u);
    for (std::size_t k = 3; k < 8; ++k) EXPECT_NE(s.evaluations[k].x, Vector::Zero(2)) << k;  // nothing asked twice
  }
}

TEST(Driver, StartPointsSkipWhatAResumeHoldsAndRefuseBadOnes) {
  auto first = random_opt();
  RunOptions ro;
  ro.budget = 6;
  ro.start_points = {Vector::Constant(2, 0.5), Vector::Constant(2, 0.25), Vector::Constant(2, -0.5)};
  const RunSummary full = optimize(*first, sphere(), ro);
  // The first two evaluations done: the resumed run evaluates x0[2] next and ends as the full run.
  auto second = random_opt();
  RunOptions resumed = ro;
  for (std::size_t k = 0; k < 2; ++k) resumed.resume_from.push_back(full.evaluations[k]);
  const RunSummary rest = optimize(*second, sphere(), resumed);
  ASSERT_EQ(rest.evaluations.size(), 6u);
  for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(rest.evaluations[k].x, full.evaluations[k].x) << k;
  // Refused before any evaluation, naming the point.
  const auto refused = [](std::vector<Vector> points, std::size_t budget, const std::string& mention) {
    auto opt = random_opt();
    RunOptions bad;
    bad.budget = budget;
    bad.start_points = std::move(points);
    try {
      optimize(*opt, sphere(), bad);
      ADD_FAILURE() << "accepted; expected an error mentioning " << mention;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
    EXPECT_TRUE(opt->history().empty());
  };
  refused({Vector::Zero(2), Vector::Constant(2, 3.0)}, 5, "x0[1]: parameter 'x1': value 3 is outside [-1, 1]");
  refused({Vector::Zero(3)}, 5, "x0[0]: it has 3 values, the space has 2");
  refused({Vector::Constant(2, NAN)}, 5, "x0[0]");
  refused({Vector::Zero(2), Vector::Constant(2, 0.5)}, 1, "x0 has 2 point(s) to evaluate, more than the budget of 1");
}

// values_all_equal: the plateau sign the model-based algorithms share (gp-bo's flat start,
// GO-UCB's flat-history rule). Values as the models see them: two sentinels beyond 1e300 are one
// value; a failed evaluation is no value.
TEST(Optimizer, ValuesAllEqualUntilOneDiffersAsTheModelsSeeThem) {
  auto opt = random_opt(2, Direction::Maximize);
  EXPECT_TRUE(opt->values_all_equal());  // nothing told
  opt->tell(opt->ask(), 1e308);
  opt->tell(opt->ask(), 1.5e308);  // both modelled as 1e300
  opt->tell_failed(opt->ask(), "crashed");
  EXPECT_TRUE(opt->values_all_equal());
  opt->tell(opt->ask(), 3.0);
  EXPECT_FALSE(opt->values_all_equal());
  opt->tell(opt->ask(), 1e308);  // a later equal value does not restore it
  EXPECT_FALSE(opt->values_all_equal());
}

// A run whose every value is the same says so (RunSummary::notes): the usual cause is an objective
// that ignores its parameters or returns a stale value. Failed evaluations are not values; fewer
// than five values say too little.
TEST(Driver, AllValuesEqualIsNoted) {
  const auto run = [](std::size_t budget, std::function<double(const Vector&)> f) {
    auto opt = random_opt();
    Objective o;
    o.function = std::move(f);
    o.direction = Direction::Minimize;
    o.name = "constant";
    RunOptions ro;
    ro.budget = budget;
    ro.on_failure = FailurePolicy::MarkFailed;
    return optimize(*opt, o, ro);
  };
  const RunSummary constant = run(6, [](const Vector&) { return 0.25; });
  ASSERT_EQ(constant.notes.size(), 1u);
  EXPECT_NE(constant.notes[0].find("every one of the 6 values was 0.25"), std::string::npos) << constant.notes[0];
  int k = 0;
  const RunSummary with_failures = run(8, [&k](const Vector&) {
    if (++k % 2 == 0) throw std::runtime_error("crashed");
    return 0.25;
  });
  ASSERT_EQ(with_failures.notes.size(), 0u);  // 4 values: too few
  EXPECT_TRUE(run(10, [](const Vector& x) { return x[0]; }).notes.empty());
  EXPECT_TRUE(run(4, [](const Vector&) { return 0.25; }).notes.empty());
}
