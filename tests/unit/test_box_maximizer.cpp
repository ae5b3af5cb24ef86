// The shared multi-start L-BFGS-B box maximizer: global maximum of a multimodal function, bounds,
// non-finite values, line-search failures, determinism, the batch scorer and merged restarts.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "optimist/solvers/box_maximizer.hpp"

using namespace optimist;

namespace {

// Sum of Gaussian bumps sum_k a_k exp(-|x - c_k|^2 / (2 w^2)) with its gradient. Centres far apart
// relative to w, so the global maximum is the tallest centre (other bumps add < e^-40 there).
struct Bumps {
  std::vector<Vector> centres;
  std::vector<double> heights;
  double width;
  double operator()(const Vector& x, Vector* grad) const {
    double v = 0.0;
    if (grad) grad->setZero();
    for (std::size_t k = 0; k < centres.size(); ++k) {
      const Vector diff = x - centres[k];
      const double b = heights[k] * std::exp(-diff.squaredNorm() / (2 * width * width));
      v += b;
      if (grad) *grad -= b / (width * width) * diff;
    }
    return v;
  }
};

Bumps five_d_bumps() {
  Bumps f;
  f.width = 0.08;
  const double c[4][5] = {{0.2, 0.8, 0.3, 0.6, 0.7}, {0.8, 0.2, 0.7, 0.3, 0.2}, {0.5, 0.5, 0.9, 0.9, 0.1}, {0.1, 0.1, 0.1, 0.1, 0.9}};
  const double h[4] = {0.9, 1.0, 0.95, 0.7};
  for (int k = 0; k < 4; ++k) {
    f.centres.push_back(Eigen::Map<const Vector>(c[k], 5));
    f.heights.push_back(h[k]);
  }
  return f;
}

}  // namespace

TEST(BoxMaximizer, FindsGlobalMaximumOfBumps) {
  const Bumps f = five_d_bumps();
  Rng rng(1);
  const BoxMaximizerResult r = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), {}, {}, rng);
  EXPECT_NEAR(r.value, 1.0, 1e-8);
  EXPECT_LT((r.x - f.centres[1]).norm(), 1e-4);
  EXPECT_EQ(r.local_searches, 10u);
  EXPECT_GT(r.evaluations, 512u);
}

TEST(BoxMaximizer, MergedRestartsFindTheSameMaximumWithFewerEvaluations) {
  const Bumps f = five_d_bumps();
  BoxMaximizerOptions merged;
  merged.merge_radius = 0.05;
  Rng rng_a(1), rng_b(1);
  const BoxMaximizerResult all = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), {}, {}, rng_a);
  const BoxMaximizerResult r = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), {}, merged, rng_b);
  EXPECT_EQ(all.merged_searches, 0u);
  EXPECT_GT(r.merged_searches, 0u);
  EXPECT_EQ(r.local_searches, 10u);
  EXPECT_LT(r.evaluations, all.evaluations);
  EXPECT_NEAR(r.value, 1.0, 1e-8);
  EXPECT_LT((r.x - f.centres[1]).norm(), 1e-4);
}

TEST(BoxMaximizer, ASearchStopsWhereItMeetsAnEarlierClimbAndOnlyThere) {
  // Starts by value: 0.02 from the tallest centre, 0.03 from it (within the radius of the first
  // search's climb, lower: merged at its first evaluation), 0.02 from a lower bump far away.
  const Bumps f = five_d_bumps();
  Vector e = Vector::Zero(5);
  e[0] = 1.0;
  const std::vector<Vector> starts = {f.centres[1] + 0.02 * e, f.centres[1] - 0.03 * e, f.centres[0] + 0.02 * e};
  BoxMaximizerOptions o;
  o.raw_samples = 0;
  o.restarts = 3;
  o.merge_radius = 0.05;
  Rng rng(1);
  const BoxMaximizerResult r = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), starts, o, rng);
  EXPECT_EQ(r.local_searches, 3u);
  EXPECT_EQ(r.merged_searches, 1u);
  EXPECT_EQ(r.failed_searches, 0u);
  EXPECT_NEAR(r.value, 1.0, 1e-8);
  o.merge_radius = 0.0;
  Rng rng_all(1);
  const BoxMaximizerResult all = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), starts, o, rng_all);
  EXPECT_EQ(all.merged_searches, 0u);
  EXPECT_GT(all.evaluations, r.evaluations + 1);
  // Without the far bump's search the count drops by more than one evaluation: it was not merged.
  o.merge_radius = 0.05;
  o.restarts = 2;
  Rng rng_two(1);
  const BoxMaximizerResult two = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), starts, o, rng_two);
  EXPECT_EQ(two.merged_searches, 1u);
  EXPECT_GT(r.evaluations, two.evaluations + 1);
}

