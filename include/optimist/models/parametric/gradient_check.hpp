// Checks a ParametricModel's derivatives against central finite differences of its own values,
// as Ceres' GradientChecker does for cost functions. Use it once on every hand-written or
// autodiff model; GO-UCB runs check_model_gradients on any model it is given.
#pragma once

#include <string>

#include "optimist/core/rng.hpp"
#include "optimist/core/types.hpp"
#include "optimist/models/parametric/parametric_model.hpp"

namespace optimist {

/// Relative errors ||analytic - fd|| / max(||analytic||, ||fd||, 1e-12) of one check (0: exact).
struct GradientCheck {
  double w_error = 0.0;      ///< gradient_w against differences of value() in w
  double x_error = 0.0;      ///< gradient_x against differences of value() in x
  double mixed_error = 0.0;  ///< mixed_product's grad_x against differences of gradient_w(.) . v in x
  double value_error = 0.0;  ///< |gradient_w's, gradient_x's and mixed_product's returned f or s - the direct one| (relative)

  double max_error() const;
  /// e.g. "grad_w 2.1e-10, grad_x 3.4e-11, mixed 1.2e-9, values 0".
  std::string describe() const;
};

/// Compares the derivatives of model at (w, x) with central differences (step cbrt(machine
/// epsilon) * max(1, |t|) per coordinate t; relative accuracy ~1e-9 on smooth, O(1)-scaled
/// models), v being the direction of mixed_product. Costs 2 (d_w + d_x) value() and 2 d_x
/// gradient_w() calls. Sizes are checked by the model (InvalidArgument); a non-finite value
/// throws the model's NumericalError.
GradientCheck check_gradients(const ParametricModel& model, const Vector& w, const Vector& x, const Vector& v);

/// Runs check_gradients at `points` draws (w from model.sample_params, x uniform in [0,1]^d_x, v
/// normal) and throws InvalidArgument naming the model, the derivative, the error and the point
/// when any error exceeds tolerance. Draws where the model is not finite are skipped.
void check_model_gradients(const ParametricModel& model, Rng& rng, int points = 3, double tolerance = 1e-4);

}  // namespace optimist
