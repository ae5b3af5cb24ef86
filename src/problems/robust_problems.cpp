// The `robust` suite (docs/robust.md): tasks of the kind a new user brings, which no algorithm here
// was tuned on. Nine scikit-learn tuning tasks on native mixed spaces (log-scaled, integer,
// categorical and conditional parameters), scored by scripts/hpo/sklearn_tasks.py, and seven
// synthetic tasks with known optima, each built around one difficulty: plateaus, narrow ridges,
// steps, ill-conditioning, conditional parameters, many mixed dimensions. Every task is
// deterministic. Outside the suite: the three scikit-learn tasks and the synthetic one with
// conditional parameters again, with their conditions declared (the `_declared` problems).
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/QR>

#include "optimist/core/rng.hpp"
#include "optimist/problems/hpo_problems.hpp"
#include "problems/builtin.hpp"

namespace optimist::detail {

namespace {

// ---------------------------------------------------------------- scikit-learn tasks

struct SklearnTask {
  const char* name;
  const char* stresses;         ///< the summary: model, data, what it stresses
  const char* dataset_file;     ///< a file of ../shared/datasets, or nullptr (bundled with sklearn)
  Direction direction;
  std::function<Space()> space;
  const char* worker_task = nullptr;  ///< the worker's task when it is not `name` (a declared variant)
};

/// {name: value} of a user point: numbers (integers as integers), categorical choices as strings.
/// An inactive conditional parameter is left out, as the external objective's "params" does.
nlohmann::json named_params(const Space& space, const Vector& x) {
  nlohmann::json out = nlohmann::json::object();
  const std::vector<bool> active = space.has_conditions() ? space.active(x) : std::vector<bool>(space.dim(), true);
  for (std::size_t i = 0; i < space.dim(); ++i) {
    if (!active[i]) continue;
    const Parameter& p = space[i];
    const double v = x[static_cast<Eigen::Index>(i)];
    if (p.kind == ParameterKind::Categorical) out[p.name] = p.choices.at(static_cast<std::size_t>(v));
    else if (p.kind == ParameterKind::Integer) out[p.name] = static_cast<long long>(std::llround(v));
    else out[p.name] = v;
  }
  return out;
}

const std::vector<SklearnTask>& sklearn_tasks() {
  static const std::vector<SklearnTask> tasks = {
      {"svm_rbf_breast_cancer",
       "SVC (RBF) on breast cancer, C and gamma log-scaled: a plateau of majority-class accuracy with a narrow diagonal ridge",
       nullptr, Direction::Maximize,
       [] { return Space().add_continuous("C", 1e-3, 1e4, true).add_continuous("gamma", 1e-6, 1e2, true); }},
      {"svm_kernel_wine",
       "SVC on wine with the kernel as a categorical: gamma is unused by 'linear', degree by all but 'poly' (conditional)",
       nullptr, Direction::Maximize,
       [] {
         return Space()
             .add_categorical("kernel", {"linear", "rbf", "poly", "sigmoid"})
             .add_continuous("C", 1e-3, 1e3, true)
             .add_continuous("gamma", 1e-4, 1e1, true)
             .add_integer("degree", 2, 5);
       }},
      {"knn_wine", "k-nearest neighbours on wine: a small all-discrete space (300 points)", nullptr,
       Direction::Maximize,
       [] {
         return Space()
             .add_integer("n_neighbors", 1, 50)
             .add_categorical("weights", {"uniform", "distance"})
             .add_integer("p", 1, 3);
       }},
      {"logistic_breast_cancer", "logistic regression on breast cancer: a categorical penalty and a log-scaled C",
       nullptr, Direction::Maximize,
       [] { return Space().add_categorical("penalty", {"l1", "l2"}).add_continuous("C", 1e-4, 1e4, true); }},
      {"tree_australian", "a decision tree on Australian credit: integer parameters, a piecewise-constant landscape",
       "australian.dat", Direction::Maximize,
       [] {
         return Space()
             .add_integer("max_depth", 1, 25)
             .add_integer("min_samples_split", 2, 60)
             .add_integer("min_samples_leaf", 1, 40)
             .add_categorical("criterion", {"gini", "entropy"})
             .add_continuous("max_features", 0.05, 1.0);
       }},
      {"elasticnet_diabetes",
       "elastic net regression on diabetes (R^2): flat for small alpha, a cliff past the best, l1_ratio nearly irrelevant",
       nullptr, Direction::Maximize,
       [] { return Space().add_continuous("alpha", 1e-5, 1e2, true).add_continuous("l1_ratio", 0.0, 1.0); }},
      {"sgd_breast_cancer",
       "a linear model by SGD on breast cancer: two categoricals, a log-scaled alpha, l1_ratio only for 'elasticnet'",
       nullptr, Direction::Maximize,
       [] {
         return Space()
             .add_categorical("loss", {"hinge", "log_loss", "modified_huber", "perceptron"})
             .add_categorical("penalty", {"l2", "l1", "elasticnet"})
             .add_continuous("alpha", 1e-7, 1.0, true)
             .add_continuous("l1_ratio", 0.0, 1.0);
       }},
      {"forest_australian",
       "a random forest on Australian credit, 10 mixed parameters; max_samples only with bootstrap (conditional)",
       "australian.dat", Direction::Maximize,
       [] {
         return Space()
             .add_integer("n_estimators", 10, 100)
             .add_categorical("criterion", {"gini", "entropy"})
             .add_integer("max_depth", 1, 30)
             .add_integer("min_samples_split", 2, 30)
             .add_integer("min_samples_leaf", 1, 30)
             .add_continuous("max_features", 0.05, 1.0)
             .add_categorical("bootstrap", {"true", "false"})
             .add_continuous("max_samples", 0.1, 1.0)
             .add_categorical("class_weight", {"none", "balanced", "balanced_subsample"})
             .add_continuous("ccp_alpha", 1e-6, 1e-1, true);
       }},
      {"mlp_pima",
       "a neural network on Pima diabetes: log-scaled sizes and rates, a categorical activation, noisy-looking training",
       "diabetes.dat", Direction::Maximize,
       [] {
         return Space()
             .add_continuous("units", 2.0, 64.0, true)
             .add_integer("layers", 1, 3)
             .add_categorical("activation", {"relu", "tanh", "logistic"})
             .add_continuous("alpha", 1e-6, 1e1, true)
             .add_continuous("learning_rate_init", 1e-4, 1.0, true)
             .add_continuous("batch_size", 32.0, 256.0, true);
       }},
  };
  return tasks;
}

struct DeclaredCondition {
  const char* child;
  const char* parent;
  std::vector<std::string> values;
};

/// Task `base` of sklearn_tasks() with its conditions declared (Space::add_condition): the same
/// worker task, so the same objective; the worker is sent only the active parameters.
SklearnTask declared_task(const std::string& base, const char* name, const char* stresses,
                          const std::vector<DeclaredCondition>& conditions) {
  for (const SklearnTask& task : sklearn_tasks()) {
    if (task.name != base) continue;
    SklearnTask out = task;
    out.name = name;
    out.stresses = stresses;
    out.worker_task = task.name;
    out.space = [space = task.space, conditions] {
      Space s = space();
      for (const auto& c : conditions) s.add_condition(c.child, c.parent, c.values);
      return s;
    };
    return out;
  }
  throw std::logic_error("declared_task: no scikit-learn task " + base);
}

/// svm_kernel_wine, sgd_breast_cancer and forest_australian with their conditions declared: what
/// declaring them is worth on real tasks (docs/robust.md, "The scikit-learn tasks with their
/// conditions declared"). Not in the robust preset, which keeps the undeclared tasks.
const std::vector<SklearnTask>& declared_sklearn_tasks() {
  static const std::vector<SklearnTask> tasks = {
      declared_task("svm_kernel_wine", "svm_kernel_wine_declared",
                    "svm_kernel_wine with its conditions declared (gamma not for linear; degree only for poly)",
                    {{"gamma", "kernel", {"rbf", "poly", "sigmoid"}}, {"degree", "kernel", {"poly"}}}),
      declared_task("sgd_breast_cancer", "sgd_breast_cancer_declared",
                    "sgd_breast_cancer with its condition declared (l1_ratio only for elasticnet)",
                    {{"l1_ratio", "penalty", {"elasticnet"}}}),
      declared_task("forest_australian", "forest_australian_declared",
                    "forest_australian with its condition declared (max_samples only with bootstrap)",
                    {{"max_samples", "bootstrap", {"true"}}}),
  };
  return tasks;
}

ProblemInfo sklearn_info(const SklearnTask& task) {
  ProblemInfo info;
  info.name = task.name;
  const Space space = task.space();
  info.summary = std::string("robust: ") + task.stresses + " (5-fold CV unless noted; scikit-learn worker, f* unknown)";
  info.min_dim = info.max_dim = info.default_dim = space.dim();
  info.domain = "mixed (" + std::to_string(space.dim()) + " parameters)";
  info.direction = task.direction;
  info.make = [task](std::size_t) {
    Problem p;
    p.name = task.name;
    p.space = task.space();
    p.dim = p.space.dim();
    p.direction = task.direction;
    std::vector<std::string> args = {hpo_script_path("sklearn_tasks.py", "OPTIMIST_SKLEARN_TASKS").string(), "--task",
                                     task.worker_task ? task.worker_task : task.name};
    if (task.dataset_file) {
      args.push_back("--datasets");
      args.push_back(hpo_dataset_path(task.dataset_file).parent_path().string());
    }
    p.f = python_worker_objective(std::move(args), [space = p.space](const Vector& x) { return named_params(space, x); });
    return p;
  };
  return info;
}

// ---------------------------------------------------------------- synthetic tasks

/// A fixed random rotation (Q of the QR factorization of a Gaussian matrix), as BBOB's R and Q.
Matrix rotation(std::size_t d, std::uint64_t seed) {
  Rng rng(seed);
  Matrix g(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d));
  for (Eigen::Index i = 0; i < g.rows(); ++i)
    for (Eigen::Index j = 0; j < g.cols(); ++j) g(i, j) = rng.normal();
  Eigen::HouseholderQR<Matrix> qr(g);
  Matrix q = qr.householderQ();
  // Fix the signs so that the rotation does not depend on the QR implementation's conventions.
  const Vector r = qr.matrixQR().diagonal();
  for (Eigen::Index j = 0; j < q.cols(); ++j)
    if (r[j] < 0.0) q.col(j) *= -1.0;
  return q;
}

/// BBOB's Lambda^alpha: diag(alpha^{(i-1)/(2(D-1))}).
Vector lambda_diag(std::size_t d, double alpha) {
  Vector l(static_cast<Eigen::Index>(d));
  for (Eigen::Index i = 0; i < l.size(); ++i)
    l[i] = d == 1 ? 1.0 : std::pow(alpha, 0.5 * static_cast<double>(i) / static_cast<double>(d - 1));
  return l;
}

/// BBOB's T_osz oscillation, coordinate-wise.
double t_osz(double x) {
  if (x == 0.0) return 0.0;
  const double xh = std::log(std::abs(x));
  const double c1 = x > 0 ? 10.0 : 5.5, c2 = x > 0 ? 7.9 : 3.1;
  return (x > 0 ? 1.0 : -1.0) * std::exp(xh + 0.049 * (std::sin(c1 * xh) + std::sin(c2 * xh)));
}

/// BBOB's x_opt: uniform in [-4, 4]^d from a fixed seed.
Vector bbob_optimum(std::size_t d, std::uint64_t seed) {
  Rng rng(seed);
  Vector x(static_cast<Eigen::Index>(d));
  for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = rng.uniform(-4.0, 4.0);
  return x;
}

/// Step ellipsoid (BBOB f7, Hansen et al. 2009): plateaus everywhere, zero gradient almost
/// everywhere. z^ = Lambda^10 R (x - x_opt); z~ rounds z^ (to 1, or to 0.1 where |z^| <= 0.5);
/// f = 0.1 max(|z^_1| / 1e4, sum_i 10^{2(i-1)/(D-1)} (Q z~)_i^2).
ProblemInfo step_ellipsoid() {
  constexpr std::size_t d = 5;
  const Matrix r = rotation(d, 701), q = rotation(d, 702);
  const Vector l = lambda_diag(d, 10.0), xopt = bbob_optimum(d, 703);
  return make_info({"step_ellipsoid",
                    "robust: step ellipsoid (BBOB f7), rotated: plateaus and steps, zero gradient almost everywhere",
                    d, d, d, "[-5,5]^5", Direction::Minimize, cube(-5.0, 5.0), constant(0.0),
                    [xopt](std::size_t) { return std::vector<Vector>{xopt}; },
                    [r, q, l, xopt](const Vector& x) {
                      const Vector zh = l.asDiagonal() * (r * (x - xopt));
                      Vector zt(zh.size());
                      for (Eigen::Index i = 0; i < zh.size(); ++i)
                        zt[i] = std::abs(zh[i]) > 0.5 ? std::floor(0.5 + zh[i]) : std::floor(0.5 + 10.0 * zh[i]) / 10.0;
                      const Vector z = q * zt;
                      double s = 0.0;
                      for (Eigen::Index i = 0; i < z.size(); ++i)
                        s += std::pow(10.0, 2.0 * static_cast<double>(i) / static_cast<double>(d - 1)) * z[i] * z[i];
                      return 0.1 * std::max(std::abs(zh[0]) / 1e4, s);
                    }});
}

/// Ill-conditioned ellipsoid (BBOB f10): z = T_osz(R (x - x_opt)), f = sum_i 10^{6(i-1)/(D-1)} z_i^2,
/// condition number 1e6 along rotated axes.
ProblemInfo illcond_ellipsoid() {
  constexpr std::size_t d = 8;
  const Matrix r = rotation(d, 1001);
  const Vector xopt = bbob_optimum(d, 1003);
  return make_info({"illcond_ellipsoid",
                    "robust: rotated ellipsoid with condition number 1e6 (BBOB f10): ill-conditioning, scales of values",
                    d, d, d, "[-5,5]^8", Direction::Minimize, cube(-5.0, 5.0), constant(0.0),
                    [xopt](std::size_t) { return std::vector<Vector>{xopt}; },
                    [r, xopt](const Vector& x) {
                      const Vector y = r * (x - xopt);
                      double s = 0.0;
                      for (Eigen::Index i = 0; i < y.size(); ++i) {
                        const double z = t_osz(y[i]);
                        s += std::pow(10.0, 6.0 * static_cast<double>(i) / static_cast<double>(d - 1)) * z * z;
                      }
                      return s;
                    }});
}

/// Sharp ridge (BBOB f13): z = Q Lambda^10 R (x - x_opt), f = z_1^2 + 100 sqrt(sum_{i>1} z_i^2):
/// a ridge that is not differentiable, along a rotated direction.
ProblemInfo sharp_ridge() {
  constexpr std::size_t d = 4;
  const Matrix r = rotation(d, 1301), q = rotation(d, 1302);
  const Vector l = lambda_diag(d, 10.0), xopt = bbob_optimum(d, 1303);
  return make_info({"sharp_ridge", "robust: sharp ridge (BBOB f13), rotated: a non-differentiable valley", d, d, d,
                    "[-5,5]^4", Direction::Minimize, cube(-5.0, 5.0), constant(0.0),
                    [xopt](std::size_t) { return std::vector<Vector>{xopt}; },
                    [r, q, l, xopt](const Vector& x) {
                      const Vector z = q * (l.asDiagonal() * (r * (x - xopt)));
                      return z[0] * z[0] + 100.0 * z.tail(z.size() - 1).norm();
                    }});
}

/// Two log-scaled parameters, as an SVM's C and gamma: with u = log10 a and v = log10 b, exactly 0
/// (a plateau) away from two narrow diagonal ridges u + v = 0.5 (height up to 1 at u = 1.5) and
/// u + v = -2.5 (a secondary ridge, height up to 0.75 at u = -1).
ProblemInfo plateau_ridge() {
  auto ridge = [](double u, double v, double offset, double peak_u, double height) {
    const double across = (u + v - offset) / 0.35;  // half-width 0.35 decades
    if (std::abs(across) >= 1.0) return 0.0;
    const double w = 1.0 - across * across;
    return height * w * w * std::exp(-(u - peak_u) * (u - peak_u) / 4.0);
  };
  return make_info({"plateau_ridge",
                    "robust: two log-scaled parameters, a flat plateau (exactly 0) with a narrow ridge and a lower secondary ridge",
                    2, 2, 2, "a in [1e-3,1e3], b in [1e-4,1e1], log scales", Direction::Maximize,
                    [](std::size_t) { return Space().add_continuous("a", 1e-3, 1e3, true).add_continuous("b", 1e-4, 1e1, true); },
                    constant(1.0), points({{std::pow(10.0, 1.5), 0.1}}),
                    [ridge](const Vector& x) {
                      const double u = std::log10(x[0]), v = std::log10(x[1]);
                      return std::max(ridge(u, v, 0.5, 1.5, 1.0), ridge(u, v, -2.5, -1.0, 0.75));
                    }});
}

/// One dimension with jumps: 4 (x - 0.66)^2, raised by 0.3 on every odd tenth of [0, 1].
ProblemInfo steps_1d() {
  return make_info({"steps_1d", "robust: 1-D, a parabola with a jump every 0.1 (discontinuities)", 1, 1, 1, "[0,1]",
                    Direction::Minimize, cube(0.0, 1.0), constant(0.0), points({{0.66}}), [](const Vector& x) {
                      const double t = std::min(std::floor(10.0 * x[0]), 9.0);
                      return 4.0 * (x[0] - 0.66) * (x[0] - 0.66) + (std::fmod(t, 2.0) == 1.0 ? 0.3 : 0.0);
                    }});
}

/// A categorical `kind` decides what the other parameters mean: 'smooth' uses s, u, v (best 0.3);
/// 'periodic' uses the integer k too (best 0 at k = 6, s = 10^0.2, u = 0.7, v in {1/4, 7/12, 11/12});
/// 'flat' is a constant 0.6 plateau.
ProblemInfo conditional_mixed() {
  return make_info(
      {"conditional_mixed",
       "robust: a categorical choosing the landscape, an integer that matters for one choice only, a log scale, a plateau",
       5, 5, 5, "kind in {smooth, periodic, flat}, k in 1..8, s in [1e-3,1e1] (log), u, v in [0,1]", Direction::Minimize,
       [](std::size_t) {
         return Space()
             .add_categorical("kind", {"smooth", "periodic", "flat"})
             .add_integer("k", 1, 8)
             .add_continuous("s", 1e-3, 1e1, true)
             .add_continuous("u", 0.0, 1.0)
             .add_continuous("v", 0.0, 1.0);
       },
       constant(0.0), points({{1.0, 6.0, std::pow(10.0, 0.2), 0.7, 0.25}}), [](const Vector& x) {
         const double l = std::log10(x[2]), u = x[3], v = x[4];
         switch (static_cast<int>(x[0])) {
           case 0:
             return 0.3 + 0.1 * (l + 1.0) * (l + 1.0) + (u - 0.3) * (u - 0.3) + (v - 0.6) * (v - 0.6);
           case 1:
             return 0.05 * std::abs(x[1] - 6.0) + 0.1 * (l - 0.2) * (l - 0.2) + (u - 0.7) * (u - 0.7) +
                    0.1 * (1.0 - std::cos(6.0 * std::numbers::pi * (v - 0.25)));
           default:
             return 0.6;
         }
       }});
}

/// conditional_mixed with its conditions declared (Space::add_condition): k only for 'periodic';
/// s, u, v only for 'smooth' and 'periodic'. The same function and optimum; what declaring the
/// conditions is worth (docs/discrete.md, "Conditional parameters").
ProblemInfo conditional_mixed_declared() {
  ProblemInfo info = conditional_mixed();
  info.name = "conditional_mixed_declared";
  info.summary = "robust: conditional_mixed with its conditions declared (k only for periodic; s, u, v not for flat)";
  info.make = [make = info.make](std::size_t d) {
    Problem p = make(d);
    p.name = "conditional_mixed_declared";
    p.space.add_condition("k", "kind", {"periodic"});
    for (const char* name : {"s", "u", "v"}) p.space.add_condition(name, "kind", {"smooth", "periodic"});
    return p;
  };
  return info;
}

/// Twelve mixed parameters: six integers in 0..9, three categoricals of four choices, three
/// continuous in [0,1]; separable terms plus one interaction between x1, x2 and the integer i2.
ProblemInfo mixed_int_12d() {
  static constexpr double kIntTarget[6] = {7, 6, 2, 9, 0, 4};
  static constexpr double kIntWeight[6] = {1.0, 0.8, 0.6, 0.4, 0.3, 0.2};
  static constexpr int kCatTarget[3] = {2, 0, 3};
  static constexpr double kCatWeight[3] = {0.3, 0.2, 0.1};
  return make_info(
      {"mixed_int_12d",
       "robust: 12 mixed parameters (6 integers, 3 categoricals, 3 continuous) with one interaction: dimension and discreteness",
       12, 12, 12, "i1..i6 in 0..9, c1..c3 in {a, b, c, d}, x1..x3 in [0,1]", Direction::Minimize,
       [](std::size_t) {
         Space s;
         for (const char* name : {"i1", "i2", "i3", "i4", "i5", "i6"}) s.add_integer(name, 0, 9);
         for (const char* name : {"c1", "c2", "c3"}) s.add_categorical(name, {"a", "b", "c", "d"});
         for (const char* name : {"x1", "x2", "x3"}) s.add_continuous(name, 0.0, 1.0);
         return s;
       },
       constant(0.0), points({{7, 6, 2, 9, 0, 4, 2, 0, 3, 0.5, 0.75, 0.2}}), [](const Vector& x) {
         double f = 0.0;
         for (int i = 0; i < 6; ++i) f += kIntWeight[i] * (x[i] - kIntTarget[i]) * (x[i] - kIntTarget[i]) / 81.0;
         for (int c = 0; c < 3; ++c) f += static_cast<int>(x[6 + c]) == kCatTarget[c] ? 0.0 : kCatWeight[c];
         const double x1 = x[9], x2 = x[10], x3 = x[11];
         f += (x2 - 0.75) * (x2 - 0.75) + (x3 - 0.2) * (x3 - 0.2);
         f += 2.0 * (x1 - x2 * x[1] / 9.0) * (x1 - x2 * x[1] / 9.0);  // x1 follows x2 * i2 / 9
         return f;
       }});
}

}  // namespace

std::vector<ProblemInfo> robust_problems() {
  std::vector<ProblemInfo> v;
  for (const auto& task : sklearn_tasks()) v.push_back(sklearn_info(task));
  for (const auto& task : declared_sklearn_tasks()) v.push_back(sklearn_info(task));
  v.push_back(plateau_ridge());
  v.push_back(steps_1d());
  v.push_back(step_ellipsoid());
  v.push_back(sharp_ridge());
  v.push_back(conditional_mixed());
  v.push_back(conditional_mixed_declared());
  v.push_back(illcond_ellipsoid());
  v.push_back(mixed_int_12d());
  return v;
}

}  // namespace optimist::detail
