#include "optimist/models/gp/adam_fit.hpp"

#include <algorithm>
#include <cmath>

namespace optimist {

namespace {

double sigmoid(double r) { return 1.0 / (1.0 + std::exp(-r)); }

}  // namespace

void fit_hyperparameters_adam(GaussianProcess& gp, const AdamFitOptions& options) {
  if (gp.size() == 0 || options.steps <= 0) return;
  Vector lower, upper;  // log bounds of the positive parameters; the mean's entry is ignored
  gp.parameter_bounds(lower, upper);
  const Eigen::Index p = gp.num_parameters();
  const Eigen::Index positive = gp.options().mean == ConstantMean::Learned ? p - 1 : p;  // the mean is packed last
  const Vector lo = lower.array().exp().matrix(), hi = upper.array().exp().matrix();

  // raw <-> packed theta (log of the positive parameters, the mean as is).
  auto to_theta = [&](const Vector& raw) {
    Vector theta = raw;
    for (Eigen::Index i = 0; i < positive; ++i) theta[i] = std::log(lo[i] + (hi[i] - lo[i]) * sigmoid(raw[i]));
    return theta;
  };
  Vector raw = gp.parameters();
  for (Eigen::Index i = 0; i < positive; ++i) {
    // Inverse of the interval transform, kept strictly inside so that raw is finite.
    const double width = hi[i] - lo[i];
    const double s = std::clamp((std::exp(raw[i]) - lo[i]) / width, 1e-9, 1.0 - 1e-9);
    raw[i] = std::log(s / (1.0 - s));
  }

  const double n = static_cast<double>(gp.size());
  Vector m = Vector::Zero(p), v = Vector::Zero(p), grad(p);
  for (int t = 1; t <= options.steps; ++t) {
    const Vector theta = to_theta(raw);
    const double value = gp.log_marginal_likelihood(theta, &grad, true);
    if (!std::isfinite(value) || !grad.allFinite()) break;
    // Loss gradient in raw: -(d log p / d log theta) * (1 / theta) * d theta / d raw, divided by n.
    Vector g(p);
    for (Eigen::Index i = 0; i < p; ++i) {
      if (i >= positive) {
        g[i] = -grad[i] / n;
        continue;
      }
      const double s = sigmoid(raw[i]);
      const double th = std::exp(theta[i]);
      g[i] = -grad[i] / th * (hi[i] - lo[i]) * s * (1.0 - s) / n;
    }
    // Adam (Kingma & Ba 2015, Algorithm 1), torch's form.
    m = options.beta1 * m + (1.0 - options.beta1) * g;
    v = options.beta2 * v + (1.0 - options.beta2) * g.cwiseAbs2();
    const double c1 = 1.0 - std::pow(options.beta1, t), c2 = 1.0 - std::pow(options.beta2, t);
    raw.array() -= options.learning_rate / c1 * m.array() / ((v.array() / c2).sqrt() + options.epsilon);
  }
  gp.set_hyperparameters(gp.unpack(to_theta(raw)));
}

}  // namespace optimist
