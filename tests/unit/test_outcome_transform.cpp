// The shared outcome transform (models/outcome_transform.hpp): both rules, and constant outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "optimist/core/normal_quantile.hpp"
#include "optimist/models/outcome_transform.hpp"

using namespace optimist;

TEST(Standardization, MeanAndSampleSd) {
  Vector y(4);
  y << 1.0, 2.0, 3.0, 6.0;
  const Standardization s = Standardization::fit(y);
  EXPECT_DOUBLE_EQ(s.center, 3.0);
  EXPECT_DOUBLE_EQ(s.scale, std::sqrt((4.0 + 1.0 + 0.0 + 9.0) / 3.0));
  const Vector ys = s.apply(y);
  EXPECT_NEAR(ys.mean(), 0.0, 1e-15);
  EXPECT_NEAR(std::sqrt(ys.squaredNorm() / 3.0), 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(s.restore(s.apply(6.0)), 6.0);
}

TEST(Standardization, MedianAndPopulationSdOfTheTurboReference) {
  Vector y(4);
  y << 1.0, 2.0, 3.0, 6.0;
  const Standardization s = Standardization::fit(y, OutputScaling::MedianPopulationSd);
  EXPECT_DOUBLE_EQ(s.center, 2.5);  // numpy.median of an even count
  EXPECT_DOUBLE_EQ(s.scale, std::sqrt(14.0 / 4.0));
  Vector tiny(3);
  tiny << 1.0, 1.0 + 1e-7, 1.0 - 1e-7;
  EXPECT_EQ(Standardization::fit(tiny, OutputScaling::MedianPopulationSd).scale, 1.0);  // sd < 1e-6: 1
}

TEST(Standardization, ConstantSingleOrEmptyOutputsAreOnlyCentred) {
  for (const OutputScaling rule : {OutputScaling::MeanSampleSd, OutputScaling::MedianPopulationSd}) {
    const Standardization plateau = Standardization::fit(Vector::Constant(5, 1e6), rule);
    EXPECT_EQ(plateau.center, 1e6);
    EXPECT_EQ(plateau.scale, 1.0);
    Vector roundoff = Vector::Constant(5, 1e6);
    roundoff[2] = std::nextafter(1e6, 2e6);  // a spread of round-off, not of the objective
    EXPECT_EQ(Standardization::fit(roundoff, rule).scale, 1.0);
    EXPECT_EQ(Standardization::fit(Vector::Constant(1, -3.0), rule).scale, 1.0);
    const Standardization none = Standardization::fit(Vector(), rule);
    EXPECT_EQ(none.center, 0.0);
    EXPECT_EQ(none.scale, 1.0);
  }
}

// Outputs of 1e200 once gave an infinite sd (taken as 1), so the GP got them raw; 1e-200 gave 0.
TEST(Standardization, HugeAndTinyOutputsAreScaledLikeOrdinaryOnes) {
  for (const double unit : {1e200, 1e-200, 1e300}) {
    Vector y(4);
    y << 1.0, 2.0, 3.0, 6.0;
    y *= unit;
    for (const OutputScaling rule : {OutputScaling::MeanSampleSd, OutputScaling::MedianPopulationSd}) {
      if (rule == OutputScaling::MedianPopulationSd && unit < 1.0) continue;  // turbo_1.py: any sd < 1e-6 is 1
      const Standardization s = Standardization::fit(y, rule);
      const Standardization plain = Standardization::fit(y / unit, rule);
      EXPECT_NEAR(s.center / unit, plain.center, 1e-14 * plain.center) << unit;
      EXPECT_NEAR(s.scale / unit, plain.scale, 1e-14 * plain.scale) << unit;
      EXPECT_TRUE(s.apply(y).allFinite());
    }
  }
}

TEST(RunningMoments, MatchesTheTwoPassFormulasWithoutCancellationOrOverflow) {
  RunningMoments empty;
  EXPECT_EQ(empty.population_sd(), 0.0);
  for (const auto& [offset, unit] : std::vector<std::pair<double, double>>{{0.0, 1.0}, {1e8, 1e-3}, {0.0, 1e200}, {5e300, 1e299}}) {
    RunningMoments m;
    for (const double v : {-1.0, 0.0, 1.0, 2.0}) m.add(offset + v * unit);
    EXPECT_EQ(m.count(), 4u);
    EXPECT_NEAR(m.mean(), offset + 0.5 * unit, 1e-12 * std::max(std::abs(offset), unit)) << offset << " " << unit;
    // Deviations -1.5, -0.5, 0.5, 1.5: population sd sqrt(5/4). At 1e8 +- 1e-3 the values
    // themselves carry a relative error of 1e-5 in their deviations (ulp(1e8) = 1.5e-8); the
    // sum-of-squares formula it replaced was off by more than the variance itself there.
    EXPECT_NEAR(m.population_sd() / unit, std::sqrt(1.25), 1e-4) << offset << " " << unit;
  }
}

// ---- half-rank warping ----

TEST(HalfRankWarp, KeepsTheUpperHalfAndTheOrder) {
  Vector y(7);
  y << 3.0, -1e6, 2.0, 5.0, 1.0, 4.0, 0.5;  // median 2
  const Vector w = half_rank_warp(y);
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    if (y[i] >= 2.0) {
      EXPECT_EQ(w[i], y[i]);
    }
    for (Eigen::Index j = 0; j < y.size(); ++j) {
      if (y[i] < y[j]) {
        EXPECT_LT(w[i], w[j]) << i << " " << j;
      }
    }
  }
  // sigma = RMS distance of {2, 3, 4, 5} from 2 = sqrt(14 / 4); the outlier has mid-rank 0:
  // 2 + sigma * Phi^-1(0.5 / 7) = 2 - 1.4652 sigma.
  const double sigma = std::sqrt(14.0 / 4.0);
  EXPECT_NEAR(w[1], 2.0 + sigma * normal_quantile(0.5 / 7.0), 1e-12);
  EXPECT_NEAR(w[1], 2.0 - 1.4652 * sigma, 1e-3);
}

