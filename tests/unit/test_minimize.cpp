// The one-call C++ API (experiment/minimize.hpp): outcomes, failures, bad input, traces and resume.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "optimist/core/trace.hpp"
#include "optimist/experiment/minimize.hpp"
#include "temp_test_dir.hpp"

namespace optimist {
namespace {

namespace fs = std::filesystem;

// Branin, minimum 0.397887 at three points of [-5, 10] x [0, 15].
double branin(const Vector& x) {
  const double a = x[1] - 5.1 / (4 * M_PI * M_PI) * x[0] * x[0] + 5 / M_PI * x[0] - 6;
  return a * a + 10 * (1 - 1 / (8 * M_PI)) * std::cos(x[0]) + 10;
}

Space branin_space() {
  Space s;
  s.add_continuous("x", -5.0, 10.0).add_continuous("y", 0.0, 15.0);
  return s;
}

TEST(Minimize, FindsBraninsMinimumWithTheDefaults) {
  const MinimizeResult r = minimize(branin, branin_space(), {.budget = 40, .seed = 1});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.reason, StopReason::Budget);
  EXPECT_EQ(r.evaluations.size(), 40u);
  EXPECT_LT(*r.best_y, 0.397887 + 0.05);  // gp-ei (auto's choice) reaches it within 40 evaluations
  EXPECT_DOUBLE_EQ(branin(*r.best_x), *r.best_y);
  EXPECT_EQ(r.decisions.at("algorithm"), "gp-ei");
  EXPECT_EQ(r.decisions.at("resolved").at("prior"), "botorch");
  // Deterministic: the same seed, the same run.
  const MinimizeResult again = minimize(branin, branin_space(), {.budget = 40, .seed = 1});
  for (std::size_t k = 0; k < 40; ++k) EXPECT_EQ(again.evaluations[k].x, r.evaluations[k].x);
}

TEST(Minimize, MaximizesStopsAtATargetAndTakesAnyAlgorithmWithItsOptions) {
  const auto negated = [](const Vector& x) { return -branin(x); };
  const MinimizeResult r = maximize(negated, branin_space(),
                                    {.algorithm = "gp-ucb", .options = {{"beta", 2.0}}, .budget = 60, .seed = 2, .target = -0.6});
  EXPECT_EQ(r.reason, StopReason::Target);
  EXPECT_GE(*r.best_y, -0.6);
  EXPECT_LT(r.evaluations.size(), 60u);
  EXPECT_EQ(r.decisions, nlohmann::json::parse(R"({"resolved": {"prior": "gamma", "output_warp": "none", "mean": "learned", "rotation": "none"}})"));  // gp-ucb: as before
}

TEST(Minimize, AFailingFunctionStopsTheRunOrIsMarkedFailed) {
  int calls = 0;
  const auto fails_at_four = [&](const Vector& x) {
    if (++calls == 4) throw std::runtime_error("simulator diverged");
    return x.squaredNorm();
  };
  const Space space = Space::box(2, -1.0, 1.0);
  const MinimizeResult stopped = minimize(fails_at_four, space, {.algorithm = "random", .budget = 10});
  EXPECT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.reason, StopReason::ObjectiveFailed);
  EXPECT_EQ(stopped.evaluations.size(), 4u);  // the failed one is recorded too
  EXPECT_NE(stopped.message.find("simulator diverged"), std::string::npos) << stopped.message;
  // The exception that stopped the run, with its type, for a caller that wants to rethrow it.
  ASSERT_TRUE(stopped.objective_exception);
  EXPECT_THROW(std::rethrow_exception(stopped.objective_exception), std::runtime_error);
  struct SolverCrash {
    int code;
  };
  const MinimizeResult crashed = minimize([](const Vector&) -> double { throw SolverCrash{7}; }, space, {.algorithm = "random", .budget = 5});
  EXPECT_EQ(crashed.reason, StopReason::ObjectiveFailed);
  ASSERT_TRUE(crashed.objective_exception);
  try {
    std::rethrow_exception(crashed.objective_exception);
  } catch (const SolverCrash& e) {
    EXPECT_EQ(e.code, 7);
  }
  calls = 0;
  const MinimizeResult marked = minimize(fails_at_four, space, {.algorithm = "random", .budget = 10, .on_failure = FailurePolicy::MarkFailed});
  EXPECT_TRUE(marked.ok());
  EXPECT_EQ(marked.evaluations.size(), 10u);
  EXPECT_EQ(marked.n_failed, 1u);
  EXPECT_FALSE(marked.objective_exception);  // the run did not stop for it
  const auto nan_at = [](const Vector& x) { return x[0] > 0 ? std::nan("") : x.squaredNorm(); };
  const MinimizeResult nan_stop = minimize(nan_at, space, {.algorithm = "random", .budget = 20});
  EXPECT_EQ(nan_stop.reason, StopReason::ObjectiveFailed);
  EXPECT_FALSE(nan_stop.objective_exception);  // a NaN value, nothing thrown
  // ok() is not "has a best" (the header's example once dereferenced best_y under ok()): every
  // evaluation failed and marked, or a stop before the first one, leaves no best and no answer.
  const MinimizeResult none = minimize([](const Vector&) { return std::nan(""); }, space,
                                       {.algorithm = "gp-ei", .budget = 6, .on_failure = FailurePolicy::MarkFailed});
  EXPECT_TRUE(none.ok());
  EXPECT_EQ(none.n_failed, 6u);
  EXPECT_FALSE(none.best_y || none.best_x || none.recommended_x);
  const MinimizeResult stopped_first = minimize([](const Vector& x) { return x.squaredNorm(); }, space, {.budget = 6, .should_stop = [] { return true; }});
  EXPECT_TRUE(stopped_first.ok());
  EXPECT_EQ(stopped_first.reason, StopReason::Cancelled);
  EXPECT_FALSE(stopped_first.best_y || stopped_first.best_x);
}

