#include "optimist/models/parametric/parametric_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace optimist {

namespace {

[[noreturn]] void size_error(const char* where, const char* what, Eigen::Index got, const char* expected_name,
                             std::size_t expected) {
  std::ostringstream os;
  os << where << ": " << what << " has " << got << " entries but the model has " << expected_name << " = " << expected;
  throw InvalidArgument(os.str());
}

}  // namespace

void ParametricModel::check_params(const Vector& w, const char* where) const {
  if (static_cast<std::size_t>(w.size()) != num_params()) size_error(where, "parameter vector w", w.size(), "d_w", num_params());
}

void ParametricModel::check_point(const Vector& x, const char* where) const {
  if (static_cast<std::size_t>(x.size()) != input_dim()) size_error(where, "point x", x.size(), "d_x", input_dim());
}

void ParametricModel::check_points(const Matrix& X, const char* where) const {
  if (static_cast<std::size_t>(X.rows()) != input_dim()) {
    std::ostringstream os;
    os << where << ": point matrix X has " << X.rows() << " rows (one column per point) but the model has d_x = "
       << input_dim();
    throw InvalidArgument(os.str());
  }
}

void ParametricModel::check_direction(const Vector& v, const char* where) const {
  if (static_cast<std::size_t>(v.size()) != num_params()) size_error(where, "direction v", v.size(), "d_w", num_params());
}

void ParametricModel::check_finite(double f, const Vector& w, const Vector& x, const char* where) const {
  if (std::isfinite(f)) return;
  std::ostringstream os;
  os << where << ": " << describe() << " is not finite (" << f << ") at x = " << format_vector(x)
     << " with w = " << format_vector(w);
  throw NumericalError(os.str());
}

std::string ParametricModel::format_vector(const Vector& v, std::size_t max_entries) {
  std::ostringstream os;
  os.precision(6);
  os << '[';
  const auto n = static_cast<std::size_t>(v.size());
  for (std::size_t i = 0; i < std::min(n, max_entries); ++i) os << (i ? ", " : "") << v[static_cast<Eigen::Index>(i)];
  if (n > max_entries) os << ", ... (" << n << " entries)";
  os << ']';
  return os.str();
}

Vector ParametricModel::values(const Vector& w, const Matrix& X) const {
  check_params(w, "ParametricModel::values");
  check_points(X, "ParametricModel::values");
  Vector out(X.cols());
  for (Eigen::Index i = 0; i < X.cols(); ++i) out[i] = value(w, X.col(i));
  return out;
}

Matrix ParametricModel::jacobian_w(const Vector& w, const Matrix& X) const {
  check_params(w, "ParametricModel::jacobian_w");
  check_points(X, "ParametricModel::jacobian_w");
  Matrix J(X.cols(), static_cast<Eigen::Index>(num_params()));
  Vector g;
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    gradient_w(w, X.col(i), g);
    J.row(i) = g.transpose();
  }
  return J;
}

double ParametricModel::mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const {
  check_params(w, "ParametricModel::mixed_product");
  check_point(x, "ParametricModel::mixed_product");
  check_direction(v, "ParametricModel::mixed_product");
  Vector g;
  gradient_w(w, x, g);
  const double s = g.dot(v);
  const double vmax = v.lpNorm<Eigen::Infinity>();
  if (vmax == 0.0) {
    grad_x = Vector::Zero(x.size());
    return s;
  }
  // Step along the unit-max direction u = v / ||v||_inf scaled to w (cbrt(eps) balances the
  // O(h^2) truncation and O(eps/h) rounding errors of central differences).
  const double h = std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, w.lpNorm<Eigen::Infinity>());
  const Vector u = v / vmax;
  Vector gp, gm;
  gradient_x(w + h * u, x, gp);
  gradient_x(w - h * u, x, gm);
  grad_x = (gp - gm) * (vmax / (2.0 * h));
  return s;
}

}  // namespace optimist
