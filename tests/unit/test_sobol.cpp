#include <gtest/gtest.h>

#include <boost/random/sobol.hpp>

#include <set>

#include "optimist/core/rng.hpp"
#include "optimist/core/sobol.hpp"

using namespace optimist;

TEST(Sobol, UnscrambledMatchesBoostReference) {
  const std::size_t d = 12;
  SobolSequence ours(d, false, 0);
  boost::random::sobol reference(d);  // 64-bit outputs
  // Boost's engine starts at the sequence's second point (index 1); index 0 is the origin.
  EXPECT_EQ(ours.point(0), Vector::Zero(d));
  for (std::uint64_t k = 1; k < 300; ++k) {
    const Vector x = ours.point(k);
    for (std::size_t j = 0; j < d; ++j) {
      const double expected = static_cast<double>(reference()) * 0x1.0p-64;
      ASSERT_DOUBLE_EQ(x[static_cast<Eigen::Index>(j)], expected) << "point " << k << " dim " << j;
    }
  }
}

TEST(Sobol, ScrambledKeepsOneDimensionalStratification) {
  // Each 1-D projection of the first 2^m points of a (scrambled) Sobol net has one point per
  // interval [i/2^m, (i+1)/2^m).
  const std::size_t d = 40;
  const int m = 7;
  for (std::uint64_t seed : {1u, 2u, 99u}) {
    SobolSequence s(d, true, seed);
    Matrix pts = s.points(0, 1u << m);
    for (Eigen::Index j = 0; j < pts.rows(); ++j) {
      std::set<int> cells;
      for (Eigen::Index k = 0; k < pts.cols(); ++k) {
        ASSERT_GE(pts(j, k), 0.0);
        ASSERT_LT(pts(j, k), 1.0);
        cells.insert(static_cast<int>(pts(j, k) * (1 << m)));
      }
      EXPECT_EQ(cells.size(), 1u << m) << "seed " << seed << " dim " << j;
    }
  }
}

TEST(Sobol, ScramblingDependsOnSeedOnly) {
  SobolSequence a(5, true, 7), b(5, true, 7), c(5, true, 8);
  EXPECT_EQ(a.point(13), b.point(13));
  EXPECT_NE(a.point(13), c.point(13));
  EXPECT_NE(a.point(0), Vector::Zero(5));
}

TEST(Sobol, LowDiscrepancyBeatsRandomOnAnIntegral) {
  // Mean of prod_j (1 + (x_j - 1/2)) over [0,1]^d is 1; Sobol's error is far below Monte Carlo's.
  const std::size_t d = 6, n = 4096;
  SobolSequence s(d, true, 3);
  Rng rng(3);
  double sobol_sum = 0, random_sum = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Vector x = s.point(k), r = rng.uniform_vector(d);
    sobol_sum += (x.array() + 0.5).prod();
    random_sum += (r.array() + 0.5).prod();
  }
  const double sobol_err = std::abs(sobol_sum / n - 1.0), random_err = std::abs(random_sum / n - 1.0);
  EXPECT_LT(sobol_err, 2e-3);
  EXPECT_LT(sobol_err, random_err);
}

TEST(Sobol, RejectsBadDimension) {
  EXPECT_THROW(SobolSequence(0, true, 0), InvalidArgument);
  EXPECT_THROW(SobolSequence(SobolSequence::max_dimension() + 1, true, 0), InvalidArgument);
}
