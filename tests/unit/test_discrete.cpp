// Integer and categorical spaces (docs/discrete.md): the finite-space helpers, the categorical
// kernel, the mixed acquisition maximizer, the tree partition on values, and the outcomes the
// model-based algorithms must reach on the two problems of issue 27.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <set>

#include "optimist/algorithms/bo/initial_design.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/algorithms/tree/partition.hpp"
#include "optimist/core/discrete_domain.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/core/point_set.hpp"
#include "optimist/core/trace.hpp"
#include "optimist/models/gp/gaussian_process.hpp"
#include "optimist/models/gp/kernel.hpp"
#include "optimist/models/gp/pathwise_sample.hpp"
#include "optimist/problems/problem.hpp"
#include "optimist/solvers/mixed_maximizer.hpp"
#include "temp_test_dir.hpp"

using namespace optimist;

namespace {

Space mixed_finite() {
  Space s;
  s.add_integer("n", 1, 4).add_categorical("c", {"a", "b", "c"}).add_categorical("flag", {"false", "true"});
  return s;  // 24 points
}

}  // namespace

// ---- the finite space ----

TEST(FiniteSpace, SizeIsTheProductOfCardinalitiesAndEmptyWithAContinuousParameter) {
  EXPECT_EQ(mixed_finite().finite_size(), std::optional<std::uint64_t>(24));
  Space s = mixed_finite();
  s.add_continuous("x", 0.0, 1.0);
  EXPECT_EQ(s.finite_size(), std::nullopt);
  Space huge;
  for (const char* name : {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"}) huge.add_integer(name, 0, 1'000'000);
  EXPECT_EQ(huge.finite_size(), std::optional<std::uint64_t>(std::numeric_limits<std::uint64_t>::max()));
}

// A design that covers its categoricals (DesignCategories::Cover): each block of k consecutive
// points takes every choice of a k-choice categorical once, in an order drawn from the seed; the
// other coordinates, and categoricals too large to cover or larger than the design, are left as
// drawn.
TEST(DesignCategories, EachBlockOfKPointsTakesEveryChoiceOnce) {
  std::vector<std::string> many;
  for (std::size_t j = 0; j <= kMaxCoveredChoices; ++j) many.push_back(std::to_string(j));
  const Space space = Space()
                          .add_categorical("a", {"a1", "a2", "a3"})
                          .add_continuous("x", 0.0, 1.0)
                          .add_categorical("b", {"b1", "b2", "b3", "b4", "b5"})
                          .add_categorical("c", many);
  std::vector<std::vector<std::size_t>> first_block(4);
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    Rng rng(seed);
    std::vector<std::size_t> a, b;
    for (std::uint64_t index = 0; index < 30; ++index) {
      const Vector drawn = rng.uniform_vector(4);
      Vector u = drawn;
      cover_categories(space, seed, 30, index, u);
      EXPECT_EQ(u[1], drawn[1]);
      EXPECT_EQ(u[3], drawn[3]);
      Vector again = drawn;
      cover_categories(space, seed, 30, index, again);
      EXPECT_EQ(again, u);
      Vector small = drawn;  // a design of 4 points covers a, not b (5 choices)
      cover_categories(space, seed, 4, index, small);
      EXPECT_EQ(small[0], u[0]);
      EXPECT_EQ(small[2], drawn[2]);
      a.push_back(space[0].cell_index(u[0]));
      b.push_back(space[2].cell_index(u[2]));
    }
    for (std::size_t start = 0; start + 3 <= a.size(); start += 3)
      EXPECT_EQ(std::set<std::size_t>(a.begin() + start, a.begin() + start + 3).size(), 3u) << "seed " << seed << ", block at " << start;
    for (std::size_t start = 0; start + 5 <= b.size(); start += 5)
      EXPECT_EQ(std::set<std::size_t>(b.begin() + start, b.begin() + start + 5).size(), 5u) << "seed " << seed << ", block at " << start;
    first_block[seed].assign(b.begin(), b.begin() + 5);
  }
  EXPECT_TRUE(covers_categories(space, 3));
  EXPECT_FALSE(covers_categories(Space().add_categorical("b", {"b1", "b2", "b3"}).add_continuous("x", 0.0, 1.0), 2));
  // The order is drawn: the four seeds do not all give one permutation.
  EXPECT_GT(std::set<std::vector<std::size_t>>(first_block.begin(), first_block.end()).size(), 1u);
}

TEST(DiscreteDomain, EnumeratesEveryPointOnceAndNeighboursAreOneStepAway) {
  const Space space = mixed_finite();
  const DiscreteDomain dom(space);
  const Vector zero = Vector::Zero(3), one = Vector::Ones(3);
  EXPECT_EQ(dom.count(zero, one), 24u);
  PointSet seen;
  dom.enumerate(zero, zero, one, [&](const Vector& u) {
    EXPECT_EQ(space.snap_unit(u), u);
    EXPECT_TRUE(seen.insert(space.to_user(u)));
    return true;
  });
  EXPECT_EQ(seen.size(), 24u);
  // Neighbours of (n = 1, c = b, flag = true): n = 2; c = a, c; flag = false.
  const Vector u = space.to_unit(space.point_from_json(nlohmann::json::array({1, "b", "true"})));
  std::vector<Vector> around;
  dom.neighbors(u, zero, one, around);
  ASSERT_EQ(around.size(), 4u);
  for (const auto& v : around) {
    const Vector d = space.to_user(v) - space.to_user(u);
    EXPECT_EQ((d.array() != 0).count(), 1);
    EXPECT_LE(std::abs(d[0]), 1.0);
  }
  // A box holding the values 2..3 of n only.
  Vector lo = zero, hi = one;
  lo[0] = 0.3;
  hi[0] = 0.7;
  EXPECT_EQ(dom.count(lo, hi), 2u * 3u * 2u);
}

TEST(DiscreteDomain, NearestFreePointIsTheClosestFreeOne) {
  Space space;
  space.add_integer("i", 0, 9).add_integer("j", 0, 9);
  const DiscreteDomain dom(space);
  PointSet taken;
  for (int i = 3; i <= 6; ++i)
    for (int j = 3; j <= 6; ++j) taken.insert((Vector(2) << i, j).finished());
  taken.erase((Vector(2) << 6, 3).finished());  // the one free cell of the block
  const auto free = [&](const Vector& u) { return !taken.contains(space.to_user(u)); };
  const Vector u = space.to_unit((Vector(2) << 5, 4).finished());
  const std::optional<Vector> v = dom.nearest_free(u, free);
  ASSERT_TRUE(v);
  EXPECT_EQ(space.to_user(*v), (Vector(2) << 6, 3).finished());
  const Vector outside = space.to_unit((Vector(2) << 0, 0).finished());
  EXPECT_EQ(dom.nearest_free(outside, free), std::optional<Vector>(outside));
}

// ---- the categorical kernel ----

TEST(CategoricalKernel, IsTheKernelOfTheOneHotEmbeddingAndPositiveSemiDefinite) {
  const std::vector<std::size_t> cats = {0, 4, 0, 3};
  for (const CategoryDistance distance : {CategoryDistance::Matched, CategoryDistance::Overlap}) {
    SCOPED_TRACE(kCategoryDistanceNames.name(distance));
    Kernel k(KernelType::Matern52, (Vector(4) << 0.3, 0.7, 1.1, 0.4).finished(), 1.7, cats, distance);
    Rng rng(3);
    Matrix X(4, 40);
    for (Eigen::Index j = 0; j < X.cols(); ++j) X.col(j) = rng.uniform_vector(4);
    const Matrix K = k.gram(X);
    // The same kernel written out: r^2 = sum_ordered ((x - x')/l)^2 + sum_categorical w_k [c != c'] / l^2,
    // w_k = k / (6 (k - 1)) matched, 1 overlap.
    for (Eigen::Index i = 0; i < X.cols(); ++i)
      for (Eigen::Index j = 0; j < X.cols(); ++j) {
        double r2 = 0.0;
        for (int p : {0, 2}) r2 += std::pow((X(p, i) - X(p, j)) / k.lengthscales()[p], 2);
        for (int p : {1, 3}) {
          const auto ci = static_cast<int>(std::floor(X(p, i) * cats[p])), cj = static_cast<int>(std::floor(X(p, j) * cats[p]));
          const double w = distance == CategoryDistance::Overlap ? 1.0 : cats[p] / (6.0 * (cats[p] - 1.0));
          if (ci != cj) r2 += w / std::pow(k.lengthscales()[p], 2);
        }
        double drho = 0.0;
        EXPECT_NEAR(K(i, j), 1.7 * k.profile(r2, &drho), 1e-12);
      }
    EXPECT_NEAR((K - k.cross(X, X)).cwiseAbs().maxCoeff(), 0.0, 1e-12);
    EXPECT_NEAR((K - k.cross_fast(X, X)).cwiseAbs().maxCoeff(), 0.0, 1e-12);  // through the embedding
    const Eigen::SelfAdjointEigenSolver<Matrix> eig(K);
    EXPECT_GT(eig.eigenvalues().minCoeff(), -1e-10);
    // Equal categories at different positions inside their interval: the same value.
    Vector a = X.col(0), b = X.col(0);
    b[1] = (std::floor(a[1] * 4) + 0.9) / 4;
    EXPECT_DOUBLE_EQ(k(a, a), k(a, b));
  }
}

TEST(CategoricalKernel, MatchedDistanceGivesRandomChoicesAContinuousParametersMeanSquaredDistance) {
  // Two uniform random values of [0, 1] are E (u - u')^2 = 1/6 apart; two uniform random choices of
  // a k-choice categorical differ with probability (k - 1) / k, so the matched weight gives them
  // the same mean, by enumeration of the k^2 pairs.
  for (std::size_t k : {2u, 3u, 5u, 64u}) {
    const double w = category_weight(k, CategoryDistance::Matched);
    double mean = 0.0;
    for (std::size_t c = 0; c < k; ++c)
      for (std::size_t c2 = 0; c2 < k; ++c2) mean += c != c2 ? w : 0.0;
    EXPECT_NEAR(mean / static_cast<double>(k * k), 1.0 / 6.0, 1e-12) << k;  // a sum of k^2 terms
    EXPECT_EQ(category_weight(k, CategoryDistance::Overlap), 1.0);
  }
  // The kernel between two points of different categories: the ordered dimension's value at
  // sqrt(w) units of the same lengthscale.
  Kernel categorical(KernelType::Matern52, Vector::Constant(1, 0.4), 1.0, {3});
  Kernel ordered(KernelType::Matern52, Vector::Constant(1, 0.4), 1.0);
  const double w = category_weight(3, CategoryDistance::Matched);  // 1/4
  EXPECT_NEAR(categorical(Vector::Constant(1, 0.1), Vector::Constant(1, 0.9)),
              ordered(Vector::Constant(1, 0.0), Vector::Constant(1, std::sqrt(w))), 1e-14);
}

TEST(CategoricalKernel, GradientsMatchFiniteDifferences) {
  const std::vector<std::size_t> cats = {3, 0, 5};
  Kernel k(KernelType::Matern32, (Vector(3) << 0.5, 0.3, 0.8).finished(), 1.2, cats);
  Rng rng(8);
  Matrix X(3, 12);
  for (Eigen::Index j = 0; j < X.cols(); ++j) X.col(j) = rng.uniform_vector(3);
  // x-gradient: 0 in categorical dimensions, central differences in the ordered one.
  Matrix jac;
  const Vector x = rng.uniform_vector(3);
  const Vector kx = k.cross_with_gradient(x, X, &jac);
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    EXPECT_EQ(jac(0, j), 0.0);
    EXPECT_EQ(jac(2, j), 0.0);
    Vector xp = x, xm = x;
    xp[1] += 1e-6;
    xm[1] -= 1e-6;
    EXPECT_NEAR(jac(1, j), (k(xp, X.col(j)) - k(xm, X.col(j))) / 2e-6, 1e-6);
  }
  // Lengthscale gradients: the contraction equals sum_ij W_ij dK_ij/dlog l_p, and dK/dlog l_p
  // equals finite differences.
  const std::vector<Matrix> dK = k.gram_gradients(X);
  Matrix W = Matrix::Random(12, 12);
  W = (W + W.transpose()).eval();
  const Vector g = k.gram_gradient_contract(X, W);
  for (Eigen::Index p = 0; p < 4; ++p) EXPECT_NEAR(g[p], W.cwiseProduct(dK[static_cast<std::size_t>(p)]).sum(), 1e-9);
  for (Eigen::Index p = 0; p < 3; ++p) {
    Vector lp = k.log_hyperparameters(), lm = lp;
    lp[p] += 1e-6;
    lm[p] -= 1e-6;
    Kernel kp = k, km = k;
    kp.set_log_hyperparameters(lp);
    km.set_log_hyperparameters(lm);
    EXPECT_NEAR((dK[static_cast<std::size_t>(p)] - (kp.gram(X) - km.gram(X)) / 2e-6).cwiseAbs().maxCoeff(), 0.0, 1e-6);
  }
}

