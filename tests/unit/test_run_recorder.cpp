// RunRecorder used the way an asynchronous loop uses it: several trials in flight, completions in
// any order, evaluations still arriving after the run has stopped.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/core/run_recorder.hpp"
#include "optimist/core/trace.hpp"
#include "temp_test_dir.hpp"

using namespace optimist;

namespace {

Objective sphere() {
  Objective o;
  o.direction = Direction::Minimize;
  o.optimum = 0.0;
  return o;
}

std::unique_ptr<Optimizer> random_opt() {
  return make_optimizer({{"name", "random"}}, Space::box(2, -1, 1), Direction::Minimize, RunContext{.seed = 2});
}

}  // namespace

TEST(RunRecorder, RecordsCompletionsInTheOrderTheyArrive) {
  auto opt = random_opt();
  const Objective objective = sphere();
  RunOptions options;
  options.budget = 3;
  options.on_failure = FailurePolicy::MarkFailed;
  const std::string path = (optimist::testing::test_dir("optimist_run_recorder") / "trace.jsonl").string();
  TraceWriter trace(path, TraceMeta{}, opt->space());
  options.trace = &trace;
  RunRecorder run(*opt, objective, options);
  const std::vector<Trial> trials = {opt->ask(), opt->ask(), opt->ask()};  // three in flight
  EXPECT_EQ(run.remaining(), 3u);
  run.record(trials[2], trials[2].x.squaredNorm(), 0.1, 0.2);
  run.record_failure(trials[0], RunRecorder::thrown(trials[0].x, "diverged", opt->space()), 0.1, 0.2);
  run.record(trials[1], trials[1].x.squaredNorm(), 0.1, 0.2);
  EXPECT_TRUE(run.stopped());
  EXPECT_TRUE(opt->pending().empty());
  const RunSummary s = run.finish();
  EXPECT_EQ(s.reason, StopReason::Budget);
  ASSERT_EQ(s.evaluations.size(), 3u);
  EXPECT_EQ(s.evaluations[0].x, trials[2].x);
  EXPECT_TRUE(s.evaluations[1].failed);
  EXPECT_NE(s.evaluations[1].error.find("objective threw at x = {x1: "), std::string::npos) << s.evaluations[1].error;
  EXPECT_EQ(*s.best_y, std::min(trials[1].x.squaredNorm(), trials[2].x.squaredNorm()));
  EXPECT_DOUBLE_EQ(*s.cum_regret, trials[1].x.squaredNorm() + trials[2].x.squaredNorm());

  const Trace back = read_trace(path);
  ASSERT_EQ(back.evaluations.size(), 3u);
  EXPECT_EQ(back.evaluations[1].at("status"), "failed");
  EXPECT_EQ(back.recommend->at("stop_reason"), "budget");
  std::filesystem::remove(path);
}

TEST(RunRecorder, EvaluationsUnderWayAfterAFailureAreStillKept) {
  auto opt = random_opt();
  const Objective objective = sphere();
  RunOptions options;
  options.budget = 10;  // FailurePolicy::Stop
  RunRecorder run(*opt, objective, options);
  const Trial a = opt->ask(), b = opt->ask(), c = opt->ask();
  run.record(a, 1.0, 0, 0);
  run.record(b, std::numeric_limits<double>::quiet_NaN(), 0, 0);
  EXPECT_TRUE(run.stopped());
  run.record(c, 0.5, 0, 0);  // was in flight: paid for, so kept
  const RunSummary s = run.finish();
  EXPECT_EQ(s.reason, StopReason::ObjectiveFailed);
  EXPECT_NE(s.message.find("objective returned nan"), std::string::npos) << s.message;
  EXPECT_EQ(s.evaluations.size(), 3u);
  EXPECT_EQ(*s.best_y, 0.5);
}

