// The shared outcome transform (models/outcome_transform.hpp): both rules, and constant outputs.
#include <gtest/gtest.h>

#include <cmath>

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