TEST(CategoricalKernel, GpLikelihoodGradientMatchesFiniteDifferences) {
  GpOptions o;
  o.categories = {0, 4};
  GaussianProcess gp(2, o);
  Rng rng(2);
  Matrix X(2, 15);
  Vector y(15);
  for (Eigen::Index j = 0; j < 15; ++j) {
    X.col(j) = rng.uniform_vector(2);
    y[j] = std::sin(6 * X(0, j)) + std::floor(4 * X(1, j));
  }
  gp.set_data(X, y);
  const Vector theta = gp.parameters();
  Vector grad;
  gp.log_marginal_likelihood(theta, &grad, true);
  for (Eigen::Index p = 0; p < theta.size(); ++p) {
    Vector tp = theta, tm = theta;
    tp[p] += 1e-6;
    tm[p] -= 1e-6;
    const double fd = (gp.log_marginal_likelihood(tp, nullptr, true) - gp.log_marginal_likelihood(tm, nullptr, true)) / 2e-6;
    EXPECT_NEAR(grad[p], fd, 1e-4 * std::max(1.0, std::abs(fd))) << "parameter " << p;
  }
}

TEST(CategoricalKernel, PathwisePriorSamplesHaveTheKernelsCovariance) {
  GpOptions o;
  o.categories = {3, 0};
  GaussianProcess gp(2, o);  // no data: samples of the prior
  Matrix C(2, 3);
  C << 1.0 / 6, 1.0 / 6, 5.0 / 6,  // categories 0, 0, 2
      0.2, 0.6, 0.2;
  Rng rng(11);
  const Matrix S = pathwise_thompson_samples(gp, C, 4000, 512, rng);
  const Matrix centered = S.colwise() - S.rowwise().mean();
  const Matrix cov = centered * centered.transpose() / 4000.0;
  const Kernel& k = gp.kernel();
  for (Eigen::Index i = 0; i < 3; ++i)
    for (Eigen::Index j = 0; j < 3; ++j) EXPECT_NEAR(cov(i, j), k(C.col(i), C.col(j)), 0.12) << i << "," << j;
}

