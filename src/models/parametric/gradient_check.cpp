#include "optimist/models/parametric/gradient_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace optimist {
namespace {

// Central difference of t -> g(t) at 0 with a step suited to a coordinate of size `scale`.
template <class G>
double central(G g, double scale) {
  const double h = std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(scale));
  return (g(h) - g(-h)) / (2.0 * h);
}

double relative(const Vector& a, const Vector& b) {
  return (a - b).norm() / std::max({a.norm(), b.norm(), 1e-12});
}

double relative(double a, double b) { return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-12}); }

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

}  // namespace

double GradientCheck::max_error() const { return std::max({w_error, x_error, mixed_error, value_error}); }

std::string GradientCheck::describe() const {
  return "grad_w " + short_number(w_error) + ", grad_x " + short_number(x_error) + ", mixed " +
         short_number(mixed_error) + ", values " + short_number(value_error);
}

GradientCheck check_gradients(const ParametricModel& model, const Vector& w, const Vector& x, const Vector& v) {
  GradientCheck c;
  const double f = model.value(w, x);
  Vector gw, gx, mixed;
  const double fw = model.gradient_w(w, x, gw);
  const double fx = model.gradient_x(w, x, gx);
  const double s = model.mixed_product(w, x, v, mixed);

  Vector fd_w(w.size()), fd_x(x.size()), fd_mixed(x.size());
  for (Eigen::Index i = 0; i < w.size(); ++i)
    fd_w[i] = central([&](double h) { Vector wh = w; wh[i] += h; return model.value(wh, x); }, w[i]);
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    fd_x[i] = central([&](double h) { Vector xh = x; xh[i] += h; return model.value(w, xh); }, x[i]);
    fd_mixed[i] = central([&](double h) {
      Vector xh = x, g;
      xh[i] += h;
      model.gradient_w(w, xh, g);
      return g.dot(v);
    }, x[i]);
  }
  c.w_error = relative(gw, fd_w);
  c.x_error = relative(gx, fd_x);
  c.mixed_error = relative(mixed, fd_mixed);
  c.value_error = std::max({relative(fw, f), relative(fx, f), relative(s, gw.dot(v))});
  return c;
}

void check_model_gradients(const ParametricModel& model, Rng& rng, int points, double tolerance) {
  for (int k = 0; k < points; ++k) {
    const Vector w = model.sample_params(rng);
    const Vector x = rng.uniform_vector(static_cast<Eigen::Index>(model.input_dim()));
    const Vector v = rng.normal_vector(w.size());
    GradientCheck c;
    try {
      // The contract (parametric_model.hpp): a value that is not finite throws NumericalError. One
      // returned instead would read as derivatives that disagree ("relative errors nan").
      if (const double f = model.value(w, x); !std::isfinite(f)) {
        std::ostringstream os;
        os << model.describe() << ": f_w(x) = " << f << " at x = " << ParametricModel::format_vector(x)
           << ", w = " << ParametricModel::format_vector(w)
           << ": a model returns finite values, or throws NumericalError where it has none (parametric_model.hpp)";
        throw InvalidArgument(os.str());
      }
      c = check_gradients(model, w, x, v);
    } catch (const NumericalError&) {
      continue;  // not finite here: the optimizer reports it where it matters
    }
    if (!(c.max_error() <= tolerance)) {
      std::ostringstream os;
      os << model.describe() << ": derivatives disagree with central finite differences of its values (relative errors "
         << c.describe() << "; tolerance " << tolerance << ") at x = " << ParametricModel::format_vector(x)
         << ", w = " << ParametricModel::format_vector(w)
         << ". Fix " << model.derivatives_to_fix();
      throw InvalidArgument(os.str());
    }
  }
}

}  // namespace optimist
