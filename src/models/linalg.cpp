#include "optimist/models/linalg.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <cstddef>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

// LAPACK (OpenBLAS, Debian libopenblas-serial-dev). The trailing lengths are the hidden string
// arguments of the Fortran calling convention; OpenBLAS's own C implementations ignore them.
extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t uplo_len);
void dtrtri_(const char* uplo, const char* diag, const int* n, double* a, const int* lda, int* info,
             std::size_t uplo_len, std::size_t diag_len);
void dlauum_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t uplo_len);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb, std::size_t side_len,
            std::size_t uplo_len, std::size_t transa_len, std::size_t diag_len);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta, double* c,
            const int* ldc, std::size_t transa_len, std::size_t transb_len);
void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha, const double* a,
            const int* lda, const double* beta, double* c, const int* ldc, std::size_t uplo_len, std::size_t trans_len);
void dsymv_(const char* uplo, const int* n, const double* alpha, const double* a, const int* lda, const double* x,
            const int* incx, const double* beta, double* y, const int* incy, std::size_t uplo_len);
}

namespace optimist {

namespace {

int lapack_int(Eigen::Index n) {
  if (n > static_cast<Eigen::Index>(1) << 30) throw InvalidArgument("linear algebra: matrix of " + std::to_string(n) + " rows is too large");
  return static_cast<int>(n);
}

using MatrixRef = Eigen::Ref<Matrix>;

// Debian's serial OpenBLAS (0.3.21) is not safe to call from several threads at once: concurrent
// dsyrk, dgemm, dtrsm, dpotrf and dlauum calls changed each other's results, so runs in parallel
// threads (optimist bench --jobs, a study's workers) were not reproducible from their seeds.
// dsymv measured safe beside any of them. So the level-3 and LAPACK calls run one at a time
// (ExclusiveLock) and dsymv, the GP acquisition's many calls, side by side (SharedLock);
// docs/gp-bo.md, "Stop 53".
std::shared_mutex& openblas_mutex() {
  static std::shared_mutex m;
  return m;
}
struct ExclusiveLock {
  std::unique_lock<std::shared_mutex> lock{openblas_mutex()};
};
struct SharedLock {
  std::shared_lock<std::shared_mutex> lock{openblas_mutex()};
};

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
  if (L.rows() >= kLapackFrom) {
    const int n = lapack_int(L.rows());
    int info = 0;
    const ExclusiveLock lock;
    dpotrf_("L", &n, L.data(), &n, &info, 1);
    if (info != 0) return false;
  } else {
    Eigen::LLT<MatrixRef> llt(L);  // in place: the factor overwrites the lower triangle
    if (llt.info() != Eigen::Success) return false;
  }
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
  if (L.rows() >= kLapackFrom) {
    // LAPACK's dpotri: the same two steps, trtri then lauum.
    const int n = lapack_int(L.rows());
    int info = 0, lauum_info = 0;
    {
      const ExclusiveLock lock;
      dtrtri_("L", "N", &n, Kinv.data(), &n, &info, 1, 1);
      if (info == 0) dlauum_("L", &n, Kinv.data(), &n, &lauum_info, 1);
    }
    if (info != 0) throw NumericalError("inverse_from_cholesky: the factor is singular at pivot " + std::to_string(info));
  } else {
    invert_lower(Kinv);
    lower_gram(Kinv);
  }
  for (Eigen::Index j = 0; j + 1 < Kinv.cols(); ++j)
    Kinv.row(j).tail(Kinv.cols() - j - 1) = Kinv.col(j).tail(Kinv.cols() - j - 1).transpose();
}

void symmetric_product(const Eigen::Ref<const Matrix>& A, const Vector& x, Vector& y) {
  if (A.rows() != A.cols() || A.cols() != x.size())
    throw InvalidArgument("symmetric_product: a " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                          " matrix times a vector of " + std::to_string(x.size()));
  y.resize(x.size());
  if (A.rows() < kLapackFrom) {
    y.noalias() = A.selfadjointView<Eigen::Lower>() * x;
    return;
  }
  const int n = lapack_int(A.rows()), lda = lapack_int(A.outerStride()), one = 1;
  const double alpha = 1.0, beta = 0.0;
  // OpenBLAS 0.3.21's dsymv_L kernel (Debian 12, PRESCOTT target) reads past the end of its
  // vectors: under ASan, a y of 176 doubles ending at a page boundary faulted at y[176]
  // (GpScaling.ResumePastTheExplicitInverseContinuesExactly). It gets padded copies; O(n) next to
  // the O(n^2) product.
  constexpr Eigen::Index kPadding = 16;
  Vector x_padded = Vector::Zero(x.size() + kPadding), y_padded(x.size() + kPadding);
  x_padded.head(x.size()) = x;
  {
    const SharedLock lock;
    dsymv_("L", &n, &alpha, A.data(), &lda, x_padded.data(), &one, &beta, y_padded.data(), &one, 1);
  }
  y = y_padded.head(x.size());
}

void lower_solve_in_place(const Eigen::Ref<const Matrix>& L, Eigen::Ref<Matrix> B) {
  if (L.rows() != L.cols() || L.cols() != B.rows())
    throw InvalidArgument("lower_solve_in_place: a " + std::to_string(L.rows()) + " x " + std::to_string(L.cols()) +
                          " factor and " + std::to_string(B.rows()) + " right-hand-side rows");
  if (L.rows() < kLapackFrom || B.cols() == 0) {
    L.triangularView<Eigen::Lower>().solveInPlace(B);
    return;
  }
  const int n = lapack_int(L.rows()), m = lapack_int(B.cols()), lda = lapack_int(L.outerStride()),
            ldb = lapack_int(B.outerStride());
  const double one = 1.0;
  const ExclusiveLock lock;
  dtrsm_("L", "L", "N", "N", &n, &m, &one, L.data(), &lda, B.data(), &ldb, 1, 1, 1, 1);
}

void scaled_product(double alpha, const Eigen::Ref<const Matrix>& A, bool transpose_a, const Eigen::Ref<const Matrix>& B,
                    Eigen::Ref<Matrix> C, bool use_blas) {
  const Eigen::Index m = transpose_a ? A.cols() : A.rows(), k = transpose_a ? A.rows() : A.cols();
  if (k != B.rows() || C.rows() != m || C.cols() != B.cols())
    throw InvalidArgument("scaled_product: " + std::to_string(m) + " x " + std::to_string(k) + " times " +
                          std::to_string(B.rows()) + " x " + std::to_string(B.cols()) + " into " +
                          std::to_string(C.rows()) + " x " + std::to_string(C.cols()));
  if (!use_blas || C.size() == 0 || k == 0) {
    if (transpose_a)
      C.noalias() = alpha * A.transpose() * B;
    else
      C.noalias() = alpha * A * B;
    return;
  }
  const int mi = lapack_int(m), ni = lapack_int(B.cols()), ki = lapack_int(k), lda = lapack_int(A.outerStride()),
            ldb = lapack_int(B.outerStride()), ldc = lapack_int(C.outerStride());
  const double beta = 0.0;
  const ExclusiveLock lock;
  dgemm_(transpose_a ? "T" : "N", "N", &mi, &ni, &ki, &alpha, A.data(), &lda, B.data(), &ldb, &beta, C.data(), &ldc, 1, 1);
}

void lower_gram_product(const Eigen::Ref<const Matrix>& A, bool transpose_a, Matrix& C) {
  const Eigen::Index n = transpose_a ? A.cols() : A.rows(), k = transpose_a ? A.rows() : A.cols();
  C.resize(n, n);
  if (n == 0) return;
  if (k == 0) {
    C.setZero();
    return;
  }
  const int ni = lapack_int(n), ki = lapack_int(k), lda = lapack_int(A.outerStride());
  const double one = 1.0, zero = 0.0;
  const ExclusiveLock lock;
  dsyrk_("L", transpose_a ? "T" : "N", &ni, &ki, &one, A.data(), &lda, &zero, C.data(), &ni, 1, 1);
}

Eigen::Map<Matrix> scratch_matrix(ScratchSlot slot, Eigen::Index rows, Eigen::Index cols) {
  if (rows < 0 || cols < 0) throw InvalidArgument("scratch_matrix: " + std::to_string(rows) + " x " + std::to_string(cols));
  thread_local std::vector<double, Eigen::aligned_allocator<double>> buffers[static_cast<std::size_t>(ScratchSlot::kCount)];
  auto& buffer = buffers[static_cast<std::size_t>(slot)];
  const auto needed = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  if (buffer.size() < needed) {
    buffer.clear();  // nothing to copy: the contents are unspecified
    buffer.resize(std::max(needed, buffer.capacity() + buffer.capacity() / 2));
  }
  return {buffer.data(), rows, cols};
}

}  // namespace optimist
