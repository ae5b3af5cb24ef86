// TuRBO-1 and TuRBO-m: trust-region expand / shrink / restart bookkeeping through tells (the region
// itself: test_trust_region.cpp), the
// lengthscale-weighted region, pathwise Thompson samples, batches and the options.
#include <gtest/gtest.h>

#include <cmath>

#include "optimist/algorithms/kernel/turbo.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

double bowl(const Vector& x) { return -(x.array() - 0.3).square().sum(); }

std::unique_ptr<Optimizer> small_turbo(std::size_t failure_tolerance, std::uint64_t seed = 1) {
  return make_optimizer({{"name", "turbo"}, {"n_init", 4}, {"failure_tolerance", failure_tolerance}, {"n_candidates", 200}}, Space::box(2, 0.0, 1.0), Direction::Maximize, RunContext{.seed = seed});
}

}  // namespace

TEST(Turbo, SyntheticSuccessesExpandAndFailuresShrinkThenRestart) {
  auto opt = small_turbo(2);
  auto& turbo = dynamic_cast<Turbo&>(*opt);
  // Design: not judged.
  for (int k = 0; k < 4; ++k) {
    const Trial t = opt->ask();
    opt->tell(t, static_cast<double>(k));
  }
  EXPECT_EQ(opt->diagnostics().at("tr_length").get<double>(), 0.8);
  // Strict improvements by more than 1e-3 |best|: three successes double the side.
  double value = 10.0;
  for (int k = 0; k < 3; ++k) {
    const Trial t = opt->ask();
    opt->tell(t, value *= 2.0);
  }
  EXPECT_DOUBLE_EQ(turbo.trust_region().length, 1.6);
  // An improvement below 1e-3 |best| is a failure.
  {
    const Trial t = opt->ask();
    opt->tell(t, value * (1.0 + 1e-4));
  }
  EXPECT_EQ(turbo.trust_region().failures, 1u);
  // Failures (tolerance 2) halve it: 1.6 -> 0.8 -> ... until below 2^-7 (8 halvings, 16 tells;
  // one failure was already counted).
  std::size_t tells = 0;
  while (turbo.trust_region().restarts == 0) {
    const Trial t = opt->ask();
    opt->tell(t, -1.0);
    ++tells;
    ASSERT_LT(tells, 100u);
  }
  EXPECT_EQ(tells, 15u);
  const nlohmann::json diag = opt->diagnostics();
  EXPECT_EQ(diag.at("tr_restarts").get<std::size_t>(), 1u);
  EXPECT_DOUBLE_EQ(diag.at("tr_length").get<double>(), 0.8);
  // The run restarts from an empty design.
  EXPECT_EQ(turbo.run_size(), 0u);
  for (int k = 0; k < 4; ++k) {
    const Trial t = opt->ask();
    opt->tell(t, 0.0);
  }
  EXPECT_EQ(turbo.run_size(), 4u);
  EXPECT_EQ(turbo.model().size(), 4);
}

TEST(Turbo, StateIsAFunctionOfTheToldHistory) {
  auto a = small_turbo(2, 7);
  for (int k = 0; k < 20; ++k) {
    const Trial t = a->ask();
    a->tell(t, bowl(t.unit) - 0.01 * k);
  }
  auto b = small_turbo(2, 7);
  for (const Observation& o : a->history()) b->tell(o.trial.x, o.value);
  EXPECT_EQ(a->diagnostics(), b->diagnostics());
  EXPECT_EQ(a->ask().x, b->ask().x);
}

TEST(Turbo, CandidatesStayInTheLengthscaleWeightedRegion) {
  auto opt = make_optimizer({{"name", "turbo"}, {"n_init", 6}, {"failure_tolerance", 1}, {"n_candidates", 300}}, Space::box(3, 0.0, 1.0), Direction::Maximize, RunContext{.seed = 2});
  auto& turbo = dynamic_cast<Turbo&>(*opt);
  for (int k = 0; k < 9; ++k) {
    const Trial t = opt->ask();
    opt->tell(t, k < 6 ? bowl(t.unit) : -100.0);  // three failures after the design: L = 0.1
  }
  ASSERT_DOUBLE_EQ(turbo.trust_region().length, 0.1);
  Eigen::Index best = 0;
  Vector y(turbo.model().size());
  y = turbo.model().outputs();
  y.maxCoeff(&best);
  const Vector center = turbo.model().inputs().col(best);
  const Vector& l = turbo.model().kernel().lengthscales();
  const Vector half = 0.5 * 0.1 * l / std::exp(l.array().log().mean());
  for (const Trial& t : opt->ask(5)) {
    const Vector dev = (t.unit - center).cwiseAbs();
    for (Eigen::Index i = 0; i < 3; ++i) EXPECT_LE(dev[i], half[i] + 1e-12);
  }
}