// ---- the mixed maximizer ----

TEST(MixedMaximizer, SmallDiscreteSpaceGivesTheEnumeratedArgmaxOfTheFreePoints) {
  const Space space = mixed_finite();
  const DiscreteDomain dom(space);
  const auto value = [&](const Vector& u) {
    const Vector x = space.to_user(u);
    return -std::pow(x[0] - 3.1, 2) + (x[1] == 2 ? 0.5 : 0.0) - 0.3 * x[2];
  };
  const BoxObjective f = [&](const Vector& u, Vector* grad) {
    if (grad) grad->setZero();
    return value(u);
  };
  PointSet excluded;
  excluded.insert(space.point_from_json(nlohmann::json::array({3, "c", "false"})));  // the argmax
  const auto is_excluded = [&](const Vector& u) { return excluded.contains(space.to_user(u)); };
  Rng rng(1);
  const MixedMaximizerResult r = maximize_mixed(dom, f, {}, Vector::Zero(3), Vector::Ones(3), {}, is_excluded, {}, rng);
  ASSERT_TRUE(r.x);
  EXPECT_TRUE(r.enumerated);
  // The enumerated argmax among free points.
  double best = -HUGE_VAL;
  Vector arg;
  dom.enumerate(Vector::Zero(3), Vector::Zero(3), Vector::Ones(3), [&](const Vector& u) {
    if (!is_excluded(u) && value(u) > best) {
      best = value(u);
      arg = u;
    }
    return true;
  });
  EXPECT_EQ(space.to_user(*r.x), space.to_user(arg));
  EXPECT_DOUBLE_EQ(r.value, best);
}

