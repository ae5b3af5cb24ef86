// AdditiveMlp, GO-UCB's additive family f_w(x) = c + sum_i g_i(x_i): derivatives against finite
// differences, additivity, the sampler's contract, bad input, and go-ucb's `model: additive`.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/models/parametric/additive_mlp.hpp"
#include "optimist/models/parametric/gradient_check.hpp"

using namespace optimist;

TEST(AdditiveMlp, ParameterCountAndDescription) {
  const AdditiveMlp m(20, 9);
  EXPECT_EQ(m.num_params(), 541u);
  EXPECT_EQ(AdditiveMlp::count_params(20, 9), 541u);
  EXPECT_EQ(m.input_dim(), 20u);
  EXPECT_EQ(m.describe(), "additive-mlp(d_x=20, units_per_input=9, activation=sigmoid, d_w=541)");
}

TEST(AdditiveMlp, ValueIsTheSumOfOneInputNetworks) {
  // d_x = 2, one unit each: f = c + v1 s(a1 x1 + b1) + v2 s(a2 x2 + b2).
  const AdditiveMlp m(2, 1);
  Vector w(7);
  w << 2.0, -0.5, 3.0, -1.0, 0.25, 0.5, 0.1;
  Vector x(2);
  x << 0.3, 0.8;
  auto s = [](double z) { return 1.0 / (1.0 + std::exp(-z)); };
  EXPECT_NEAR(m.value(w, x), 0.1 + 3.0 * s(2.0 * 0.3 - 0.5) + 0.5 * s(-1.0 * 0.8 + 0.25), 1e-15);
}

TEST(AdditiveMlp, HasNoInteractionBetweenInputs) {
  // f(a, b) + f(a', b') = f(a, b') + f(a', b) for every split of the inputs into two groups.
  const AdditiveMlp m(5, 4);
  Rng rng(3);
  const Vector w = m.sample_params(rng);
  const Vector p = rng.uniform_vector(5), q = rng.uniform_vector(5);
  Vector pq = p, qp = q;
  pq.tail(2) = q.tail(2);
  qp.tail(2) = p.tail(2);
  EXPECT_NEAR(m.value(w, p) + m.value(w, q), m.value(w, pq) + m.value(w, qp), 1e-12);
}

TEST(AdditiveMlp, DerivativesMatchFiniteDifferences) {
  Rng rng(5);
  for (int units : {1, 3, 9}) {
    const AdditiveMlp m(6, static_cast<std::size_t>(units));
    for (int k = 0; k < 5; ++k) {
      const Vector w = m.sample_params(rng), x = rng.uniform_vector(6), v = rng.normal_vector(w.size());
      const GradientCheck c = check_gradients(m, w, x, v);
      EXPECT_LT(c.max_error(), 1e-7) << "units " << units << ": " << c.describe();
    }
  }
}

TEST(AdditiveMlp, AnalyticMixedProductEqualsTheBaseClassDifferences) {
  const AdditiveMlp m(4, 3);
  Rng rng(8);
  const Vector w = m.sample_params(rng), x = rng.uniform_vector(4), v = rng.normal_vector(w.size());
  Vector analytic, differenced;
  const double s = m.mixed_product(w, x, v, analytic);
  const double s_base = m.ParametricModel::mixed_product(w, x, v, differenced);
  EXPECT_NEAR(s, s_base, 1e-12 * (1 + std::abs(s)));
  EXPECT_LT((analytic - differenced).norm(), 1e-7 * (1 + analytic.norm()));
}

TEST(AdditiveMlp, SampleParamsPutsEveryTransitionInsideTheUnitInterval) {
  const AdditiveMlp m(3, 5);
  Rng a(21), b(21);
  const Vector w = m.sample_params(a);
  EXPECT_EQ(w, m.sample_params(b));  // deterministic given the generator's state
  for (Eigen::Index k = 0; k + 1 < w.size(); k += 3) {
    EXPECT_LE(std::abs(w[k]), 6.0);
    EXPECT_GT(std::abs(w[k]), 0.0);
    const double transition = -w[k + 1] / w[k];
    EXPECT_GE(transition, 0.0);
    EXPECT_LE(transition, 1.0);
  }
  EXPECT_EQ(w[w.size() - 1], 0.0);
}

TEST(AdditiveMlp, BadInputThrowsAndNamesIt) {
  EXPECT_THROW(AdditiveMlp(0, 3), InvalidArgument);
  EXPECT_THROW(AdditiveMlp(3, 0), InvalidArgument);
  const AdditiveMlp m(3, 2);
  Vector g;
  try {
    m.value(Vector::Zero(5), Vector::Zero(3));
    FAIL() << "a wrong-sized w was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("19"), std::string::npos) << e.what();  // d_w = 19
  }
  EXPECT_THROW(m.gradient_x(Vector::Zero(19), Vector::Zero(2), g), InvalidArgument);
  Vector w = Vector::Zero(19);
  w[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(m.value(w, Vector::Zero(3)), NumericalError);
}

TEST(GoUcb, AdditiveModelOptionBuildsIt) {  // its bad values: GoUcb.RejectsBadOptionsWithTheirNames
  const Space s = Space::box(3, 0, 1);
  auto opt = make_optimizer({{"name", "go-ucb"}, {"model", "additive"}, {"units_per_input", 4}}, s, Direction::Maximize, RunContext{.horizon = 10});
  EXPECT_EQ(dynamic_cast<const GoUcb&>(*opt).model().describe(), "additive-mlp(d_x=3, units_per_input=4, activation=sigmoid, d_w=37)");
}

TEST(GoUcb, AdditiveModelFindsTheOptimumOfASeparableTask) {
  // f(u) = -sum_i (u_i - 0.3)^2 on [0,1]^6, maximum 0 at u = 0.3: every run ends within 0.01.
  const Space s = Space::box(6, 0, 1);
  Objective obj;
  obj.function = [](const Vector& u) { return -(u.array() - 0.3).square().sum(); };
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    auto opt = make_optimizer({{"name", "go-ucb"}, {"model", "additive"}}, s, Direction::Maximize, RunContext{.seed = seed, .horizon = 40});
    RunOptions ro;
    ro.budget = 40;
    const RunSummary r = optimize(*opt, obj, ro);
    ASSERT_TRUE(r.best_y.has_value());
    EXPECT_GT(*r.best_y, -0.01) << "seed " << seed;
  }
}
