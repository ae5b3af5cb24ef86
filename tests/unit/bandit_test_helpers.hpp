// Shared by the BKB and BBKB tests: random arms, a function drawn from the GP on them, arm lookup.
#pragma once

#include <Eigen/Cholesky>

#include <cstddef>
#include <cstdint>

#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/core/rng.hpp"
#include "optimist/models/gp/kernel.hpp"

namespace optimist::test {

/// A uniform arms in [0,1]^d, one per column.
inline Matrix random_arms(std::size_t d, std::size_t A, std::uint64_t seed) {
  Rng rng(seed);
  Matrix X(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(A));
  for (Eigen::Index j = 0; j < X.cols(); ++j) X.col(j) = rng.uniform_vector(X.rows());
  return X;
}

/// f drawn from GP(0, k) on the arms.
inline Vector draw_from_gp(const Kernel& k, const Matrix& arms, std::uint64_t seed) {
  Matrix K = k.gram(arms);
  K.diagonal().array() += 1e-8;
  const Eigen::LLT<Matrix> llt(K);
  Rng rng(seed);
  return llt.matrixL() * rng.normal_vector(arms.cols());
}

/// The estimator of the paper (Fig. 1 and eq. 4 as stated) with the other options of `o` (its
/// beta included): fixed kernel, raw rewards, fresh draws, no switch to the exact formulas.
inline ArmBanditOptions paper_estimator(ArmBanditOptions o) {
  o.refit = KernelRefit::None;
  o.standardize = false;
  o.sampling = DictionarySampling::Fresh;
  o.exact_above = 2.0;
  return o;
}

/// Index of the arm closest to u.
inline Eigen::Index arm_index(const Matrix& arms, const Vector& u) {
  Eigen::Index best = 0;
  (arms.colwise() - u).colwise().squaredNorm().minCoeff(&best);
  return best;
}

}  // namespace optimist::test