TEST(BoxMaximizer, RespectsBoundsAndStopsAtTheBoundary) {
  // Unconstrained maximum at (3, -2, 0.5): outside the box in the first two coordinates.
  const BoxObjective f = [](const Vector& x, Vector* g) {
    const Vector c = (Vector(3) << 3.0, -2.0, 0.5).finished();
    if (g) *g = -2.0 * (x - c);
    return -(x - c).squaredNorm();
  };
  const Vector lo = (Vector(3) << -1.0, 0.0, 0.0).finished(), hi = (Vector(3) << 2.0, 1.0, 1.0).finished();
  std::size_t outside = 0;
  const BoxObjective watched = [&](const Vector& x, Vector* g) {
    if ((x.array() < lo.array()).any() || (x.array() > hi.array()).any()) ++outside;
    return f(x, g);
  };
  Rng rng(2);
  BoxMaximizerOptions opt;
  opt.raw_samples = 64;
  opt.restarts = 3;
  const BoxMaximizerResult r = maximize_in_box(watched, lo, hi, {(Vector(3) << 10.0, 10.0, 10.0).finished()}, opt, rng);
  EXPECT_EQ(outside, 0u);
  EXPECT_TRUE(((r.x.array() >= lo.array()) && (r.x.array() <= hi.array())).all());
  EXPECT_NEAR(r.x[0], 2.0, 1e-6);
  EXPECT_NEAR(r.x[1], 0.0, 1e-6);
  EXPECT_NEAR(r.x[2], 0.5, 1e-4);
  EXPECT_NEAR(r.value, -(1.0 + 4.0), 1e-6);
}

TEST(BoxMaximizer, DegenerateBoxDimension) {
  const Bumps f = five_d_bumps();
  Vector lo = Vector::Zero(5), hi = Vector::Ones(5);
  lo[2] = hi[2] = 0.7;  // fixed coordinate
  Rng rng(3);
  const BoxMaximizerResult r = maximize_in_box(f, lo, hi, {}, {}, rng);
  EXPECT_EQ(r.x[2], 0.7);
  EXPECT_TRUE(r.found());
  // The tallest bump's centre has x2 = 0.7: the global maximum is still reachable, and found.
  EXPECT_NEAR(r.value, 1.0, 1e-8);
  EXPECT_LT((r.x - f.centres[1]).norm(), 1e-4);
}

TEST(BoxMaximizer, NonFiniteValuesAreSkipped) {
  // NaN on x0 < 0.5, +inf on a thin band (must not be returned), a bump at (0.75, 0.4) elsewhere.
  const BoxObjective f = [](const Vector& x, Vector* g) {
    if (x[0] < 0.5) return std::nan("");
    if (x[1] > 0.95) return std::numeric_limits<double>::infinity();
    const Vector c = (Vector(2) << 0.75, 0.4).finished();
    const double v = std::exp(-(x - c).squaredNorm() / 0.02);
    if (g) *g = -v / 0.01 * (x - c);
    return v;
  };
  Rng rng(4);
  const BoxMaximizerResult r = maximize_in_box(f, Vector::Zero(2), Vector::Ones(2), {}, {}, rng);
  EXPECT_TRUE(std::isfinite(r.value));
  EXPECT_NEAR(r.value, 1.0, 1e-8);
  EXPECT_NEAR(r.x[0], 0.75, 1e-4);
  EXPECT_NEAR(r.x[1], 0.4, 1e-4);

  // Nothing finite at all: reported as not found, centre returned.
  const BoxObjective nan_everywhere = [](const Vector&, Vector*) { return std::nan(""); };
  const BoxMaximizerResult none = maximize_in_box(nan_everywhere, Vector::Zero(2), Vector::Ones(2), {}, {}, rng);
  EXPECT_FALSE(none.found());
  EXPECT_EQ(none.x, Vector::Constant(2, 0.5));
  EXPECT_EQ(none.local_searches, 0u);
}

