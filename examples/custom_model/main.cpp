// A materials scientist's own parametric family in GO-UCB: the Arrhenius yield model of
// arrhenius_model.hpp, written once as a template, wrapped as an optimist ParametricModel with
// automatic differentiation, checked against finite differences, then used by GO-UCB to find the
// best (temperature, pressure) of a simulated reactor in 15 noisy experiments. Exit status 1 if a
// check fails (run by ctest as example_custom_model).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "arrhenius_model.hpp"
#include "optimist/algorithms/parametric/go_ucb.hpp"
#include "optimist/core/driver.hpp"
#include "optimist/algorithms/registry.hpp"
#include "optimist/models/parametric/autodiff_model.hpp"
#include "optimist/models/parametric/gradient_check.hpp"

using optimist::Vector;

namespace {

// The simulated reactor: the model's own law at "true" parameters unknown to the optimizer
// (yield 1.5 at 500 K, Ea = 0.45 eV, order 0.5, K = 1 / bar), measured with noise sd 0.3 (2% of
// the best yield, 14.8).
Vector true_params() {
  Vector w(4);
  w << std::log(1.5), 0.45, 0.5, 0.0;
  return w;
}

// Unit-cube coordinates of a physical (T, p): T linear, p log-scaled, as the Space below maps them.
Vector unit_point(double temp, double p) {
  Vector u(2);
  u << (temp - arrhenius::kTMin) / (arrhenius::kTMax - arrhenius::kTMin),
      std::log(p / arrhenius::kPMin) / std::log(arrhenius::kPMax / arrhenius::kPMin);
  return u;
}

}  // namespace

int main() {
  // A prior over plausible kinetics for the regression oracle's starting points.
  auto sampler = [](optimist::Rng& rng) {
    Vector w(4);
    w << rng.normal(), rng.uniform(0.2, 1.2), rng.uniform(0.3, 1.5), rng.normal();
    return w;
  };
  // NestedAutodiff: exact mixed products (the template avoids pow with a T exponent).
  const auto model = std::shared_ptr<const optimist::ParametricModel>(optimist::make_autodiff_model<optimist::MixedProduct::NestedAutodiff>(
      arrhenius::YieldModel{}, arrhenius::YieldModel::kInputs, arrhenius::YieldModel::kParams, sampler,
      "arrhenius_yield"));
  std::cout << model->describe() << "\n";

  // 1. Derivatives against finite differences (GO-UCB repeats this check when it gets the model).
  bool ok = true;
  optimist::Rng rng(7);
  const Vector w = arrhenius::reference_params();
  for (int k = 0; k < 4; ++k) {
    const Vector x = rng.uniform_vector(2), v = rng.normal_vector(4);
    Vector gw;
    const double y = model->gradient_w(w, x, gw);
    const optimist::GradientCheck c = optimist::check_gradients(*model, w, x, v);
    std::printf("T = %5.1f K, p = %6.3f bar: yield %.6f, grad_w = [% .4e % .4e % .4e % .4e]\n",
                arrhenius::temperature(x[0]), arrhenius::pressure(x[1]), y, gw[0], gw[1], gw[2], gw[3]);
    std::printf("  relative errors vs finite differences: %s\n", c.describe().c_str());
    ok = ok && c.max_error() < 1e-6;
  }

  // All points at once: the n x d_w Jacobian GO-UCB's Sigma_t is built from.
  optimist::Matrix X(2, 5);
  for (Eigen::Index i = 0; i < X.cols(); ++i) X.col(i) = rng.uniform_vector(2);
  const optimist::Matrix J = model->jacobian_w(w, X);
  std::cout << "jacobian_w at 5 points (rows = points; columns d/d log A, d/d Ea, d/d n, d/d log K):\n" << J << "\n";


  // 2. GO-UCB with this model on the simulated reactor: T in [300, 700] K, p in [0.1, 10] bar
  //    (log scale). The best condition is T = 700 K, p = n / (K (1 - n)) = 1 bar.
  optimist::Space space;
  space.add_continuous("temperature_K", arrhenius::kTMin, arrhenius::kTMax)
      .add_continuous("pressure_bar", arrhenius::kPMin, arrhenius::kPMax, /*log_scale=*/true);
  const Vector w_true = true_params();
  const auto truth = [&](const Vector& tp) { return model->value(w_true, unit_point(tp[0], tp[1])); };
  const double best_possible = truth((Vector(2) << 700.0, 1.0).finished());
  constexpr int kBudget = 15;
  constexpr int kRuns = 5;
  // One run of kBudget noisy experiments (noise seeded per run); returns the run's summary.
  const auto run_reactor = [&](optimist::Optimizer& optimizer, std::uint64_t seed) {
    optimist::Rng noise(100 + seed);
    optimist::Objective reactor;
    reactor.function = [&](const Vector& tp) { return truth(tp) + 0.3 * noise.normal(); };
    reactor.noise_free = truth;
    reactor.optimum = best_possible;
    reactor.name = "reactor";
    optimist::RunOptions run;
    run.budget = kBudget;
    return optimize(optimizer, reactor, run);
  };
  int solved = 0;
  double physics_regret = 0.0;
  for (std::uint64_t seed = 1; seed <= kRuns; ++seed) {
    // The run's seed and horizon (GO-UCB plans Phase I with the number of evaluations).
    const optimist::RunContext run{.seed = seed, .horizon = kBudget};
    optimist::GoUcb go_ucb(space, optimist::Direction::Maximize, optimist::GoUcbOptions{}, run, model);
    const optimist::RunSummary s = run_reactor(go_ucb, seed);
    const Vector& rec = *s.recommended_x;
    const Vector w_fit = go_ucb.current_parameters();
    std::printf("seed %d: recommended T = %5.1f K, p = %5.2f bar, yield %.4f of %.4f (regret %.4f); fitted Ea = %.3f eV, n = %.2f\n",
                static_cast<int>(seed), rec[0], rec[1], *s.recommended_f, best_possible, *s.simple_regret, w_fit[1], w_fit[2]);
    solved += *s.simple_regret <= 0.01 * best_possible;
    physics_regret += *s.simple_regret / kRuns;
  }
  std::printf("GO-UCB with the physics model: within 1%% of the best yield in %d of %d runs of %d experiments\n", solved,
              kRuns, kBudget);
  ok = ok && solved >= 4;

  // The same runs with black-box models, for comparison (mean simple regret of the recommendation).
  std::printf("mean simple regret after %d experiments: go-ucb with the physics model %.4f", kBudget, physics_regret);
  for (const char* name : {"go-ucb", "gp-ei", "random"}) {
    double regret = 0.0;
    for (std::uint64_t seed = 1; seed <= kRuns; ++seed) {
      const auto optimizer = optimist::make_optimizer({{"name", name}}, space, optimist::Direction::Maximize,
                                                      {.seed = seed, .horizon = kBudget});
      regret += *run_reactor(*optimizer, seed).simple_regret / kRuns;
    }
    std::printf(", %s%s %.4f", name, std::string(name) == "go-ucb" ? " (25-unit MLP)" : "", regret);
  }
  std::printf("\n");

  std::cout << (ok ? "all checks passed" : "CHECK FAILED") << "\n";
  return ok ? 0 : 1;
}