TEST(MixedMaximizer, LocalSearchFindsTheArgmaxOfALargeDiscreteSpaceAndSkipsExcludedPoints) {
  Space space;
  space.add_integer("i", 0, 99).add_integer("j", 0, 99).add_categorical("c", {"a", "b", "c", "d", "e"});  // 50,000 points
  const DiscreteDomain dom(space);
  const auto value = [&](const Vector& u) {
    const Vector x = space.to_user(u);
    return -std::pow((x[0] - 71) / 30.0, 2) - std::pow((x[1] - 12) / 30.0, 2) + (x[2] == 3 ? 0.2 : 0.0);
  };
  const BoxObjective f = [&](const Vector& u, Vector* grad) {
    const Vector x = space.to_user(u);
    if (grad) {  // the gradient of the relaxed (unsnapped) integers, in unit coordinates
      grad->setZero();
      (*grad)[0] = -2 * (u[0] * 100 - 0.5 - 71) / 900.0 * 100;
      (*grad)[1] = -2 * (u[1] * 100 - 0.5 - 12) / 900.0 * 100;
    }
    return -std::pow((u[0] * 100 - 0.5 - 71) / 30.0, 2) - std::pow((u[1] * 100 - 0.5 - 12) / 30.0, 2) +
           (x[2] == 3 ? 0.2 : 0.0);
  };
  const Vector top = space.point_from_json(nlohmann::json::array({71, 12, "d"}));
  for (bool exclude_top : {false, true}) {
    const auto excluded = [&](const Vector& u) { return exclude_top && space.to_user(u) == top; };
    Rng rng(4);
    MixedMaximizerOptions o;
    o.box.raw_samples = 128;
    o.box.restarts = 4;
    const MixedMaximizerResult r = maximize_mixed(dom, f, {}, Vector::Zero(3), Vector::Ones(3), {}, excluded, o, rng);
    ASSERT_TRUE(r.x);
    EXPECT_FALSE(r.enumerated);
    const Vector x = space.to_user(*r.x);
    if (!exclude_top) {
      EXPECT_EQ(x, top);
    } else {
      EXPECT_NE(x, top);
      EXPECT_NEAR(value(*r.x), value(space.to_unit(top)) - 1.0 / 900.0, 1e-12);  // one step away
    }
  }
}

