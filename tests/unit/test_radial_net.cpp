// RadialNet (GO-UCB's opening, fifteenth round): derivatives against finite differences for both
// profiles, near and away from the centres; go-ucb's opening_steps runs and keeps the default.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "optimist/algorithms/registry.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/models/parametric/gradient_check.hpp"
#include "optimist/models/parametric/radial_net.hpp"
#include "optimist/problems/problem.hpp"

using namespace optimist;

TEST(RadialNet, DerivativesMatchFiniteDifferences) {
  for (RadialProfile p : {RadialProfile::Gaussian, RadialProfile::Matern52}) {
    Rng rng(7);
    Matrix anchors = Matrix::Random(5, 4).cwiseAbs();
    const RadialNet m(anchors, 0.4, p, 0.05);
    EXPECT_EQ(m.num_params(), 4u * 6u + 1u);
    for (int i = 0; i < 6; ++i) {
      Vector w = m.sample_params(rng);
      for (Eigen::Index k = 5; k < w.size() - 1; k += 6) w[k] = rng.uniform(-2.0, 2.0);
      Vector x = i % 2 ? Vector(anchors.col(1) + 0.05 * Vector::Random(5)) : Vector((Vector::Random(5).array() * 0.5 + 0.5).matrix());
      Vector v(static_cast<Eigen::Index>(m.num_params()));
      for (Eigen::Index k = 0; k < v.size(); ++k) v[k] = rng.normal();
      const GradientCheck c = check_gradients(m, w, x, v);
      EXPECT_LT(c.max_error(), 1e-5) << c.describe();
    }
  }
}

// The fifteenth round's finding at test scale (docs/go-ucb.md): on 20-D Styblinski-Tang the
// additive family's first Phase II steps point outward and gain little; the radial opening's (the
// default since stop 56) gain more (seeds 0-99 there: step 9 gains 64 against 2).
TEST(GoUcbOpening, RadialUnitsGainMoreInTheFirstStepsOnStyblinskiTang) {
  const Problem p = make_problem("styblinski_tang", 20);
  const auto mean_gain = [&](nlohmann::json spec) {
    spec.update({{"name", "go-ucb"}, {"n_init", 8}, {"init", "uniform"}});
    double total = 0.0;
    for (std::uint64_t seed = 0; seed < 10; ++seed) {
      auto opt = make_optimizer(spec, p.space, p.direction, RunContext{.seed = seed, .horizon = 12});
      RunOptions ro;
      ro.budget = 12;
      optimize(*opt, p.objective(0.0, seed), ro);
      double phase_one = -1e300, after = -1e300;
      for (std::size_t i = 0; i < opt->history().size(); ++i) {
        if (i < 8) phase_one = std::max(phase_one, opt->history()[i].value);
        after = std::max(after, opt->history()[i].value);
      }
      total += after - phase_one;
    }
    return total / 10.0;
  };
  const double base = mean_gain({{"opening_steps", 0}});
  const double opening = mean_gain(nlohmann::json::object());  // "auto": 4 steps with the additive family
  EXPECT_GT(opening, base + 20.0) << "no opening " << base << ", opening " << opening;
}

// opening_bounds = data (docs/go-ucb.md, "The opening on the paper's tuning tasks"): the opening's
// steps stay within the evaluated points' range in every coordinate (the default since stop 81). On
// a slope rising to a corner, stop 56's (box) opening steps leave that range: the test would see a
// violation of it.
TEST(GoUcbOpening, DataBoundsKeepItsStepsInsideTheEvaluatedRange) {
  Space space;
  for (const char* name : {"a", "b", "c", "d", "e"}) space.add_continuous(name, 0.0, 1.0);
  Objective obj;
  obj.function = [](const Vector& x) { return x.sum() + 0.3 * std::sin(7.0 * x[0]); };
  int outside_box = 0;
  for (std::uint64_t seed = 0; seed < 4; ++seed) {
    for (const char* bounds : {"box", "data"}) {
      const nlohmann::json options = {{"name", "go-ucb"}, {"n_init", 6}, {"opening_bounds", bounds}};
      auto opt = make_optimizer(options, space, Direction::Maximize, {.seed = seed, .horizon = 10});
      RunOptions ro;
      ro.budget = 10;
      optimize(*opt, obj, ro);
      const auto& h = opt->history();
      ASSERT_EQ(h.size(), 10u);
      int outside = 0;
      for (std::size_t t = 6; t < 10; ++t)  // the four opening steps
        for (Eigen::Index j = 0; j < 5; ++j) {
          double lo = 1.0, hi = 0.0;
          for (std::size_t s = 0; s < t; ++s) {
            lo = std::min(lo, h[s].trial.unit[j]);
            hi = std::max(hi, h[s].trial.unit[j]);
          }
          outside += h[t].trial.unit[j] < lo - 1e-12 || h[t].trial.unit[j] > hi + 1e-12;
        }
      if (std::string(bounds) == "data")
        EXPECT_EQ(outside, 0) << "seed " << seed;
      else
        outside_box += outside;
    }
  }
  EXPECT_GT(outside_box, 0) << "the box opening never left the data's range: the check above sees nothing";
}
