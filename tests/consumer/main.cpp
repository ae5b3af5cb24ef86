// Uses the installed optimist package: 20 ask/tell steps of random search on a quadratic, then the
// one-call API (optimist::minimize) with the default algorithm.
#include <optimist/algorithms/registry.hpp>
#include <optimist/experiment/minimize.hpp>
#include <optimist/core/space.hpp>

#include <cmath>
#include <iostream>

#include "physics.hpp"

int main() {
  const optimist::Space space = optimist::Space::box(2, -1.0, 1.0);
  const nlohmann::json spec = {{"name", "random"}};
  auto optimizer = optimist::make_optimizer(spec, space, optimist::Direction::Minimize, {.seed = 1});

  for (int i = 0; i < 20; ++i) {
    const optimist::Trial trial = optimizer->ask();
    optimizer->tell(trial, trial.x.squaredNorm());  // minimum 0 at the origin
  }

  const optimist::Observation* best = optimizer->best();
  if (best == nullptr || optimizer->history().size() != 20) {
    std::cerr << "consumer: expected 20 observations and a best one\n";
    return 1;
  }
  const double value = best->value;
  std::cout << "optimist " << optimist::version() << ": best value after 20 evaluations = " << value
            << " at (" << best->trial.x.transpose() << ")\n";
  // Sane: the true value at the best point, inside [0, 2] (the quadratic's range on the box);
  // 20 uniform points all outside the unit disk would have probability ~5e-14.
  const bool sane = std::isfinite(value) && value >= 0.0 && value < 1.0 &&
                    std::abs(value - best->trial.x.squaredNorm()) < 1e-12;
  if (!sane) return 1;

  // Vectors allocated by the program's own Eigen code and freed by optimist's, and the reverse.
  const optimist::Vector from_physics = start_point(2);
  const optimist::Vector unit = space.to_unit(from_physics);
  if (std::abs(total(unit) - 1.25) > 1e-12 || std::abs(total(space.to_user(unit)) - 0.5) > 1e-12) {
    std::cerr << "consumer: unit coordinates of (0.25, 0.25) on [-1, 1]^2 are not (0.625, 0.625)\n";
    return 1;
  }

  const optimist::MinimizeResult r =
      optimist::minimize([](const optimist::Vector& x) { return (x.array() - 0.25).square().sum(); }, space, {.budget = 25, .seed = 1});
  std::cout << "minimize: " << r.decisions.value("algorithm", std::string("?")) << ", best value " << *r.best_y << "\n";
  return r.ok() && r.evaluations.size() == 25 && *r.best_y < 0.05 ? 0 : 1;
}
