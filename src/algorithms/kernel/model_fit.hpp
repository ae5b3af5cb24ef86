// Hyperparameter fits shared by GP-BO and TuRBO: a thorough multi-start fit whenever the data has
// doubled since the last one, cheap warm-started refits after every other observation.
#pragma once

#include <cstddef>

#include "optimist/models/gp/gaussian_process.hpp"

namespace optimist::kernel_detail {

/// Options of the warm refits: one L-BFGS-B run of at most 10 iterations from the current
/// hyperparameters, no random starts. After one new point the optimum moves little: at d = 20 the
/// log posterior after 5 iterations is within 2e-3 (n = 72) and 1e-5 (n = 500) of the converged
/// value. Each value+gradient evaluation costs ~0.1 ms at n = 72 and ~14 ms at n = 500 (CPU, this
/// machine); 8 scored random starts would add ~100 ms at n = 500 and a second L-BFGS-B run from
/// one of them ~1 s.
inline GpFitOptions warm_fit_options() {
  GpFitOptions f;
  f.random_starts = 0;
  f.restarts = 1;
  f.max_iterations = 10;
  return f;
}

/// Fits gp's hyperparameters. Callers run a thorough fit at the first fit and whenever the data
/// has doubled since the last thorough one: a warm chain can stay in a local optimum found with few
/// points, and the doubling schedule escapes it at O(log n) extra fits while leaving the median
/// step cost that of a warm refit. thorough: the GP's default multi-start fit (8 scored Sobol starts
/// plus the current hyperparameters, two L-BFGS-B runs), run on a copy with default fit options
/// and installed in gp with the same data and standardization; otherwise gp.fit with gp's own
/// (warm) options.
inline void fit_hyperparameters(GaussianProcess& gp, bool thorough, Rng& rng) {
  if (!thorough) {
    gp.fit(rng);
    return;
  }
  GpOptions o = gp.options();
  o.fit = GpFitOptions{};
  GaussianProcess multi(gp.dim(), o);
  multi.set_data(gp.inputs(), gp.outputs());
  multi.set_hyperparameters(gp.hyperparameters());  // the warm start among the starts
  multi.fit(rng);
  GaussianProcess refitted(gp.dim(), gp.options());
  refitted.set_data(gp.inputs(), gp.outputs());  // the standardization of `multi`
  refitted.set_hyperparameters(multi.hyperparameters());
  gp = std::move(refitted);
}

}  // namespace optimist::kernel_detail