TEST(MixedMaximizer, ContinuousCoordinatesAreOptimizedNextToDiscreteOnes) {
  Space space;
  space.add_continuous("x", -1.0, 1.0).add_categorical("c", {"a", "b", "c"}).add_integer("n", 0, 5);
  const DiscreteDomain dom(space);
  const BoxObjective f = [&](const Vector& u, Vector* grad) {
    const double x = -1.0 + 2.0 * u[0];
    const auto c = static_cast<int>(std::floor(u[1] * 3)), n = static_cast<int>(std::floor(u[2] * 6));
    if (grad) {
      grad->setZero();
      (*grad)[0] = -2.0 * (x - 0.37) * 2.0;
    }
    return -(x - 0.37) * (x - 0.37) + (c == 1 ? 1.0 : 0.0) - 0.1 * std::abs(n - 4);
  };
  Rng rng(5);
  const MixedMaximizerResult r = maximize_mixed(dom, f, {}, Vector::Zero(3), Vector::Ones(3), {}, [](const Vector&) { return false; },
                                                {}, rng);
  ASSERT_TRUE(r.x);
  const Vector x = space.to_user(*r.x);
  EXPECT_NEAR(x[0], 0.37, 1e-4);
  EXPECT_EQ(x[1], 1.0);
  EXPECT_EQ(x[2], 4.0);
}

// ---- the tree partition on values ----

TEST(DiscretePartition, SplitsOnValueBoundariesAndNeverSplitsASinglePoint) {
  // An integer with 5 values and a boolean; K = 3.
  Partition part(2, 3, {5, 2});
  EXPECT_EQ(part.split_size(0), 3u);
  const std::uint32_t first = part.split(0);  // along the integer (width 1 = the boolean's: first on ties)
  ASSERT_EQ(part.num_children(0), 3u);
  // Values 0 | 1, 2 | 3, 4 (floor(c m / 3) boundaries): widths 1/5, 2/5, 2/5.
  EXPECT_NEAR(part.width(first)[0], 0.2, 1e-15);
  EXPECT_NEAR(part.width(first + 1)[0], 0.4, 1e-15);
  EXPECT_NEAR(part.lower(first + 2)[0], 0.6, 1e-15);
  // The first child holds one integer value: it splits along the boolean into 2 children, then
  // each holds a single point.
  EXPECT_EQ(part.split_size(first), 2u);
  const std::uint32_t g = part.split(first);
  EXPECT_FALSE(part.splittable(g));
  EXPECT_FALSE(part.splittable(g + 1));
  EXPECT_THROW(part.split(g), std::logic_error);
}

// ---- the run: exhaustion, the noisy flag in the trace ----