TEST(HalfRankWarp, TiesShareOneValue) {
  Vector y(6);
  y << -7.0, 1.0, -7.0, 2.0, 3.0, 4.0;  // median 1.5; the two -7 have ranks 0 and 1
  const Vector w = half_rank_warp(y);
  EXPECT_EQ(w[0], w[2]);
  const double sigma = std::sqrt((0.25 + 2.25 + 6.25) / 3.0);
  EXPECT_NEAR(w[0], 1.5 + sigma * normal_quantile(1.0 / 6.0), 1e-12);
}

TEST(HalfRankWarp, LeavesPlateausAndTinySamplesAlone) {
  Vector plateau(5);
  plateau << 0.0, 0.0, 0.0, -3.0, 0.0;  // upper half all at the median
  EXPECT_EQ(half_rank_warp(plateau), plateau);
  Vector two(2);
  two << 1.0, -1e9;
  EXPECT_EQ(half_rank_warp(two), two);
  EXPECT_EQ(warp_outputs(two, OutputWarp::None), two);
}

// ---- compress warping ----

// The worse half pulled halfway to the median, never further out than half-rank puts it; the
// better half and the order kept; a narrow worse half (Ackley's plateau) is not spread out.
TEST(CompressWarp, PullsTheWorseHalfHalfwayAndNoFurtherThanHalfRank) {
  Vector y(7);
  y << 3.0, -1e6, 2.0, 5.0, 1.0, 4.0, 0.5;  // median 2
  const Vector w = compress_warp(y), h = half_rank_warp(y);
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    if (y[i] >= 2.0) {
      EXPECT_EQ(w[i], y[i]);
    } else {
      EXPECT_DOUBLE_EQ(w[i], std::max(h[i], 2.0 + (y[i] - 2.0) / kCompressFactor)) << i;
    }
    for (Eigen::Index j = 0; j < y.size(); ++j) {
      if (y[i] < y[j]) {
        EXPECT_LT(w[i], w[j]) << i << " " << j;
      }
    }
  }
  EXPECT_DOUBLE_EQ(w[1], h[1]);                    // the outlier: where half-rank puts it
  EXPECT_DOUBLE_EQ(w[4], 2.0 + (1.0 - 2.0) / 2.0);  // a near value: half its distance
  // A narrow worse half: half-rank spreads it to normal quantiles, compress only halves it.
  Vector narrow(6);
  narrow << 10.0, 9.9, 9.8, 0.0, 1.0, 2.0;  // median 5.9; the worse half 0, 1, 2
  const Vector c = compress_warp(narrow);
  const double m = 0.5 * (2.0 + 9.8);
  for (const Eigen::Index i : {3, 4, 5}) EXPECT_DOUBLE_EQ(c[i], std::max(half_rank_warp(narrow)[i], m + (narrow[i] - m) / 2));
  EXPECT_EQ(warp_outputs(y, OutputWarp::Compress), w);
}

