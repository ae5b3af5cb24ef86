// BKB's continuous mode: the score u_t = mu_t + beta_t sigma_t of eq. (4), written in kernel form
// so it and its gradient can be evaluated anywhere in the box, maximized by the shared multi-start
// L-BFGS-B from the best arms.
#include <algorithm>
#include <cmath>


#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/solvers/box_maximizer.hpp"

namespace optimist {

const Bkb::ScoreModel& Bkb::score_model() const {
  fold_deferred();
  if (score_model_valid_) return score_model_;
  // With z(x) = W k_B(x), W = R^-T (the state's embedding of the basis arms B, K_B = R^T R):
  //   mu(x)      = z^T V^-1 (b - y0 c) / s              = k_B(x)^T w,  w = R^-1 V^-1 (b - y0 c) / s
  //   sigma^2(x) = (kappa^2 - ||z||^2)/lambda + z^T V^-1 z
  //              = kappa^2/lambda + k_B(x)^T G k_B(x),  G = R^-1 (V^-1 - I/lambda) R^-T   (eq. 4).
  ScoreModel sm;
  const std::vector<std::size_t>& basis = engine_.basis();
  sm.S.resize(arms_.rows(), static_cast<Eigen::Index>(basis.size()));
  for (std::size_t j = 0; j < basis.size(); ++j)
    sm.S.col(static_cast<Eigen::Index>(j)) = arms_.col(static_cast<Eigen::Index>(basis[j]));
  if (basis.empty()) {
    sm.w.resize(0);
    sm.G.resize(0, 0);
  } else {
    const Matrix R = engine_.basis_factor();
    const auto Ru = R.triangularView<Eigen::Upper>();
    sm.w = Ru.solve(engine_.mean_weights(reward_offset(), reward_scale()));
    Matrix X = engine_.v_inverse();
    X.diagonal().array() -= 1.0 / opt_.lambda;
    Ru.solveInPlace(X);                                  // R^-1 (V^-1 - I/lambda)
    Matrix Xt = X.transpose();
    Ru.solveInPlace(Xt);                                 // (R^-1 (R^-1 (...))^T) = G^T = G
    sm.G = 0.5 * (Xt + Xt.transpose());
  }
  score_model_ = std::move(sm);
  score_model_valid_ = true;
  return score_model_;
}

double Bkb::score(const Vector& unit, Vector* grad) const {
  const ScoreModel& sm = score_model();
  const double kl = kernel_.variance() / opt_.lambda;
  const Eigen::Index d = unit.size();
  if (sm.S.cols() == 0) {  // z = 0: mu = 0, sigma^2 = kappa^2 / lambda
    if (grad) *grad = Vector::Zero(d);
    return last_beta_ * std::sqrt(kl);
  }
  Matrix jac;  // d x m: column j = d k(x, s_j) / dx
  const Vector k = kernel_.cross_with_gradient(unit, sm.S, grad ? &jac : nullptr);
  const Vector Gk = sm.G * k;
  const double var = kl + k.dot(Gk);
  const double sd = std::sqrt(std::max(0.0, var));
  const double u = k.dot(sm.w) + last_beta_ * sd;
  if (grad) {
    *grad = jac * sm.w;  // grad mu
    if (sd > 1e-12) *grad += (last_beta_ / sd) * (jac * Gk);  // beta grad(sigma^2) / (2 sigma)
  }
  return u;
}

std::vector<Vector> Bkb::propose(std::size_t n) {
  fold_deferred();
  if (opt_.mode != BkbMode::Continuous || t_ == 0) return ArmBandit::propose(n);
  Vector arm_scores;
  const std::vector<std::size_t> top = top_arms(opt_.continuous_starts, &arm_scores);
  std::vector<Vector> starts;
  for (std::size_t a : top) starts.push_back(arms_.col(static_cast<Eigen::Index>(a)));
  BoxMaximizerOptions bo;
  bo.raw_samples = 0;  // start only from the best arms
  bo.restarts = starts.size();
  Rng rng = rng_for_ask();
  const Eigen::Index d = arms_.rows();
  const BoxMaximizerResult res = maximize_in_box([this](const Vector& x, Vector* g) { return score(x, g); },
                                                 Vector::Zero(d), Vector::Ones(d), starts, bo, rng);
  // The local searches start at the best arm, so they can only improve on its score.
  if (res.found() && res.value >= arm_scores[static_cast<Eigen::Index>(top.front())]) return {res.x};
  return {starts.front()};
}

}  // namespace optimist
