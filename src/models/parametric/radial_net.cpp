#include "optimist/models/parametric/radial_net.hpp"

#include <cmath>

namespace optimist {

RadialNet::RadialNet(Matrix anchors, double width, RadialProfile profile, double jitter)
    : anchors_(std::move(anchors)), width_(width), jitter_(jitter), profile_(profile),
      d_(static_cast<std::size_t>(anchors_.rows())), units_(static_cast<std::size_t>(anchors_.cols())),
      num_params_(static_cast<std::size_t>(anchors_.cols()) * (static_cast<std::size_t>(anchors_.rows()) + 1) + 1) {
  if (units_ == 0 || d_ == 0) throw InvalidArgument("RadialNet: needs at least one anchor and one input");
  if (!(width > 0)) throw InvalidArgument("RadialNet: width must be > 0");
}

std::string RadialNet::describe() const {
  return "radial-net(d_x=" + std::to_string(d_) + ", units=" + std::to_string(units_) + ", profile=" +
         kRadialProfileNames.name(profile_) + ", d_w=" + std::to_string(num_params_) + ")";
}

void RadialNet::profile(double q, double& p, double& dp, double& d2p) const {
  if (profile_ == RadialProfile::Gaussian) {
    p = std::exp(-0.5 * q);
    dp = -0.5 * p;
    d2p = 0.25 * p;
    return;
  }
  const double r = std::sqrt(std::max(q, 0.0)), e = std::exp(-std::sqrt(5.0) * r);
  p = (1.0 + std::sqrt(5.0) * r + 5.0 * q / 3.0) * e;
  dp = -(5.0 / 6.0) * (1.0 + std::sqrt(5.0) * r) * e;
  d2p = (25.0 / 12.0) * e;
}

double RadialNet::evaluate(const Vector& w, const Vector& x, Vector* grad_w, Vector* grad_x, const char* where) const {
  check_params(w, where);
  check_point(x, where);
  const auto d = static_cast<Eigen::Index>(d_);
  const double il2 = 1.0 / (width_ * width_);
  if (grad_w) grad_w->resize(static_cast<Eigen::Index>(num_params_));
  if (grad_x) *grad_x = Vector::Zero(d);
  double f = w[static_cast<Eigen::Index>(num_params_ - 1)];
  Eigen::Index k = 0;
  for (std::size_t u = 0; u < units_; ++u, k += d + 1) {
    const Vector e = x - w.segment(k, d);
    const double q = e.squaredNorm() * il2, v = w[k + d];
    double p, dp, d2p;
    profile(q, p, dp, d2p);
    f += v * p;
    if (grad_w) {
      grad_w->segment(k, d) = (-2.0 * v * dp * il2) * e;
      (*grad_w)[k + d] = p;
    }
    if (grad_x) *grad_x += (2.0 * v * dp * il2) * e;
  }
  if (grad_w) (*grad_w)[k] = 1.0;
  check_finite(f, w, x, where);
  return f;
}

double RadialNet::value(const Vector& w, const Vector& x) const { return evaluate(w, x, nullptr, nullptr, "RadialNet::value"); }
double RadialNet::gradient_w(const Vector& w, const Vector& x, Vector& grad) const {
  return evaluate(w, x, &grad, nullptr, "RadialNet::gradient_w");
}
double RadialNet::gradient_x(const Vector& w, const Vector& x, Vector& grad) const {
  return evaluate(w, x, nullptr, &grad, "RadialNet::gradient_x");
}

double RadialNet::mixed_product(const Vector& w, const Vector& x, const Vector& dir, Vector& grad_x) const {
  // s(x) = sum_k [a_k . (-2 v_k phi'_k e_k / l^2) + b_k phi_k] + b_c, e_k = x - z_k, (a_k, b_k) dir's parts;
  // ds/dx = sum_k [-2 v_k / l^2 (phi'_k a_k + 2 (a_k . e_k) phi''_k e_k / l^2) + 2 b_k phi'_k e_k / l^2].
  check_params(w, "RadialNet::mixed_product");
  check_point(x, "RadialNet::mixed_product");
  check_direction(dir, "RadialNet::mixed_product");
  const auto d = static_cast<Eigen::Index>(d_);
  const double il2 = 1.0 / (width_ * width_);
  grad_x = Vector::Zero(d);
  double s = dir[static_cast<Eigen::Index>(num_params_ - 1)];
  Eigen::Index k = 0;
  for (std::size_t u = 0; u < units_; ++u, k += d + 1) {
    const Vector e = x - w.segment(k, d);
    const double q = e.squaredNorm() * il2, v = w[k + d], b = dir[k + d];
    double p, dp, d2p;
    profile(q, p, dp, d2p);
    const double ae = dir.segment(k, d).dot(e);
    s += -2.0 * v * dp * il2 * ae + b * p;
    grad_x += (-2.0 * v * il2 * dp) * dir.segment(k, d) + (-4.0 * v * il2 * il2 * ae * d2p + 2.0 * b * dp * il2) * e;
  }
  check_finite(s, w, x, "RadialNet::mixed_product");
  return s;
}

Vector RadialNet::sample_params(Rng& rng) const {
  Vector w(static_cast<Eigen::Index>(num_params_));
  const auto d = static_cast<Eigen::Index>(d_);
  Eigen::Index k = 0;
  for (std::size_t u = 0; u < units_; ++u, k += d + 1) {
    for (Eigen::Index i = 0; i < d; ++i) w[k + i] = anchors_(i, static_cast<Eigen::Index>(u)) + jitter_ * rng.normal();
    w[k + d] = rng.uniform(-0.1, 0.1);
  }
  w[k] = 0.0;
  return w;
}

}  // namespace optimist
