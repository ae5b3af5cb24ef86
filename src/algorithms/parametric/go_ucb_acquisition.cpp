// GO-UCB's acquisition, Algorithm 1 step 5: the optimistic value max over w in Ball_t of f_w(x),
// and its maximization over x (continuous, mixed or discrete spaces; the trust region's box or ball).
#include <algorithm>
#include <cmath>
#include <limits>

#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/solvers/box_maximizer.hpp"
#include "optimist/solvers/mixed_maximizer.hpp"
#include "optimist/solvers/space_filling.hpp"

namespace optimist {

double GoUcb::acquisition_value(const Vector& x, Vector* grad) const {
  const Vector w = current_parameters();
  Vector gw, gx;
  const double f = model_->gradient_w(w, x, gw);
  // Lemma 5.4: f_x(w_t) + sqrt(beta_t) ||grad_w f_x(w_t)||_{Sigma_t^{-1}}.
  const double rb = std::sqrt(beta(phase_two_count_ + 1));
  const Vector v = ellipsoid_->inverse_apply(gw);
  const double norm = std::sqrt(std::max(0.0, gw.dot(v)));
  if (grad) {
    model_->gradient_x(w, x, *grad);
    if (norm > 0) {
      model_->mixed_product(w, x, v, gx);  // (dg/dx)^T Sigma^{-1} g
      *grad += rb * gx / norm;
    }
  }
  return f + rb * norm;
}

std::pair<double, double> GoUcb::mean_and_bonus(const Vector& x) const {
  Vector gw;
  const double f = model_->gradient_w(ellipsoid_->center(), x, gw);
  const double norm = std::sqrt(std::max(0.0, gw.dot(ellipsoid_->inverse_apply(gw))));
  return {f, std::sqrt(beta(phase_two_count_ + 1)) * norm};
}

Vector GoUcb::joint_ascent(const Vector& x_start, const Vector& lower, const Vector& upper) const {
  // Step 5 jointly over (x, u): maximize f_x(w_t + sqrt(beta) S^{-T} u), x in the box, ||u|| <= 1,
  // by projected gradient ascent with backtracking. Starts at the linearization's optimal u.
  const double beta_t = beta(phase_two_count_ + 1);
  Vector x = x_start, g;
  model_->gradient_w(ellipsoid_->center(), x, g);
  Vector u = ellipsoid_->ball_gradient(g, beta_t);
  u = u.norm() > 0 ? Vector(u / u.norm()) : Vector(Vector::Zero(u.size()));
  auto value = [&](const Vector& xx, const Vector& uu) { return model_->value(ellipsoid_->from_ball(uu, beta_t), xx); };
  double current = value(x, u);
  double step = 0.1;
  for (int it = 0; it < 100 && step > 1e-8; ++it) {
    const Vector w = ellipsoid_->from_ball(u, beta_t);
    Vector gx, gwv;
    model_->gradient_x(w, x, gx);
    model_->gradient_w(w, x, gwv);
    const Vector gu = ellipsoid_->ball_gradient(gwv, beta_t);
    const double gnorm = std::sqrt(gx.squaredNorm() + gu.squaredNorm());
    if (gnorm < 1e-12) break;
    bool improved = false;
    while (step > 1e-8) {
      Vector x_new = (x + step * gx / gnorm).cwiseMax(lower).cwiseMin(upper);
      Vector u_new = u + step * gu / gnorm;
      if (u_new.norm() > 1.0) u_new /= u_new.norm();  // exact projection in whitened coordinates
      const double v_new = value(x_new, u_new);
      if (v_new > current) {
        x = std::move(x_new);
        u = std::move(u_new);
        current = v_new;
        step *= 1.5;
        improved = true;
        break;
      }
      step *= 0.5;
    }
    if (!improved) break;
  }
  return x;
}

BoxBatchObjective GoUcb::batch_acquisition(const BoxObjective& fn) const {
  if (options_.variant != GoUcbVariant::GoUcb || options_.acquisition != GoUcbAcquisition::Linearized) return {};
  // Lemma 5.4's optimistic value of many candidates at once: the network's values and Jacobian in
  // w, and ||g||_{Sigma^-1} by one triangular solve with Sigma_t's factor (or one product with the
  // low-rank basis), in blocks of kBlock points (small temporaries: allocating large ones cost more
  // than the products).
  return [this, &fn](const Matrix& X) -> Vector {
    constexpr Eigen::Index kBlock = 32;
    Vector v(X.cols());
    const Vector w = current_parameters();
    const double rb = std::sqrt(beta(phase_two_count_ + 1));
    for (Eigen::Index j0 = 0; j0 < X.cols(); j0 += kBlock) {
      const Eigen::Index n = std::min(kBlock, X.cols() - j0);
      const Matrix Xb = X.middleCols(j0, n);
      try {
        v.segment(j0, n) = model_->values(w, Xb) + rb * ellipsoid_->inverse_norms(model_->jacobian_w(w, Xb));
      } catch (const NumericalError&) {  // non-finite somewhere in the block: point by point (fn gives -inf)
        for (Eigen::Index j = 0; j < n; ++j) v[j0 + j] = fn(Xb.col(j), nullptr);
      }
    }
    return v;
  };
}

Vector GoUcb::acquire() {
  const std::size_t d = space().dim();
  std::vector<Vector> starts;
  if (const Observation* b = best()) starts.push_back(b->trial.unit);
  // The last Phase II query (from the told history, so that a replayed optimizer starts alike).
  if (!phase_two_indices_.empty()) starts.push_back(history()[phase_two_indices_.back()].trial.unit);
  for (const auto& t : pending()) starts.push_back(t.unit);
  BoxMaximizerOptions bo;
  bo.raw_samples = options_.raw_samples;
  bo.restarts = options_.restarts;
  Rng rng = rng_for_ask();
  // A model that overflows somewhere scores -inf there instead of aborting the ask.
  const auto fn = [this](const Vector& x, Vector* grad) -> double {
    try {
      return acquisition_value(x, grad);
    } catch (const NumericalError&) {
      return -std::numeric_limits<double>::infinity();
    }
  };
  Vector lower = Vector::Zero(d), upper = Vector::Ones(d);
  const Observation* incumbent = best();
  bool ball = trust_region() > 0 && incumbent && options_.trust_shape == TrustShape::Ball;
  Vector center;
  if (trust_region() > 0 && incumbent) {  // deviation trust_region: step 5 near the incumbent
    center = incumbent->trial.unit;
    const double half = ball ? trust_size() : 0.5 * trust_size();
    lower = (center.array() - half).max(0.0).matrix();
    upper = (center.array() + half).min(1.0).matrix();
  }
  if (bounds_override_) {  // the incumbent is a data point: the intersection holds it
    lower = lower.cwiseMax(bounds_override_->first);
    upper = upper.cwiseMin(bounds_override_->second);
  }
  if (space().has_discrete()) return acquire_discrete(fn, starts, lower, upper, rng);
  const double r2 = trust_size() * trust_size();
  // Ball: a smooth penalty outside ||x - c|| <= r (kappa makes a 1% overshoot of r^2 cost ~1
  // standardized unit), then the exact radial projection of the result.
  const auto ball_penalty = [&](const Vector& x, Vector* grad) -> double {
    const double excess = (x - center).squaredNorm() - r2;
    if (excess <= 0) return 0.0;
    const double kappa = 1e4 / (r2 * r2);
    if (grad) *grad -= 4.0 * kappa * excess * (x - center);
    return kappa * excess * excess;
  };
  const auto ball_fn = [&](const Vector& x, Vector* grad) -> double {
    const double v = fn(x, grad);
    return v - ball_penalty(x, grad);
  };
  // The raw samples are scored in blocks (the same values as fn's, but one product for the block).
  const BoxBatchObjective batch = batch_acquisition(fn);
  BoxBatchObjective ball_batch;
  if (batch)
    ball_batch = [&](const Matrix& X) -> Vector {
      Vector v = batch(X);
      for (Eigen::Index j = 0; j < X.cols(); ++j) v[j] -= ball_penalty(X.col(j), nullptr);
      return v;
    };
  BoxMaximizerResult r = ball ? maximize_in_box(ball_fn, lower, upper, starts, bo, rng, ball_batch)
                              : maximize_in_box(fn, lower, upper, starts, bo, rng, batch);
  if (ball && r.found()) {
    const double dist = (r.x - center).norm();
    if (dist > trust_size()) r.x = center + (r.x - center) * (trust_size() / dist);
  }
  // Documented recovery: if the model is non-finite everywhere, sample uniformly.
  Vector x = r.found() ? r.x : (lower.array() + (upper - lower).array() * rng.uniform_vector(static_cast<Eigen::Index>(d)).array()).matrix();
  if (options_.variant == GoUcbVariant::GoUcb && options_.global_candidate && trust_region() > 0 && incumbent) {
    // Deviation global_candidate: the unrestricted step 5 wins only when even its pessimistic value
    // (Ball_t's lower end, first order) exceeds the optimistic value at the incumbent.
    BoxMaximizerResult g = maximize_in_box(fn, Vector::Zero(d), Vector::Ones(d), starts, bo, rng, batch);
    if (g.found()) {
      try {
        const auto [fg, bg] = mean_and_bonus(g.x);
        const auto [fc, bc] = mean_and_bonus(center);
        if (fg - bg > fc + bc) {
          ++global_steps_;
          ball = false;
          x = g.x;
          lower = Vector::Zero(d);
          upper = Vector::Ones(d);
        }
      } catch (const NumericalError&) {
      }
    }
  }
  if (options_.variant == GoUcbVariant::GoUcb && options_.acquisition == GoUcbAcquisition::Joint) {
    x = joint_ascent(x, lower, upper);  // ascends in the ball's bounding box; back into the ball
    const double dist = ball ? (x - center).norm() : 0.0;
    if (dist > trust_size()) x = center + (x - center) * (trust_size() / dist);
  }
  return x;
}

Vector GoUcb::acquire_discrete(const BoxObjective& fn, const std::vector<Vector>& starts, Vector lower, Vector upper,
                               Rng& rng) const {
  // Step 5 over the valid integer and categorical values, excluding evaluated and pending points
  // (maximize_mixed). The trust region (deviation trust_region) is a box here: its side on the
  // continuous coordinates, at least one value either side of the incumbent on an integer, every
  // category of a categorical; when it holds no free point, the whole domain.
  const DiscreteDomain& dom = domain();
  // discrete_step: every value of the integers on odd Phase II steps (alternate) or always (global).
  const bool whole = whole_domain_step();
  if (trust_region() > 0 && best()) {
    const Vector& c = best()->trial.unit;
    for (std::size_t i : dom.discrete_dims()) {
      const auto ii = static_cast<Eigen::Index>(i);
      const double step = (dom.is_categorical(i) || whole) ? 1.0 : 1.0 / static_cast<double>(dom.cardinality(i));
      lower[ii] = std::max(0.0, std::min(lower[ii], c[ii] - step));
      upper[ii] = std::min(1.0, std::max(upper[ii], c[ii] + step));
    }
  }
  MixedMaximizerOptions mo;
  mo.box.raw_samples = options_.raw_samples;
  mo.box.restarts = options_.restarts;
  const auto excluded = [&](const Vector& u) { return avoids_repeats() && is_taken(u); };
  const auto d = static_cast<Eigen::Index>(space().dim());
  const BoxBatchObjective batch = batch_acquisition(fn);
  MixedMaximizerResult r = maximize_mixed(dom, fn, batch, lower, upper, starts, excluded, mo, rng);
  if (!r.x && ((lower.array() > 0.0).any() || (upper.array() < 1.0).any()))
    r = maximize_mixed(dom, fn, batch, Vector::Zero(d), Vector::Ones(d), starts, excluded, mo, rng);
  if (r.x) return *r.x;
  return free_uniform_point(rng);  // the model is non-finite everywhere (documented recovery)
}

}  // namespace optimist
