// Dense linear algebra shared by the GP model: a jittered Cholesky and the inverse of a matrix
// from its Cholesky factor.
#pragma once

#include "optimist/core/types.hpp"

namespace optimist {

/// Writes the lower Cholesky factor of K + jitter I into the lower triangle of L (strict upper
/// triangle zeroed) and returns the jitter. Tries jitter 0, then 1e-10, 1e-9, ..., 1e-4 times the
/// mean diagonal of K; throws NumericalError if all fail or K is not finite.
double cholesky_with_jitter(const Matrix& K, Matrix& L);

/// Kinv = (L L^T)^-1 (full symmetric) from a lower triangular L, by a recursive triangular
/// inverse and L^-T L^-1 product (the LAPACK trtri + lauum scheme): about 2n^3/3 flops instead of
/// the 2n^3 of solving against the identity.
void inverse_from_cholesky(const Matrix& L, Matrix& Kinv);

}  // namespace optimist
