// The outcome transform of the model-based algorithms: y_s = (y - center) / scale, fitted on the
// observed values. Shared by the GP (GP-BO, TuRBO, BKB's refits) and GO-UCB's network, so a
// plateau (a constant output) is handled once, the same way. An optional rank warp before it
// (OutputWarp) keeps a few catastrophic values from flattening the rest.
#pragma once

#include <cstdint>

#include "optimist/core/enum_names.hpp"
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

/// Mean and spread of a stream of values, updated one value at a time (Welford's update), with the
/// squared deviations kept relative to the largest magnitude seen: no cancellation when the mean
/// dwarfs the spread (1e8 +- 1e-3), no overflow for values of 1e200.
class RunningMoments {
 public:
  void add(double y);
  std::uint64_t count() const { return n_; }
  double mean() const { return mean_; }
  /// The largest |y| so far.
  double max_abs() const { return scale_; }
  /// sqrt(sum (y_i - mean)^2 / n); 0 for fewer than two values.
  double population_sd() const;

 private:
  std::uint64_t n_ = 0;
  double mean_ = 0.0;
  double scale_ = 0.0;       ///< the largest |y| so far
  double m2_scaled_ = 0.0;   ///< sum (y_i - mean)^2 / scale^2
};

/// A monotone warp of the outputs applied before standardization (larger is better).
enum class OutputWarp {
  None,      ///< the values as observed
  HalfRank,  ///< half_rank_warp: the worse half mapped to normal quantiles (Vizier's half-rank warping)
  Compress,  ///< compress_warp: the worse half's distances to the median halved, none beyond half_rank_warp's
  Power,     ///< power_warp: a Yeo-Johnson power transform fitted by maximum likelihood (HEBO's)
  // Rules of a model's user that choose one of the warps above at each step (GpBo); warp_outputs
  // refuses them.
  Alternate,  ///< Compress at two steps of three, None at the third (gp-*: docs/gp-bo.md, "Outliers")
  Auto,       ///< resolved by the algorithm (gp-ei: Alternate with 2-12 parameters, else None)
};

inline constexpr EnumNames<OutputWarp, 6> kOutputWarpNames{{{{OutputWarp::None, "none"},
                                                             {OutputWarp::HalfRank, "half-rank"},
                                                             {OutputWarp::Compress, "compress"},
                                                             {OutputWarp::Power, "power"},
                                                             {OutputWarp::Alternate, "alternate"},
                                                             {OutputWarp::Auto, "auto"}}}};

/// How a failed evaluation (an objective that raised, returned NaN, or timed out) enters a model.
enum class FailedPoints {
  Ignore,  ///< left out: the model never learns that the region fails, and may keep sampling it
  Worst,   ///< given the worst successful value observed so far (Vizier's treatment of infeasible trials)
};

inline constexpr EnumNames<FailedPoints, 2> kFailedPointsNames{{{{FailedPoints::Ignore, "ignore"}, {FailedPoints::Worst, "worst"}}}};

/// Vizier's half-rank warping (the output warper of OSS Vizier's GP-UCB-PE): the values at or
/// above the median m are kept; each value below it is replaced by m + sigma z, z the standard
/// normal quantile of its mid-rank (rank + 1/2) / n (ties share their average rank) and sigma the
/// root-mean-square distance of the upper half from m (the sd of a normal whose upper half that
/// is). The order of the values is kept; a value far below the others (a diverged training run, a
/// failed simulation given a huge loss) lands about 2-3 sigma below m instead of stretching the
/// scale so far that every other value looks equal. Fewer than 3 values, or an upper half equal
/// to m (a plateau), are returned unchanged.
Vector half_rank_warp(const Vector& y);

/// The worse half pulled towards the median: a value below the median m moves to
/// max(m + (y - m) / kCompressFactor, half_rank_warp(y)), the values at or above m are kept. Like
/// half_rank_warp it keeps catastrophic values from flattening the rest (none lands further from
/// m than that warp puts it), but it never spreads a worse half that is already narrow (half-rank
/// pushes a light tail, such as Ackley's plateau, out to normal quantiles), and it keeps the
/// worse half's own shape at half scale. Measured in docs/gp-bo.md, "Outliers". Fewer than 3
/// values, or a plateau, are returned unchanged.
Vector compress_warp(const Vector& y);
inline constexpr double kCompressFactor = 2.0;

/// The Yeo-Johnson transform (Yeo & Johnson, Biometrika 2000, eq. 2.1) of x with exponent lambda:
/// ((x + 1)^lambda - 1) / lambda for x >= 0, -((1 - x)^(2 - lambda) - 1) / (2 - lambda) for x < 0
/// (log1p at lambda = 0, resp. 2). Increasing in x for every lambda, and smooth at 0.
double yeo_johnson(double x, double lambda);

/// HEBO's output transform (Cowen-Rivers et al., JAIR 2022, sec. 4.1) in our orientation (larger
/// is better): the losses -y, standardized, are Yeo-Johnson transformed with the lambda in
/// [-2, 4] that maximizes the normal log-likelihood of the result (Yeo & Johnson, eq. 3.1; scikit-
/// learn's PowerTransformer), and negated back. A heavy tail of bad values is compressed smoothly
/// (lambda < 1) with no kink anywhere; near-normal values keep lambda near 1, nearly unchanged.
/// Increasing in y. Fewer than 3 values, or all equal, are returned unchanged.
Vector power_warp(const Vector& y);

/// y warped by the rule (None, HalfRank, Compress or Power; std::logic_error for Alternate and
/// Auto, which name no warp until resolved).
Vector warp_outputs(const Vector& y, OutputWarp warp);

}  // namespace optimist
