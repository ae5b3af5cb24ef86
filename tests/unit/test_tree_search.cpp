// Tree-search optimizers (docs/tree-search.md): the partition, SequOOL's and StroquOOL's budgets
// and per-depth counts, regret on garland, SOO and the uniform grid, replay.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <optional>

#include "optimist/algorithms/tree/tree_search.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/core/point_set.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

// Runs `spec` on garland (maximize) with the given noise and returns the simple regret of recommend().
double garland_regret(const nlohmann::json& spec, std::uint64_t budget, double noise, std::uint64_t seed) {
  const Problem p = make_problem("garland");
  auto opt = make_optimizer(spec, p.space, p.direction, {.seed = seed, .horizon = budget, .noisy = noise > 0.0});
  RunOptions ro;
  ro.budget = budget;
  optimize(*opt, p.objective(noise, seed + 1000), ro);
  return *p.f_star - p.f(opt->recommend());
}

// noisy: the objective's declaration (RunContext::noisy); by default noise > 0. Declared noisy, every
// planned step is an evaluation (exact budgets below); deterministic, a step whose point is known
// costs nothing.
template <class Alg>
std::unique_ptr<Alg> run_direct(std::uint64_t budget, unsigned k, std::uint64_t steps, double noise = 0.0,
                                std::optional<bool> noisy = std::nullopt) {
  const Problem p = make_problem("garland");
  TreeOptions o;
  o.children = k;
  auto opt = std::make_unique<Alg>(p.space, p.direction, o, RunContext{.horizon = budget, .noisy = noisy.value_or(noise > 0.0)});
  Objective obj = p.objective(noise, 3);
  for (std::uint64_t t = 0; t < steps; ++t) {
    Trial tr = opt->ask();
    opt->tell(tr, obj.function(tr.x));
  }
  return opt;
}

}  // namespace

