#include "optimist/models/gp/pathwise_sample.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "optimist/models/linalg.hpp"

namespace optimist {

Matrix pathwise_thompson_samples(const GaussianProcess& gp, const Matrix& C, std::size_t q, std::size_t n_features, Rng& rng) {
  const Eigen::Index d = gp.dim(), n = gp.size();
  const auto Q = static_cast<Eigen::Index>(q), D = static_cast<Eigen::Index>(n_features);
  if (C.rows() != d) throw InvalidArgument("pathwise_thompson_samples: candidates of dimension " + std::to_string(C.rows()));
  if (D < 1 || Q < 1) throw InvalidArgument("pathwise_thompson_samples: need at least one feature and one sample");
  const Kernel& kernel = gp.kernel();
  const GpHyperparameters& h = gp.hyperparameters();

  // Spectral frequencies: N(0, diag(1/l^2)) for the squared exponential; for Matern-nu a
  // multivariate Student-t with 2 nu degrees of freedom (the normal divided by sqrt(chi2_2nu / 2nu)).
  int dof = 0;
  if (kernel.type() == KernelType::Matern52) dof = 5;
  if (kernel.type() == KernelType::Matern32) dof = 3;
  const double c = std::sqrt(2.0 * kernel.outputscale() / static_cast<double>(D));
  // With categorical inputs the features act on the kernel's embedding (one-hot columns scaled by
  // 1/(sqrt 2 l), Kernel::embed), whose Euclidean distances are r: the same spectral measure with
  // unit lengthscales; so do rotated inputs. Ordered inputs keep the frequencies scaled by 1/l and act on x itself.
  const bool embedded = kernel.has_categorical() || kernel.has_rotation();
  const Eigen::Index de = embedded ? kernel.embed(Matrix::Zero(d, 1)).rows() : d;
  Matrix omega(D, de);
  Vector phase(D), w(D);
  // Each sample gets its own features, so that over the feature draw every sample's prior has
  // exactly the kernel's covariance (shared features would bias all q samples the same way).
  auto draw_prior = [&]() {
    for (Eigen::Index r = 0; r < D; ++r) {
      double scale = 1.0;
      if (dof > 0) {
        double chi2 = 0.0;
        for (int k = 0; k < dof; ++k) {
          const double z = rng.normal();
          chi2 += z * z;
        }
        scale = std::sqrt(dof / chi2);
      }
      if (embedded)
        for (Eigen::Index i = 0; i < de; ++i) omega(r, i) = scale * rng.normal();
      else
        for (Eigen::Index i = 0; i < d; ++i) omega(r, i) = scale * rng.normal() / kernel.lengthscales()[i];
      phase[r] = 2.0 * std::numbers::pi * rng.uniform();
      w[r] = rng.normal();
    }
  };
  // Prior draw f(x) = sqrt(2 s / D) cos(omega x + b)^T w (Rahimi & Recht 2007), by blocks of
  // columns so that the D x block phases stay in cache. The phase is reduced to [-pi, pi] in double
  // and its cosine taken in single precision, which Eigen vectorizes (its double cos is scalar and
  // was 60% of a TuRBO step): each feature is then within ~1e-7 of its double value, far below the
  // O(1/sqrt(D)) error of the features themselves.
  constexpr Eigen::Index kBlock = 64;
  const bool use_blas = n >= kLapackFrom;  // as the GP's own linear algebra (linalg.hpp)
  constexpr double kTwoPi = 2.0 * std::numbers::pi;
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52
  Matrix arg(D, kBlock);
  Eigen::ArrayXXf cosine(D, kBlock);
  auto prior = [&](const Matrix& X_in) -> Vector {
    const Matrix embedded_points = embedded ? kernel.embed(X_in) : Matrix();
    const Matrix& P = embedded ? embedded_points : X_in;
    Vector values(P.cols());
    for (Eigen::Index j0 = 0; j0 < P.cols(); j0 += kBlock) {
      const Eigen::Index b = std::min(kBlock, P.cols() - j0);
      auto a = arg.leftCols(b);
      scaled_product(1.0, omega, false, P.middleCols(j0, b), a, use_blas);
      a.colwise() += phase;
      // Nearest multiple of 2 pi by the 1.5 * 2^52 rounding trick: plain arithmetic, so it
      // vectorizes where std::round does not.
      a.array() -= kTwoPi * (((a.array() * (1.0 / kTwoPi)) + kRound) - kRound);
      cosine.leftCols(b) = a.array().cast<float>();
      cosine.leftCols(b) = cosine.leftCols(b).cos();  // a pass of its own: a cast inside would stay scalar
      values.segment(j0, b).noalias() = c * (cosine.leftCols(b).cast<double>().matrix().transpose() * w);
    }
    return values;
  };

  Matrix out(C.cols(), Q);  // standardized units around the constant mean
  Matrix r(n, Q);
  for (Eigen::Index j = 0; j < Q; ++j) {
    draw_prior();
    out.col(j) = prior(C);
    if (n > 0) r.col(j) = -prior(gp.inputs());
  }
  if (n > 0) {
    // Matheron's rule: add k(., X) (K + s2 I)^-1 (y_s - mean - prior(X) - eps), eps ~ N(0, s2 I).
    const Matrix& X = gp.inputs();
    const Vector ys = (gp.outputs().array() - gp.output_mean()) / gp.output_scale() - gp.prior_mean();
    const double sd_noise = std::sqrt(h.noise_variance);
    for (Eigen::Index j = 0; j < Q; ++j)
      for (Eigen::Index i = 0; i < n; ++i) r(i, j) += ys[i] - sd_noise * rng.normal();
    gp.solve_in_place(r);  // the GP's own factor: O(n^2 q), no O(n^3) refactorization per draw
    auto K = scratch_matrix(ScratchSlot::kCrossKernel, C.cols(), n);
    kernel.cross_fast(C, X, K);
    out.noalias() += K * r;
  }
  out.array() += gp.prior_mean();
  return (gp.output_mean() + gp.output_scale() * out.array()).matrix();
}

}  // namespace optimist