TEST(Turbo, PathwiseSamplesHaveThePosteriorMoments) {
  Rng rng(4);
  Matrix X(1, 5);
  X << 0.1, 0.3, 0.45, 0.7, 0.9;
  Vector y(5);
  for (Eigen::Index j = 0; j < 5; ++j) y[j] = std::sin(6 * X(0, j)) + 0.1 * rng.normal();
  GpOptions o;
  o.fixed_noise_variance = 1e-3;
  GaussianProcess gp(1, o);
  gp.set_data(X, y);
  Rng fr(1);
  gp.fit(fr);
  Matrix C(1, 4);
  C << 0.0, 0.3, 0.55, 1.0;
  const std::size_t S = 3000;
  const Matrix draws = pathwise_thompson_samples(gp, C, S, 256, rng);
  ASSERT_EQ(draws.rows(), 4);
  ASSERT_EQ(draws.cols(), static_cast<Eigen::Index>(S));
  Vector mean, var;
  gp.predict(C, mean, var);
  for (Eigen::Index i = 0; i < 4; ++i) {
    const double m = draws.row(i).mean();
    const double v = (draws.row(i).array() - m).square().sum() / (S - 1.0);
    const double sd = std::sqrt(var[i]);
    EXPECT_NEAR(m, mean[i], 4.0 * sd / std::sqrt(static_cast<double>(S)) + 0.02 * sd) << i;
    EXPECT_NEAR(std::sqrt(v), sd, 0.1 * sd + 1e-3) << i;
  }
}

TEST(Turbo, PathwisePriorKeepsItsVarianceAtLargePhases) {
  // Lengthscale 0.004 in 3-D: the features' phases omega^T x reach the thousands, so the reduction
  // to [-pi, pi] before the single-precision cosine must be right for the prior variance (the
  // outputscale, far from the one data point) and the correlation of nearby points to come out.
  GpOptions o;
  o.fixed_noise_variance = 1e-4;
  GaussianProcess gp(3, o);
  Matrix X = Matrix::Constant(3, 1, 0.05);
  gp.set_data(X, Vector::Constant(1, 1.0));
  GpHyperparameters h;
  h.lengthscales = Vector::Constant(3, 0.004);
  h.outputscale = 2.0;
  h.noise_variance = 1e-4;
  h.mean = 0.0;
  gp.set_hyperparameters(h);
  Matrix C(3, 3);
  C.col(0) = Vector::Constant(3, 0.9);
  C.col(1) = Vector::Constant(3, 0.9);
  C(0, 1) += 0.002;  // half a lengthscale away: Matern-5/2 correlation 0.89
  C.col(2) = Vector::Constant(3, 0.55);
  Rng rng(8);
  const std::size_t S = 4000;
  const Matrix draws = pathwise_thompson_samples(gp, C, S, 512, rng);
  const double s2 = h.outputscale * gp.output_scale() * gp.output_scale();
  for (Eigen::Index i = 0; i < 3; ++i) {
    const double m = draws.row(i).mean();
    const double v = (draws.row(i).array() - m).square().sum() / (S - 1.0);
    EXPECT_NEAR(v, s2, 0.1 * s2) << i;
  }
  const Vector a = draws.row(0).transpose().array() - draws.row(0).mean();
  const Vector b = draws.row(1).transpose().array() - draws.row(1).mean();
  const Kernel& k = gp.kernel();
  const double rho = k.cross(C.col(0), C.col(1))(0, 0) / k.cross(C.col(0), C.col(0))(0, 0);
  EXPECT_NEAR(a.dot(b) / std::sqrt(a.squaredNorm() * b.squaredNorm()), rho, 0.05);
}

