// Posterior sample paths of a GP by pathwise conditioning, for Thompson sampling over many
// candidates (TuRBO) at O(m) cost in the candidates.
#pragma once

#include <cstddef>

#include "optimist/core/rng.hpp"
#include "optimist/models/gp/gaussian_process.hpp"

namespace optimist {

/// Thompson samples of f at the columns of C (d x m): an m x q matrix whose columns are q
/// independent posterior draws, by pathwise conditioning (Wilson et al., ICML 2020, eq. 13):
/// f(.) = prior(.) + k(., X) (K + s2 I)^-1 (y - prior(X) - eps), the prior drawn with n_features
/// random Fourier features of the GP's kernel (Rahimi & Recht 2007; Matern spectral densities are
/// Student-t). Values in the GP's original output units.
Matrix pathwise_thompson_samples(const GaussianProcess& gp, const Matrix& C, std::size_t q, std::size_t n_features, Rng& rng);

}  // namespace optimist
