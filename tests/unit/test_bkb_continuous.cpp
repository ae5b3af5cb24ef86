// BKB's continuous mode: the score's analytic gradient, the chosen point against the best arm,
// and an optimum off the arm set found within tolerance.
#include <gtest/gtest.h>

#include <cmath>

#include "optimist/algorithms/bandit/bkb.hpp"
#include "optimist/core/rng.hpp"

using namespace optimist;

namespace {

const Vector kPeak = (Vector(2) << 0.37, 0.61).finished();
double smooth(const Vector& x) { return 1.0 - 4.0 * (x - kPeak).squaredNorm(); }

ArmBanditOptions continuous_options() {
  ArmBanditOptions o;
  o.mode = BkbMode::Continuous;
  o.lengthscale = 0.3;
  o.lambda = 1e-4;
  o.beta = BkbBeta::Fixed;
  o.beta_scale = 0.02;  // 2 posterior sds (sd = sqrt(lambda) sigma)
  o.qbar = 2.0;
  return o;
}

Matrix coarse_grid() {  // 3 x 3 cell centres: the closest arm is 0.17 from the peak
  Matrix X(2, 9);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) X.col(3 * i + j) << (2 * i + 1) / 6.0, (2 * j + 1) / 6.0;
  return X;
}

}  // namespace

TEST(BkbContinuous, ScoreGradientEqualsFiniteDifferences) {
  const Space space = Space::box(3, 0.0, 1.0);
  ArmBanditOptions o = continuous_options();
  o.beta_scale = 0.5;
  Bkb bkb(space, Direction::Maximize, o, Matrix::Constant(3, 1, 0.5));
  Rng rng(1);
  for (int t = 0; t < 12; ++t) bkb.tell(rng.uniform_vector(3), rng.normal());
  (void)bkb.ask();  // sets beta_t
  for (int k = 0; k < 20; ++k) {
    const Vector x = rng.uniform_vector(3);
    Vector g;
    bkb.score(x, &g);
    for (Eigen::Index i = 0; i < 3; ++i) {
      const double h = 1e-6;
      Vector xp = x, xm = x;
      xp[i] += h;
      xm[i] -= h;
      const double fd = (bkb.score(xp) - bkb.score(xm)) / (2 * h);
      EXPECT_NEAR(g[i], fd, 1e-5 * std::max(1.0, std::abs(fd))) << "k=" << k << " i=" << i;
    }
  }
}

TEST(BkbContinuous, ChosenPointScoresAtLeastTheBestArmAndScoreMatchesArmPosterior) {
  const Space space = Space::box(2, 0.0, 1.0);
  Bkb bkb(space, Direction::Maximize, continuous_options(), coarse_grid());
  Rng noise(2);
  for (int t = 0; t < 15; ++t) {
    Trial tr = bkb.ask();
    if (t > 0) {
      Vector mean, var;
      bkb.posterior(mean, var);
      double best_arm = -1e300;
      for (Eigen::Index a = 0; a < mean.size(); ++a) {  // the score is in standardized units
        const double u = (mean[a] - bkb.reward_offset()) / bkb.reward_scale() + bkb.last_beta() * std::sqrt(var[a]);
        EXPECT_NEAR(bkb.score(bkb.arms().col(a)), u, 1e-8 * std::max(1.0, std::abs(u)));
        best_arm = std::max(best_arm, u);
      }
      EXPECT_GE(bkb.score(tr.unit), best_arm - 1e-12) << "t=" << t;
    }
    bkb.tell(tr, smooth(tr.x) + 0.01 * noise.normal());
  }
}

TEST(BkbContinuous, FindsAnOptimumOffTheArmSet) {
  const Space space = Space::box(2, 0.0, 1.0);
  Bkb cont(space, Direction::Maximize, continuous_options(), coarse_grid());
  ArmBanditOptions arms_only = continuous_options();
  arms_only.mode = BkbMode::Arms;
  Bkb discrete(space, Direction::Maximize, arms_only, coarse_grid());
  Rng n1(3), n2(3);
  for (int t = 0; t < 40; ++t) {
    Trial a = cont.ask(), b = discrete.ask();
    cont.tell(a, smooth(a.x) + 0.01 * n1.normal());
    discrete.tell(b, smooth(b.x) + 0.01 * n2.normal());
  }
  const Vector xc = cont.recommend(), xd = discrete.recommend();
  EXPECT_LT((xc - kPeak).norm(), 0.05) << xc.transpose();
  EXPECT_GT((xd - kPeak).norm(), 0.15);  // the arm set alone cannot get closer than 0.17
  EXPECT_GT(cont.num_arms(), 9u);         // told points off the grid joined the arm set
}
