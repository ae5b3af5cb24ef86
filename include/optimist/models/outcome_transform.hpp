// The outcome transform of the model-based algorithms: y_s = (y - center) / scale, fitted on the
// observed values. Shared by the GP (GP-BO, TuRBO, BKB's refits) and GO-UCB's network, so a
// plateau (a constant output) is handled once, the same way.
#pragma once

#include "optimist/core/types.hpp"

namespace optimist {

/// How outputs are standardized.
enum class OutputScaling {
  MeanSampleSd,        ///< sample mean, sample sd (n - 1): BoTorch's Standardize
  MedianPopulationSd,  ///< median, population sd (n), sd < 1e-6 taken as 1: the TuRBO reference (turbo_1.py)
};

struct Standardization {
  double center = 0.0;
  double scale = 1.0;

  /// Fitted on y by the rule. A constant output (or a single one, or none) is only centred:
  /// its spread below 1e-12 max|y| is round-off, and dividing by it would blow it up.
  static Standardization fit(const Vector& y, OutputScaling rule = OutputScaling::MeanSampleSd);

  double apply(double y) const { return (y - center) / scale; }
  Vector apply(const Vector& y) const { return (y.array() - center) / scale; }
  double restore(double y_standardized) const { return center + scale * y_standardized; }
};

}  // namespace optimist