TEST(RunRecorder, StopAndAbandonLeaveNothingPending) {
  auto opt = random_opt();
  const Objective objective = sphere();
  RunOptions options;
  options.budget = 10;
  RunRecorder run(*opt, objective, options);
  const Trial a = opt->ask(), b = opt->ask();
  run.record(a, 0.3, 0, 0);
  run.stop(StopReason::Cancelled);
  run.stop(StopReason::TimeLimit);  // the first reason stays
  run.abandon(b);
  EXPECT_TRUE(opt->pending().empty());
  ASSERT_EQ(opt->history().size(), 1u);  // given back, not a failure of the optimizer's
  EXPECT_EQ(opt->history().back().trial.id, a.id);
  EXPECT_EQ(opt->ask().x, b.x);  // asked again by a run that goes on
  const RunSummary s = run.finish();
  EXPECT_EQ(s.reason, StopReason::Cancelled);
  EXPECT_EQ(s.message, "cancelled after 1 evaluations");
  EXPECT_EQ(s.evaluations.size(), 1u);
}

// A failed evaluation's message names every parameter with its value as written (a categorical's
// choice, not its index; a probe's 7-parameter calibration showed 6 unnamed values).
TEST(RunRecorder, APointInAMessageIsNamed) {
  Space space;
  space.add_continuous("A1", 1e3, 1e12, /*log_scale=*/true).add_integer("variant", 1, 3).add_categorical("solver", {"rk45", "bdf"});
  for (int k = 0; k < 5; ++k) space.add_continuous(std::string("p").append(std::to_string(k)), 0, 1);
  Vector x(8);
  x << 2.95316e11, 2, 1, 0.5, 0.25, 0.125, 1, 0;
  EXPECT_EQ(RunRecorder::describe_point(x, space), "{A1: 2.95316e+11, variant: 2, solver: bdf, p0: 0.5, p1: 0.25, p2: 0.125, p3: 1, p4: 0}");
  EXPECT_EQ(RunRecorder::thrown(x, "diverged", space).rfind("objective threw at x = {A1: 2.95316e+11, ", 0), 0u);
  const Space wide = Space::box(20, 0, 1);
  EXPECT_EQ(RunRecorder::describe_point(Vector::Zero(20), wide),
            "{x1: 0, x2: 0, x3: 0, x4: 0, x5: 0, x6: 0, x7: 0, x8: 0, x9: 0, x10: 0, ... (20 parameters)}");
}

namespace {
// Asks one point again and again (a noisy objective's repeats), as BKB or StoSOO may.
class SamePointOptimizer : public Optimizer {
 public:
  explicit SamePointOptimizer(const Space& space) : Optimizer("same-point", space, Direction::Minimize, RunContext{.noisy = true}) {}

 protected:
  std::vector<Vector> propose(std::size_t) override { return {Vector::Constant(static_cast<Eigen::Index>(space().dim()), 0.5)}; }
};
}  // namespace

// With a noisy objective evaluated several times at the recommended point, its value is the mean
// of those values, not the last one (a probe: 1608.9 and 2060.0 gave recommended_f 2060.0).
TEST(RunRecorder, TheRecommendedValueOfARepeatedPointIsTheMeanOfItsValues) {
  SamePointOptimizer opt(Space::box(2, 0, 1));
  Objective objective;
  objective.direction = Direction::Minimize;
  int calls = 0;
  const double values[] = {1608.9, 2060.0, 1700.0};
  objective.function = [&](const Vector&) { return values[calls++]; };
  RunOptions options;
  options.budget = 3;
  const RunSummary s = optimize(opt, objective, options);
  ASSERT_EQ(s.evaluations.size(), 3u);
  ASSERT_TRUE(s.recommended_f.has_value());
  EXPECT_DOUBLE_EQ(*s.recommended_f, (1608.9 + 2060.0 + 1700.0) / 3);
  EXPECT_DOUBLE_EQ(*s.best_y, 1608.9);  // the best observed value stays the best draw
}