TEST(BoxMaximizer, LineSearchFailuresKeepTheBestPoint) {
  // A wrong (sign-flipped) gradient makes every line search fail; the best point seen survives.
  const Bumps f = five_d_bumps();
  std::size_t calls = 0;
  double best_seen = -1.0;
  const BoxObjective wrong = [&](const Vector& x, Vector* g) {
    ++calls;
    const double v = f(x, g);
    if (g) *g = -*g;
    best_seen = std::max(best_seen, v);
    return v;
  };
  Rng rng(5);
  const BoxMaximizerResult r = maximize_in_box(wrong, Vector::Zero(5), Vector::Ones(5), {}, {}, rng);
  EXPECT_GT(r.failed_searches, 0u);
  EXPECT_EQ(r.value, best_seen);
  EXPECT_EQ(r.evaluations, calls);
  EXPECT_DOUBLE_EQ(f(r.x, nullptr), r.value);
}

TEST(BoxMaximizer, ExceptionsFromTheObjectivePropagate) {
  const BoxObjective f = [](const Vector& x, Vector* g) -> double {
    if (g) throw NumericalError("model broke");
    return x.sum();
  };
  Rng rng(6);
  EXPECT_THROW(maximize_in_box(f, Vector::Zero(2), Vector::Ones(2), {}, {}, rng), NumericalError);
}

TEST(BoxMaximizer, StartsBatchScorerAndDeterminism) {
  const Bumps f = five_d_bumps();
  // No raw samples: a single start near the tallest bump is refined to it.
  BoxMaximizerOptions opt;
  opt.raw_samples = 0;
  opt.restarts = 1;
  Rng rng(7);
  Vector start = f.centres[1].array() + 0.03;
  BoxMaximizerResult r = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), {start}, opt, rng);
  EXPECT_NEAR(r.value, 1.0, 1e-8);
  EXPECT_EQ(r.local_searches, 1u);

  // No local search: the best scored candidate, which with a batch scorer counts all of them.
  opt.raw_samples = 100;
  opt.restarts = 0;
  std::size_t batch_points = 0;
  const BoxBatchObjective batch = [&](const Matrix& X) {
    batch_points += static_cast<std::size_t>(X.cols());
    Vector v(X.cols());
    for (Eigen::Index j = 0; j < X.cols(); ++j) v[j] = f(X.col(j), nullptr);
    return v;
  };
  r = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), {start}, opt, rng, batch);
  EXPECT_EQ(batch_points, 101u);
  EXPECT_EQ(r.evaluations, 101u);
  EXPECT_EQ(r.x, start);

  // Same seed, same answer.
  Rng a(8), b(8);
  const BoxMaximizerResult ra = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), {}, {}, a);
  const BoxMaximizerResult rb = maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), {}, {}, b);
  EXPECT_EQ(ra.x, rb.x);
  EXPECT_EQ(ra.value, rb.value);
  EXPECT_EQ(ra.evaluations, rb.evaluations);
}

TEST(BoxMaximizer, RejectsBadBounds) {
  const Bumps f = five_d_bumps();
  Rng rng(9);
  EXPECT_THROW(maximize_in_box(f, Vector::Ones(5), Vector::Zero(5), {}, {}, rng), InvalidArgument);
  EXPECT_THROW(maximize_in_box(f, Vector::Zero(5), Vector::Ones(4), {}, {}, rng), InvalidArgument);
  EXPECT_THROW(maximize_in_box(f, Vector::Zero(0), Vector::Zero(0), {}, {}, rng), InvalidArgument);
  Vector hi = Vector::Ones(5);
  hi[1] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(maximize_in_box(f, Vector::Zero(5), hi, {}, {}, rng), InvalidArgument);
  EXPECT_THROW(maximize_in_box(f, Vector::Zero(5), Vector::Ones(5), {Vector::Zero(3)}, {}, rng), InvalidArgument);
}
