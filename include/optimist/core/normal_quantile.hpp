// The standard normal quantile, shared by the summary statistics (intervals) and the models'
// outcome transforms (rank warping).
#pragma once

namespace optimist {

/// The p-quantile of the standard normal distribution, p in (0, 1) (Acklam's rational
/// approximation refined by one Halley step: relative error below 1e-15). Throws InvalidArgument
/// for p outside (0, 1).
double normal_quantile(double p);

}  // namespace optimist
