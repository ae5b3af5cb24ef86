#include <gtest/gtest.h>

#include <Eigen/QR>

#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/core/registry.hpp"
#include "optimist/models/parametric/mlp.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;
using Rep = GradientEllipsoid::Representation;

namespace {

struct LinearizedData {
  Vector w0;
  std::vector<Vector> g;
  std::vector<double> c;  // linearization targets g_i^T w_i + y_i - f_i
};

LinearizedData linearized_data(Eigen::Index d, int t, std::uint64_t seed) {
  Rng rng(seed);
  LinearizedData data{rng.normal_vector(d), {}, {}};
  for (int i = 0; i < t; ++i) {
    data.g.push_back(rng.normal_vector(d));
    const Vector w_i = rng.normal_vector(d);
    const double y = rng.normal(), f = rng.normal();
    data.c.push_back(data.g.back().dot(w_i) + y - f);
  }
  return data;
}

GradientEllipsoid build(const LinearizedData& data, double lambda, Rep rep) {
  GradientEllipsoid e(data.w0, lambda, rep);
  for (std::size_t i = 0; i < data.g.size(); ++i) e.add(data.g[i], data.c[i]);
  return e;
}

}  // namespace

TEST(GradientEllipsoid, ClosedFormCenterMinimizesTheLinearizedLeastSquares) {
  // Eq. (4) as a stacked least-squares problem [sqrt(lambda) I; G] w ~ [sqrt(lambda) w0; c], solved by QR.
  for (Rep rep : {Rep::Dense, Rep::LowRank}) {
    for (int t : {3, 40}) {
      const Eigen::Index d = 12;
      const double lambda = 0.7;
      const LinearizedData data = linearized_data(d, t, 17 + t);
      Matrix A(d + t, d);
      Vector b(d + t);
      A.topRows(d) = std::sqrt(lambda) * Matrix::Identity(d, d);
      b.head(d) = std::sqrt(lambda) * data.w0;
      for (int i = 0; i < t; ++i) {
        A.row(d + i) = data.g[static_cast<std::size_t>(i)].transpose();
        b[d + i] = data.c[static_cast<std::size_t>(i)];
      }
      const Vector direct = A.colPivHouseholderQr().solve(b);
      const GradientEllipsoid e = build(data, lambda, rep);
      EXPECT_LT((e.center() - direct).norm(), 1e-9 * (1 + direct.norm())) << "t = " << t;
    }
  }
}

TEST(GradientEllipsoid, IncrementalFactorEqualsFullRecomputation) {
  const Eigen::Index d = 30;
  const double lambda = 2.0;
  const LinearizedData data = linearized_data(d, 120, 5);
  Matrix sigma = lambda * Matrix::Identity(d, d);
  for (const auto& g : data.g) sigma += g * g.transpose();
  const Matrix L = Eigen::LLT<Matrix>(sigma).matrixL();
  const GradientEllipsoid dense = build(data, lambda, Rep::Dense);
  EXPECT_LT((dense.dense_factor() - L).norm(), 1e-9 * L.norm());
  const GradientEllipsoid low = build(data, lambda, Rep::LowRank);
  EXPECT_LT((low.sigma() - sigma).norm(), 1e-9 * sigma.norm());
  Rng rng(3);
  for (int k = 0; k < 10; ++k) {
    const Vector g = rng.normal_vector(d);
    const double exact = std::sqrt(g.dot(sigma.llt().solve(g)));
    EXPECT_NEAR(dense.inverse_norm(g), exact, 1e-9 * exact);
    EXPECT_NEAR(low.inverse_norm(g), exact, 1e-9 * exact);
  }
}