// ---- power (Yeo-Johnson) warping ----

TEST(YeoJohnson, IdentityAtOneLogsAtTheEndsAndIncreasing) {
  for (const double x : {-3.0, -0.5, 0.0, 0.7, 4.0}) {
    EXPECT_NEAR(yeo_johnson(x, 1.0), x, 1e-15);
    if (x >= 0.0) {
      EXPECT_NEAR(yeo_johnson(x, 0.0), std::log1p(x), 1e-15);
    } else {
      EXPECT_NEAR(yeo_johnson(x, 2.0), -std::log1p(-x), 1e-15);
    }
  }
  for (const double lambda : {-2.0, -0.5, 0.0, 0.5, 1.5, 2.0, 4.0}) {
    double previous = -INFINITY;
    for (double x = -5.0; x <= 5.0; x += 0.25) {
      const double t = yeo_johnson(x, lambda);
      EXPECT_GT(t, previous) << lambda << " " << x;
      previous = t;
    }
    // Smooth at 0: slope 1 from both sides.
    EXPECT_NEAR((yeo_johnson(1e-7, lambda) - yeo_johnson(-1e-7, lambda)) / 2e-7, 1.0, 1e-6) << lambda;
  }
}

// The exponent is the maximum-likelihood one: scipy.stats.yeojohnson_normmax gives -0.48325 on the
// standardized losses below (log-normal quantiles), and power_warp is their transform, negated.
TEST(PowerWarp, MatchesScipysMaximumLikelihoodTransform) {
  const int n = 20;
  Vector loss(n);
  for (int i = 0; i < n; ++i) loss[i] = std::exp(normal_quantile((i + 0.5) / n));
  const Vector y = -loss;  // maximized: the lower tail is the heavy one
  const double mean = loss.mean(), sd = std::sqrt((loss.array() - mean).square().mean());
  const Vector w = power_warp(y);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(w[i], -yeo_johnson((loss[i] - mean) / sd, -0.4832496), 2e-4) << i;
  // The warped values are nearly symmetric: the tail that dominated the raw values is gone.
  const auto skewness = [](const Vector& v) {
    const Vector c = v.array() - v.mean();
    return c.array().cube().mean() / std::pow(c.array().square().mean(), 1.5);
  };
  EXPECT_LT(skewness(y), -1.5);
  EXPECT_LT(std::abs(skewness(w)), 0.3);  // 0.26, from below -1.5
  EXPECT_EQ(warp_outputs(y, OutputWarp::Power), w);
  // Fewer than 3 values, or all equal: unchanged.
  EXPECT_EQ(power_warp(Vector::Constant(5, 2.0)), Vector::Constant(5, 2.0));
  EXPECT_EQ(power_warp(y.head(2)), y.head(2));
}