TEST(TreePartition, SplitsTheLongestSideIntoKEqualChildren) {
  Partition part(2, 3);
  const auto first = part.split(0);  // both sides 1: the first coordinate
  ASSERT_EQ(part.size(), 4u);
  for (unsigned c = 0; c < 3; ++c) {
    EXPECT_DOUBLE_EQ(part.lower(first + c)[0], c / 3.0);
    EXPECT_DOUBLE_EQ(part.width(first + c)[0], 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(part.width(first + c)[1], 1.0);
    EXPECT_EQ(part.depth(first + c), 1u);
  }
  const auto g = part.split(first + 1);  // now the second coordinate is longest
  EXPECT_DOUBLE_EQ(part.width(g)[1], 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(part.width(g)[0], 1.0 / 3.0);
  double c[2];
  part.center(g + 2, c);
  EXPECT_DOUBLE_EQ(c[0], 0.5);
  EXPECT_DOUBLE_EQ(c[1], 5.0 / 6.0);
  part.random_point(g, 7, c);
  EXPECT_GE(c[1], 0.0);
  EXPECT_LT(c[1], 1.0 / 3.0);
  EXPECT_EQ(part.bytes_per_node(), 2 * 2 * sizeof(double) + 4 + 1);
  EXPECT_EQ(part.split(0, 2), 7u);  // partial split: 2 of 3 children
  EXPECT_EQ(part.size(), 9u);
}

TEST(TreeSequOOL, ScheduleUsesTheWholeBudgetAndFollowsFigure1) {
  for (unsigned k : {2u, 3u}) {
    for (std::uint64_t n : {1ull, 2ull, 3ull, 7ull, 42ull, 100ull, 1000ull, 12345ull, 1000000ull}) {
      std::uint64_t partial = 0, h_max = 0;
      std::size_t pdepth = 0;
      const auto o = SequOOL::schedule(n, k, &partial, &pdepth, &h_max);
      std::uint64_t used = partial;
      for (auto x : o) used += k * x;
      EXPECT_EQ(used, n) << "n = " << n << " K = " << k;
      if (n < k) continue;
      EXPECT_EQ(o[0], 1u);
      // Fig. 1's own schedule, floor(h_max / h) openings at depth h (at most the cells there); the
      // paper allows n + 1 openings, so it may not fit n evaluations exactly.
      std::vector<std::uint64_t> paper(h_max + 1, 1);
      std::uint64_t paper_cost = k;
      for (std::size_t h = 1; h <= h_max; ++h) paper_cost += k * (paper[h] = std::min<std::uint64_t>(h_max / h, k * paper[h - 1]));
      for (std::size_t h = 1; h < o.size(); ++h) {
        EXPECT_LE(o[h], k * o[h - 1]) << "h = " << h;  // no more openings than cells
        // Remark 3.2: c >= 1, at least Fig. 1's openings when they fit the budget.
        if (h <= h_max && paper_cost <= n) {
          EXPECT_GE(o[h], paper[h]) << "n = " << n << " h = " << h;
        }
      }
    }
  }
  // n = 1000, K = 2: N = 500 openings, Hbar_500 = 6.7928..., h_max = floor(500 / 6.7928) = 73.
  std::uint64_t h_max = 0;
  SequOOL::schedule(1000, 2, nullptr, nullptr, &h_max);
  EXPECT_EQ(h_max, 73u);
}

TEST(TreeSequOOL, RunOpensTheScheduledCellsPerDepthAndUsesExactlyTheBudget) {
  // Default repeats (auto) with noise-free garland declared noisy: the root evaluated twice (equal
  // values), then Fig. 1's schedule (p = 1) for the n - 2 evaluations left.
  const std::uint64_t n = 1000;
  auto opt = run_direct<SequOOL>(n, 2, n, 0.0, true);
  EXPECT_EQ(opt->evaluations_planned(), n);
  EXPECT_EQ(opt->repeats(), 1u);
  std::uint64_t partial = 0;
  const auto o = SequOOL::schedule(n - 2, 2, &partial);
  // The partial opening (if any) is counted among its depth's openings.
  auto done = opt->openings();
  std::uint64_t total_done = std::accumulate(done.begin(), done.end(), std::uint64_t{0});
  std::uint64_t total_sched = std::accumulate(o.begin(), o.end(), std::uint64_t{0}) + (partial ? 1 : 0);
  EXPECT_EQ(total_done, total_sched);
  for (std::size_t h = 0; h < o.size(); ++h) EXPECT_GE(done[h], o[h]) << h;
  EXPECT_EQ(opt->run(), 0);
  EXPECT_EQ(opt->partition().size(), n - 2 + 1);  // the root (twice) and every other node once
  opt->ask();  // the next ask starts the doubling trick's next run
  EXPECT_EQ(opt->run(), 1);
}

TEST(TreeSequOOL, DeterministicObjectiveNeedsNoPilotAndNeverRepeatsAPoint) {
  // Declared deterministic (the default): Fig. 1 at once, no pilot. Cells deeper than 2^-53 around
  // garland's optimum share their centre in double precision: those steps take the known value and
  // cost no evaluation, so the run plans more steps than it evaluates points.
  const std::uint64_t n = 1000;
  auto opt = run_direct<SequOOL>(n, 2, n);
  EXPECT_EQ(opt->repeats(), 1u);
  PointSet seen;
  for (const auto& o : opt->history()) EXPECT_TRUE(seen.insert(o.trial.x));
  EXPECT_EQ(seen.size(), n);
  EXPECT_GT(opt->evaluations_planned(), n);
  EXPECT_EQ(opt->repeats_replaced(), 0u);
}

TEST(TreeSequOOL, AutoRepeatsDetectNoiseFromTheRepeatedRootValue) {
  const std::uint64_t n = 1000;
  auto noisy = run_direct<SequOOL>(n, 2, n, 0.1);
  EXPECT_EQ(noisy->repeats(), SequOOL::kNoisyRepeats);
  EXPECT_EQ(noisy->evaluations_planned(), n);
  // SequOOL(4) on the 998 evaluations after the pilot: floor(998 / 4) cells, the first one also
  // takes the remainder, plus the root.
  EXPECT_EQ(noisy->partition().size(), (n - 2) / SequOOL::kNoisyRepeats + 1);
  // Fixed p: no pilot.
  const Problem p = make_problem("garland");
  SequOOL fixed(p.space, p.direction, TreeOptions{}, {.horizon = n, .noisy = true}, SequOOL::Output::LowerConfidence, 1);
  Objective obj = p.objective(0.1, 3);
  for (std::uint64_t t = 0; t < n; ++t) {
    Trial tr = fixed.ask();
    fixed.tell(tr, obj.function(tr.x));
  }
  EXPECT_EQ(fixed.repeats(), 1u);
  EXPECT_EQ(fixed.partition().size(), n + 1);
}

TEST(TreeSequOOL, DeterministicRegretOnGarlandShrinksExponentially) {
  const nlohmann::json spec = {{"name", "sequool"}};
  const double r100 = garland_regret(spec, 100, 0.0, 0), r200 = garland_regret(spec, 200, 0.0, 0),
               r400 = garland_regret(spec, 400, 0.0, 0), r1000 = garland_regret(spec, 1000, 0.0, 0),
               r10000 = garland_regret(spec, 10000, 0.0, 0);
  EXPECT_LT(r100, 0.05);
  EXPECT_LT(r200, r100 / 10);
  EXPECT_LT(r400, r200 / 10);
  EXPECT_LT(r1000, 2e-8);  // the floor: garland's supremum sits at a sqrt cusp (1.2e-8)
  EXPECT_LT(r10000, 2e-8);
}

TEST(TreeSequOOL, RepeatsEvaluateEveryCellPTimesWithinTheExactBudget) {
  // SequOOL(p) (sec. 4): floor(n/p) cells, each evaluated p times; the remainder n mod p goes to
  // the first cell, so exactly n evaluations.
  const Problem p = make_problem("garland");
  for (const std::uint64_t n : {1u, 2u, 1000u, 1001u}) {
    auto opt = make_optimizer({{"name", "sequool"}, {"repeats", 3}}, p.space, p.direction, RunContext{.horizon = n, .noisy = true});
    RunOptions ro;
    ro.budget = n;
    optimize(*opt, p.objective(0.1, 7), ro);
    const auto& tree = dynamic_cast<const TreeOptimizer&>(*opt);
    EXPECT_EQ(tree.evaluations_planned(), n) << n;
    if (n >= 3) {
      EXPECT_EQ(tree.partition().size(), n / 3 + 1) << n;  // every node but the root
    }
  }
}

TEST(TreeSequOOL, DeepestOutputResistsTheWinnersCurseUnderNoise) {
  // Fig. 1's x(n), the largest single noisy value, is biased towards lucky noise; the deepest
  // opened cell is not (docs/tree-search.md). Same exploration, different output.
  double best = 0.0, deepest = 0.0;
  for (std::uint64_t s = 1; s <= 20; ++s) {
    best += garland_regret({{"name", "sequool"}, {"output", "best"}}, 5000, 1.0, s) / 20;
    deepest += garland_regret({{"name", "sequool"}, {"output", "deepest"}}, 5000, 1.0, s) / 20;
  }
  EXPECT_LT(deepest, best);
  // Deterministic feedback: both find garland's optimum (the deepest opened cell is evaluated).
  EXPECT_LT(garland_regret({{"name", "sequool"}, {"output", "best"}}, 1000, 0.0, 0), 2e-8);
  EXPECT_LT(garland_regret({{"name", "sequool"}, {"output", "deepest"}}, 1000, 0.0, 0), 2e-8);
}

TEST(TreeSequOOL, AnytimeWithoutBudgetUsesTheDoublingTrick) {
  auto opt = run_direct<SequOOL>(0, 2, 64);
  EXPECT_EQ(opt->run(), 0);
  opt->ask();
  EXPECT_EQ(opt->run(), 1);
  const Problem p = make_problem("garland");
  auto any = make_optimizer({{"name", "sequool"}}, p.space, p.direction);
  RunOptions ro;
  ro.budget = 2000;
  optimize(*any, p.objective(), ro);
  EXPECT_LT(*p.f_star - p.f(any->recommend()), 1e-6);
}

TEST(TreeStroquOOL, HMaxIsTheLargestWhoseExactCountFits) {
  for (unsigned k : {2u, 3u})
    for (std::uint64_t n : {8ull, 42ull, 500ull, 5000ull, 50000ull}) {
      const auto H = StroquOOL::fit_h_max(n, k);
      ASSERT_GE(H, 1u);
      EXPECT_LE(StroquOOL::evaluations(H, k), n);
      EXPECT_GT(StroquOOL::evaluations(H + 1, k), n);
    }
  // The paper's h_max = floor(n / (2 (Hbar_n + 1)^2)) is 2 for n = 500; the exact count allows 29.
  EXPECT_EQ(StroquOOL::fit_h_max(500, 2), 29u);
}

TEST(TreeStroquOOL, BudgetUsedExactlyAndPerDepthCountsMatchFigure2) {
  for (std::uint64_t n : {500ull, 5000ull}) {
    auto opt = run_direct<StroquOOL>(n, 2, n, 0.1);
    EXPECT_EQ(opt->evaluations_planned(), n);
    EXPECT_EQ(opt->run(), 0);
    const std::uint64_t H = opt->h_max();
    const auto& op = opt->openings();
    const auto& ev = opt->exploration_evaluations();
    EXPECT_EQ(op[0], 1u);
    EXPECT_EQ(ev[0], 2 * H);  // Init: the root opened h_max times
    EXPECT_EQ(op[1], 2u);     // only K = 2 cells at depth 1
    EXPECT_EQ(ev[1], 2 * (H + H / 2));
    std::uint64_t explored = 0;
    for (std::size_t h = 0; h < op.size(); ++h) {
      explored += ev[h];
      if (h >= 1) {
        EXPECT_LE(op[h], H / h);
        if (op[h] == H / h) {  // every m opened: sum_m K floor(h_max / (h m)) evaluations
          std::uint64_t e = 0;
          for (std::uint64_t m = 1; m <= H / h; ++m) e += 2 * (H / (h * m));
          EXPECT_EQ(ev[h], e) << "h = " << h;
        }
      }
    }
    EXPECT_GT(op[H / 4], 0u);  // the exploration reaches deep depths
    const std::uint64_t p_max = static_cast<std::uint64_t>(std::floor(std::log2(static_cast<double>(H))));
    EXPECT_GE(opt->cross_validation_evaluations(), (p_max + 1) * (H / 2));
    EXPECT_EQ(explored + opt->cross_validation_evaluations(), n);
  }
}

TEST(TreeStroquOOL, NoisyErrorFallsWithBudgetAndWithNoise) {
  const nlohmann::json spec = {{"name", "stroquool"}};
  auto mean_regret = [&](std::uint64_t n, double noise) {
    double s = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) s += garland_regret(spec, n, noise, seed);
    return s / 5;
  };
  const double small = mean_regret(500, 0.1), large = mean_regret(50000, 0.1);
  EXPECT_LT(large, small / 2);
  EXPECT_LT(large, 0.03);
  EXPECT_LT(mean_regret(5000, 0.01), mean_regret(5000, 1.0));
  EXPECT_LT(mean_regret(5000, 0.0), 1e-3);
}

TEST(TreeSoo, DeterministicGarlandAndRootFirst) {
  const Problem p = make_problem("garland");
  auto opt = make_optimizer({{"name", "soo"}}, p.space, p.direction);
  EXPECT_DOUBLE_EQ(opt->ask().x[0], 0.5);
  EXPECT_LT(garland_regret({{"name", "soo"}}, 1000, 0.0, 0), 1e-4);
  EXPECT_LT(garland_regret({{"name", "soo"}}, 10000, 0.0, 0), 1e-6);
}

// h_max(t) = t^depth_exponent overflows a double for a large exponent: every depth is then within
// reach (found by fuzz_options: 9e16 made it inf, converted to an integer: undefined behaviour).
TEST(TreeSoo, AHugeDepthExponentReachesEveryDepth) {
  EXPECT_LT(garland_regret({{"name", "soo"}, {"depth_exponent", 9.007199254740993e16}}, 1000, 0.0, 0), 1e-2);
}

TEST(TreeUniformGrid, BreadthFirstDyadicPointsIn1D) {
  const Problem p = make_problem("garland");
  auto opt = make_optimizer({{"name", "uniform-grid"}}, p.space, p.direction);
  const double want[] = {0.5, 0.25, 0.75, 0.125, 0.375, 0.625, 0.875, 0.0625};
  double best = -1, best_x = 0;
  for (double w : want) {
    Trial t = opt->ask();
    EXPECT_DOUBLE_EQ(t.x[0], w);
    opt->tell(t, p.f(t.x));
    if (p.f(t.x) > best) {
      best = p.f(t.x);
      best_x = w;
    }
  }
  EXPECT_DOUBLE_EQ(opt->recommend()[0], best_x);
}

TEST(TreeReplay, FreshOptimizerFedTheSameTellsAsksTheSameNextPointForEveryOption) {
  const Problem p = make_problem("garland");
  for (std::string name : {"sequool", "stroquool", "soo", "uniform-grid"})
    for (unsigned k : {2u, 3u})
      for (std::string rep : {"center", "random"}) {
        const nlohmann::json spec = {{"name", name}, {"children", k}, {"representative", rep}};
        RunContext run{.seed = 4};
        if (name == "sequool" || name == "stroquool") run.horizon = 300;
        auto a = make_optimizer(spec, p.space, p.direction, run);
        Objective obj = p.objective(0.1, 9);
        for (int t = 0; t < 120; ++t) {
          Trial tr = a->ask();
          a->tell(tr, obj.function(tr.x));
        }
        auto b = make_optimizer(spec, p.space, p.direction, run);
        for (const auto& o : a->history()) b->tell(o.trial.x, o.value);
        EXPECT_EQ(a->ask().x, b->ask().x) << spec.dump();
        EXPECT_EQ(a->recommend(), b->recommend()) << spec.dump();
      }
}

TEST(TreeOptions, InvalidChildrenIsRejected) {
  const Problem p = make_problem("garland");
  EXPECT_THROW(make_optimizer({{"name", "sequool"}, {"children", 4}}, p.space, p.direction), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "soo"}, {"representative", "corner"}}, p.space, p.direction), InvalidArgument);
}

