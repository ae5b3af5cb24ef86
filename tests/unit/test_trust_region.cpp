// The shared trust region (bo/trust_region.hpp): TuRBO's Counters rule and GO-UCB's Steps rule.
#include <gtest/gtest.h>

#include "optimist/algorithms/bo/trust_region.hpp"

using namespace optimist;

TEST(TrustRegion, FailureToleranceOfTheReference) {
  EXPECT_EQ(TrustRegion::default_failure_tolerance(20, 1), 20u);
  EXPECT_EQ(TrustRegion::default_failure_tolerance(2, 1), 4u);
  EXPECT_EQ(TrustRegion::default_failure_tolerance(20, 4), 5u);
  EXPECT_EQ(TrustRegion::default_failure_tolerance(3, 8), 1u);
  EXPECT_EQ(TrustRegion::default_failure_tolerance(10, 3), 4u);  // ceil(10/3)
}

TEST(TrustRegion, ExpandsShrinksAndCollapses) {
  TrustRegion tr;
  tr.failure_tolerance = 4;
  EXPECT_EQ(tr.length, 0.8);
  EXPECT_EQ(tr.update(true), TrustRegion::Event::None);
  EXPECT_EQ(tr.update(true), TrustRegion::Event::None);
  EXPECT_EQ(tr.update(true), TrustRegion::Event::Expanded);
  EXPECT_DOUBLE_EQ(tr.length, 1.6);
  for (int k = 0; k < 3; ++k) tr.update(true);
  EXPECT_DOUBLE_EQ(tr.length, 1.6);  // capped at length_max
  // A success in between resets the failure count.
  for (int k = 0; k < 3; ++k) EXPECT_EQ(tr.update(false), TrustRegion::Event::None);
  tr.update(true);
  EXPECT_EQ(tr.failures, 0u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(tr.update(false), TrustRegion::Event::None);
  EXPECT_EQ(tr.update(false), TrustRegion::Event::Shrunk);
  EXPECT_DOUBLE_EQ(tr.length, 0.8);
  // 0.8 -> 0.4 -> ... -> 0.00625 < 2^-7: the 7th halving collapses.
  int shrinks = 0;
  TrustRegion::Event e = TrustRegion::Event::None;
  while (e != TrustRegion::Event::Collapsed) {
    e = tr.update(false);
    if (e == TrustRegion::Event::Shrunk) ++shrinks;
    ASSERT_LT(shrinks, 10);
  }
  EXPECT_EQ(shrinks, 6);
  EXPECT_LT(tr.length, tr.length_min);
  tr.restart();
  EXPECT_DOUBLE_EQ(tr.length, 0.8);
  EXPECT_EQ(tr.restarts, 1u);
  EXPECT_EQ(tr.successes + tr.failures, 0u);
}

TEST(TrustRegion, StepsRuleGrowsShrinksWithinItsBoundsAndNeverCollapses) {
  TrustRegion tr = TrustRegion::steps(0.2, 0.5);
  EXPECT_EQ(tr.rule, TrustRegion::Rule::Steps);
  EXPECT_DOUBLE_EQ(tr.length, 0.2);
  EXPECT_DOUBLE_EQ(tr.length_min, 0.05);
  EXPECT_EQ(tr.update(true), TrustRegion::Event::Expanded);
  EXPECT_DOUBLE_EQ(tr.length, 0.2 * 1.5);
  EXPECT_EQ(tr.update(true), TrustRegion::Event::Expanded);
  EXPECT_DOUBLE_EQ(tr.length, 0.45);
  tr.update(true);
  EXPECT_DOUBLE_EQ(tr.length, 0.5);  // capped at length_max
  // A success below half its predicted improvement keeps the size.
  EXPECT_EQ(tr.update(true, 0.49), TrustRegion::Event::None);
  EXPECT_DOUBLE_EQ(tr.length, 0.5);
  EXPECT_EQ(tr.update(false), TrustRegion::Event::Shrunk);
  EXPECT_DOUBLE_EQ(tr.length, 0.5 * 0.7);
  for (int k = 0; k < 50; ++k) EXPECT_NE(tr.update(false), TrustRegion::Event::Collapsed);
  EXPECT_DOUBLE_EQ(tr.length, 0.05);  // floored at length_init / 4
  tr.restart();
  EXPECT_DOUBLE_EQ(tr.length, 0.2);
  EXPECT_EQ(tr.restarts, 1u);
}

TEST(TrustRegion, CountersFactoryTakesTurbosOptions) {
  TrustRegion tr = TrustRegion::counters(0.5, 0.1, 1.0, 2, 3);
  EXPECT_EQ(tr.rule, TrustRegion::Rule::Counters);
  EXPECT_DOUBLE_EQ(tr.length, 0.5);
  tr.update(true);
  EXPECT_EQ(tr.update(true), TrustRegion::Event::Expanded);
  EXPECT_DOUBLE_EQ(tr.length, 1.0);
  tr.update(false);
  tr.update(false);
  EXPECT_EQ(tr.update(false), TrustRegion::Event::Shrunk);  // the ratio is not read by this rule
  EXPECT_DOUBLE_EQ(tr.length, 0.5);
}