TEST(Turbo, BatchesAreDistinctAndExactSamplerWorks) {
  // Both samplers: batches of distinct points inside the lengthscale-weighted trust region around
  // the best point, the sampler option really switches the sampler (another batch from the same
  // state), and a short batched run closes in on the bowl's optimum (0.3, 0.3, 0.3, 0.3).
  std::vector<std::vector<Trial>> first_batches;
  for (const char* sampler : {"rff", "exact"}) {
    auto opt = make_optimizer({{"name", "turbo"}, {"n_init", 5}, {"sampler", sampler}, {"n_candidates", 150}, {"batch_size", 3}},
                              Space::box(4, 0.0, 1.0));
    auto& turbo = dynamic_cast<Turbo&>(*opt);
    for (int k = 0; k < 5; ++k) {
      const Trial t = opt->ask();
      opt->tell(t, bowl(t.unit));
    }
    for (int round = 0; round < 10; ++round) {
      const GaussianProcess& gp = turbo.model();
      Eigen::Index best = 0;
      gp.outputs().maxCoeff(&best);
      const Vector center = gp.inputs().col(best);
      const Vector& l = gp.kernel().lengthscales();
      const Vector half = 0.5 * turbo.trust_region().length * l / std::exp(l.array().log().mean());
      const std::vector<Trial> batch = opt->ask(3);
      ASSERT_EQ(batch.size(), 3u) << sampler;
      for (std::size_t i = 0; i < 3; ++i) {
        for (std::size_t j = 0; j < i; ++j) EXPECT_NE(batch[i].unit, batch[j].unit) << sampler;
        const Vector dev = (batch[i].unit - center).cwiseAbs();
        for (Eigen::Index a = 0; a < 4; ++a) EXPECT_LE(dev[a], half[a] + 1e-12) << sampler << " round " << round;
      }
      if (round == 0) first_batches.push_back(batch);
      for (const Trial& t : batch) opt->tell(t, bowl(t.unit));
    }
    // 35 evaluations; uniform random points reach -0.01 with probability about 2%.
    EXPECT_GT(opt->best()->value, -0.01) << sampler;
  }
  bool same = true;
  for (std::size_t i = 0; i < 3; ++i) same = same && first_batches[0][i].unit == first_batches[1][i].unit;
  EXPECT_FALSE(same) << "sampler: exact drew the rff sampler's batch";
}

TEST(Turbo, ImprovesOnASmoothProblem) {
  // Hartmann-6 (minimized, f* = -3.32): 60 evaluations reach below -2.5 in most seeds.
  const Problem p = make_problem("hartmann6");
  int good = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    auto opt = make_optimizer({{"name", "turbo"}, {"n_init", 10}}, p.space, p.direction, RunContext{.seed = seed});
    RunOptions ro;
    ro.budget = 60;
    const RunSummary s = optimize(*opt, p.objective(), ro);
    if (*s.best_f < -2.5) ++good;
  }
  EXPECT_GE(good, 3);
}

// ---- TuRBO-m ----

namespace {

std::unique_ptr<Optimizer> small_turbo_m(std::size_t m, std::uint64_t seed, nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json spec = {{"name", "turbo"}, {"n_init", 4}, {"n_candidates", 200}, {"trust_regions", m}};
  spec.update(extra);
  return make_optimizer(spec, Space::box(2, 0.0, 1.0), Direction::Maximize, {.seed = seed});
}

std::size_t total_run_size(const Turbo& t) {
  std::size_t n = 0;
  for (std::size_t r = 0; r < t.num_regions(); ++r) n += t.run_size(r);
  return n;
}

}  // namespace

TEST(TurboM, EveryRegionRunsItsOwnDesignThenTellsGoToTheRegionThatAsked) {
  auto opt = small_turbo_m(3, 4);
  auto& turbo = dynamic_cast<Turbo&>(*opt);
  ASSERT_EQ(turbo.num_regions(), 3u);
  std::vector<Vector> designs;
  for (int k = 0; k < 12; ++k) {
    const Trial t = opt->ask();
    designs.push_back(t.unit);
    opt->tell(t, bowl(t.unit));
    // Region 0's design first, then region 1's, then region 2's.
    EXPECT_EQ(turbo.run_size(static_cast<std::size_t>(k / 4)), static_cast<std::size_t>(k % 4 + 1)) << k;
  }
  for (std::size_t r = 0; r < 3; ++r) EXPECT_EQ(turbo.model(r).size(), 4);
  EXPECT_NE(designs[0], designs[4]);  // each region has its own design stream
  EXPECT_NE(designs[4], designs[8]);
  // Thompson sampling: every tell lands in exactly one region (no restart with the default tolerance).
  for (int k = 0; k < 12; ++k) {
    const Trial t = opt->ask();
    opt->tell(t, bowl(t.unit));
    EXPECT_EQ(total_run_size(turbo), static_cast<std::size_t>(13 + k));
  }
  const nlohmann::json diag = opt->diagnostics();
  EXPECT_EQ(diag.at("tr_sizes").size(), 3u);
  EXPECT_EQ(diag.at("tr_lengths").size(), 3u);
}

