// The `robust` suite's tasks: the synthetic ones attain f* at their optimizer and nowhere beat it,
// and show the difficulty they are named for; the scikit-learn ones evaluate through their worker,
// deterministically, with every parameter type of their spaces.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "optimist/core/rng.hpp"
#include "optimist/problems/hpo_problems.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

namespace {

const char* const kSynthetic[] = {"plateau_ridge",     "steps_1d",          "step_ellipsoid", "sharp_ridge",
                                  "conditional_mixed", "illcond_ellipsoid", "mixed_int_12d",
                                  "conditional_mixed_declared"};
const char* const kSklearn[] = {"svm_rbf_breast_cancer", "svm_kernel_wine",     "knn_wine",
                                "logistic_breast_cancer", "tree_australian",     "elasticnet_diabetes",
                                "sgd_breast_cancer",      "forest_australian",   "mlp_pima"};

Vector random_point(const Space& space, Rng& rng) { return space.to_user(rng.uniform_vector(space.dim())); }

}  // namespace

TEST(RobustProblems, SyntheticTasksAttainTheirOptimumAndNothingBeatsIt) {
  for (const char* name : kSynthetic) {
    SCOPED_TRACE(name);
    const Problem p = make_problem(name);
    ASSERT_TRUE(p.f_star.has_value());
    ASSERT_EQ(p.argmax.size(), 1u);
    p.space.validate(p.argmax[0]);
    EXPECT_NEAR(p.f(p.argmax[0]), *p.f_star, 1e-12);
    const double sign = p.direction == Direction::Maximize ? 1.0 : -1.0;
    Rng rng(7);
    for (int k = 0; k < 2000; ++k) {
      const Vector x = random_point(p.space, rng);
      ASSERT_LE(sign * p.f(x), sign * *p.f_star + 1e-12) << "at " << x.transpose();
    }
  }
}

TEST(RobustProblems, EachSyntheticTaskHasTheDifficultyItIsNamedFor) {
  // plateau_ridge: exactly 0 on most of the domain.
  const Problem ridge = make_problem("plateau_ridge");
  Rng rng(1);
  int flat = 0;
  for (int k = 0; k < 1000; ++k) flat += ridge.f(random_point(ridge.space, rng)) == 0.0;
  EXPECT_GT(flat, 700);
  // A point on the secondary ridge's crest is a local maximum of value 0.75.
  const Vector second{{0.1, std::pow(10.0, -1.5)}};
  EXPECT_NEAR(ridge.f(second), 0.75, 1e-12);

  // step_ellipsoid: piecewise constant, so a small step usually changes nothing.
  const Problem step = make_problem("step_ellipsoid");
  int same = 0;
  for (int k = 0; k < 200; ++k) {
    const Vector x = random_point(step.space, rng);
    same += step.f(x) == step.f((x.array() + 1e-6).matrix());
  }
  EXPECT_GT(same, 150);

  // steps_1d: a jump of 0.3 at 0.1 k.
  const Problem steps = make_problem("steps_1d");
  EXPECT_NEAR(steps.f(Vector::Constant(1, 0.7)) - steps.f(Vector::Constant(1, 0.7 - 1e-9)), 0.3, 1e-6);

  // illcond_ellipsoid: the values span many decades.
  const Problem ill = make_problem("illcond_ellipsoid");
  double lo = INFINITY, hi = 0.0;
  for (int k = 0; k < 500; ++k) {
    const double v = ill.f(random_point(ill.space, rng));
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GT(hi / lo, 1e2);

  // conditional_mixed: k changes nothing unless kind = periodic; 'flat' is flat.
  const Problem cond = make_problem("conditional_mixed");
  Vector x{{0.0, 1.0, 0.1, 0.5, 0.5}};
  const double smooth = cond.f(x);
  x[1] = 8.0;
  EXPECT_EQ(cond.f(x), smooth);
  x[0] = 1.0;
  const double periodic8 = cond.f(x);
  x[1] = 6.0;
  EXPECT_NEAR(periodic8 - cond.f(x), 0.1, 1e-12);
  x[0] = 2.0;
  EXPECT_EQ(cond.f(x), 0.6);
}

// The scikit-learn tasks need python3-sklearn (installed by the setup script) and, for three of
// them, the data sets of ../shared/datasets (skipped without them, saying why).
TEST(RobustProblems, ScikitLearnTasksEvaluateDeterministically) {
  for (const char* name : kSklearn) {
    SCOPED_TRACE(name);
    std::optional<Problem> p;
    try {
      p = make_problem(name);
    } catch (const InvalidArgument& e) {
      const std::string why = e.what();
      if (why.find("not found") != std::string::npos) GTEST_SKIP() << why;
      throw;
    }
    EXPECT_FALSE(p->f_star.has_value());
    EXPECT_EQ(p->direction, Direction::Maximize);
    // The centre of the space: every parameter type, and cheap settings for each model.
    const Vector x = p->space.to_user(Vector::Constant(static_cast<Eigen::Index>(p->space.dim()), 0.5));
    const double v = p->f(x);
    EXPECT_TRUE(std::isfinite(v));
    EXPECT_LE(v, 1.0);
    EXPECT_GT(v, 0.2);  // every centre point learns something (chance: 0.33 to 0.65; R^2: 0)
    if (std::string(name) == "knn_wine") {
      // A new worker gives the same value: it is a function of the point alone.
      const Problem again = make_problem(name);
      EXPECT_EQ(again.f(x), v);
    }
  }
}

TEST(RobustProblems, AWorkerErrorNamesTheTask) {
  const Problem p = make_problem("knn_wine");
  // n_neighbors beyond the training fold size: scikit-learn refuses, the error comes back.
  Vector x{{0.0, 0.0, 1.0}};
  x[0] = 1000.0;
  try {
    (void)p.f(x);
    FAIL() << "no error for n_neighbors = 1000";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("n_neighbors"), std::string::npos) << e.what();
  }
}
