// Contract tests that every registered algorithm must pass: determinism from the seed, replay
// reproducibility, batches, pending points, mixed spaces, and answers inside the space.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "optimist/core/driver.hpp"
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

TEST_P(Conformance, BadTellsAreRejected) {
  auto opt = make_optimizer(spec_for(GetParam()), mixed_space(), Direction::Maximize, run_for(1));
  Trial t = opt->ask();
  EXPECT_THROW(opt->tell(t, std::nan("")), InvalidArgument);
  EXPECT_THROW(opt->tell(Vector::Zero(2), 1.0), InvalidArgument);
  opt->tell(t, 1.0);
  EXPECT_THROW(opt->tell(t, 1.0), InvalidArgument);  // told twice
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