TEST(FiniteSpaceRun, BudgetLargerThanTheSpaceStopsWhenEveryPointIsEvaluated) {
  const Problem p = make_problem("mixed_separable");
  auto opt = make_optimizer({{"name", "random"}}, p.space, p.direction, {.seed = 1});
  RunOptions options;
  options.budget = 100;
  const std::string path = (optimist::testing::test_dir("optimist_discrete") / "exhausted.jsonl").string();
  {
    TraceMeta meta = p.trace_meta("random", resolve_options({{"name", "random"}}), 1, 0.0, 100);
    TraceWriter writer(path, meta, p.space);
    options.trace = &writer;
    const RunSummary run = optimize(*opt, p.objective(), options);
    EXPECT_EQ(run.evaluations.size(), 60u);
    EXPECT_EQ(run.reason, StopReason::SpaceExhausted);
    EXPECT_NE(run.message.find("60 points"), std::string::npos) << run.message;
    EXPECT_EQ(*run.best_f, 0.0);
  }
  const Trace t = read_trace(path);
  ASSERT_TRUE(t.complete());
  EXPECT_EQ(t.recommend->value("stop_reason", ""), "space exhausted");
  EXPECT_FALSE(t.meta.noisy);
}

TEST(FiniteSpaceRun, TheNoisyFlagRoundTripsThroughTheTraceAndDefaultsToNoiseAboveZero) {
  TraceMeta m;
  m.algorithm = "random";
  m.problem = "p";
  m.noisy = true;
  EXPECT_TRUE(TraceMeta::from_json(m.to_json()).noisy);
  nlohmann::json old = m.to_json();
  old.erase("noisy");
  old["noise"] = 0.5;
  EXPECT_TRUE(TraceMeta::from_json(old).noisy);  // a trace written before "noisy": noise > 0
  old["noise"] = 0.0;
  EXPECT_FALSE(TraceMeta::from_json(old).noisy);
}

// ---- issue 27's two problems: distinct points only, the exact optimum, no safety net ----

namespace {

struct Outcome {
  std::size_t distinct = 0, evaluations = 0, replaced = 0;
  double best = HUGE_VAL;
};

Outcome run_problem(const std::string& algorithm, const std::string& problem, std::size_t budget, std::uint64_t seed) {
  const Problem p = make_problem(problem);
  auto opt = make_optimizer({{"name", algorithm}}, p.space, p.direction, {.seed = seed, .horizon = budget});
  RunOptions options;
  options.budget = budget;
  const RunSummary run = optimize(*opt, p.objective(), options);
  Outcome o;
  PointSet xs;
  for (const auto& r : run.evaluations) xs.insert(r.x);
  o.distinct = xs.size();
  o.evaluations = run.evaluations.size();
  o.replaced = opt->repeats_replaced();
  o.best = *run.best_f;
  return o;
}

class Issue27 : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Issue27, TwoIntegersDistinctPointsAndTheOptimum) {
  const Problem p = make_problem("int_sincos");
  for (std::uint64_t seed : {0, 1, 2}) {
    const Outcome o = run_problem(GetParam(), "int_sincos", 64, seed);
    EXPECT_EQ(o.distinct, 64u) << "seed " << seed;
    EXPECT_EQ(o.replaced, 0u) << "seed " << seed << ": the algorithm proposed a repeated point";
    EXPECT_NEAR(o.best, *p.f_star, 1e-12) << "seed " << seed;
  }
}

TEST_P(Issue27, CategoricalIntegerBooleanDistinctPointsAndTheOptimum) {
  for (std::uint64_t seed : {0, 1, 2}) {
    const Outcome o = run_problem(GetParam(), "mixed_separable", 40, seed);
    EXPECT_EQ(o.distinct, 40u) << "seed " << seed;
    EXPECT_EQ(o.replaced, 0u) << "seed " << seed << ": the algorithm proposed a repeated point";
    EXPECT_EQ(o.best, 0.0) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(ModelBased, Issue27, ::testing::Values("gp-ei", "go-ucb", "turbo"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// The baselines and the trees avoid repeats on their own too (the safety net stays idle).
TEST(FiniteSpaceRun, BaselinesAndTreesNeverNeedTheSafetyNet) {
  for (const char* a : {"random", "sobol", "sequool", "stroquool", "soo", "stosoo", "hoo", "poo", "uniform-grid", "gp-ucb", "gp-pi"}) {
    const Outcome o = run_problem(a, "mixed_separable", 60, 0);
    EXPECT_EQ(o.evaluations, 60u) << a;
    EXPECT_EQ(o.distinct, 60u) << a;
    EXPECT_EQ(o.replaced, 0u) << a;
  }
}
