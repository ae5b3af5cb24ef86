// The `robust` suite's tasks: the synthetic ones attain f* at their optimizer and nowhere beat it,
// and show the difficulty they are named for; the scikit-learn ones evaluate through their worker,
// deterministically, with every parameter type of their spaces; their `_declared` variants
// declare the conditions and score as they do.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

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

namespace {

/// A scikit-learn task and its `_declared` variant, or nothing (skipped) without its data set.
std::optional<std::pair<Problem, Problem>> task_pair(const std::string& name) {
  try {
    return std::make_pair(make_problem(name), make_problem(name + "_declared"));
  } catch (const InvalidArgument& e) {
    if (std::string(e.what()).find("not found") != std::string::npos) return std::nullopt;
    throw;
  }
}

/// The number of distinct canonical points of `space` over the grid that varies dimensions
/// dims[k] over grids[k] (every other coordinate as in `base`).
std::size_t distinct_points(const Space& space, const Vector& base, const std::vector<std::size_t>& dims,
                            const std::vector<std::vector<double>>& grids) {
  std::set<std::vector<double>> seen;
  std::vector<std::size_t> at(dims.size(), 0);
  for (;;) {
    Vector x = base;
    for (std::size_t k = 0; k < dims.size(); ++k) x[static_cast<Eigen::Index>(dims[k])] = grids[k][at[k]];
    const Vector c = space.canonical(x);
    seen.insert(std::vector<double>(c.data(), c.data() + c.size()));
    std::size_t k = 0;
    while (k < dims.size() && ++at[k] == grids[k].size()) at[k++] = 0;
    if (k == dims.size()) break;
  }
  return seen.size();
}

}  // namespace

// The declared variants: the same parameters, the conditions their tasks' summaries name, one
// point per active part, and the same objective (an inactive parameter changes nothing).
TEST(RobustProblems, DeclaredScikitLearnTasksDeclareTheConditionsOfTheirTasks) {
  // forest_australian reads ../shared/datasets: without it its checks are skipped, the others run.
  std::string missing;
  for (const char* name : {"svm_kernel_wine", "sgd_breast_cancer", "forest_australian"}) {
    SCOPED_TRACE(name);
    const auto pair = task_pair(name);
    if (!pair) {
      missing = name;
      continue;
    }
    const Space& plain = pair->first.space;
    const Problem& declared = pair->second;
    EXPECT_EQ(declared.name, std::string(name) + "_declared");
    EXPECT_FALSE(plain.has_conditions());
    EXPECT_TRUE(declared.space.has_conditions());
    ASSERT_EQ(declared.space.dim(), plain.dim());
    for (std::size_t i = 0; i < plain.dim(); ++i) {
      EXPECT_EQ(declared.space[i].name, plain[i].name);
      EXPECT_EQ(declared.space[i].kind, plain[i].kind);
      EXPECT_EQ(declared.space[i].lower, plain[i].lower);
      EXPECT_EQ(declared.space[i].upper, plain[i].upper);
      EXPECT_EQ(declared.space[i].log_scale, plain[i].log_scale);
      EXPECT_EQ(declared.space[i].choices, plain[i].choices);
    }
    EXPECT_EQ(problem_info(std::string(name) + "_declared").summary.find("robust: " + std::string(name) +
                                                                          " with its condition"),
              0u);
  }

  // svm_kernel_wine (kernel, C, gamma, degree): gamma for all kernels but linear, degree for poly.
  const Space svm = make_problem("svm_kernel_wine_declared").space;
  const std::vector<bool> active_by_kernel[4] = {
      {true, true, false, false}, {true, true, true, false}, {true, true, true, true}, {true, true, true, false}};
  for (int k = 0; k < 4; ++k) EXPECT_EQ(svm.active(Vector{{double(k), 1.0, 0.1, 3.0}}), active_by_kernel[k]) << k;
  EXPECT_EQ(svm.canonical(Vector{{0.0, 1.0, 0.1, 4.0}}), (Vector{{0.0, 1.0, 1e-4, 2.0}}));
  // kernel x degree: 16 points undeclared, 1 + 1 + 4 + 1 declared.
  const Vector svm_base{{0.0, 1.0, 0.1, 2.0}};
  const std::vector<std::vector<double>> kernel_degree = {{0, 1, 2, 3}, {2, 3, 4, 5}};
  EXPECT_EQ(distinct_points(make_problem("svm_kernel_wine").space, svm_base, {0, 3}, kernel_degree), 16u);
  EXPECT_EQ(distinct_points(svm, svm_base, {0, 3}, kernel_degree), 7u);

  // sgd_breast_cancer (loss, penalty, alpha, l1_ratio): l1_ratio for elasticnet only.
  const Space sgd = make_problem("sgd_breast_cancer_declared").space;
  for (int pen = 0; pen < 3; ++pen)
    EXPECT_EQ(sgd.active(Vector{{0.0, double(pen), 1e-3, 0.5}}), (std::vector<bool>{true, true, true, pen == 2}));
  // loss x penalty x three values of l1_ratio: 36 points undeclared, 4 x (1 + 1 + 3) declared.
  const Vector sgd_base{{0.0, 0.0, 1e-3, 0.0}};
  const std::vector<std::vector<double>> sgd_grid = {{0, 1, 2, 3}, {0, 1, 2}, {0.0, 0.5, 1.0}};
  EXPECT_EQ(distinct_points(make_problem("sgd_breast_cancer").space, sgd_base, {0, 1, 3}, sgd_grid), 36u);
  EXPECT_EQ(distinct_points(sgd, sgd_base, {0, 1, 3}, sgd_grid), 20u);

  // forest_australian: max_samples (7) only with bootstrap (6) = "true" (choice 0).
  const auto forest_pair = task_pair("forest_australian");
  if (!forest_pair) GTEST_SKIP() << missing << ": data set not found (its checks skipped; the others ran)";
  const Space& forest = forest_pair->second.space;
  const Vector forest_base{{50, 0, 10, 2, 1, 0.5, 0, 0.5, 0, 1e-3}};
  for (int b = 0; b < 2; ++b) {
    Vector x = forest_base;
    x[6] = b;
    const std::vector<bool> active = forest.active(x);
    for (std::size_t i = 0; i < forest.dim(); ++i) EXPECT_EQ(active[i], i != 7 || b == 0) << i;
  }
  const std::vector<std::vector<double>> bootstrap_samples = {{0, 1}, {0.1, 0.5, 1.0}};
  EXPECT_EQ(distinct_points(forest_pair->first.space, forest_base, {6, 7}, bootstrap_samples), 6u);
  EXPECT_EQ(distinct_points(forest, forest_base, {6, 7}, bootstrap_samples), 4u);
}

