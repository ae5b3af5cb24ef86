// Wraps a physics-style model written once as a template (arrhenius_model.hpp) as an optimist
// ParametricModel, prints value and gradients at a few points and checks them against central
// finite differences. Exit status 1 if any check fails (run by ctest as example_custom_model).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>

#include "arrhenius_model.hpp"
#include "optimist/models/parametric/autodiff_model.hpp"

using optimist::Vector;

namespace {

// Central-difference derivative of t -> g(t) at 0, with a step suited to O(1) arguments.
template <class G>
double central(G g, double scale) {
  const double h = std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, scale);
  return (g(h) - g(-h)) / (2.0 * h);
}

double relative_error(const Vector& a, const Vector& b) { return (a - b).norm() / std::max(b.norm(), 1e-300); }

}  // namespace

int main() {
  // A prior over plausible kinetics for the regression oracle's starting points.
  auto sampler = [](optimist::Rng& rng) {
    Vector w(4);
    w << rng.normal(), rng.uniform(0.2, 1.2), rng.uniform(0.3, 1.5), rng.normal();
    return w;
  };
  // NestedAutodiff: exact mixed products (the template avoids pow with a T exponent).
  const auto model = optimist::make_autodiff_model<optimist::MixedProduct::NestedAutodiff>(
      arrhenius::YieldModel{}, arrhenius::YieldModel::kInputs, arrhenius::YieldModel::kParams, sampler,
      "arrhenius_yield");
  std::cout << model->describe() << "\n";

  const Vector w = arrhenius::reference_params();
  constexpr double kTolerance = 1e-6;
  bool ok = true;
  optimist::Rng rng(7);
  const Vector v = rng.normal_vector(4);
  for (int k = 0; k < 4; ++k) {
    const Vector x = rng.uniform_vector(2);
    Vector gw, gx, mx;
    const double y = model->gradient_w(w, x, gw);
    model->gradient_x(w, x, gx);
    const double s = model->mixed_product(w, x, v, mx);

    Vector fd_w(4), fd_x(2), fd_m(2);
    for (int i = 0; i < 4; ++i)
      fd_w[i] = central([&](double h) { Vector wh = w; wh[i] += h; return model->value(wh, x); }, w[i]);
    for (int i = 0; i < 2; ++i) {
      fd_x[i] = central([&](double h) { Vector xh = x; xh[i] += h; return model->value(w, xh); }, 1.0);
      fd_m[i] = central([&](double h) {
        Vector xh = x, g;
        xh[i] += h;
        model->gradient_w(w, xh, g);
        return g.dot(v);
      }, 1.0);
    }
    const double ew = relative_error(gw, fd_w), ex = relative_error(gx, fd_x), em = relative_error(mx, fd_m);
    const double es = std::abs(s - gw.dot(v)) / std::max(std::abs(s), 1e-300);
    std::printf("T = %6.1f K, p = %6.3f bar: yield %.6g\n", arrhenius::temperature(x[0]), arrhenius::pressure(x[1]), y);
    std::printf("  grad_w = [% .5e % .5e % .5e % .5e]  vs finite differences: rel. error %.1e\n", gw[0], gw[1], gw[2],
                gw[3], ew);
    std::printf("  grad_x = [% .5e % .5e]                          rel. error %.1e\n", gx[0], gx[1], ex);
    std::printf("  d/dx (grad_w . v) = [% .5e % .5e]               rel. error %.1e (s rel. error %.1e)\n", mx[0],
                mx[1], em, es);
    ok = ok && ew < kTolerance && ex < kTolerance && em < kTolerance && es < 1e-12;
  }

  // All points at once: the n x d_w Jacobian GO-UCB's Sigma_t is built from.
  optimist::Matrix X(2, 5);
  for (Eigen::Index i = 0; i < X.cols(); ++i) X.col(i) = rng.uniform_vector(2);
  const optimist::Matrix J = model->jacobian_w(w, X);
  std::cout << "jacobian_w at 5 points (rows = points; columns d/d log A, d/d Ea, d/d n, d/d log K):\n" << J << "\n";

  std::cout << (ok ? "all gradient checks passed" : "GRADIENT CHECK FAILED") << "\n";
  return ok ? 0 : 1;
}
