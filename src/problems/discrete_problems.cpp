// Integer, categorical and mixed (finite) benchmark spaces of 20 to 5,000 points, for the
// `discrete` preset (docs/discrete.md). f* and the optimizers are found by enumerating the space.
// Every problem is deterministic and minimized; a categorical value is its choice's index.
#include <cmath>
#include <numbers>

#include "optimist/core/discrete_domain.hpp"
#include "optimist/core/rng.hpp"
#include "problems/builtin.hpp"

namespace optimist::detail {

namespace {

constexpr double kPi = std::numbers::pi;

/// The minimum of f over the finite space and every point attaining it.
std::pair<double, std::vector<Vector>> enumerate_minimum(const Space& space, const std::function<double(const Vector&)>& f) {
  const DiscreteDomain domain(space);
  const auto d = static_cast<Eigen::Index>(space.dim());
  double best = HUGE_VAL;
  std::vector<Vector> at;
  domain.enumerate(Vector::Zero(d), Vector::Zero(d), Vector::Ones(d), [&](const Vector& u) {
    const Vector x = space.to_user(u);
    const double v = f(x);
    if (v < best) {
      best = v;
      at.clear();
    }
    if (v == best) at.push_back(x);
    return true;
  });
  return {best, at};
}

ProblemInfo finite_problem(const std::string& name, const std::string& summary, const std::string& domain, Space space,
                           std::function<double(const Vector&)> f) {
  const auto [f_star, argmin] = enumerate_minimum(space, f);
  ProblemSpec s;
  s.name = name;
  s.summary = summary;
  s.min_dim = s.max_dim = s.default_dim = space.dim();
  s.domain = domain;
  s.direction = Direction::Minimize;
  s.space = [space](std::size_t) { return space; };
  s.f_star = constant(f_star);
  s.argmax = [argmin = argmin](std::size_t) { return argmin; };
  s.f = std::move(f);
  return make_info(std::move(s));
}

Space booleans(std::size_t n) {
  Space s;
  for (std::size_t i = 0; i < n; ++i) {
    std::string name = "b";  // "b" + to_string trips GCC 12's -Wrestrict false positive (PR 105329)
    name += std::to_string(i + 1);
    s.add_categorical(name, {"false", "true"});
  }
  return s;
}

/// A fixed table of values in [0, 1) from a seeded stream (the same in every build).
std::vector<double> table(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = rng.uniform();
  return v;
}

}  // namespace

std::vector<ProblemInfo> discrete_problems() {
  std::vector<ProblemInfo> v;

  // Issue 27, first problem: two integers, 100 points.
  v.push_back(finite_problem(
      "int_sincos", "two integers k in 1..25, p in 1..4: -(sin(k/3) + 0.1 p + 0.05 cos(k p)) (100 points)",
      "k in 1..25, p in 1..4", Space().add_integer("k", 1, 25).add_integer("p", 1, 4), [](const Vector& x) {
        return -(std::sin(x[0] / 3.0) + 0.1 * x[1] + 0.05 * std::cos(x[0] * x[1]));
      }));

  // Issue 27, second problem: a categorical, an integer and a boolean, 60 points, separable.
  v.push_back(finite_problem(
      "mixed_separable", "kernel in {a, b, c}, n in 1..10, flag: {a: 0, b: 0.5, c: 0.2}[kernel] + (n - 7)^2/20 + 0.3 [flag] (60 points)",
      "kernel in {a,b,c}, n in 1..10, flag in {false,true}",
      Space().add_categorical("kernel", {"a", "b", "c"}).add_integer("n", 1, 10).add_categorical("flag", {"false", "true"}),
      [](const Vector& x) {
        static constexpr double kernel[3] = {0.0, 0.5, 0.2};
        return kernel[static_cast<int>(x[0])] + (x[1] - 7.0) * (x[1] - 7.0) / 20.0 + 0.3 * x[2];
      }));

  // Two categoricals, 20 points: per-choice effects and a match bonus for one pair of choices.
  v.push_back(finite_problem(
      "cat_pair", "two categoricals (4 x 5 choices): per-choice effects plus an interaction (20 points)",
      "a in {a1..a4}, b in {b1..b5}",
      Space().add_categorical("a", {"a1", "a2", "a3", "a4"}).add_categorical("b", {"b1", "b2", "b3", "b4", "b5"}),
      [](const Vector& x) {
        static constexpr double ea[4] = {0.6, 0.1, 0.9, 0.4};
        static constexpr double eb[5] = {0.3, 0.8, 0.0, 0.5, 0.7};
        const int i = static_cast<int>(x[0]), j = static_cast<int>(x[1]);
        return ea[i] + eb[j] - (i == 3 && j == 3 ? 0.9 : 0.0);  // the unique optimum 0 at (a4, b4)
      }));

  // Rosenbrock on an integer grid, 256 points.
  v.push_back(finite_problem(
      "int_rosenbrock", "Rosenbrock 100 (y - x^2)^2 + (1 - x)^2 on the integers x, y in -5..10 (256 points), log1p-scaled",
      "x, y in -5..10", Space().add_integer("x", -5, 10).add_integer("y", -5, 10), [](const Vector& x) {
        const double a = x[1] - x[0] * x[0], b = 1.0 - x[0];
        return std::log1p(100.0 * a * a + b * b);
      }));

  // Ackley on a 3-D integer grid, 4,096 points.
  v.push_back(finite_problem(
      "int_ackley", "Ackley (a = 20, b = 0.2, c = 2 pi) at x/2 for integers x in -7..8 in 3-D (4,096 points)",
      "x1, x2, x3 in -7..8", Space().add_integer("x1", -7, 8).add_integer("x2", -7, 8).add_integer("x3", -7, 8),
      [](const Vector& x) {
        double squares = 0.0, cosines = 0.0;
        for (Eigen::Index i = 0; i < 3; ++i) {
          const double z = 0.5 * x[i] - 0.3;
          squares += z * z;
          cosines += std::cos(2.0 * kPi * z);
        }
        return 20.0 * (1.0 - std::exp(-0.2 * std::sqrt(squares / 3.0))) + (std::numbers::e - std::exp(cosines / 3.0));
      }));

  // Styblinski-Tang on a 4-D integer grid, 2,401 points.
  v.push_back(finite_problem(
      "int_styblinski_tang", "Styblinski-Tang sum (x^4 - 16 x^2 + 5 x)/2 for integers x in -3..3 in 4-D (2,401 points)",
      "x1..x4 in -3..3",
      Space().add_integer("x1", -3, 3).add_integer("x2", -3, 3).add_integer("x3", -3, 3).add_integer("x4", -3, 3),
      [](const Vector& x) {
        double s = 0.0;
        for (Eigen::Index i = 0; i < 4; ++i) s += 0.5 * (std::pow(x[i], 4) - 16.0 * x[i] * x[i] + 5.0 * x[i]);
        return s;
      }));

  // A binary quadratic program over 10 booleans (BOCS, Baptista & Poloczek 2018, sec. 4.1:
  // Q_ij = N(0, 1) exp(-(i - j)^2 / L^2), L^2 = 10), 1,024 points.
  {
    const std::vector<double> u = table(200, 0x62716fULL);
    std::vector<double> q(100);
    for (int i = 0; i < 10; ++i)
      for (int j = 0; j < 10; ++j) {
        // A normal draw from two uniforms (Box-Muller), fixed.
        const double n = std::sqrt(-2.0 * std::log(1.0 - u[2 * (10 * i + j)])) * std::cos(2.0 * kPi * u[2 * (10 * i + j) + 1]);
        q[10 * i + j] = n * std::exp(-(i - j) * (i - j) / 10.0);
      }
    v.push_back(finite_problem("bool_quadratic",
                               "binary quadratic program x^T Q x over 10 booleans (BOCS sec. 4.1, L^2 = 10, a fixed Q; 1,024 points)",
                               "b1..b10 in {false,true}", booleans(10), [q](const Vector& x) {
                                 double s = 0.0;
                                 for (int i = 0; i < 10; ++i)
                                   for (int j = 0; j < 10; ++j) s += q[10 * i + j] * x[i] * x[j];
                                 return s;
                               }));
  }

  // Three categoricals with 6 choices each, additive tables plus one pairwise interaction, 216 points.
  {
    const std::vector<double> t = table(18 + 36, 0x636174ULL);
    v.push_back(finite_problem("cat_additive",
                               "three categoricals (6 choices each): additive effects plus an interaction of the first two (216 points)",
                               "c1, c2, c3 in {v1..v6}",
                               Space()
                                   .add_categorical("c1", {"v1", "v2", "v3", "v4", "v5", "v6"})
                                   .add_categorical("c2", {"v1", "v2", "v3", "v4", "v5", "v6"})
                                   .add_categorical("c3", {"v1", "v2", "v3", "v4", "v5", "v6"}),
                               [t](const Vector& x) {
                                 const int a = static_cast<int>(x[0]), b = static_cast<int>(x[1]), c = static_cast<int>(x[2]);
                                 return t[a] + t[6 + b] + t[12 + c] + 0.5 * t[18 + 6 * a + b];
                               }));
  }

  // A conditional-like space: an integer that matters only for one categorical value, 600 points.
  v.push_back(finite_problem(
      "cat_conditional",
      "model in {linear, rbf, poly}, C in 1..20, degree in 1..10 (used only by poly): a tuning-like landscape (600 points)",
      "model in {linear,rbf,poly}, C in 1..20, degree in 1..10",
      Space().add_categorical("model", {"linear", "rbf", "poly"}).add_integer("C", 1, 20).add_integer("degree", 1, 10),
      [](const Vector& x) {
        const int model = static_cast<int>(x[0]);
        const double c = std::log(x[1]);
        if (model == 0) return 0.30 + 0.02 * (c - 1.0) * (c - 1.0);
        if (model == 1) return 0.18 + 0.05 * (c - 2.2) * (c - 2.2);
        const double d = x[2];
        return 0.15 + 0.04 * (c - 1.6) * (c - 1.6) + 0.02 * (d - 3.0) * (d - 3.0) + 0.05 * std::abs(std::sin(d));
      }));

  // The largest space: a categorical choosing the shape of a 2-D integer landscape, 5,000 points.
  v.push_back(finite_problem(
      "mixed_large",
      "family in 5 choices, i in 1..10, j in 1..100: a smooth landscape whose optimum moves with the family (5,000 points)",
      "family in {f1..f5}, i in 1..10, j in 1..100",
      Space().add_categorical("family", {"f1", "f2", "f3", "f4", "f5"}).add_integer("i", 1, 10).add_integer("j", 1, 100),
      [](const Vector& x) {
        static constexpr double offset[5] = {0.4, 0.0, 0.7, 0.2, 0.5};
        static constexpr double ci[5] = {2, 8, 5, 3, 9};
        static constexpr double cj[5] = {80, 35, 60, 15, 50};
        const int f = static_cast<int>(x[0]);
        const double a = (x[1] - ci[f]) / 4.0, b = (x[2] - cj[f]) / 30.0;
        return offset[f] + a * a + b * b + 0.1 * std::sin(0.3 * x[2]) * std::cos(x[1]);
      }));
  return v;
}

}  // namespace optimist::detail
