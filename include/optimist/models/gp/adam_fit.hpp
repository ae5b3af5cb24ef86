// GPyTorch-style hyperparameter fit, as in TuRBO's reference code (gp.py: train_gp): Adam on the
// raw parameters of interval constraints, theta = lo + (hi - lo) sigmoid(raw), for the
// lengthscales, outputscale and noise (the GP's bounds), the constant mean unconstrained; a fixed
// number of steps on the loss -log p(y_s | theta) / n (plus the log priors if the GP uses them).
// Kept to reproduce that recipe; GaussianProcess::fit (L-BFGS-B to convergence) is the default.
#pragma once

#include "optimist/models/gp/gaussian_process.hpp"

namespace optimist {

struct AdamFitOptions {
  int steps = 50;               ///< reference: n_training_steps = 50
  double learning_rate = 0.1;   ///< reference: torch.optim.Adam(lr=0.1)
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;  // torch defaults
};

/// Runs Adam from gp's current hyperparameters (clipped strictly inside the bounds) and installs
/// the last iterate (as torch does, not the best seen). A step whose objective is not finite
/// leaves the hyperparameters where they were and stops. No-op without data.
void fit_hyperparameters_adam(GaussianProcess& gp, const AdamFitOptions& options = {});

}  // namespace optimist
