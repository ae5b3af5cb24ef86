// Dense linear algebra shared by the models (the GP; the parametric regression oracle's
// Levenberg-Marquardt steps): a jittered Cholesky, the inverse of a matrix from its Cholesky
// factor, triangular solves, and symmetric, Gram and general products. From kLapackFrom
// rows on they call LAPACK and BLAS (OpenBLAS, whose kernels use the CPU's vector width: about
// twice Eigen's speed in the portable SSE2 build, docs/gp-bo.md "Stop 51"); below it Eigen, which
// is as fast there. Every function may be called from several threads at once: the OpenBLAS calls
// take a process-wide lock, since its serial build is not safe for that (docs/gp-bo.md "Stop 53").
#pragma once

#include "optimist/core/types.hpp"

namespace optimist {

/// Matrices of this many rows or more go to LAPACK/BLAS. The same as the GP's explicit-inverse
/// threshold, so every model of fewer points computes exactly as before OpenBLAS was used.
inline constexpr Eigen::Index kLapackFrom = 128;

/// Writes the lower Cholesky factor of K + jitter I into the lower triangle of L (strict upper
/// triangle zeroed) and returns the jitter. Tries jitter 0, then 1e-10, 1e-9, ..., 1e-4 times the
/// mean diagonal of K; throws NumericalError if all fail or K is not finite.
double cholesky_with_jitter(const Matrix& K, Matrix& L);

/// Kinv = (L L^T)^-1 (full symmetric) from a lower triangular L, by a recursive triangular
/// inverse and L^-T L^-1 product (the LAPACK trtri + lauum scheme): about 2n^3/3 flops instead of
/// the 2n^3 of solving against the identity.
void inverse_from_cholesky(const Matrix& L, Matrix& Kinv);

/// B <- L^-1 B for a lower triangular L (its strict upper triangle is not read).
void lower_solve_in_place(const Eigen::Ref<const Matrix>& L, Eigen::Ref<Matrix> B);

/// C = alpha op(A) B, op(A) = A^T if transpose_a, by BLAS's dgemm if use_blas, else by Eigen. The
/// caller decides (a GP of kLapackFrom points or more), since the product's own size does not tell
/// whether the run is past the threshold.
void scaled_product(double alpha, const Eigen::Ref<const Matrix>& A, bool transpose_a, const Eigen::Ref<const Matrix>& B,
                    Eigen::Ref<Matrix> C, bool use_blas);

/// The lower triangle of C = A A^T (A^T A if transpose_a) by BLAS's dsyrk, half a general
/// product's flops, whatever the size (the caller applies kLapackFrom); C is resized to square
/// and its strict upper triangle is left unspecified.
void lower_gram_product(const Eigen::Ref<const Matrix>& A, bool transpose_a, Matrix& C);

/// y = A x for a symmetric A of which only the lower triangle is read.
void symmetric_product(const Eigen::Ref<const Matrix>& A, const Vector& x, Vector& y);

/// The buffers of scratch_matrix: callers that may hold theirs at the same time use different slots.
enum class ScratchSlot {
  kCrossKernel,   // candidates x data: the GP's mean and variance bound, TuRBO's pathwise samples
  kPredictCross,  // data x candidates: GaussianProcess::predict
  kCount
};

/// A rows x cols matrix (contents unspecified) in a buffer of this thread that only grows, by half
/// again when it must. For the large temporaries of a growing history: a new size at every step
/// would otherwise be a fresh mapping from the kernel each time, paid in page faults (glibc maps
/// blocks above its threshold anew and raises the threshold only to the size freed; docs/gp-bo.md
/// "Stop 54"). Valid until the next call for the same slot in the same thread. A thread keeps the
/// largest matrix it asked for until it ends (TuRBO's 5,000 candidates x 300 points: 12 MB).
Eigen::Map<Matrix> scratch_matrix(ScratchSlot slot, Eigen::Index rows, Eigen::Index cols);

}  // namespace optimist
