#include "optimist/models/parametric/additive_mlp.hpp"

#include <cmath>

namespace optimist {

namespace {
double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }
}  // namespace

AdditiveMlp::AdditiveMlp(std::size_t input_dim, std::size_t units_per_input)
    : input_dim_(input_dim), units_(units_per_input), num_params_(count_params(input_dim, units_per_input)) {
  if (input_dim == 0) throw InvalidArgument("AdditiveMlp: input_dim must be >= 1, got 0");
  if (units_per_input == 0) throw InvalidArgument("AdditiveMlp: units_per_input must be >= 1, got 0");
}

std::string AdditiveMlp::describe() const {
  return "additive-mlp(d_x=" + std::to_string(input_dim_) + ", units_per_input=" + std::to_string(units_) +
         ", activation=sigmoid, d_w=" + std::to_string(num_params_) + ")";
}

double AdditiveMlp::evaluate(const Vector& w, const Vector& x, Vector* grad_w, Vector* grad_x, const char* where) const {
  check_params(w, where);
  check_point(x, where);
  if (grad_w) grad_w->resize(static_cast<Eigen::Index>(num_params_));
  if (grad_x) *grad_x = Vector::Zero(static_cast<Eigen::Index>(input_dim_));
  double f = w[static_cast<Eigen::Index>(num_params_ - 1)];
  Eigen::Index k = 0;
  for (std::size_t i = 0; i < input_dim_; ++i) {
    const double t = x[static_cast<Eigen::Index>(i)];
    for (std::size_t j = 0; j < units_; ++j, k += 3) {
      const double s = sigmoid(w[k] * t + w[k + 1]), ds = s * (1.0 - s);
      f += w[k + 2] * s;
      if (grad_w) {
        (*grad_w)[k] = w[k + 2] * ds * t;
        (*grad_w)[k + 1] = w[k + 2] * ds;
        (*grad_w)[k + 2] = s;
      }
      // Not ds: this operation order reproduces the documented runs bit for bit.
      if (grad_x) (*grad_x)[static_cast<Eigen::Index>(i)] += w[k + 2] * s * (1.0 - s) * w[k];
    }
  }
  if (grad_w) (*grad_w)[k] = 1.0;
  check_finite(f, w, x, where);
  return f;
}

double AdditiveMlp::value(const Vector& w, const Vector& x) const { return evaluate(w, x, nullptr, nullptr, "AdditiveMlp::value"); }

double AdditiveMlp::gradient_w(const Vector& w, const Vector& x, Vector& grad) const {
  return evaluate(w, x, &grad, nullptr, "AdditiveMlp::gradient_w");
}

double AdditiveMlp::gradient_x(const Vector& w, const Vector& x, Vector& grad) const {
  return evaluate(w, x, nullptr, &grad, "AdditiveMlp::gradient_x");
}

double AdditiveMlp::mixed_product(const Vector& w, const Vector& x, const Vector& v, Vector& grad_x) const {
  // s(x) = grad_w f . v = sum_ij [v^a u s' t + v^b u s' + v^v s] + v^c, with u = v_ij, s' = s(1-s);
  // ds/dt = v^a u (s'' a t + s') + v^b u s'' a + v^v s' a, with s'' = s'(1 - 2s).
  check_params(w, "AdditiveMlp::mixed_product");
  check_point(x, "AdditiveMlp::mixed_product");
  check_direction(v, "AdditiveMlp::mixed_product");
  grad_x = Vector::Zero(static_cast<Eigen::Index>(input_dim_));
  double sum = v[static_cast<Eigen::Index>(num_params_ - 1)];
  Eigen::Index k = 0;
  for (std::size_t i = 0; i < input_dim_; ++i) {
    const double t = x[static_cast<Eigen::Index>(i)];
    double dt = 0.0;
    for (std::size_t j = 0; j < units_; ++j, k += 3) {
      const double a = w[k], u = w[k + 2];
      const double s = sigmoid(a * t + w[k + 1]), d1 = s * (1.0 - s), d2 = d1 * (1.0 - 2.0 * s);
      sum += v[k] * u * d1 * t + v[k + 1] * u * d1 + v[k + 2] * s;
      dt += v[k] * u * (d2 * a * t + d1) + v[k + 1] * u * d2 * a + v[k + 2] * d1 * a;
    }
    grad_x[static_cast<Eigen::Index>(i)] = dt;
  }
  check_finite(sum, w, x, "AdditiveMlp::mixed_product");
  return sum;
}

Vector AdditiveMlp::sample_params(Rng& rng) const {
  Vector w(static_cast<Eigen::Index>(num_params_));
  const double r = std::sqrt(6.0 / static_cast<double>(units_ * input_dim_ + 1));
  Eigen::Index k = 0;
  for (std::size_t i = 0; i < input_dim_; ++i)
    for (std::size_t j = 0; j < units_; ++j, k += 3) {
      w[k] = rng.uniform(-6.0, 6.0);
      w[k + 1] = -w[k] * rng.uniform(0.0, 1.0);
      w[k + 2] = rng.uniform(-r, r);
    }
  w[k] = 0.0;
  return w;
}

}  // namespace optimist