TEST(TurboM, ARegionCollapsesAndRestartsAloneKeepingTheOthersData) {
  // Failure tolerance 1 and length_min 0.3: the second failure of a region (0.8 -> 0.4 -> 0.2)
  // collapses it.
  auto opt = small_turbo_m(2, 9, {{"failure_tolerance", 1}, {"length_min", 0.3}});
  auto& turbo = dynamic_cast<Turbo&>(*opt);
  for (int k = 0; k < 8; ++k) {
    const Trial t = opt->ask();
    opt->tell(t, static_cast<double>(k));  // designs, not judged
  }
  std::size_t tells = 0;
  while (turbo.trust_region(0).restarts + turbo.trust_region(1).restarts == 0) {
    const Trial t = opt->ask();
    opt->tell(t, -1.0);
    ASSERT_LT(++tells, 10u);
  }
  const std::size_t gone = turbo.trust_region(0).restarts == 1 ? 0 : 1, kept = 1 - gone;
  EXPECT_EQ(turbo.trust_region(kept).restarts, 0u);
  EXPECT_EQ(turbo.run_size(gone), 0u);
  EXPECT_DOUBLE_EQ(turbo.trust_region(gone).length, 0.8);
  // The collapsed run took exactly two of the failures (0.8 -> 0.4 -> 0.2); the rest are the other's.
  EXPECT_EQ(turbo.run_size(kept), 4 + tells - 2);
  // The restarted region designs again, the other one keeps its model.
  const Trial t = opt->ask();
  opt->tell(t, 0.5);
  EXPECT_EQ(turbo.run_size(gone), 1u);
  EXPECT_EQ(turbo.model(kept).size(), static_cast<Eigen::Index>(turbo.run_size(kept)));
}

TEST(TurboM, BatchesTakeTheBestSamplesAcrossRegions) {
  auto opt = small_turbo_m(3, 5, {{"batch_size", 4}});
  auto& turbo = dynamic_cast<Turbo&>(*opt);
  for (const Trial& t : opt->ask(12)) opt->tell(t, bowl(t.unit));  // the three designs in one batch
  for (std::size_t r = 0; r < 3; ++r) EXPECT_EQ(turbo.run_size(r), 4u);
  for (int round = 0; round < 3; ++round) {
    const std::vector<Trial> batch = opt->ask(4);
    ASSERT_EQ(batch.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j < i; ++j) EXPECT_NE(batch[i].unit, batch[j].unit);
    for (const Trial& t : batch) opt->tell(t, bowl(t.unit));
  }
  EXPECT_EQ(total_run_size(turbo), 24u);
}

TEST(TurboM, FindsHartmann6sOptimum) {
  // Hartmann-6 (minimized, f* = -3.32): TuRBO-2 with 60 evaluations reaches below -3.0 in most
  // seeds (seeds 1-6: -3.28, -3.27, -3.19, -3.13, -1.89, -3.20).
  const Problem p = make_problem("hartmann6");
  int good = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    auto opt = make_optimizer({{"name", "turbo"}, {"n_init", 8}, {"trust_regions", 2}}, p.space, p.direction, RunContext{.seed = seed});
    RunOptions ro;
    ro.budget = 60;
    const RunSummary s = optimize(*opt, p.objective(), ro);
    if (*s.best_f < -3.0) ++good;
  }
  EXPECT_GE(good, 3);
}

TEST(Turbo, RejectsBadOptions) {
  const Space space = Space::box(2, 0.0, 1.0);
  EXPECT_THROW(make_optimizer({{"name", "turbo"}, {"sampler", "sobol"}}, space), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "turbo"}, {"length_min", 1.0}}, space), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "turbo"}, {"batch_size", 0}}, space), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "turbo"}, {"trust_regions", 0}}, space), InvalidArgument);
  auto opt = make_optimizer({{"name", "turbo"}}, Space::box(20, 0.0, 1.0));
  auto& t = dynamic_cast<Turbo&>(*opt);
  EXPECT_EQ(t.trust_region().failure_tolerance, 20u);
  EXPECT_EQ(t.n_init(), 40u);
}

// rff_features = 0 (the default): 1024 features below 300 points, so shorter runs keep their
// traces, and 512 from then (docs/gp-bo.md, "Fewer features past 300 points").
TEST(Turbo, DefaultFeatureCountHalvesPastThreeHundredPoints) {
  const Space space = Space::box(3, 0.0, 1.0);
  const auto next_point = [&](std::size_t points, const nlohmann::json& features) {
    nlohmann::json spec = {{"name", "turbo"}, {"n_candidates", 300}, {"max_model_points", 40}};
    if (!features.is_null()) spec["rff_features"] = features;
    auto opt = make_optimizer(spec, space, Direction::Maximize, RunContext{.seed = 4});
    // Increasing values at random points: every tell a success (the run never restarts into a new
    // design) and a rough posterior, whose Thompson samples depend on the features drawn.
    Rng rng(9);
    for (std::size_t k = 0; k < points; ++k) opt->tell(rng.uniform_vector(3), static_cast<double>(k));
    return opt->ask().x;
  };
  EXPECT_EQ(next_point(299, nullptr), next_point(299, 1024));
  EXPECT_NE(next_point(299, nullptr), next_point(299, 512));
  EXPECT_EQ(next_point(300, nullptr), next_point(300, 512));
  EXPECT_NE(next_point(300, nullptr), next_point(300, 1024));
}