TEST(Minimize, BadInputIsRefusedNamingTheValue) {
  const Space space = Space::box(2, -1.0, 1.0);
  const auto f = [](const Vector& x) { return x.squaredNorm(); };
  const auto message = [&](const std::function<double(const Vector&)>& g, const MinimizeOptions& o) {
    try {
      minimize(g, space, o);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message(nullptr, {}).find("function is empty"), std::string::npos);
  EXPECT_NE(message(f, {.budget = 0}).find("budget"), std::string::npos);
  EXPECT_NE(message(f, {.algorithm = "gp-eii"}).find("gp-eii"), std::string::npos);
  EXPECT_NE(message(f, {.algorithm = "gp-ei", .options = {{"betta", 1}}}).find("betta"), std::string::npos);
  EXPECT_NE(message(f, {.algorithm = "gp-ei", .options = {{"xi", "big"}}}).find("big"), std::string::npos);
  EXPECT_NE(message(f, {.options = {{"seed", 3}}}).find("'seed'"), std::string::npos);
  EXPECT_NE(message(f, {.options = nlohmann::json::array()}).find("JSON object"), std::string::npos);
  EXPECT_NE(message(f, {.time_limit_s = std::nan("")}).find("time_limit_s must be a finite number > 0, got nan"), std::string::npos);
  EXPECT_NE(message(f, {.time_limit_s = -1.0}).find("-1"), std::string::npos);
  EXPECT_NE(message(f, {.target = INFINITY}).find("target"), std::string::npos);
  EXPECT_NE(message(f, {.resume = "/nonexistent/run.jsonl"}).find("/nonexistent/run.jsonl"), std::string::npos);
}

TEST(Minimize, AStoppedRunResumesFromItsTraceExactlyAsIfUninterrupted) {
  const fs::path dir = testing::test_dir("optimist_minimize");
  const std::string trace = (dir / "sub" / "run.jsonl").string();
  const Space space = branin_space();
  int asks = 0;
  MinimizeOptions o{.algorithm = "gp-ei", .budget = 16, .seed = 5, .trace = trace};
  o.should_stop = [&] { return ++asks > 9; };  // Ctrl-C after 9 evaluations
  const MinimizeResult first = minimize(branin, space, o);
  EXPECT_EQ(first.reason, StopReason::Cancelled);
  ASSERT_EQ(first.evaluations.size(), 9u);
  EXPECT_EQ(read_trace(trace).evaluations.size(), 9u);

  MinimizeOptions rest{.algorithm = "gp-ei", .budget = 16, .seed = 5, .trace = trace, .resume = trace};
  int calls = 0;
  const MinimizeResult resumed = minimize([&](const Vector& x) { ++calls; return branin(x); }, space, rest);
  EXPECT_EQ(calls, 7);  // the 9 paid for are not evaluated again
  EXPECT_EQ(resumed.n_resumed, 9u);
  const MinimizeResult whole = minimize(branin, space, {.algorithm = "gp-ei", .budget = 16, .seed = 5});
  ASSERT_EQ(resumed.evaluations.size(), 16u);
  for (std::size_t k = 0; k < 16; ++k) EXPECT_EQ(resumed.evaluations[k].x, whole.evaluations[k].x) << k;
  const Trace t = read_trace(trace);
  EXPECT_TRUE(t.complete());
  EXPECT_EQ(t.evaluations.size(), 16u);

  // Another run's trace is refused, naming what differs.
  const auto refused = [&](MinimizeOptions bad, const std::string& expected) {
    bad.resume = trace;
    try {
      minimize(branin, space, bad);
      ADD_FAILURE() << "accepted: " << expected;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused({.algorithm = "gp-ei", .budget = 20, .seed = 6}, "with seed 5; this call runs gp-ei with seed 6");
  refused({.algorithm = "turbo", .budget = 20, .seed = 5}, "is a run of gp-ei");
  refused({.algorithm = "gp-ei", .options = {{"xi", 0.1}}, .budget = 20, .seed = 5}, "other options");
  refused({.algorithm = "gp-ei", .budget = 20, .seed = 5, .noisy = true}, "noisy = false");
  refused({.algorithm = "gp-ei", .budget = 12, .seed = 5}, "run.jsonl' holds 16 evaluations, more than the budget of 12");
  EXPECT_THROW(maximize(branin, space, {.algorithm = "gp-ei", .budget = 20, .seed = 5, .resume = trace}), InvalidArgument);
  EXPECT_THROW(minimize(branin, Space::box(2, 0.0, 1.0), {.algorithm = "gp-ei", .budget = 20, .seed = 5, .resume = trace}), InvalidArgument);
}

}  // namespace
}  // namespace optimist