TEST(GradientEllipsoid, ProjectionIsTheExactMahalanobisProjection) {
  for (Rep rep : {Rep::Dense, Rep::LowRank}) {
    const Eigen::Index d = 8;
    const LinearizedData data = linearized_data(d, 5, 9);
    const GradientEllipsoid e = build(data, 0.5, rep);
    const Matrix sigma = e.sigma();
    const double beta = 0.3;
    Rng rng(11);
    for (int k = 0; k < 50; ++k) {
      const Vector w = e.center() + 3.0 * rng.normal_vector(d);
      const Vector p = e.project(w, beta);
      const Vector dp = p - e.center();
      ASSERT_LE(dp.dot(sigma * dp), beta * (1 + 1e-9));  // on or inside Ball_t
      // Variational inequality of the projection in the Sigma inner product:
      // (w - p)^T Sigma (q - p) <= 0 for every q in the ellipsoid.
      for (int j = 0; j < 50; ++j) {
        Vector u = rng.normal_vector(d);
        u *= std::pow(rng.uniform(), 1.0 / static_cast<double>(d)) / u.norm();
        const Vector q = e.from_ball(u, beta);
        ASSERT_LE((w - p).dot(sigma * (q - p)), 1e-8 * (1 + (w - p).norm()));
      }
      // Points inside are left alone; ball coordinates round-trip.
      const Vector inside = e.from_ball(0.5 * rng.normal_vector(d).normalized(), beta);
      EXPECT_LT((e.project(inside, beta) - inside).norm(), 1e-10);
      EXPECT_NEAR(e.to_ball(inside, beta).norm(), 0.5, 1e-9);
    }
  }
}

TEST(GoUcb, DefaultPhaseOneLengthFollowsTheorem41) {
  EXPECT_EQ(GoUcb::default_n_init(72), 8u);
  EXPECT_EQ(GoUcb::default_n_init(30), 5u);
  EXPECT_EQ(GoUcb::default_n_init(20), 4u);
}

TEST(GoUcb, RejectsBadOptionsWithTheirNames) {
  const Space s = Space::box(2, 0, 1);
  auto error_of = [&](const nlohmann::json& spec) {
    try {
      make_optimizer(spec, s);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of({{"name", "go-ucb"}}).find("budget"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"n_init", 10}}).find("n_init"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"acquisition", "greedy"}}).find("greedy"), std::string::npos);
  EXPECT_NE(error_of({{"name", "go-ucb"}, {"budget", 10}, {"activation", "gelu"}}).find("gelu"), std::string::npos);
}

namespace {
double workshop_final_regret(const std::string& algorithm, std::uint64_t seed) {
  const Problem p = make_problem("sigmoid_1d");
  auto model = std::make_shared<Mlp>(1, std::vector<std::size_t>{1}, Activation::Sigmoid);  // w2/(1+e^-(w1 x+b1)) + b2
  GoUcbOptions o;
  o.variant = algorithm;
  o.seed = seed;
  o.budget = 20;
  o.n_init = 5;
  o.standardize = false;
  GoUcb opt(p.space, p.direction, o, model);
  RunOptions ro;
  ro.budget = 20;
  const RunSummary s = optimize(opt, p.objective(0.01, seed), ro);
  return *s.simple_regret;
}
}  // namespace

TEST(GoUcb, WorkshopRealizableSigmoidTask) {
  for (const std::string variant : {"workshop", "go-ucb"}) {
    int good = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) good += workshop_final_regret(variant, seed) <= 0.05;
    EXPECT_GE(good, 9) << variant;
  }
}

TEST(GoUcb, RealizableTwentyDimensionalTaskBeatsRandomSearch) {
  const Problem p = make_problem("goucb_f1", 20);
  double goucb = 0, random = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    RunOptions ro;
    ro.budget = 30;
    auto g = make_optimizer({{"name", "go-ucb"}, {"seed", seed}, {"budget", 30}}, p.space, p.direction);
    goucb += *optimize(*g, p.objective(0.01, seed), ro).cum_regret;
    auto r = make_optimizer({{"name", "random"}, {"seed", seed}}, p.space, p.direction);
    random += *optimize(*r, p.objective(0.01, seed), ro).cum_regret;
  }
  EXPECT_LT(goucb, 0.5 * random) << "go-ucb " << goucb / 10 << " random " << random / 10;
}
