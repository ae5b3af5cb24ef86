#include "optimist/models/parametric/regression_oracle.hpp"

#include <Eigen/Cholesky>

#include <cmath>
#include <limits>

#include "optimist/models/linalg.hpp"

namespace optimist {

namespace {

struct Cost {
  double value = std::numeric_limits<double>::infinity();  // sse + ridge ||w - w_start||^2
  double sse = std::numeric_limits<double>::infinity();
};

Cost cost_at(const ParametricModel& model, const Matrix& X, const Vector& y, const Vector& w, const Vector& w_start,
             const RegressionOracleOptions& o, Vector* residual) {
  Cost c;
  try {
    Vector r = model.values(w, X) - y;
    if (!r.allFinite()) return c;
    c.sse = r.squaredNorm();
    c.value = c.sse + o.ridge * (w - w_start).squaredNorm() + o.weight_decay * w.squaredNorm();
    if (residual) *residual = std::move(r);
  } catch (const NumericalError&) {
  }
  return c;
}

// The large matrices of one fit's steps, kept from step to step: their size is fixed within a fit,
// and matrices freed and allocated again at every step arrived as fresh pages (docs/go-ucb.md,
// "Stop 54").
struct StepWorkspace {
  Matrix gram, damped, factor;
};

// (G + c I)^{-1} r for the Gram matrix ws.gram of which lower_gram_product wrote the lower
// triangle: LAPACK's Cholesky (jittered only if it fails), then two triangular solves. NaN if even
// the jittered factorization fails, which ends the LM iterations as a non-finite step does.
Vector damped_gram_solve(StepWorkspace& ws, double c, const Vector& r) {
  ws.gram.diagonal().array() += c;
  ws.damped = ws.gram.selfadjointView<Eigen::Lower>();
  try {
    cholesky_with_jitter(ws.damped, ws.factor);
  } catch (const NumericalError&) {
    return Vector::Constant(r.size(), std::numeric_limits<double>::quiet_NaN());
  }
  const Matrix& L = ws.factor;
  Vector z = L.triangularView<Eigen::Lower>().solve(r);
  L.triangularView<Eigen::Lower>().transpose().solveInPlace(z);
  return z;
}

// Solves (J^T J + c I) delta = -b. With n < d_w the Woodbury form costs O(n^2 d_w) instead of
// O(d_w^3): (J^T J + cI)^{-1} b = (b - J^T (J J^T + cI)^{-1} J b) / c. From kLapackFrom data
// points on, the Gram matrix and its factor come from BLAS and LAPACK (models/linalg.hpp); fewer
// points compute exactly as before.
Vector damped_step(const Matrix& J, const Vector& b, double c, StepWorkspace& ws) {
  if (J.rows() >= kLapackFrom) {
    if (J.rows() < J.cols()) {
      lower_gram_product(J, false, ws.gram);
      return -(b - J.transpose() * damped_gram_solve(ws, c, J * b)) / c;
    }
    lower_gram_product(J, true, ws.gram);
    return -damped_gram_solve(ws, c, b);
  }
  if (J.rows() < J.cols()) {
    Matrix inner = J * J.transpose();
    inner.diagonal().array() += c;
    const Vector Jb = J * b;
    return -(b - J.transpose() * inner.llt().solve(Jb)) / c;
  }
  Matrix normal = J.transpose() * J;
  normal.diagonal().array() += c;
  return -normal.llt().solve(b);
}

// Levenberg-Marquardt with Nielsen's damping update (Madsen, Nielsen & Tingleff 2004, Alg. 3.16)
// on the residuals [f_w(x_i) - y_i ; sqrt(ridge) (w - w_start) ; sqrt(weight_decay) w].
RegressionFit levenberg_marquardt(const ParametricModel& model, const Matrix& X, const Vector& y, const Vector& w_start,
                                  const RegressionOracleOptions& o) {
  RegressionFit fit;
  fit.w = w_start;
  Vector r;
  Cost cost = cost_at(model, X, y, fit.w, w_start, o, &r);
  if (!std::isfinite(cost.value)) return fit;
  Matrix J = model.jacobian_w(fit.w, X);
  double mu = -1.0, nu = 2.0;
  StepWorkspace workspace;
  for (fit.iterations = 0; fit.iterations < o.max_iterations; ++fit.iterations) {
    const Vector grad = J.transpose() * r + o.ridge * (fit.w - w_start) + o.weight_decay * fit.w;  // half the cost gradient
    if (mu < 0) mu = 1e-3 * std::max(1e-12, J.colwise().squaredNorm().maxCoeff());
    if (grad.lpNorm<Eigen::Infinity>() < 1e-14) break;
    const Vector step = damped_step(J, grad, o.ridge + o.weight_decay + mu, workspace);
    if (!step.allFinite()) break;
    if (step.norm() <= o.tolerance * (fit.w.norm() + o.tolerance)) break;
    const Vector w_new = fit.w + step;
    Vector r_new;
    const Cost new_cost = cost_at(model, X, y, w_new, w_start, o, &r_new);
    // Predicted decrease of the linear model: -step^T (2 grad + (J^T J + ridge + decay) step) = step^T (mu step - grad).
    const double predicted = step.dot(mu * step - grad);
    const double rho = predicted > 0 ? (cost.value - new_cost.value) / predicted : -1.0;
    if (std::isfinite(new_cost.value) && rho > 0) {
      const bool small_gain = cost.value - new_cost.value <= o.tolerance * cost.value;
      fit.w = w_new;
      r = std::move(r_new);
      cost = new_cost;
      J = model.jacobian_w(fit.w, X);
      mu *= std::max(1.0 / 3.0, 1.0 - std::pow(2.0 * rho - 1.0, 3));
      nu = 2.0;
      if (small_gain) break;
    } else {
      mu *= nu;
      nu *= 2.0;
      if (!std::isfinite(mu) || mu > 1e30) break;
    }
  }
  fit.sse = cost.sse;
  return fit;
}

// Appendix D.1: SGD on the mean squared error, one uniformly drawn sample per iteration.
RegressionFit stochastic_gradient_descent(const ParametricModel& model, const Matrix& X, const Vector& y,
                                          const Vector& w_start, const RegressionOracleOptions& o, Rng& rng) {
  RegressionFit fit;
  fit.w = w_start;
  Vector grad;
  for (fit.iterations = 0; fit.iterations < o.sgd_iterations; ++fit.iterations) {
    const auto i = static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(X.cols())));
    const double f = model.gradient_w(fit.w, X.col(i), grad);
    fit.w -= o.sgd_learning_rate * 2.0 * (f - y[i]) * grad;
  }
  fit.sse = (model.values(fit.w, X) - y).squaredNorm();
  return fit;
}

}  // namespace

