#include "optimist/models/gp/linalg.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <string>

namespace optimist {

namespace {

using MatrixRef = Eigen::Ref<Matrix>;

constexpr Eigen::Index kBlock = 32;  // below this, plain triangular solves are as fast

// A (lower triangular, in place) -> A^-1. [[A11, 0], [A21, A22]]^-1 =
// [[A11^-1, 0], [-A22^-1 A21 A11^-1, A22^-1]].
void invert_lower(MatrixRef A) {
  const Eigen::Index n = A.rows();
  if (n <= kBlock) {
    Matrix I = Matrix::Identity(n, n);
    A.triangularView<Eigen::Lower>().solveInPlace(I);
    A.triangularView<Eigen::Lower>() = I;
    return;
  }
  const Eigen::Index n1 = n / 2, n2 = n - n1;
  invert_lower(A.topLeftCorner(n1, n1));
  invert_lower(A.bottomRightCorner(n2, n2));
  const Matrix T = A.bottomLeftCorner(n2, n1) * A.topLeftCorner(n1, n1).triangularView<Eigen::Lower>();
  A.bottomLeftCorner(n2, n1).noalias() = -(A.bottomRightCorner(n2, n2).triangularView<Eigen::Lower>() * T);
}

// A (lower triangular, in place) -> lower triangle of A^T A.
void lower_gram(MatrixRef A) {
  const Eigen::Index n = A.rows();
  if (n <= kBlock) {
    const Matrix B = A.triangularView<Eigen::Lower>();
    A.triangularView<Eigen::Lower>() = B.transpose() * B;
    return;
  }
  const Eigen::Index n1 = n / 2, n2 = n - n1;
  // [[A11^T A11 + A21^T A21, .], [A22^T A21, A22^T A22]]
  lower_gram(A.topLeftCorner(n1, n1));
  A.topLeftCorner(n1, n1).selfadjointView<Eigen::Lower>().rankUpdate(A.bottomLeftCorner(n2, n1).transpose());
  A.bottomLeftCorner(n2, n1) =
      A.bottomRightCorner(n2, n2).triangularView<Eigen::Lower>().transpose() * A.bottomLeftCorner(n2, n1);
  lower_gram(A.bottomRightCorner(n2, n2));
}

bool try_cholesky(const Matrix& K, double jitter, Matrix& L) {
  L = K;
  L.diagonal().array() += jitter;
  Eigen::LLT<MatrixRef> llt(L);  // in place: the factor overwrites the lower triangle
  if (llt.info() != Eigen::Success) return false;
  // LLT only rejects non-positive pivots; NaN pivots pass, so check the diagonal too.
  for (Eigen::Index i = 0; i < L.rows(); ++i)
    if (!(L(i, i) > 0.0) || !std::isfinite(L(i, i))) return false;
  L.triangularView<Eigen::StrictlyUpper>().setZero();
  return true;
}

}  // namespace

double cholesky_with_jitter(const Matrix& K, Matrix& L) {
  if (K.rows() != K.cols()) throw InvalidArgument("cholesky_with_jitter: the matrix is not square");
  if (K.size() == 0) {
    L.resize(0, 0);
    return 0.0;
  }
  if (!K.allFinite()) throw NumericalError("cholesky_with_jitter: the covariance matrix has non-finite entries");
  if (try_cholesky(K, 0.0, L)) return 0.0;
  const double scale = std::max(std::abs(K.diagonal().mean()), 1e-300);
  for (double f = 1e-10; f <= 1.5e-4; f *= 10.0)
    if (try_cholesky(K, f * scale, L)) return f * scale;
  throw NumericalError("cholesky_with_jitter: the " + std::to_string(K.rows()) +
                       " x " + std::to_string(K.rows()) +
                       " covariance matrix is not positive definite even with jitter 1e-4 x mean diagonal");
}

void inverse_from_cholesky(const Matrix& L, Matrix& Kinv) {
  Kinv = L.triangularView<Eigen::Lower>();
  invert_lower(Kinv);
  lower_gram(Kinv);
  for (Eigen::Index j = 0; j + 1 < Kinv.cols(); ++j)
    Kinv.row(j).tail(Kinv.cols() - j - 1) = Kinv.col(j).tail(Kinv.cols() - j - 1).transpose();
}

}  // namespace optimist
