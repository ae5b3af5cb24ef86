// Exact GP-UCB on a finite arm set (Srinivas et al. 2010 / the exact reference of BKB, eqs. 1-3
// with the eq. 8 variance scaling), recomputed from scratch at every step.
#include <Eigen/Cholesky>

#include "optimist/algorithms/bandit/bkb.hpp"

namespace optimist {

GpUcbArms::GpUcbArms(const Space& space, Direction direction, const ArmBanditOptions& options,
                     const RunContext& context)
    : ArmBandit("gp-ucb-arms", space, direction, options, context) {}
GpUcbArms::GpUcbArms(const Space& space, Direction direction, const ArmBanditOptions& options, const Matrix& user_arms,
                     const RunContext& context)
    : ArmBandit("gp-ucb-arms", space, direction, options, user_arms, context) {}

void GpUcbArms::model(Vector& mean, Vector& variance) const {
  const Eigen::Index n = arms_.cols();
  const double lam = opt_.lambda, kxx = kernel_.variance();
  if (pulled_.empty()) {
    mean = Vector::Zero(n);
    variance = Vector::Constant(n, kxx / lam);
    return;
  }
  // eqs. (1)-(2) over the distinct pulled arms U: (K_U + lambda N^-1)^-1 applied to the mean
  // rewards (standardized); variance scaled by 1/lambda as in eq. (8).
  const double y0 = reward_offset(), s = reward_scale();
  Matrix U(arms_.rows(), static_cast<Eigen::Index>(pulled_.size()));
  Vector ybar(U.cols());
  for (std::size_t j = 0; j < pulled_.size(); ++j) {
    const auto i = static_cast<Eigen::Index>(j);
    const auto a = static_cast<Eigen::Index>(pulled_[j]);
    U.col(i) = arms_.col(a);
    ybar[i] = (sums_[a] / static_cast<double>(counts_[pulled_[j]]) - y0) / s;
  }
  Matrix K = kernel_.gram(U);
  for (std::size_t j = 0; j < pulled_.size(); ++j)
    K(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(j)) += lam / static_cast<double>(counts_[pulled_[j]]);
  const Eigen::LLT<Matrix> llt(K);
  if (llt.info() != Eigen::Success) throw NumericalError("gp-ucb-arms: Cholesky failed");
  const Matrix B = llt.matrixL().solve(kernel_.cross(U, arms_));
  const Vector c = llt.matrixL().solve(ybar);
  mean = B.transpose() * c;
  variance = ((kxx - B.colwise().squaredNorm().transpose().array()).max(0.0) / lam).matrix();
}

void GpUcbArms::after_update(std::size_t, double) {
  if (refit_due()) refit_kernel(pulled_);  // on every distinct pulled arm (at most 256 sampled)
}

}  // namespace optimist
