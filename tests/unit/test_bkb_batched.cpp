// BBKB (Calandriello et al., ICML 2020): batch boundaries follow the variance-sum rule, the
// tracked variance equals the sketched posterior, resparsification only at batch ends, regret
// close to BKB, batches through ask(q), replay, bad input.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include <cmath>

#include "optimist/algorithms/bandit/bbkb.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/core/rng.hpp"
#include "bandit_test_helpers.hpp"

using namespace optimist;
using optimist::test::arm_index;
using optimist::test::draw_from_gp;
using optimist::test::random_arms;

namespace {

ArmBanditOptions options() {
  ArmBanditOptions o;
  o.lengthscale = 0.2;
  o.lambda = 0.01;
  o.xi = 0.1;
  o.qbar = 2.0;
  o.beta = BkbBeta::Fixed;  // 2 posterior sds: exploits, so variances shrink and batches grow
  o.beta_scale = 0.2;
  return optimist::test::paper_estimator(o);
}

}  // namespace

TEST(Bbkb, BatchesEndExactlyWhenTheSummedBatchStartVarianceExceedsTheRatio) {
  const Space space = Space::box(2, 0.0, 1.0);
  const Matrix arms = random_arms(2, 300, 1);
  ArmBanditOptions o = options();
  o.batch_ratio = 3.0;
  Bbkb bbkb(space, Direction::Maximize, o, arms, {.noisy = true});  // noisy pulls: arms pulled again
  const Vector f = draw_from_gp(bbkb.kernel(), arms, 2);
  Rng noise(3);
  Vector var_fb;  // the batch-start posterior variance, snapshot when a batch starts
  std::vector<std::size_t> dict_fb;
  double sum = 0;
  std::size_t largest_batch = 0, batches_seen = 0;
  for (int t = 0; t < 200; ++t) {
    Trial tr = bbkb.ask();
    const Eigen::Index a = arm_index(arms, tr.unit);
    bbkb.tell(tr, f[a] + 0.1 * noise.normal());
    const bool new_batch = bbkb.batch_starts().size() > batches_seen;
    if (t > 0) {
      sum += var_fb[a];
      ASSERT_EQ(new_batch, 1.0 + sum > o.batch_ratio) << "t=" << t << " sum=" << sum;
      if (!new_batch) {
        ASSERT_EQ(bbkb.dictionary(), dict_fb) << "resparsified inside a batch at t=" << t;
      }
    }
    Vector mean, var;
    bbkb.reference_posterior(mean, var);  // eq. (4) from scratch: current dictionary, every told point
    ASSERT_LT(((bbkb.tracked_variance() - var).array().abs() / var.array().max(1.0)).maxCoeff(), 1e-7) << t;
    if (new_batch) {
      if (batches_seen > 0)
        largest_batch = std::max<std::size_t>(largest_batch, bbkb.batch_starts().back() -
                                                                 bbkb.batch_starts()[bbkb.batch_starts().size() - 2]);
      batches_seen = bbkb.batch_starts().size();
      var_fb = var;
      dict_fb = bbkb.dictionary();
      sum = 0;
    }
  }
  RecordProperty("largest_batch", static_cast<int>(largest_batch));
  RecordProperty("batches", static_cast<int>(batches_seen));
  EXPECT_GE(largest_batch, 10u);  // measured: 54
  EXPECT_LT(batches_seen, 50u);   // measured: 14 batches for 200 steps
}

TEST(Bbkb, RegretCloseToBkbOnGpSample) {
  const Space space = Space::box(2, 0.0, 1.0);
  double r_bbkb = 0, r_bkb = 0;
  for (int seed = 0; seed < 3; ++seed) {
    const Matrix arms = random_arms(2, 300, 40 + seed);
    const ArmBanditOptions o = options();
    const RunContext run{.seed = static_cast<std::uint64_t>(seed)};
    Bbkb bbkb(space, Direction::Maximize, o, arms, run);
    Bkb bkb(space, Direction::Maximize, o, arms, run);
    const Vector f = draw_from_gp(bkb.kernel(), arms, 50 + seed);
    const double fmax = f.maxCoeff();
    Rng n1(seed), n2(seed);
    for (int t = 0; t < 150; ++t) {
      Trial a = bbkb.ask(), b = bkb.ask();
      const double fa = f[arm_index(arms, a.unit)], fb = f[arm_index(arms, b.unit)];
      r_bbkb += fmax - fa;
      r_bkb += fmax - fb;
      bbkb.tell(a, fa + 0.1 * n1.normal());
      bkb.tell(b, fb + 0.1 * n2.normal());
    }
  }
  RecordProperty("regret_bbkb", std::to_string(r_bbkb));
  RecordProperty("regret_bkb", std::to_string(r_bkb));
  EXPECT_LE(r_bbkb, 1.5 * r_bkb) << "BBKB " << r_bbkb << " BKB " << r_bkb;
}

TEST(Bbkb, AskQReturnsQPointsAndReplayRebuildsTheSameBatches) {
  auto a = make_optimizer({{"name", "bbkb"}, {"arms", 256}}, Space::box(3, 0, 1), Direction::Maximize, RunContext{.seed = 4});
  for (int t = 0; t < 12; ++t) {
    const auto batch = a->ask(4);
    if (t > 0) {
      ASSERT_EQ(batch.size(), 4u);
    }
    for (const auto& tr : batch) a->tell(tr, -tr.x.squaredNorm());
  }
  auto b = make_optimizer({{"name", "bbkb"}, {"arms", 256}}, Space::box(3, 0, 1), Direction::Maximize, RunContext{.seed = 4});
  for (const auto& obs : a->history()) b->tell(obs.trial.x, obs.value);
  EXPECT_EQ(a->diagnostics(), b->diagnostics());
  EXPECT_EQ(a->ask().x, b->ask().x);
}

TEST(Bbkb, BadBatchRatioNamesTheValue) {
  const Space space = Space::box(2, 0.0, 1.0);
  try {
    make_optimizer({{"name", "bbkb"}, {"batch_ratio", 1.0}}, space);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("bbkb: option 'batch_ratio' must be > 1, got 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_optimizer({{"name", "bbkb"}, {"qbar", -1.0}}, space), InvalidArgument);
  EXPECT_THROW(make_optimizer({{"name", "bbkb"}, {"mode", "continuous"}}, space), InvalidArgument);
}