TEST(TreeStroquOOL, CrossValidationCandidatesAreSelectedOnExplorationCounts) {
  // Noise-free: x(n,0) is the best cell of the tree; x(n,p_max) needs T >= 2^p_max from the
  // exploration alone, so it is a shallow cell (the cross-validation evaluations planned for
  // smaller p must not make a deep cell eligible).
  auto opt = run_direct<StroquOOL>(5000, 2, 5000, 0.0, true);  // every planned evaluation made
  const auto c = opt->candidates();
  const Problem p = make_problem("garland");
  ASSERT_GE(c.size(), 3u);
  const double first = *p.f_star - p.f(p.space.to_user(c.front().first));
  const double last = *p.f_star - p.f(p.space.to_user(c.back().first));
  EXPECT_LT(first, 1e-3);
  EXPECT_GT(last, 0.05);
  for (const auto& [u, m] : c) EXPECT_FALSE(std::isnan(m));  // every candidate cross-validated
}

// withdraw() of a planned step: the step goes back to the front of the plan and the next ask asks
// it again, so the run goes on as the uninterrupted one (here both children of the root are asked
// at once, the first given back and asked again).
TEST(TreeWithdraw, AWithdrawnStepIsAskedAgain) {
  const Problem p = make_problem("garland");
  for (const std::string name : {"sequool", "stroquool", "soo"}) {
    SCOPED_TRACE(name);
    const RunContext context{.seed = 4, .horizon = 40};
    auto reference = make_optimizer({{"name", name}}, p.space, p.direction, context);
    std::vector<Vector> points;
    for (int k = 0; k < 12; ++k) {
      const Trial t = reference->ask();
      points.push_back(t.x);
      reference->tell(t, p.f(t.x));
    }
    auto opt = make_optimizer({{"name", name}}, p.space, p.direction, context);
    const Trial root = opt->ask();
    ASSERT_EQ(root.x, points[0]);
    opt->tell(root, p.f(root.x));
    const Trial first = opt->ask(), second = opt->ask();
    ASSERT_EQ(first.x, points[1]);
    ASSERT_EQ(second.x, points[2]);
    opt->withdraw(first);
    const Trial again = opt->ask();
    EXPECT_EQ(again.x, points[1]);
    opt->tell(second, p.f(second.x));
    opt->tell(again, p.f(again.x));
    for (std::size_t k = 3; k < points.size(); ++k) {
      const Trial t = opt->ask();
      ASSERT_EQ(t.x, points[k]) << "step " << k;
      opt->tell(t, p.f(t.x));
    }
    EXPECT_EQ(dynamic_cast<const TreeOptimizer&>(*opt).evaluations_planned(),
              dynamic_cast<const TreeOptimizer&>(*reference).evaluations_planned());
  }
}
