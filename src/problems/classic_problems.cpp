// Classic minimization benchmarks, standard definitions and domains from the Virtual Library of
// Simulation Experiments (Surjanovic & Bingham, https://www.sfu.ca/~ssurjano/optimization.html).
#include <cmath>
#include <numbers>

#include "problems/builtin.hpp"

namespace optimist::detail {

namespace {

constexpr double kPi = std::numbers::pi;

/// Branin-Hoo with a=1, b=5.1/(4 pi^2), c=5/pi, r=6, s=10, t=1/(8 pi).
double branin(const Vector& x) {
  const double b = 5.1 / (4.0 * kPi * kPi), c = 5.0 / kPi, t = 1.0 / (8.0 * kPi);
  const double q = x[1] - b * x[0] * x[0] + c * x[0] - 6.0;
  return q * q + 10.0 * (1.0 - t) * std::cos(x[0]) + 10.0;
}

/// Hartmann 6-D: -sum_i alpha_i exp(-sum_j A_ij (x_j - P_ij)^2).
double hartmann6(const Vector& x) {
  static constexpr double alpha[4] = {1.0, 1.2, 3.0, 3.2};
  static constexpr double A[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                     {0.05, 10, 17, 0.1, 8, 14},
                                     {3, 3.5, 1.7, 10, 17, 8},
                                     {17, 8, 0.05, 10, 0.1, 14}};
  static constexpr double P[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                     {2329, 4135, 8307, 3736, 1004, 9991},
                                     {2348, 1451, 3522, 2883, 3047, 6650},
                                     {4047, 8828, 8732, 5743, 1091, 381}};
  double sum = 0.0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0.0;
    for (int j = 0; j < 6; ++j) {
      const double diff = x[j] - P[i][j] * 1e-4;
      inner += A[i][j] * diff * diff;
    }
    sum += alpha[i] * std::exp(-inner);
  }
  return -sum;
}

/// Ackley with a=20, b=0.2, c=2 pi, written so that f(0) = 0 exactly.
double ackley(const Vector& x) {
  const double d = static_cast<double>(x.size());
  double squares = 0.0, cosines = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    squares += x[i] * x[i];
    cosines += std::cos(2.0 * kPi * x[i]);
  }
  return 20.0 * (1.0 - std::exp(-0.2 * std::sqrt(squares / d))) + (std::numbers::e - std::exp(cosines / d));
}

/// Levy: w_i = 1 + (x_i - 1)/4.
double levy(const Vector& x) {
  const Eigen::Index d = x.size();
  auto w = [&x](Eigen::Index i) { return 1.0 + (x[i] - 1.0) / 4.0; };
  const double s0 = std::sin(kPi * w(0));
  double sum = s0 * s0;
  for (Eigen::Index i = 0; i + 1 < d; ++i) {
    const double s = std::sin(kPi * w(i) + 1.0);
    sum += (w(i) - 1.0) * (w(i) - 1.0) * (1.0 + 10.0 * s * s);
  }
  const double wd = w(d - 1), sd = std::sin(2.0 * kPi * wd);
  return sum + (wd - 1.0) * (wd - 1.0) * (1.0 + sd * sd);
}

/// Rosenbrock: sum 100 (x_{i+1} - x_i^2)^2 + (x_i - 1)^2.
double rosenbrock(const Vector& x) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
    const double a = x[i + 1] - x[i] * x[i], b = x[i] - 1.0;
    sum += 100.0 * a * a + b * b;
  }
  return sum;
}

/// Himmelblau: (x^2 + y - 11)^2 + (x + y^2 - 7)^2.
double himmelblau(const Vector& x) {
  const double a = x[0] * x[0] + x[1] - 11.0, b = x[0] + x[1] * x[1] - 7.0;
  return a * a + b * b;
}

}  // namespace

std::vector<ProblemInfo> classic_problems() {
  std::vector<ProblemInfo> v;
  v.push_back(make_info({
      .name = "branin",
      .summary = "Branin-Hoo (Dixon & Szego 1978; VLSE definition)",
      .min_dim = 2, .max_dim = 2, .default_dim = 2,
      .domain = "[-5,10]x[0,15]",
      .direction = Direction::Minimize,
      .space = [](std::size_t) {
        return Space::box((Vector(2) << -5.0, 0.0).finished(), (Vector(2) << 10.0, 15.0).finished());
      },
      .f_star = constant(10.0 / (8.0 * kPi)),  // = s t, at cos(x1) = -1 with the square zero
      .argmax = points({{-kPi, 12.275}, {kPi, 2.275}, {3.0 * kPi, 2.475}}),
      .f = branin,
  }));
  // Optimizer refined by Newton's method on the gradient in 50-digit arithmetic (mpmath);
  // f* = -3.32236801141551480008...
  v.push_back(make_info({
      .name = "hartmann6",
      .summary = "Hartmann 6-D (Hartmann 1973; VLSE definition)",
      .min_dim = 6, .max_dim = 6, .default_dim = 6,
      .domain = "[0,1]^6",
      .direction = Direction::Minimize,
      .space = cube(0.0, 1.0),
      .f_star = constant(-3.3223680114155148),
      .argmax = points({{0.20168951100670543, 0.15001069182345797, 0.476873974221897, 0.2753324304940561,
                         0.31165161660011326, 0.6573005340656203}}),
      .f = hartmann6,
  }));
  v.push_back(make_info({
      .name = "ackley",
      .summary = "Ackley (Ackley 1987; VLSE definition, a=20, b=0.2, c=2pi)",
      .min_dim = 1, .max_dim = kAnyDim, .default_dim = 2,
      .domain = "[-32.768,32.768]^d",
      .direction = Direction::Minimize,
      .space = cube(-32.768, 32.768),
      .f_star = constant(0.0),
      .argmax = diagonal(0.0),
      .f = ackley,
  }));
  v.push_back(make_info({
      .name = "levy",
      .summary = "Levy (Laguna & Marti 2005; VLSE definition)",
      .min_dim = 1, .max_dim = kAnyDim, .default_dim = 2,
      .domain = "[-10,10]^d",
      .direction = Direction::Minimize,
      .space = cube(-10.0, 10.0),
      .f_star = constant(0.0),
      .argmax = diagonal(1.0),
      .f = levy,
  }));
  v.push_back(make_info({
      .name = "rosenbrock",
      .summary = "Rosenbrock (Rosenbrock 1960; VLSE definition)",
      .min_dim = 2, .max_dim = kAnyDim, .default_dim = 2,
      .domain = "[-5,10]^d",
      .direction = Direction::Minimize,
      .space = cube(-5.0, 10.0),
      .f_star = constant(0.0),
      .argmax = diagonal(1.0),
      .f = rosenbrock,
  }));
  // The three non-trivial minimizers: Newton's method in 50-digit arithmetic (mpmath).
  v.push_back(make_info({
      .name = "himmelblau",
      .summary = "Himmelblau (Himmelblau 1972)",
      .min_dim = 2, .max_dim = 2, .default_dim = 2,
      .domain = "[-5,5]^2",
      .direction = Direction::Minimize,
      .space = cube(-5.0, 5.0),
      .f_star = constant(0.0),
      .argmax = points({{3.0, 2.0},
                        {-2.805118086952745, 3.131312518250573},
                        {-3.779310253377747, -3.2831859912861696},
                        {3.5844283403304917, -1.8481265269644036}}),
      .f = himmelblau,
  }));
  return v;
}

}  // namespace optimist::detail