RegressionFit fit_regression(const ParametricModel& model, const Matrix& X, const Vector& y, const Vector& warm_start,
                             const RegressionOracleOptions& options, Rng& rng) {
  if (static_cast<std::size_t>(X.rows()) != model.input_dim() || X.cols() != y.size() || X.cols() == 0)
    throw InvalidArgument("fit_regression: need a d_x x n point matrix with n = |y| > 0, got " + std::to_string(X.rows()) +
                          " x " + std::to_string(X.cols()) + " and |y| = " + std::to_string(y.size()));
  if (!X.allFinite() || !y.allFinite()) throw InvalidArgument("fit_regression: non-finite data");
  if (warm_start.size() != 0 && static_cast<std::size_t>(warm_start.size()) != model.num_params())
    throw InvalidArgument("fit_regression: warm start has " + std::to_string(warm_start.size()) + " entries, the model " +
                          std::to_string(model.num_params()));
  if (!kOracleMethodNames.contains(options.method))  // a cast integer
    throw InvalidArgument("fit_regression: method " + std::to_string(static_cast<int>(options.method)) +
                          " is none of " + kOracleMethodNames.joined());

  const std::size_t starts = std::max<std::size_t>(1, options.method == OracleMethod::Sgd ? 1 : options.restarts);
  RegressionFit best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (std::size_t s = 0; s < starts; ++s) {
    const Vector start = (s == 0 && warm_start.size() != 0) ? warm_start : model.sample_params(rng);
    RegressionFit fit = options.method == OracleMethod::Sgd ? stochastic_gradient_descent(model, X, y, start, options, rng)
                                                : levenberg_marquardt(model, X, y, start, options);
    const double cost = fit.sse + (options.method == OracleMethod::Lm ? options.ridge * (fit.w - start).squaredNorm() +
                                                              options.weight_decay * fit.w.squaredNorm()
                                                            : 0.0);
    if (std::isfinite(cost) && cost < best_cost) {
      best_cost = cost;
      best = std::move(fit);
    }
  }
  if (!std::isfinite(best_cost))
    throw NumericalError("fit_regression: every start gave a non-finite model output (" + model.describe() + ")");
  best.starts = starts;
  return best;
}

}  // namespace optimist