TEST(RobustProblems, DeclaredScikitLearnTasksScoreAsTheirTasks) {
  // One point per branch, the inactive parameters away from their fixed values: the declared
  // problem's worker gets them left out, the undeclared one's gets them, and the scores are equal.
  const std::pair<const char*, std::vector<Vector>> cases[] = {
      {"svm_kernel_wine",
       {Vector{{0.0, 3.0, 0.5, 4.0}}, Vector{{1.0, 3.0, 0.05, 4.0}}, Vector{{2.0, 0.3, 0.05, 3.0}},
        Vector{{3.0, 3.0, 0.01, 5.0}}}},
      {"sgd_breast_cancer",
       {Vector{{1.0, 0.0, 1e-3, 0.7}}, Vector{{0.0, 1.0, 1e-3, 0.7}}, Vector{{2.0, 2.0, 1e-3, 0.7}}}},
      {"forest_australian",
       {Vector{{20, 0, 8, 4, 2, 0.4, 0, 0.6, 1, 1e-4}}, Vector{{20, 1, 8, 4, 2, 0.4, 1, 0.6, 0, 1e-4}}}},
  };
  for (const auto& [name, points] : cases) {
    SCOPED_TRACE(name);
    const auto pair = task_pair(name);
    if (!pair) GTEST_SKIP() << name << ": data set not found";
    const auto& [plain, declared] = *pair;
    for (const Vector& x : points) {
      SCOPED_TRACE(::testing::PrintToString(std::vector<double>(x.data(), x.data() + x.size())));
      const double v = plain.f(x);
      EXPECT_TRUE(std::isfinite(v));
      EXPECT_GT(v, 0.5);
      EXPECT_EQ(declared.f(x), v);
      EXPECT_EQ(declared.f(declared.space.canonical(x)), v);
      // The inactive parameter changes nothing in the undeclared task either.
      EXPECT_EQ(plain.f(declared.space.canonical(x)), v);
    }
  }
}
